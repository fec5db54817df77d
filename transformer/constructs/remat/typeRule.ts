// Typing remat: the body takes the operands as its parameters and its results are the construct's.
//
//   Γ ⊢ ū : τ̄    Γ̇ ⊢ u̇̄ : τ̇̄    ū : τ̄ ; u̇̄ : τ̇̄ ⊢ body : (σ̄ ; σ̇̄)
//   ------------------------------------------------------
//   Γ ; Γ̇ ⊢ remat(ū ; u̇̄)[|ū ; u̇̄| { body }] : (σ̄ ; σ̇̄)
//
// J adds a second body, the primal `|ū| { e }` the first is J of (non-linear, returning σ̄): it is
// not run, only kept for U (unzip.ts).
import type { CheckOps, ConstructExpr, Sides, TypeRun } from '../types';
import { typeEquals } from '../../ir/syntax';
import type { Type } from '../../ir/syntax';

export function* rematTypeRule(ops: CheckOps, e: ConstructExpr, operands: Sides<Type>): TypeRun {
  if (e.bodies.length !== 1 && e.bodies.length !== 2) {
    ops.error(`remat takes one body (and J adds the primal as a second); got ${e.bodies.length}`);
    if (e.bodies.length === 0) return { nl: [], lin: [] };
  }
  const results = yield ops.typeBody(e.bodies[0], operands);
  if (e.bodies.length === 2) {
    const primal = yield ops.typeBody(e.bodies[1], { nl: operands.nl, lin: [] });
    const same = primal.lin.length === 0 && primal.nl.length === results.nl.length && primal.nl.every((t, i) => typeEquals(t, results.nl[i]));
    if (!same) ops.error("the second body of remat (the primal J keeps) must return the first body's non-linear results and nothing linear");
  }
  return results;
}
