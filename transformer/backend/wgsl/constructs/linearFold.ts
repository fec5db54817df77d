// The linear recurrences on the GPU (constructs/array/linearFold.ts): a scan of affine maps.
import type { Combine } from '../kernels';
import { type Typed, num } from '../prims';
import { type Arr, type Bound, type ConstructLowering, type KernelArrays, type Local, type LoweringOps, NotOnGpu, type Num, asArr, asNum, hostLength, type ConstructLowerings } from '../lowering';
import { scanWith } from './fold';
import { countAt } from '../indices';

/** The composition of affine maps y ↦ a·y + b, earlier on the left: (a0, a1) then (b0, b1). */
const AFFINE: Combine = { k: 2, lines: [], results: ['(b0 * a0)', '(b0 * a1 + b1)'] };

/**
 * The linear recurrences of scan and reduce (constructs/array/linearFold.ts), erased, on one
 * accumulator: each step y ↦ B_i(y, ẋ_i) is affine in the carried value, so its coefficients
 * (a_i = B_i(1, 0), b_i = B_i(0, ẋ_i)) come from one map kernel, the composition of the steps is a
 * scan of affine maps (the parallel form of the recurrence), and the transposes run the same over
 * the reversed index. More accumulators (k × k coefficients) are not on the GPU yet.
 */
function recurrenceLowering(forward: boolean, collect: boolean): ConstructLowering {
  return (L, e, nl, lin) => {
    if (lin.length > 0) throw new NotOnGpu(`a linear ${e.op} with linear operands`);
    const body = e.bodies[0];
    const results = body.body.result.tag === 'ret' ? body.body.result.nl.length + body.body.result.lin.length : -1;
    const k = forward ? results : results / 2;
    if (k !== 1) throw new NotOnGpu(`the linear recurrence '${e.op}' on ${k} accumulators (one is on the GPU)`);
    const n = hostLength(nl[0], `a ${e.op} over a length`);
    const linear = forward ? 2 : 1;
    const residuals = nl.slice(1, nl.length - linear).map((v) => asArr(v, `a residual of ${e.op}`));
    const lastOps = nl.slice(nl.length - linear);
    // Element `index` (WGSL u32) of an array operand, 0 past its end (sparse tangents).
    const elem = (arrays: KernelArrays, a: Arr, index: string): Typed & { bound: Bound } => ({
      code: `select(0.0, ${arrays.bind(a.id)}[${index}], ${index} < ${countAt(L.countSlot(a.len))})`,
      type: 'f32',
      bound: undefined,
    });
    const lit = (code: string): Typed & { bound: Bound } => ({ code, type: 'f32', bound: undefined });
    const evalBody = (arrays: KernelArrays, index: string, rest: Local[]) => {
      const sParams = residuals.map((r) => elem(arrays, r, index));
      return L.body(body, [...sParams, ...rest]);
    };
    const a = L.newArray(n);
    const b = L.newArray(n);
    const count = countAt(L.countSlot(n));
    if (forward) {
      const c0 = asNum(lastOps[0], `the start of ${e.op}`);
      const xdot = asArr(lastOps[1], `the tangents of ${e.op}`);
      L.elementwise(n, (arrays) => {
        const one = evalBody(arrays, 'i', [lit('1.0'), lit('0.0')]);
        const inc = evalBody(arrays, 'i', [lit('0.0'), elem(arrays, xdot, 'i')]);
        return [...one.lines, ...inc.lines, `${arrays.bind(a)}[i] = ${num(one.results[0] as Typed)};`, `${arrays.bind(b)}[i] = ${num(inc.results[0] as Typed)};`];
      });
      const aArr: Arr = { kind: 'arr', id: a, len: n, elemBound: undefined };
      const bArr: Arr = { kind: 'arr', id: b, len: n, elemBound: undefined };
      const [, ys] = scanWith(L, AFFINE, { lines: [], results: AFFINE.results }, ['1.0', `S[${L.slotOf(c0)}]`], [aArr, bArr], n);
      if (collect) return [ys];
      return [lastOf(L, ys, n, c0)];
    }
    // Backward: u_i, the cotangent entering step i, is ȳ_i + a_{i+1}·u_{i+1} (lrscan; u_{n−1} = ȳ_{n−1})
    // or a_{i+1}·u_{i+1} from u_{n−1} = ȳ (lrfold): a forward affine scan over j = n − 1 − i.
    const ybar = lastOps[0];
    const start = collect ? L.hostNum(L.lit(0)) : asNum(ybar, `the cotangent of ${e.op}`);
    L.elementwise(n, (arrays) => {
      const next = `(${count} - i)`; // i + 1 in the original order
      const one = evalBody(arrays, next, [lit('1.0')]);
      const add = collect ? `${elem(arrays, asArr(ybar, `the cotangents of ${e.op}`), `(${count} - 1u - i)`).code}` : '0.0';
      return [...one.lines, `${arrays.bind(a)}[i] = select(${num(one.results[0] as Typed)}, 1.0, i == 0u);`, `${arrays.bind(b)}[i] = ${add};`];
    });
    const aArr: Arr = { kind: 'arr', id: a, len: n, elemBound: undefined };
    const bArr: Arr = { kind: 'arr', id: b, len: n, elemBound: undefined };
    const [, us] = scanWith(L, AFFINE, { lines: [], results: AFFINE.results }, ['1.0', `S[${L.slotOf(start)}]`], [aArr, bArr], n);
    // Each step's transposed body at its u_i: the carried cotangent out (ē at i = 0) and x̄_i.
    const carried = L.newArray(n);
    const xbar = L.newArray(n);
    L.elementwise(n, (arrays) => {
      const u = `${arrays.bind(us.id)}[${count} - 1u - i]`;
      const r = evalBody(arrays, 'i', [lit(u)]);
      return [...r.lines, `${arrays.bind(carried)}[i] = ${num(r.results[0] as Typed)};`, `${arrays.bind(xbar)}[i] = ${num(r.results[1] as Typed)};`];
    });
    const ebar = L.newSlot();
    L.scalarLine((arrays) => `S[${ebar}] = select(S[${L.slotOf(start)}], ${arrays.bind(carried)}[0], ${count} > 0u);`);
    return [
      { kind: 'num', slot: ebar, bool: false, bound: undefined },
      { kind: 'arr', id: xbar, len: n, elemBound: undefined },
    ];
  };
}

/** The last element of `ys` (n long), or `empty` when n = 0. */
function lastOf(L: LoweringOps, ys: Arr, n: number, empty: Num): Num {
  const slot = L.newSlot();
  const count = countAt(L.countSlot(n));
  L.scalarLine((arrays) => `S[${slot}] = select(S[${L.slotOf(empty)}], ${arrays.bind(ys.id)}[max(${count}, 1u) - 1u], ${count} > 0u);`);
  return { kind: 'num', slot, bool: false, bound: undefined };
}

export const linearFoldWgsl = {
  lscan: recurrenceLowering(true, true),
  lfold: recurrenceLowering(true, false),
  lrscan: recurrenceLowering(false, true),
  lrfold: recurrenceLowering(false, false),
} satisfies ConstructLowerings;
