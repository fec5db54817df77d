// Which residuals of a body run once per element or iteration (map, scan, reduce,
// reduceByIndex, loop, while) its unzipped construct stores, and where the linear half reads
// each one from (JAX's scan: extensive residuals stacked, intensive ones passed as constants).
import { REAL, arrayType, binder, lambda, ret, InternalError } from '../../ir/syntax';
import type { Binder, Lambda, Type } from '../../ir/syntax';
import type { Builder } from '../../ir/build';
import type { ConstructExpr, UnzippedBody } from '../types';

/**
 * Where the linear loop gets each residual of a loop body from. A stacked residual is element
 * `field` of each iteration's record of `stride` values on stack `slot` (stride 1: a stack of its
 * own).
 */
export type ResidualSource =
  | { readonly kind: 'counter' }
  | { readonly kind: 'invariant'; readonly operand: string }
  | { readonly kind: 'stacked'; readonly slot: number; readonly field: number; readonly stride: number; readonly flag?: true };

/**
 * Sorts the residuals: the counter, invariant parameters (given with their operands), the rest
 * stacked. With `records`, the numbers (with `flags`, the booleans too, as 1 or 0) share one stack, each iteration pushing its record of them
 * (a loop body storing twenty numbers per iteration then keeps one stack, not twenty: an inner loop
 * run once per outer iteration allocates one, and the outer loop keeps one stack of them). Nested
 * loops and while loops use records: a record's fields cannot be pruned one by one (a residual only
 * the cotangent of a parameter outside `wrt` reads stays on the tape), which an outer counted loop,
 * run once with its room reserved, would pay for and not gain from; a while loop, whose room is
 * unknown, gains one room check per iteration for all its numbers instead of one per number, and
 * loses nothing: no rule prunes a while's stacks. A while's flags join the record for the same
 * reason; a counted loop keeps them apart, where pruning drops a flag its linear half no longer
 * reads.
 */
export function residualSources(
  h: UnzippedBody,
  counter: string | undefined,
  invariants: readonly { param: string; operand: string }[],
  records = false,
  flags = false,
): { sources: ResidualSource[]; stacked: Type[]; strides: number[] } {
  // What a record holds as a number: a real, and with `flags` a boolean (a branch taken) as 1 or 0.
  const inRecord = (t: Type) => t.tag === 'real' || (flags && t.tag === 'bool');
  const stacked: Type[] = [];
  const strides: number[] = [];
  const kept = h.tangent.nlParams.map((r) => r.name !== counter && !invariants.some((u) => u.param === r.name));
  const numbers = records ? h.residuals.filter((t, j) => kept[j] && inRecord(t)).length : 0;
  if (numbers >= 2) {
    stacked.push(REAL);
    strides.push(numbers);
  }
  let field = 0;
  const sources = h.tangent.nlParams.map((r, j): ResidualSource => {
    if (r.name === counter) return { kind: 'counter' };
    const inv = invariants.find((u) => u.param === r.name);
    if (inv) return { kind: 'invariant', operand: inv.operand };
    const t = h.residuals[j];
    if (numbers >= 2 && inRecord(t))
      return t.tag === 'bool' ? { kind: 'stacked', slot: 0, field: field++, stride: numbers, flag: true } : { kind: 'stacked', slot: 0, field: field++, stride: numbers };
    stacked.push(h.residuals[j]);
    strides.push(1);
    return { kind: 'stacked', slot: stacked.length - 1, field: 0, stride: 1 };
  });
  return { sources, stacked, strides };
}

/**
 * The non-linear half of a construct over elements that stores its residuals in arrays, one
 * element per iteration (map, scan, reduce, reduceByIndex): an array for each stacked residual
 * and the primal body returning its `outputs` results, then the stacked residuals.
 */
export function residualArrays(
  b: Builder,
  e: ConstructExpr,
  h: UnzippedBody,
  outputs: number,
  counter: string | undefined,
  invariants: readonly { param: string; operand: string }[],
): { sources: ResidualSource[]; arrays: Binder[]; primal: Lambda } {
  const { sources, stacked } = residualSources(h, counter, invariants);
  const arrays = stacked.map((t) => binder(b.fresh('res'), arrayType(t)));
  const r = h.primal.body.result;
  if (r.tag !== 'ret') throw new InternalError(`${e.op}: unzipBody must return a ret`);
  const kept = r.nl.slice(outputs).filter((_, j) => sources[j].kind === 'stacked');
  const primal = lambda(h.primal.nlParams, [], { stmts: h.primal.body.stmts, result: ret([...r.nl.slice(0, outputs), ...kept]) });
  return { sources, arrays, primal };
}
