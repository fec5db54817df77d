// Typing cond (notes §2.3, with closed bodies):
//
//   Γ ⊢ p : bool    Γ ⊢ x̄ : τ̄    Γ̇ ⊢ ẋ̄ : σ̄
//   ā : τ̄ ; ȧ : σ̄ ⊢ then : (ρ̄ ; π̄)        ā : τ̄ ; ȧ : σ̄ ⊢ else : (ρ̄ ; π̄)
//   -------------------------------------------------------------------------
//   Γ ; Γ̇ ⊢ cond(p, x̄ ; ẋ̄)[|ā ; ȧ| { then }, |ā ; ȧ| { else }] : (ρ̄ ; π̄)
//
// Each body is a scope of its own that sees only its parameters (the checker rejects a free
// variable), so each linear operand is consumed exactly once whichever branch runs.
import { printType } from '../../ir/printType';
import { Type, typeEquals } from '../../ir/syntax';
import type { CheckOps, ConstructExpr, Sides, TypeRun } from '../types';

const list = (ts: readonly Type[]) => ts.map((t) => printType(t)).join(', ');
const text = (s: Sides<Type>) => `(${list(s.nl)}${s.lin.length > 0 ? ` ; ${list(s.lin)}` : ''})`;
const same = (a: readonly Type[], b: readonly Type[]) => a.length === b.length && a.every((t, i) => typeEquals(t, b[i]));

export function* condTypeRule(ops: CheckOps, e: ConstructExpr, operands: Sides<Type>): TypeRun {
  if (e.bodies.length !== 2) ops.error(`cond takes two bodies, then and else; got ${e.bodies.length}`);
  const [pred, ...nl] = operands.nl;
  if (pred === undefined) ops.error('cond needs a predicate: cond(p, x̄ ; ẋ̄)');
  else if (pred.tag !== 'bool') ops.error(`the predicate of cond must be bool, got ${printType(pred)}`);
  const results: Sides<Type>[] = [];
  for (const body of e.bodies) results.push(yield ops.typeBody(body, { nl, lin: operands.lin }));
  if (results.length === 0) return { nl: [], lin: [] };
  const [first, ...others] = results;
  for (const r of others) {
    if (!same(r.nl, first.nl) || !same(r.lin, first.lin)) ops.error(`the branches of cond return different types: ${text(first)} and ${text(r)}`);
  }
  return first;
}
