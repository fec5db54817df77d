// An addition to a conditional's result moves into both branches, where it can fuse further:
//
//   let (; r̄) = cond(p, x̄ ; ẋ̄)[B₁, B₂];  ladd(; x, r_k)
//     ↝ cond(p, x̄ ; ẋ̄, x)[B₁ + q, B₂ + q]     each branch returns q + its r_k (q: a new linear parameter)
//
// A branch whose r_k is a symbolic zero returns q itself (zeros are dropped from sums, as T drops
// them). T of a loop whose body reads an array in one branch is the case: one branch's cotangent
// for the array is a one-hot, the other's zero, and the loop adds the branch's result to its
// accumulator; moved inside, the one-hot fuses into an in-place accumulation (accum.ts) instead
// of an array added per iteration. Only where a branch's r_k is bound by a construct that can
// absorb the addition; otherwise nothing would be gained.
import { binder, letS, lprim, ret } from '../../ir/syntax';
import type { Lambda, Stmt } from '../../ir/syntax';
import type { ConstructRule } from '../types';

export const condFuseAdd: NonNullable<ConstructRule['fuseAdd']> = (ops, e, other, k) => {
  const binding = (l: Lambda): Extract<Stmt, { tag: 'let' }> | undefined => {
    const r = l.body.result;
    if (r.tag !== 'ret' || k >= r.lin.length) return undefined;
    const s = l.body.stmts.find((st) => st.tag === 'let' && st.lin.some((b) => b.name === r.lin[k]));
    return s?.tag === 'let' ? s : undefined;
  };
  const sites = e.bodies.map(binding);
  if (!sites.some((s) => s !== undefined && ops.absorbs(s.rhs))) return undefined;
  if (e.bodies.some((l) => l.body.result.tag !== 'ret')) return undefined;
  const bodies = e.bodies.map((l, j) => {
    const r = l.body.result as Extract<Lambda['body']['result'], { tag: 'ret' }>;
    const type = sites[j]?.lin.find((b) => b.name === r.lin[k])?.type ?? l.linParams.find((b) => b.name === r.lin[k])?.type;
    const q = binder(ops.fresh('acc'), type);
    if (sites[j]?.rhs.tag === 'zero')
      return {
        ...l,
        linParams: [...l.linParams, q],
        body: {
          stmts: l.body.stmts,
          result: ret(
            r.nl,
            r.lin.map((x, i) => (i === k ? q.name : x)),
          ),
        },
      };
    const sum = binder(ops.fresh('acc'), type);
    const stmts = [...l.body.stmts, letS([], [sum], lprim('ladd', [], [q.name, r.lin[k]]))];
    return {
      ...l,
      linParams: [...l.linParams, q],
      body: {
        stmts,
        result: ret(
          r.nl,
          r.lin.map((x, i) => (i === k ? sum.name : x)),
        ),
      },
    };
  });
  return { ...e, lin: [...e.lin, other], bodies };
};
