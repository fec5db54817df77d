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
import { binder, construct, tangentType } from '../../ir/syntax';
import type { Binder } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, JvpOps } from '../types';
import { dotName } from '../../ir/names';
import { extremumJvp, recogniseExtremum } from './extremum';
import { carriedLoopJvp } from './inactive';

/** J of a loop-like construct whose differentiable operands are `operands` and whose bodies get `constants` leading parameters without tangents. */
export function loopLikeJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[], operands: readonly string[], jvpBodies: (ops: JvpOps) => ReturnType<JvpOps['jvpBody']>[]): readonly Tangent[] {
  const { b } = ops;
  const tangents = operands.map((x) => ops.tangentOf(x));
  if (tangents.every((t) => t === null)) {
    b.bind([...results], [], e);
    return results.map(() => null);
  }
  const dots = tangents.map((t, i) => t ?? b.zero(tangentType(ops.typeOf(operands[i])), 'zero'));
  const resultDots = results.map((y) => binder(b.fresh(dotName(y.name)), tangentType(ops.typeOf(y.name))));
  b.bind([...results], resultDots, construct(e.op, e.nl, dots, jvpBodies(ops)));
  return resultDots.map((d) => d.name);
}

export function loopJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[]): readonly Tangent[] {
  // A loop keeping the best of its iterations has the derivative of the iteration that won.
  const extremum = recogniseExtremum(e);
  if (extremum !== undefined) return extremumJvp(ops, e, results, extremum);
  return carriedLoopJvp(ops, e, results, e.nl.slice(1), 0, 1);
}
