// The body-less array operations on the GPU (constructs/array/ops.ts, checks.ts, accum.ts's share).
import { type Arr, type LoweringOps, type Num, NotOnGpu, type Val, asArr, asNum, hostLength, type ConstructLowerings } from '../lowering';
import { SUM, filled, reduction } from './shared';
import { cond, num } from '../prims';
import { AMBIGUOUS_INDEX, F32_EXACT, countAt, f32IndexAmbiguous, f32IndexIn, taintCheck } from '../indices';

/**
 * a[j], 0 outside (a non-integer j reads at its integer part, as kernels read). A host j (a
 * length's arithmetic) is exact; a device one is f32, exact below 2^24 (indices.ts: checked above).
 */
function elementRead(L: LoweringOps, a: Arr, j: Num): Val[] {
  const slot = L.newSlot();
  const at = `S[${L.slotOf(j)}]`;
  const n = countAt(L.countSlot(a.len));
  // A number read out of a tainted array (indices.ts) would lose its mark: refused then.
  if (a.taint !== undefined) {
    const refuse = taintCheck(a, L.failCheck(AMBIGUOUS_INDEX, -1));
    L.scalarLine(() => refuse);
  }
  if (j.reg !== undefined) {
    const k = countAt(L.countSlot(j.reg));
    L.scalarLine((arrays) => `S[${slot}] = select(0.0, ${arrays.bind(a.id)}[min(${k}, max(${n}, 1u) - 1u)], ${at} >= 0.0 && ${k} < ${n});`);
  } else {
    const ambiguous = L.failCheck(AMBIGUOUS_INDEX, -1);
    L.scalarLine((arrays) => `if ${f32IndexAmbiguous(at, n)} { ${ambiguous} } S[${slot}] = select(0.0, ${arrays.bind(a.id)}[u32(max(${at}, 0.0))], ${f32IndexIn(at, n)});`);
  }
  return [{ kind: 'num', slot, bool: false, bound: a.elemBound }];
}

/** WGSL: the map index `i` is the one-hot's index `j` (exactly: the host's count, or indices.ts tsad_icmp), and the line flagging an ambiguous device index. */
function isIndex(L: LoweringOps, j: Num): { test: string; check: string } {
  const at = `S[${L.slotOf(j)}]`;
  if (j.reg !== undefined) return { test: `(${at} >= 0.0 && ${at} == floor(${at}) && i == ${countAt(L.countSlot(j.reg))})`, check: '' };
  return { test: `(${at} == ${at} && tsad_icmp(i32(i), ${at}) == 0)`, check: `if (i == 0u && abs(${at}) >= ${F32_EXACT}.0) { ${L.failCheck(AMBIGUOUS_INDEX, -1)} }` };
}

