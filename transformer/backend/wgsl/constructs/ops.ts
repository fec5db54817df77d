// The body-less array operations on the GPU (constructs/array/ops.ts, checks.ts, accum.ts's share).
import { type Arr, type LoweringOps, type Num, NotOnGpu, type Val, asArr, asNum, hostLength, type ConstructLowerings } from '../lowering';
import { SUM, filled, reduction } from './shared';

function elementRead(L: LoweringOps, a: Arr, j: Num): Val[] {
  const slot = L.newSlot();
  const at = L.slotOf(j);
  const len = L.slotOfReg(a.len);
  L.scalarLine((arrays) => `S[${slot}] = select(0.0, ${arrays.bind(a.id)}[u32(S[${at}])], S[${at}] >= 0.0 && S[${at}] < S[${len}]);`);
  return [{ kind: 'num', slot, bool: false, bound: a.elemBound }];
}

export const opsWgsl = {
  len: (_L, _e, [a]) => {
    const arr = asArr(a, 'the length of a value');
    return [{ kind: 'num', reg: arr.len, bool: false, bound: new Set([arr.len]) }];
  },
  atmost: (L, _e, [n, limit, what]) => {
    const a = hostLength(n, 'a length check');
    const b = hostLength(limit, 'a length check');
    return [L.hostNum(L.reg({ op: 'atmost', a, b, message: what?.kind === 'str' ? what.text : 'tsad: array lengths differ' }))];
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
    return [filled(L, count, undefined, () => `select(0.0, S[${L.slotOf(y)}], f32(i) == S[${L.slotOf(i)}])`)];
  },
  // E of a dup of an array: the same buffer twice (kernels never write their operands).
  share: (_L, _e, [a]) => [asArr(a, 'a share'), a],
  index: (L, _e, [a, j]) => elementRead(L, asArr(a, 'an element read'), asNum(j, 'an index')),
  lindex: (L, _e, nl) => elementRead(L, asArr(nl[nl.length - 1], 'an element read'), asNum(nl[0], 'an index')),
} satisfies ConstructLowerings;
