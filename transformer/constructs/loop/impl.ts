// Evaluating a counted loop:
//
//   ⟦loop(n, ū, c̄ ; u̇̄, ċ̄)[body]⟧ = (c̄_n ; ċ̄_n), where (c̄_0 ; ċ̄_0) = (c̄ ; ċ̄) and
//   (c̄_{i+1} ; ċ̄_{i+1}) = ⟦body⟧(i, ū, c̄_i ; u̇̄, ċ̄_i) for i = 0, 1, … while i < n
//   W(loop(…)) = Σ_i W(body at iteration i)
//
// n ≤ 0 (or NaN) runs no iteration; a non-integer n runs ⌈n⌉ (the `i < n` of the emitted `for`).
// Work depends on n, a non-linear value, never on a linear one.
import type { Value } from '../../ir/value';
import type { ConstructExpr, ImplRun, InterpOps, Sides } from '../types';
import { loopParts } from './operands';

export function* loopImpl(ops: InterpOps, e: ConstructExpr, operands: Sides<Value>): ImplRun {
  const body = e.bodies[0];
  const { count, invariant, carried } = loopParts(operands, ops.arity(body));
  let c = carried;
  // The carried operands were linear (or erased linear) values: the first iteration may take them over.
  for (const v of [...c.nl, ...c.lin]) ops.handOver(v);
  for (let i = 0; i < (count as number); i++) {
    c = yield ops.bodyRun(body, { nl: [i, ...invariant.nl, ...c.nl], lin: [...invariant.lin, ...c.lin] });
  }
  return c;
}
