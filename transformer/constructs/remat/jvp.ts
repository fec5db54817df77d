// J of remat: remat of J of the body, every operand's tangent a linear operand, and the primal
// body kept beside it for U's forward half (which then runs the primal as it was written, with
// no residual stacks built only to be thrown away).
//
//   J(Σ | let r̄ = remat(ū)[|ū| { e }]) ↝ let (r̄ ; r̄_dot) = remat(ū ; Σ(ū))[|ū ; ū_dot| { J(e) }, |ū| { e }]
//
// All tangents zero: the primal remat is kept (nothing to differentiate, nothing to save).
import type { Binder } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, JvpOps } from '../types';
import { loopLikeJvp } from '../shared/loopLikeJvp';

export function rematJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[]): readonly Tangent[] {
  return loopLikeJvp(ops, e, results, e.nl, (o) => [o.jvpBody(e.bodies[0]), e.bodies[0]]);
}
