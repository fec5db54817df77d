// Evaluating a while loop:
//
//   ⟦while(ū, c̄ ; u̇̄, ċ̄)[cond, step]⟧ = (c̄_k ; ċ̄_k), where (c̄_0 ; ċ̄_0) = (c̄ ; ċ̄),
//   (c̄_{j+1} ; ċ̄_{j+1}) = ⟦step⟧(ū, c̄_j ; u̇̄, ċ̄_j), and k is the first j with ⟦cond⟧(ū, c̄_j) false
//   W(while(…)) = Σ_{j ≤ k} W(cond at c̄_j) + Σ_{j < k} W(step at iteration j)
//
// The condition runs k + 1 times, the step k times. The trip count k depends only on non-linear
// values (the condition reads no linear one), so work never depends on a linear value. A
// condition that never turns false loops forever, as the TypeScript it stands for would.
import type { Value } from '../../ir/value';
import type { ConstructExpr, ImplRun, InterpOps, Sides } from '../types';
import { CONDITION, STEP, conditionArgs, whileParts } from './operands';

export function* whileImpl(ops: InterpOps, e: ConstructExpr, operands: Sides<Value>): ImplRun {
  const cond = e.bodies[CONDITION];
  const step = e.bodies[STEP];
  const { invariant, carried } = whileParts(operands, ops.arity(step));
  let c = carried;
  // As a counted loop's: the carried operands may be taken over by the step. The condition only
  // reads them, so it borrows (takes none over, and the step still may write in place).
  for (const v of [...c.nl, ...c.lin]) ops.handOver(v);
  for (;;) {
    const nl = [...invariant.nl, ...c.nl];
    if ((yield ops.bodyRun(cond, { nl: conditionArgs(e, nl), lin: [] }, { borrows: true })).nl[0] !== true) return c;
    c = yield ops.bodyRun(step, { nl, lin: [...invariant.lin, ...c.lin] });
  }
}
