// While loops: `while(ū, c̄ ; u̇̄, ċ̄) [|ū, c̄| { condition }, |ū, c̄ ; u̇̄, ċ̄| { step }]` runs the
// step while the condition holds, with the invariants ū, u̇̄ and the carried values, and returns
// the final carried values. Its trip count is decided at run time by the condition, a predicate
// on non-linear values (it takes the first non-linear operands and no linear one). The carried
// operands are the last of each sort, as many as the step returns (operands.ts). The bodies are
// closed: they read only their parameters. J carries tangents through the same iterations; U
// counts them and turns the linear half into a counted `loop` over residual stacks, so reverse
// mode is the reversed counted loop.
import type { CarrySlot, ConstructExpr, ConstructRule, Counts } from '../types';
import type { Lambda } from '../../ir/syntax';
import { STEP } from './operands';
import { keptLengths, trailingCarrySlots } from '../loop/operands';
import { whileTypeRule } from './typeRule';
import { whileImpl } from './impl';
import { whileJvp } from './jvp';
import { whileUnzip } from './unzip';
import { whileTranspose } from './transpose';
import { whileSegment } from './segment';
import { whileErase } from './erase';

export const whileLoop: ConstructRule = {
  loop: true,
  name: 'while',
  // The results are the carried values: as many as the step returns.
  arity: (e, bodyArity) => (e.bodies.length > STEP ? bodyArity(e.bodies[STEP]) : { nl: 0, lin: 0 }),
  typeRule: whileTypeRule,
  impl: whileImpl,
  jvp: whileJvp,
  unzip: whileUnzip,
  // One record of numbers per iteration, its flags as 1 or 0 (unzip.ts).
  bodyResiduals: 'numbers',
  transpose: whileTranspose,
  // Carried values feed the next iteration: a loop keeps all its results.
  pruneResults: () => undefined,
  segment: whileSegment,
  erase: whileErase,
  repeats: true,
  // The step takes the carried values over and hands them back for the next run, as a counted
  // loop's body does (opt/inplace.ts writes into a carried array in place); the condition only
  // reads them, before the step runs, and keeps nothing (its result is a boolean).
  carries: (e, bodyArity) => stepSlots(e, bodyArity),
  overwrites: (e, bodyArity) => stepSlots(e, bodyArity).map((c) => c.operand),
  keepsLength: (e, source) => keptLengths(e.bodies[STEP], e.nl.length, source),
};

function stepSlots(e: ConstructExpr, bodyArity: (body: Lambda) => Counts): CarrySlot[] {
  return e.lin.length > 0 ? [] : trailingCarrySlots(e, STEP, bodyArity);
}
