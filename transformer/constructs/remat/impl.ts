// Evaluating remat: ⟦remat(ū ; u̇̄)[body]⟧ = ⟦body⟧(ū ; u̇̄), W = W(body). Recomputation is U's
// business: the linear half it writes runs the body's non-linear part again, and pays for it.
// A second body (the primal J keeps for U) is not run.
import type { Value } from '../../ir/value';
import type { ConstructExpr, ImplRun, InterpOps, Sides } from '../types';

export function* rematImpl(ops: InterpOps, e: ConstructExpr, operands: Sides<Value>): ImplRun {
  // The body runs once: it may take over the arrays the running scope accumulated and hands in.
  for (const v of [...operands.nl, ...operands.lin]) ops.handOver(v);
  return yield ops.bodyRun(e.bodies[0], operands);
}
