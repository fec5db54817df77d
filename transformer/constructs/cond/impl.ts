// Evaluating cond:
//
//   ⟦cond(p, x̄ ; ẋ̄)[then, else]⟧ = ⟦then⟧(x̄ ; ẋ̄) if p, else ⟦else⟧(x̄ ; ẋ̄)
//   W(cond(…)) = W(the body that runs)
//
// Only the taken body runs and is charged. Work now depends on a non-linear value (p), never on
// a linear one (notes §2.4, Thm 4.1 weakened for control flow).
import type { Value } from '../../ir/value';
import type { ConstructExpr, ImplRun, InterpOps, Sides } from '../types';
import { ELSE, THEN, condParts } from './operands';

export function* condImpl(ops: InterpOps, e: ConstructExpr, operands: Sides<Value>): ImplRun {
  const { pred, args } = condParts(operands);
  // One body runs once: it may take over the arrays the running scope accumulated and hands in.
  for (const v of [...args.nl, ...args.lin]) ops.handOver(v);
  return yield ops.bodyRun(e.bodies[pred === true ? THEN : ELSE], args);
}
