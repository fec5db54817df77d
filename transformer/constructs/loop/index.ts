// Counted loops: `loop(n, ū, c̄ ; u̇̄, ċ̄) [|i: real, ū, c̄ ; u̇̄, ċ̄| { body }]` runs its body for
// i = 0, 1, … while i < n, with the invariants ū, u̇̄ and the carried values, and returns the
// final carried values. The carried operands are the last of each sort, as many as the body
// returns (operands.ts). The body is closed: it reads only its parameters.
import type { CarrySlot, ConstructExpr, ConstructRule, Counts } from '../types';
import type { Lambda } from '../../ir/syntax';
import { loopTypeRule } from './typeRule';
import { keptLengths, trailingCarrySlots } from './operands';
import { loopImpl } from './impl';
import { loopJvp } from './jvp';
import { loopUnzip } from './unzip';
import { loopTranspose } from './transpose';
import { loopSegment } from './segment';
import { loopErase } from './erase';
import { loopAccumulates, loopFuseAdd } from './fuseAdd';
import { loopPrunePartly } from './prune';
import { fuseFill } from './fuseFill';

export const loop: ConstructRule = {
  loop: true,
  name: 'loop',
  // The results are the carried values: as many as the body returns.
  arity: (e, bodyArity) => (e.bodies.length > 0 ? bodyArity(e.bodies[0]) : { nl: 0, lin: 0 }),
  typeRule: loopTypeRule,
  impl: loopImpl,
  jvp: loopJvp,
  unzip: loopUnzip,
  transpose: loopTranspose,
  // A carried value feeds the next iteration: only one nobody reads after and that feeds only
  // itself (a cotangent outside wrt) goes, through prunePartly.
  pruneResults: () => undefined,
  prunePartly: loopPrunePartly,
  segment: loopSegment,
  erase: loopErase,
  repeats: true,
  fuseAdd: loopFuseAdd,
  accumulatesResult: loopAccumulates,
  fuseFill,
  // Invariants sit between the trip count and the carried values, in the body after the counter.
  // The carried values, the last operands of each sort: a body may update a carried array in place
  // (opt/inplace.ts) when the loop is its last reader, since each iteration hands it to the next.
  carries: (e, bodyArity) => carrySlots(e, bodyArity),
  overwrites: (e, bodyArity) => carrySlots(e, bodyArity).map((c) => c.operand),
  // The results are the carried values: the carried operands (a loop running zero times returns
  // them) and whatever parameter the body hands back; an invariant the body only reads is not held.
  holds: (e, bodyArity, handsBack) => {
    const body = e.bodies[0];
    if (e.bodies.length !== 1 || body.nlParams.length !== e.nl.length) return e.nl.map((_, k) => k);
    const held = new Set(carrySlots(e, bodyArity).map((c) => c.operand));
    // Non-linear parameter k binds operand k: the counter for n, then the invariants, the carried.
    for (const p of handsBack(body)) held.add(p);
    return [...held];
  },
  // A carried array keeps its initial length where every run of the body hands on one of the
  // length it was given (a loop running zero times returns the operand itself).
  keepsLength: (e, source) => keptLengths(e.bodies[0], e.nl.length, source),
  // i = 0, 1, … while i < n: the counter is the body's first parameter.
  counter: (e) => (e.bodies.length === 1 ? { body: 0, param: 0 } : undefined),
  invariants: (e, bodyArity) => {
    if (e.bodies.length !== 1 || e.lin.length > 0) return undefined;
    const count = e.nl.length - 1 - bodyArity(e.bodies[0]).nl;
    return count < 0 ? undefined : { body: 0, param: 1, operand: 1, count, trip: 0 };
  },
};

function carrySlots(e: ConstructExpr, bodyArity: (body: Lambda) => Counts): CarrySlot[] {
  return e.bodies.length === 1 ? trailingCarrySlots(e, 0, bodyArity) : [];
}
