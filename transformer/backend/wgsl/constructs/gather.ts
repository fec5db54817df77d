// gather and its linear pair on the GPU (constructs/array/gather.ts).
import { atomicUpdate } from '../kernels';
import { AMBIGUOUS_INDEX, countAt, dataIndex, f32IndexIn, taintCheck } from '../indices';
import { type Arr, type LoweringOps, asArr, hostLength, type ConstructLowerings } from '../lowering';
import { filled } from './shared';

/**
 * ā = zeros(n), ā[idx_j] += ḡ_j: a compare-exchange loop on the f32 bits per element (WGSL has
 * integer atomics only). Chosen over sort then segmented reduce: one kernel and O(len idx) work
 * with no extra memory, where a sort is several passes over the indices; the cost is contention
 * on an index many elements share, and an order of the additions that varies run to run (f32
 * roundings: results differ in the last bits, within the sum tolerance). Indices outside 0…n−1
 * add nothing (the CPU path rejects them first).
 */
function scatterAdd(L: LoweringOps, n: number, idx: Arr, g: Arr): Arr {
  const out = filled(L, n, undefined, () => '0.0');
  const m = countAt(L.countSlot(n));
  const ambiguous = L.failCheck(AMBIGUOUS_INDEX, -1);
  L.atomicElementwise(idx.len, out.id, (arrays, target) => {
    const j = `${arrays.bind(idx.id)}[i]`;
    const at = dataIndex(j, m, ambiguous);
    return [
      at.check,
      taintCheck(idx, ambiguous),
      `if (${at.ok} && i < ${countAt(L.countSlot(g.len))}) {`,
      ...atomicUpdate(target, `u32(${j})`, `${arrays.bind(g.id)}[i]`, (old, v) => `${old} + ${v}`).map((l) => `  ${l}`),
      '}',
    ];
  });
  return out;
}

export const gatherWgsl = {
  // gather(w, idx): w at each index. An index outside w or not an integer is the CPU path's
  // RangeError: the kernel flags it (and writes 0), the call rejects after the readback.
  gather: (L, _e, [w, idx]) => {
    const a = asArr(w, 'a gather');
    const at = asArr(idx, 'the indices of a gather');
    const id = L.newArray(at.len);
    const n = countAt(L.countSlot(a.len));
    L.elementwise(at.len, (arrays) => {
      const j = `${arrays.bind(at.id)}[i]`;
      const { ok, check } = dataIndex(j, n, L.failCheck(AMBIGUOUS_INDEX, -1));
      const fail = L.failCheck('gather: an index is not an index of the array', a.len);
      return [check, taintCheck(at, L.failCheck(AMBIGUOUS_INDEX, -1)), `if (!${ok}) { ${fail} }`, `${arrays.bind(id)}[i] = select(0.0, ${arrays.bind(a.id)}[u32(max(${j}, 0.0))], ${ok});`];
    });
    return [{ kind: 'arr', id, len: at.len, elemBound: a.elemBound }];
  },
  // lgather(n, idx ; ȧ): ȧ at each index, 0 past ȧ's end (a sparse tangent) or outside.
  lgather: (L, _e, [, idx, a]) => {
    const arr = asArr(a, 'a gather');
    const at = asArr(idx, 'the indices of a gather');
    return [
      filled(L, at.len, undefined, (arrays) => {
        // The primal gather checked these indices (an ambiguous one rejected the call).
        const j = `${arrays.bind(at.id)}[i]`;
        return `select(0.0, ${arrays.bind(arr.id)}[u32(max(${j}, 0.0))], ${f32IndexIn(j, countAt(L.countSlot(arr.len)))})`;
      }),
    ];
  },
  lscatteradd: (L, _e, [n, idx, g]) => [scatterAdd(L, hostLength(n, 'a scatter-add of a length'), asArr(idx, 'the indices of a scatter-add'), asArr(g, 'a scatter-add'))],
} satisfies ConstructLowerings;
