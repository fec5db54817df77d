// reduce and scan on the GPU (constructs/array/fold.ts): hierarchical, with the body as the operator.
import type { Expr, Lambda } from '../../../ir/syntax';
import { type Combine, reducePass, scanPass } from '../kernels';
import { type Typed, num } from '../prims';
import { type Arr, type LoweringOps, NotOnGpu, type Num, type Val, asArr, asNum, hostLength, union, within, type ConstructLowerings } from '../lowering';
import { reduction } from './shared';
import { countAt } from '../indices';

function reduceLowering(L: LoweringOps, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[]): Val[] {
  if (lin.length > 0) throw new NotOnGpu(`a linear ${e.op}`);
  const [nVal, ...rest] = nl;
  const n = hostLength(nVal, `a ${e.op} over a length`);
  const body = e.bodies[0];
  const k = rest.length / 2;
  const results = body.body.result;
  const inits = rest.slice(0, k).map((v) => asNum(v, 'a neutral element'));
  const xs = rest.slice(k).map((v) => asArr(v, `an operand of ${e.op}`));
  // Bounds of the accumulators: sound when each result of the operator is bounded by what it got.
  const accBounds = inits.map((v, j) => union(v.bound, xs[j].elemBound));
  const bounded = L.body(body, [...accBounds.map((b) => ({ code: '0.0', type: 'f32' as const, bound: b })), ...xs.map((x) => ({ code: '0.0', type: 'f32' as const, bound: x.elemBound }))]);
  const params = [
    ...Array.from({ length: k }, (_, j) => ({ code: `a${j}`, type: 'f32' as const, bound: undefined })),
    ...Array.from({ length: k }, (_, j) => ({ code: `b${j}`, type: 'f32' as const, bound: undefined })),
  ];
  const { lines, results: rs } = L.body(body, params);
  if (rs.length !== k || results.tag !== 'ret') {
    // Per-element outputs (a general reduction's residuals) read the accumulator before each
    // element: a scan, whose last elements are the reduction.
    const scanned = scanOf(L, inits, xs, n, body);
    const count = countAt(L.countSlot(n));
    const totals = scanned.slice(0, k).map((y, j) => {
      const slot = L.newSlot();
      L.scalarLine((arrays) => `S[${slot}] = select(S[${L.slotOf(inits[j])}], ${arrays.bind(y.id)}[max(${count}, 1u) - 1u], ${count} > 0u);`);
      return { kind: 'num' as const, slot, bool: false, bound: undefined };
    });
    return [...totals, ...scanned.slice(k)];
  }
  const c: Combine = { k, lines, results: rs.map((r) => num(r as Typed)) };
  const bounds = accBounds.map((b, j) => (within(bounded.results[j]?.bound, b) ? b : undefined));
  return reduction(L, c, inits, xs, n, bounds);
}

/** The hierarchical scan of `xs` from `inits` with `body` (k accumulators, then per-element outputs): k scanned arrays, then the outputs. */
function scanOf(L: LoweringOps, inits: readonly Num[], xs: readonly Arr[], n: number, body: Lambda): Arr[] {
  const k = inits.length;
  const params = [
    ...Array.from({ length: k }, (_, j) => ({ code: `a${j}`, type: 'f32' as const, bound: undefined })),
    ...Array.from({ length: k }, (_, j) => ({ code: `b${j}`, type: 'f32' as const, bound: undefined })),
  ];
  const { lines, results } = L.body(body, params);
  if (results.some((r) => r.array !== undefined || r.type !== 'f32')) throw new NotOnGpu('a scan whose body returns arrays or booleans');
  const codes = results.map((r) => num(r as Typed));
  const c: Combine = { k, lines, results: codes.slice(0, k) };
  return scanWith(
    L,
    c,
    { lines, results: codes },
    inits.map((v) => `S[${L.slotOf(v)}]`),
    xs,
    n,
  );
}

export function scanWith(L: LoweringOps, c: Combine, step: { lines: readonly string[]; results: readonly string[] }, inits: readonly string[], xs: readonly Arr[], n: number): Arr[] {
  const outs: Arr[] = step.results.map(() => ({ kind: 'arr', id: L.newArray(n), len: n, elemBound: undefined }));
  const first = reducePass(
    c,
    true,
    xs.map((a) => L.countSlot(a.len)),
  );
  const next = reducePass(c, false, []);
  const level = scanPass(c, true, [], [], undefined);
  const final = scanPass(
    c,
    false,
    xs.map((a) => L.countSlot(a.len)),
    inits,
    step,
  );
  L.device((kk) => ({ op: 'scan', first: kk, next: kk + 1, level: kk + 2, final: kk + 3, k: c.k, n, inputs: xs.map((a) => a.id), outputs: outs.map((o) => o.id) }), first, next, level, final);
  return outs;
}

function scanLowering(L: LoweringOps, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[]): Val[] {
  if (lin.length > 0) throw new NotOnGpu(`a linear ${e.op}`);
  const [nVal, ...rest] = nl;
  const n = hostLength(nVal, `a ${e.op} over a length`);
  const k = rest.length / 2;
  const inits = rest.slice(0, k).map((v) => asNum(v, 'a neutral element'));
  const xs = rest.slice(k).map((v) => asArr(v, `an operand of ${e.op}`));
  return scanOf(L, inits, xs, n, e.bodies[0]);
}

export const foldWgsl = {
  reduce: reduceLowering,
  sreduce: reduceLowering,
  scan: scanLowering,
  sscan: scanLowering,
} satisfies ConstructLowerings;
