// matmul and its six linear forms on the GPU (constructs/array/matmul.ts): one tiled kernel each.
import { gemmKernel } from '../kernels';
import { type Arr, type LoweringOps, NotOnGpu, type Val, asArr, hostLength, type ConstructLowerings } from '../lowering';

/**
 * A product op(X)·op(Y) of the primal's sizes n, k, m: `dims` names the result's rows, the
 * summed size and the columns among them ('nkm': n×m over k; 'nmk': n×k over m; 'knm': k×m
 * over n). One tiled kernel (kernels.ts, gemmKernel).
 */
function gemm(L: LoweringOps, op: string, x: Arr, tX: boolean, y: Arr, tY: boolean, n: Val, k: Val, m: Val, dims: 'nkm' | 'nmk' | 'knm'): Arr {
  const size = { n: hostLength(n, `the rows of ${op}`), k: hostLength(k, `the inner size of ${op}`), m: hostLength(m, `the columns of ${op}`) };
  const [R, P, Q] = [...dims].map((d) => size[d as 'n' | 'k' | 'm']);
  const len = L.reg({ op: 'mul', args: [R, Q] });
  const out = L.newArray(len);
  const kernel = gemmKernel(tX, tY, { R: L.countSlot(R), P: L.countSlot(P), Q: L.countSlot(Q), lenX: L.countSlot(x.len), lenY: L.countSlot(y.len) });
  if (L.guarded.length > 0) throw new NotOnGpu(`${op} inside a branch of a test on a device value`);
  L.device((kk) => ({ op: 'tiles', kernel: kk, rows: R, cols: Q, arrays: [x.id, y.id, out] }), kernel);
  return { kind: 'arr', id: out, len, elemBound: undefined };
}

export const matmulWgsl = {
  matmul: (L, _e, [a, b, n, k, m]) => [gemm(L, 'matmul', asArr(a, 'a matrix product'), false, asArr(b, 'a matrix product'), false, n, k, m, 'nkm')],
  // lmatmul_xy(w, n, k, m ; u): role x's matrix u to role y's, w fixed (constructs/array/matmul.ts).
  lmatmul_ac: (L, _e, [w, n, k, m, u]) => [gemm(L, 'lmatmul_ac', asArr(u, 'a matrix product'), false, asArr(w, 'a matrix product'), false, n, k, m, 'nkm')],
  lmatmul_bc: (L, _e, [w, n, k, m, u]) => [gemm(L, 'lmatmul_bc', asArr(w, 'a matrix product'), false, asArr(u, 'a matrix product'), false, n, k, m, 'nkm')],
  lmatmul_ca: (L, _e, [w, n, k, m, u]) => [gemm(L, 'lmatmul_ca', asArr(u, 'a matrix product'), false, asArr(w, 'a matrix product'), true, n, k, m, 'nmk')],
  lmatmul_ba: (L, _e, [w, n, k, m, u]) => [gemm(L, 'lmatmul_ba', asArr(w, 'a matrix product'), false, asArr(u, 'a matrix product'), true, n, k, m, 'nmk')],
  lmatmul_cb: (L, _e, [w, n, k, m, u]) => [gemm(L, 'lmatmul_cb', asArr(w, 'a matrix product'), true, asArr(u, 'a matrix product'), false, n, k, m, 'knm')],
  lmatmul_ab: (L, _e, [w, n, k, m, u]) => [gemm(L, 'lmatmul_ab', asArr(u, 'a matrix product'), true, asArr(w, 'a matrix product'), false, n, k, m, 'knm')],
} satisfies ConstructLowerings;
