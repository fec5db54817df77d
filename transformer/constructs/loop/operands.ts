// The operands of `loop(n, ū, c̄ ; u̇̄, ċ̄)[|i, ū, c̄ ; u̇̄, ċ̄| { body }]`: the trip count n, then
// the loop-invariant operands and the carried ones of each sort. The carried ones are the last
// of each sort, as many as the body returns (its result arity): ū and u̇̄ are read by every
// iteration, c̄ and ċ̄ are replaced by the body's results.
import { InternalError } from '../../ir/syntax';
import type { CarrySlot, ConstructExpr, Counts, Sides } from '../types';
import type { Lambda } from '../../ir/syntax';

export interface LoopParts<T> {
  readonly count: T;
  readonly invariant: Sides<T>;
  readonly carried: Sides<T>;
}

export function loopParts<T>(operands: Sides<T>, carried: Counts): LoopParts<T> {
  if (operands.nl.length === 0) throw new InternalError('loop: no trip count (was the program type-checked?)');
  const rest = operands.nl.slice(1);
  const nlCut = rest.length - carried.nl;
  const linCut = operands.lin.length - carried.lin;
  if (nlCut < 0 || linCut < 0) throw new InternalError('loop: the body returns more values than the loop carries');
  return {
    count: operands.nl[0],
    invariant: { nl: rest.slice(0, nlCut), lin: operands.lin.slice(0, linCut) },
    carried: { nl: rest.slice(nlCut), lin: operands.lin.slice(linCut) },
  };
}

export const loopNames = (e: ConstructExpr, carried: Counts): LoopParts<string> => loopParts(e, carried);

/**
 * The carried values of a loop-like construct (ConstructRule.carries): its last non-linear
 * operands bind the last parameters of body `body`, which hands them back as its results.
 */
export function trailingCarrySlots(e: ConstructExpr, body: number, bodyArity: (body: Lambda) => Counts): CarrySlot[] {
  const l = e.bodies[body];
  if (!l) return [];
  const carried = bodyArity(l).nl;
  const params = l.nlParams.length;
  return Array.from({ length: carried }, (_, k) => ({ operand: e.nl.length - carried + k, body, param: params - carried + k, result: k }));
}

/** Per carried result, the operand whose length it keeps (the carried operand), where the body keeps it. */
export function keptLengths(body: Lambda | undefined, operands: number, source: (body: Lambda, result: number) => number | undefined): (number | undefined)[] {
  const r = body?.body.result;
  if (!body || !r || r.tag !== 'ret') return [];
  const carried = r.nl.length;
  const params = body.nlParams.length;
  return r.nl.map((_, m) => (source(body, m) === params - carried + m ? operands - carried + m : undefined));
}
