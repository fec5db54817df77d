// E of a counted loop: the linear invariants join the non-linear invariants, the linear carried
// values the non-linear carried ones, so the carried values stay the last operands.
//
//   E(loop(n, ū, c̄ ; u̇̄, ċ̄)[|i, ū, c̄ ; u̇̄, ċ̄| { e }]) = loop(n, ū, u̇̄, c̄, ċ̄)[|i, ū, u̇̄, c̄, ċ̄| { E e }]
//
// (E's default, all linear operands after all non-linear ones, would make a linear invariant
// look carried.) The body returns (c̄', ċ̄') erased, in that order: the carried suffix. Same
// values, same work.
import { construct } from '../../ir/syntax';
import type { Expr } from '../../ir/syntax';
import type { ConstructExpr, EraseOps } from '../types';

/** Puts the `linInv` leading linear items between the non-linear invariants and the non-linear carried ones. */
export function invariantsFirst<T>(nl: readonly T[], lin: readonly T[], nlCarried: number, linInv: number): T[] {
  const cut = nl.length - nlCarried;
  return [...nl.slice(0, cut), ...lin.slice(0, linInv), ...nl.slice(cut), ...lin.slice(linInv)];
}

export function loopErase(ops: EraseOps, e: ConstructExpr): Expr {
  const body = e.bodies[0];
  const carried = ops.arity(body);
  const linInv = e.lin.length - carried.lin;
  const erased = ops.eraseBody(body);
  const k = body.nlParams.length;
  const params = invariantsFirst(erased.nlParams.slice(0, k), erased.nlParams.slice(k), carried.nl, linInv);
  return construct(e.op, invariantsFirst(e.nl, e.lin, carried.nl, linInv), [], [{ ...erased, nlParams: params }]);
}
