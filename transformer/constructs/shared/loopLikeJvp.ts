// J of a construct that runs a closed body once per element or iteration (map, scan, reduce,
// reduceByIndex, remat): the same construct over J of its bodies, each differentiable operand's
// tangent a linear operand beside it. When every operand's tangent is a symbolic zero so is
// every result's (the bodies are closed): the primal construct is kept as it is.
import { binder, construct, tangentType } from '../../ir/syntax';
import type { Binder } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, JvpOps } from '../types';
import { dotName } from '../../ir/names';

/** J of a loop-like construct whose differentiable operands are `operands`; `jvpBodies` gives its bodies under J. */
export function loopLikeJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[], operands: readonly string[], jvpBodies: (ops: JvpOps) => ReturnType<JvpOps['jvpBody']>[]): readonly Tangent[] {
  const { b } = ops;
  const tangents = operands.map((x) => ops.tangentOf(x));
  if (tangents.every((t) => t === null)) {
    b.bind([...results], [], e);
    return results.map(() => null);
  }
  const dots = tangents.map((t, i) => t ?? b.zero(tangentType(ops.typeOf(operands[i])), 'zero'));
  const resultDots = results.map((y) => binder(b.fresh(dotName(y.name)), tangentType(ops.typeOf(y.name))));
  b.bind([...results], resultDots, construct(e.op, e.nl, dots, jvpBodies(ops)));
  return resultDots.map((d) => d.name);
}
