// Lowerings more than one construct family uses: a hierarchical reduction, an array filled elementwise.
import type { Combine } from '../kernels';
import type { Arr, Bound, KernelArrays, LoweringOps, Num, Val } from '../lowering';

/** A reduction of `inputs` with `combine` from the neutral elements `inits`, into new slots. */
export function reduction(L: LoweringOps, c: Combine, inits: readonly Num[], inputs: readonly Arr[], n: number, bounds: readonly Bound[]): Val[] {
  const outs = inits.map(() => L.newSlot());
  L.reduce(
    c,
    inits.map((v) => `S[${L.slotOf(v)}]`),
    outs,
    inputs,
    n,
  );
  return outs.map((slot, j) => ({ kind: 'num', slot, bool: false, bound: bounds[j] }));
}

export const SUM: Combine = { k: 1, lines: [], results: ['(a0 + b0)'] };

/** An array of `count` elements, each `element(i)` (WGSL, reading the index `i`). */
export function filled(L: LoweringOps, count: number, elemBound: Bound, element: (arrays: KernelArrays) => string): Arr {
  const id = L.newArray(count);
  L.elementwise(count, (arrays) => [`${arrays.bind(id)}[i] = ${element(arrays)};`]);
  return { kind: 'arr', id, len: count, elemBound };
}
