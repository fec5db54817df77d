// J of a loop whose carried values may have no tangent: a carried value that starts without one
// and that each iteration computes from values without tangents stays without one (an Int32Array
// of indices written with truncated values, a counter, a flag, an explicit stack's top). Carrying
// a materialised zero for it would make reverse mode carry, and zero, its cotangent through
// every iteration, and store what that needs. So the carried values presumed inactive are those
// whose initial tangent is a symbolic zero; J of the body with them symbolic shows which results
// still come out symbolic; the others are dropped from the presumption and J runs again until
// nothing changes (at most once per carried value). The loop then carries tangents for the rest
// only: the linear carried values are the last of their sort, as many as the body returns, so a
// loop may carry fewer of them than non-linear ones.
import { binder, block, construct, drop, InternalError, lambda, letS, lvar, ret, tangentType } from '../../ir/syntax';
import type { Binder, Lambda } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, JvpOps } from '../types';
import { dotName } from '../../ir/names';
import { withoutParams } from '../../ir/usageBuilder';

/**
 * J of a loop or while loop: `operands` are its differentiable operands (invariants, then the
 * carried values, one per result), `step` the body that computes the carried values, which
 * takes `constants` leading parameters without tangents (a loop's counter).
 */
export function carriedLoopJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[], operands: readonly string[], step: number, constants: number): readonly Tangent[] {
  const { b } = ops;
  const tangents = operands.map((x) => ops.tangentOf(x));
  if (tangents.every((t) => t === null)) {
    b.bind([...results], [], e);
    return results.map(() => null);
  }
  const first = operands.length - results.length;
  let inactive = results.map((_, k) => tangents[first + k] === null);
  let body: Lambda;
  for (;;) {
    const zeroResults: boolean[] = [];
    const symbolic = operands.map((_, i) => (i < first ? tangents[i] === null : inactive[i - first]));
    body = ops.jvpBody(e.bodies[step], constants, symbolic, zeroResults);
    const still = inactive.map((z, k) => z && zeroResults[k]);
    if (still.every((z, k) => z === inactive[k])) break;
    inactive = still;
  }
  if (inactive.every((z) => z)) {
    b.bind([...results], [], e);
    return results.map(() => null);
  }
  const active = (k: number) => !inactive[k];
  const result = body.body.result;
  if (result.tag !== 'ret') throw new InternalError('loop J: the J of a body ends in a ret');
  const lin = result.lin.filter((_, k) => active(k));
  const unused = result.lin.filter((_, k) => !active(k)).map((n) => letS([], [], drop(lvar(n))));
  // The inactive carried values' tangent parameters were symbolic zeros, read by nothing.
  const kept = withoutParams(body, new Set(body.linParams.filter((_, i) => i >= first && !active(i - first)).map((p) => p.name)));
  const step2 = lambda(kept.nlParams, kept.linParams, block([...kept.body.stmts, ...unused], ret(result.nl, lin)));
  const dots = tangents.flatMap((t, i) => (i >= first && !active(i - first) ? [] : [t ?? b.zero(tangentType(ops.typeOf(operands[i])), 'zero')]));
  const resultDots = results.map((y, k) => (active(k) ? binder(b.fresh(dotName(y.name)), tangentType(ops.typeOf(y.name))) : undefined));
  const bodies = e.bodies.map((l, i) => (i === step ? step2 : l));
  b.bind(
    [...results],
    resultDots.filter((d): d is Binder => d !== undefined),
    construct(e.op, e.nl, dots, bodies),
  );
  return resultDots.map((d) => d?.name ?? null);
}
