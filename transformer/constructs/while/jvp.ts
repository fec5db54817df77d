// J of a while loop: the condition as it is, the step J'd, the tangents carried beside the values.
//
//   J(Σ | let c̄' = while(ū, c̄)[cond, |ū, c̄| { e }])
//     ↝ let (c̄' ; c̄'_dot) = while(ū, c̄ ; Σ(ū), Σ(c̄))[cond, |ū, c̄ ; ū_dot, c̄_dot| { J({ū ↦ ū_dot, c̄ ↦ c̄_dot} | e) }]
//
// The condition is non-linear and reads only the primal values, which J's step computes as the
// primal step does, so the J'd loop takes the same iterations: the trip count is locally
// constant and the derivative is the derivative of the k-fold composition of the step (forward
// mode needs no tape, so no counter either). The invariants' tangents are linear invariants of
// the new loop, the carried values' tangents carried (zero(<>) for a bool or str). When every
// operand's tangent is a symbolic zero so is every result's (the bodies are closed): the primal
// loop is kept as it is.
import type { Binder } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, JvpOps } from '../types';
import { carriedLoopJvp } from '../loop/inactive';
import { STEP } from './operands';

export function whileJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[]): readonly Tangent[] {
  return carriedLoopJvp(ops, e, results, e.nl, STEP, 0);
}
