// An addition to a remat's result moves into its body, where it can fuse further:
//
//   let (; r̄) = remat(ū ; u̇̄)[|ū ; u̇̄| { …; let r_k = C(…) …; (; …, r_k, …) }]
//   ladd(; x, r_k)   ↝   remat(ū ; u̇̄, x)[|ū ; u̇̄, p| { …; let r_k = C(…) …; let r' = ladd(; p, r_k); (; …, r', …) }]
//
// (the same sum, computed inside). T of a checkpointed loop reading an array is the case: each
// segment's remat returns the array's cotangent accumulated from zero by an inner loop, and the
// outer loop adds it to its accumulator; moved inside, the inner loop accumulates into it in
// place (loop/fuseAdd.ts) instead of building an array per segment. Only where r_k is bound by a
// construct that can absorb the addition; otherwise nothing would be gained.
import { binder, letS, lprim, ret } from '../../ir/syntax';
import type { ConstructRule } from '../types';

export const rematFuseAdd: NonNullable<ConstructRule['fuseAdd']> = (ops, e, other, k) => {
  const l = e.bodies[0];
  const r = l.body.result;
  if (e.bodies.length !== 1 || r.tag !== 'ret' || k >= r.lin.length) return undefined;
  const site = l.body.stmts.find((st) => st.tag === 'let' && st.lin.some((b) => b.name === r.lin[k]));
  if (site?.tag !== 'let' || !ops.absorbs(site.rhs)) return undefined;
  const type = site.lin.find((b) => b.name === r.lin[k])!.type;
  const p = binder(ops.fresh('acc'), type);
  const sum = binder(ops.fresh('acc'), type);
  const stmts = [...l.body.stmts, letS([], [sum], lprim('ladd', [], [p.name, r.lin[k]]))];
  const result = ret(
    r.nl,
    r.lin.map((x, j) => (j === k ? sum.name : x)),
  );
  return { ...e, lin: [...e.lin, other], bodies: [{ ...l, linParams: [...l.linParams, p], body: { stmts, result } }] };
};