export const opsWgsl = {
  len: (_L, _e, [a]) => {
    const arr = asArr(a, 'the length of a value');
    return [{ kind: 'num', reg: arr.len, bool: false, bound: new Set([arr.len]) }];
  },
  atmost: (L, _e, [n, limit, what]) => {
    const message = what?.kind === 'str' ? what.text : 'tsad: array lengths differ';
    // Under a cond's test (an element read in one branch) the check holds only where that branch
    // runs: on the device, under the guard, not on the host before every kernel.
    if (L.guarded.length > 0) {
      const a = asNum(n, 'a length check');
      const b = asNum(limit, 'a length check');
      L.scalarLine(() => `if (!(${num(L.load(a))} <= ${num(L.load(b))})) { ${L.failCheck(message, b.reg ?? -1)} }`);
      return [a];
    }
    const a = hostLength(n, 'a length check');
    const b = hostLength(limit, 'a length check');
    return [L.hostNum(L.reg({ op: 'atmost', a, b, message }))];
  },
  // within(lo, hi, limit[, runs]): as atmost, under a cond's guard on the device; on the host as
  // three atmosts (hi + 1 ≤ limit, 0 ≤ lo, lo ≤ floor(lo)), the runner's one kind of check, of an
  // empty range (0 … −1) where the reads do not happen.
  within: (L, _e, [lo, hi, limit, what, runs]) => {
    const said = what?.kind === 'str' ? what.text : 'tsad: reads an element outside its array';
    if (L.guarded.length > 0) {
      const [a, z, n] = [lo, hi, limit].map((v) => L.load(asNum(v, 'an element check')));
      const at = num(a);
      const when = runs === undefined ? '' : `(${cond(L.load(asNum(runs, 'an element check')))}) && `;
      L.scalarLine(() => `if (${when}!(${at} >= 0.0 && ${at} == floor(${at}) && ${num(z)} + 1.0 <= ${num(n)})) { ${L.failCheck(`${said} outside the array`, -1)} }`);
      return [asNum(lo, 'an element check')];
    }
    let [a, z] = [lo, hi].map((v) => hostLength(v, 'an element check'));
    const n = hostLength(limit, 'an element check');
    if (runs !== undefined) {
      const r = hostLength(runs, 'an element check');
      a = L.reg({ op: 'fn', fn: 'select', args: [r, a, L.lit(0)] });
      z = L.reg({ op: 'fn', fn: 'select', args: [r, z, L.lit(-1)] });
    }
    L.reg({ op: 'atmost', a: L.reg({ op: 'add', args: [z, L.lit(1)] }), b: n, message: `${said} past its end` });
    L.reg({ op: 'atmost', a: L.lit(0), b: a, message: `${said} before its start` });
    L.reg({ op: 'atmost', a, b: L.reg({ op: 'fn', fn: 'floor', args: [a] }), message: `${said} between two elements` });
    return [L.hostNum(hostLength(lo, 'an element check'))];
  },
  sum: (L, _e, [a]) => {
    const arr = asArr(a, 'a sum');
    return reduction(L, SUM, [L.hostNum(L.lit(0))], [arr], arr.len, [undefined]);
  },
  lsum: (L, _e, [, a]) => {
    const arr = asArr(a, 'a sum');
    return reduction(L, SUM, [L.hostNum(L.lit(0))], [arr], arr.len, [undefined]);
  },
  fill: (L, _e, [n, x]) => {
    const v = asNum(x, 'a fill');
    return [filled(L, hostLength(n, 'a fill of a length'), v.bound, () => `S[${L.slotOf(v)}]`)];
  },
  lfill: (L, _e, [n, x]) => {
    const v = asNum(x, 'a fill');
    return [filled(L, hostLength(n, 'a fill of a length'), v.bound, () => `S[${L.slotOf(v)}]`)];
  },
  // e_i·y, i + 1 long: on the GPU as long as the largest i can be (trailing zeros are the same value).
  lonehot: (L, _e, nl) => {
    const i = asNum(nl[0], 'a one-hot index');
    const y = asNum(nl[nl.length - 1], 'a one-hot value');
    if (i.bound === undefined) throw new NotOnGpu('a one-hot at an index whose range is not known before the kernels run');
    const count = L.reg({ op: 'add', args: [L.reg({ op: 'max', args: [...i.bound] }), L.lit(1)] });
    const { test, check } = isIndex(L, i);
    const out = filled(L, count, undefined, () => `select(0.0, S[${L.slotOf(y)}], ${test})`);
    if (check) L.elementwise(count, () => [check]);
    return [out];
  },
  // E of a dup of an array: the same buffer twice (kernels never write their operands).
  share: (_L, _e, [a]) => [asArr(a, 'a share'), a],
  index: (L, _e, [a, j]) => elementRead(L, asArr(a, 'an element read'), asNum(j, 'an index')),
  lindex: (L, _e, nl) => elementRead(L, asArr(nl[nl.length - 1], 'an element read'), asNum(nl[0], 'an index')),
} satisfies ConstructLowerings;
