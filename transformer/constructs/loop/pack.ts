// A loop nested in a loop's body hands the loop around it its residual stacks, which that loop
// stacks in turn: stack<stack<…>>, a type as deep as the nest, written out wherever a level's
// stacks are typed (its bodies' parameters) and spelled out again for each empty stack
// (placeholder.ts): a program quadratic in the depth. Past MAX_PRINTED nodes, a loop packs such
// residuals into one tuple per iteration whose type is named (`f.iter_2`, printed as one word), so
// every level's types stay a few words and its empty stacks O(1) (absent).
//
//   body_N : |i, ū, c̄| -> (c̄', s̄, d̄)          d̄ the deep residuals
//   ⇒       |i, ū, c̄| { …; let d = <d̄> in (c̄', s̄, d) }
//   body_L : |s̄, d̄ ; ṗ̄| { … }  ⇒  |s̄, d ; ṗ̄| { let <d̄> = d; … }
//
// A loop nest a few levels deep (gradbench's) stays as it was: no tuple is built per iteration.
import { Builder } from '../../ir/build';
import { binder, lambda, ret, tuple, tupleType, unpackS } from '../../ir/syntax';
import { InternalError } from '../../ir/syntax';
import { printedSize } from '../shared/typeSize';
import type { UnzipOps, UnzippedBody } from '../types';

/** Residual types printed with more nodes than this are packed (stack<stack<stack<real>>> has 4). */
export const MAX_PRINTED = 4;

/**
 * `h` with its stacked residuals (those not in `unstacked`: the counter, invariant parameters)
 * whose types print bigger than MAX_PRINTED packed into one residual, the last.
 */
export function packDeepResiduals(ops: UnzipOps, h: UnzippedBody, carried: number, unstacked: ReadonlySet<string>): UnzippedBody {
  const params = h.tangent.nlParams;
  const deep = params.map((p, j) => !unstacked.has(p.name) && printedSize(h.residuals[j]) > MAX_PRINTED);
  if (!deep.includes(true)) return h;
  const r = h.primal.body.result;
  if (r.tag !== 'ret') throw new InternalError('loop: unzipBody must return a ret');
  const split = <T>(xs: readonly T[], keep: boolean) => xs.filter((_, j) => deep[j] === keep);
  const packed = tupleType(split(h.residuals, true), ops.typeName('iter'));
  const b = new Builder(ops.b.names);
  for (const s of h.primal.body.stmts) b.stmt(s);
  const residuals = r.nl.slice(carried);
  const value = b.nl('iter', tuple(false, split(residuals, true)), packed);
  const primal = lambda(h.primal.nlParams, [], b.finish(ret([...r.nl.slice(0, carried), ...split(residuals, false), value])));
  const param = binder(ops.b.fresh('iter'), packed);
  const body = { stmts: [unpackS(false, split(params, true), param.name), ...h.tangent.body.stmts], result: h.tangent.body.result };
  const tangent = lambda([...split(params, false), param], h.tangent.linParams, body);
  return { primal, tangent, residuals: [...split(h.residuals, false), packed] };
}
