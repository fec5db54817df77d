// J of a counted loop: a loop over J of the body, the tangents carried beside the values.
//
//   J(Σ | let c̄' = loop(n, ū, c̄)[|i, ū, c̄| { e }])
//     ↝ let (c̄' ; c̄'_dot) = loop(n, ū, c̄ ; Σ(ū), Σ(c̄))[|i, ū, c̄ ; ū_dot, c̄_dot| { J({ū ↦ ū_dot, c̄ ↦ c̄_dot} | e) }]
//
// The invariants' tangents are linear invariants of the new loop, the carried values' tangents
// carried. n and the counter i get none: the trip count is locally constant (the derivative is
// the derivative of the n-fold composition), and i is a constant in each iteration. When every
// operand's tangent is a symbolic zero so is every result's (the body is closed): the primal
// loop is kept as it is.
import type { Binder } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, JvpOps } from '../types';
import { extremumJvp, recogniseExtremum } from './extremum';
import { carriedLoopJvp } from './inactive';

export function loopJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[]): readonly Tangent[] {
  // A loop keeping the best of its iterations has the derivative of the iteration that won.
  const extremum = recogniseExtremum(e);
  if (extremum !== undefined) return extremumJvp(ops, e, results, extremum);
  return carriedLoopJvp(ops, e, results, e.nl.slice(1), 0, 1);
}
