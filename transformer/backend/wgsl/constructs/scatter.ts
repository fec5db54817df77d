// scatter and its linear pair on the GPU (constructs/array/scatter.ts): a copy of the destination,
// then one kernel over the indices writing each value to its slot.
import { type Arr, type LoweringOps, asArr, hostLength, type ConstructLowerings } from '../lowering';
import { filled } from './shared';
import { AMBIGUOUS_INDEX, countAt, dataIndex, taintCheck } from '../indices';

/** `a` padded (or cut) to `count` elements (a host register), 0 past its end (a sparse tangent). */
const padded = (L: LoweringOps, a: Arr, count: number): Arr => filled(L, count, undefined, (arrays) => `select(0.0, ${arrays.bind(a.id)}[i], i < ${countAt(L.countSlot(a.len))})`);

/** `idx`'s element i (WGSL `j`) as a slot of an array of `n` (a host register): in range and an integer, and the line flagging an ambiguous one. */
const inRange = (L: LoweringOps, idx: Arr, j: string, n: number) => {
  const fail = L.failCheck(AMBIGUOUS_INDEX, -1);
  const at = dataIndex(j, countAt(L.countSlot(n)), fail);
  return { ok: at.ok, check: `${at.check} ${taintCheck(idx, fail)}` };
};

/**
 * y = dest, y[idx_j] = vals_j. The CPU path rejects an index outside dest, not an integer, or
 * repeated (which write won would be an accident of the order): the kernel claims each slot with
 * an atomic add on a zeroed counter per slot, and a slot claimed before, or an index it cannot
 * take, flags the call's check (it rejects after the readback). With distinct indices the writes
 * touch distinct slots: no order between invocations matters.
 */
function scatterPrimal(L: LoweringOps, dest: Arr, idx: Arr, vals: Arr): Arr {
  const message = 'tsad: scatter: indices and values have different lengths';
  L.reg({ op: 'atmost', a: idx.len, b: vals.len, message });
  L.reg({ op: 'atmost', a: vals.len, b: idx.len, message });
  const y = padded(L, dest, dest.len);
  const claims = filled(L, dest.len, undefined, () => '0.0');
  const outside = L.failCheck('scatter: an index is not an index of the array', dest.len);
  const repeated = L.failCheck('scatter: an index appears twice', dest.len);
  L.atomicElementwise(idx.len, claims.id, (arrays, claim) => {
    const j = `${arrays.bind(idx.id)}[i]`;
    const at = inRange(L, idx, j, dest.len);
    return [
      at.check,
      `if (!${at.ok}) { ${outside} } else {`,
      `  if (atomicAdd(&${claim}[u32(${j})], 1u) != 0u) { ${repeated} }`,
      `  ${arrays.bind(y.id)}[u32(${j})] = ${arrays.bind(vals.id)}[i];`,
      '}',
    ];
  });
  return y;
}

export const scatterWgsl = {
  scatter: (L, _e, [d, idx, v]) => [scatterPrimal(L, asArr(d, 'a scatter'), asArr(idx, 'the indices of a scatter'), asArr(v, 'the values of a scatter'))],
  // lscatter(n, idx ; ḋ, v̇): ḋ padded to n, v̇_j at idx_j (indices the primal checked; v̇ 0 past
  // its end), stored atomically so that the kernel stays unfused (see lunscatter).
  lscatter: (L, _e, [nVal, idxVal, dVal, vVal]) => {
    const n = hostLength(nVal, 'a scatter of a length');
    const idx = asArr(idxVal, 'the indices of a scatter');
    const v = asArr(vVal, 'a scatter');
    const y = padded(L, asArr(dVal, 'a scatter'), n);
    L.atomicElementwise(idx.len, y.id, (arrays, target) => {
      const j = `${arrays.bind(idx.id)}[i]`;
      const at = inRange(L, idx, j, n);
      return [at.check, `if ${at.ok} { atomicStore(&${target}[u32(${j})], bitcast<u32>(select(0.0, ${arrays.bind(v.id)}[i], i < ${countAt(L.countSlot(v.len))}))); }`];
    });
    return [y];
  },
  // lunscatter(n, idx ; ȳ): v̄_j = ȳ[idx_j], d̄ = ȳ with those slots zeroed: each invocation swaps
  // its slot for 0 (the primal's indices are distinct). Writes at other indices than i go
  // through atomics here for one more reason: such a kernel is never fused with the next
  // elementwise one (lower.ts fuses only kernels that write at their own index).
  lunscatter: (L, _e, [nVal, idxVal, yVal]) => {
    const n = hostLength(nVal, 'a scatter of a length');
    const idx = asArr(idxVal, 'the indices of a scatter');
    const d = padded(L, asArr(yVal, 'a scatter'), n);
    const v = L.newArray(idx.len);
    L.atomicElementwise(idx.len, d.id, (arrays, target) => {
      const j = `${arrays.bind(idx.id)}[i]`;
      const at = inRange(L, idx, j, n);
      return [at.check, `if ${at.ok} { ${arrays.bind(v)}[i] = bitcast<f32>(atomicExchange(&${target}[u32(${j})], 0u)); } else { ${arrays.bind(v)}[i] = 0.0; }`];
    });
    return [d, { kind: 'arr', id: v, len: idx.len, elemBound: undefined }];
  },
} satisfies ConstructLowerings;
