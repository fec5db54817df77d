// Typing a while loop (closed bodies; the carried values keep their types; the condition reads
// only non-linear values, a prefix of the non-linear operands):
//
//   Γ ⊢ ū : τ̄    Γ ⊢ c̄ : σ̄    Γ̇ ⊢ u̇̄ : τ̇̄    Γ̇ ⊢ ċ̄ : σ̇̄    (p̄ : ρ̄) a prefix of (ū : τ̄, c̄ : σ̄)
//   p̄ : ρ̄ ; ⊢ condition : (bool ;)
//   ū : τ̄, c̄ : σ̄ ; u̇̄ : τ̇̄, ċ̄ : σ̇̄ ⊢ step : (σ̄ ; σ̇̄)
//   ---------------------------------------------------------------
//   Γ ; Γ̇ ⊢ while(ū, c̄ ; u̇̄, ċ̄)[|p̄| { condition }, |ū, c̄ ; u̇̄, ċ̄| { step }] : (σ̄ ; σ̇̄)
//
// The step's results say how many operands of each sort are carried (the last ones). Each body
// is a scope of its own: the condition uses each of its parameters at least once (drop the ones
// it does not read), the step each linear parameter exactly once per iteration.
import { printType } from '../../ir/printType';
import { REAL } from '../../ir/syntax';
import type { Type } from '../../ir/syntax';
import type { CheckOps, ConstructExpr, Sides, TypeRun } from '../types';
import { carriedTypes } from '../loop/typeRule';
import { CONDITION, STEP } from './operands';

const list = (ts: readonly Type[]) => ts.map((t) => printType(t)).join(', ');

export function* whileTypeRule(ops: CheckOps, e: ConstructExpr, operands: Sides<Type>): TypeRun {
  if (e.bodies.length !== 2) ops.error(`while takes two bodies, a condition and a step; got ${e.bodies.length}`);
  if (e.bodies.length < 2) return { nl: [], lin: [] };
  const cond = e.bodies[CONDITION];
  const k = cond.nlParams.length;
  if (cond.linParams.length > 0) ops.error(`the condition of while reads only non-linear values: it takes no linear parameters, got ${cond.linParams.length}`);
  if (k > operands.nl.length) ops.error(`the condition of while takes ${k} parameters, but while has only ${operands.nl.length} non-linear operand(s); it takes the first ones`);
  // Parameters the rule has already complained about keep their own types (no second message).
  const condParams = { nl: cond.nlParams.map((p, i) => operands.nl[i] ?? p.type ?? REAL), lin: cond.linParams.map((p) => p.type ?? REAL) };
  const c = yield ops.typeBody(cond, condParams);
  if (c.nl.length !== 1 || c.lin.length !== 0 || c.nl[0].tag !== 'bool') {
    ops.error(`the condition of while must return (bool), got (${list(c.nl)}${c.lin.length > 0 ? ` ; ${list(c.lin)}` : ''})`);
  }
  const results = yield ops.typeBody(e.bodies[STEP], operands);
  return carriedTypes(ops, 'while', operands, results);
}
