// Typing a counted loop (closed body; the carried values keep their types):
//
//   Γ ⊢ n : real    Γ ⊢ ū : τ̄    Γ ⊢ c̄ : σ̄    Γ̇ ⊢ u̇̄ : τ̇̄    Γ̇ ⊢ ċ̄ : σ̇̄
//   i : real, ū : τ̄, c̄ : σ̄ ; u̇̄ : τ̇̄, ċ̄ : σ̇̄ ⊢ body : (σ̄ ; σ̇̄)
//   ---------------------------------------------------------------
//   Γ ; Γ̇ ⊢ loop(n, ū, c̄ ; u̇̄, ċ̄)[|i, ū, c̄ ; u̇̄, ċ̄| { body }] : (σ̄ ; σ̇̄)
//
// The body's results say how many operands of each sort are carried (the last ones). The body is
// a scope of its own: a linear invariant u̇ is used exactly once per iteration (the loop is
// linear in it: its contribution is the sum over the iterations), and the operand once.
import { printType } from '../../ir/printType';
import { REAL, Type, typeEquals } from '../../ir/syntax';
import type { CheckOps, ConstructExpr, Sides, TypeRun } from '../types';

const list = (ts: readonly Type[]) => ts.map((t) => printType(t)).join(', ');
const text = (nl: readonly Type[], lin: readonly Type[]) => `(${list(nl)}${lin.length > 0 ? ` ; ${list(lin)}` : ''})`;

/** Checks that a body's results are the last operands' types (the carried values); the results. */
export function carriedTypes(ops: CheckOps, op: string, operands: Sides<Type>, results: Sides<Type>): Sides<Type> {
  const nl = operands.nl.slice(Math.max(0, operands.nl.length - results.nl.length));
  const lin = operands.lin.slice(Math.max(0, operands.lin.length - results.lin.length));
  const same = (a: readonly Type[], b: readonly Type[]) => a.length === b.length && a.every((t, i) => typeEquals(t, b[i]));
  if (!same(nl, results.nl) || !same(lin, results.lin)) {
    ops.error(`the body of ${op} returns ${text(results.nl, results.lin)}, but its last operands (the carried values) are ${text(nl, lin)}`);
  }
  return results;
}

export function* loopTypeRule(ops: CheckOps, e: ConstructExpr, operands: Sides<Type>): TypeRun {
  if (e.bodies.length !== 1) ops.error(`loop takes one body; got ${e.bodies.length}`);
  const [n, ...nl] = operands.nl;
  if (n === undefined) ops.error('loop needs a trip count: loop(n, ū, c̄ ; u̇̄, ċ̄)');
  else if (n.tag !== 'real') ops.error(`the trip count of loop must be real, got ${printType(n)}`);
  if (e.bodies.length === 0) return { nl: [], lin: [] };
  const results = yield ops.typeBody(e.bodies[0], { nl: [REAL, ...nl], lin: operands.lin });
  return carriedTypes(ops, 'loop', { nl, lin: operands.lin }, results);
}
