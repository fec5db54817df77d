// E of remat: the body erased, every operand non-linear; the primal body J kept beside it is
// left behind.
//
//   E(remat(ū ; u̇̄)[|ū ; u̇̄| { J(e) }, |ū| { e }]) = remat(ū, u̇̄)[|ū, u̇̄| { E J(e) }]
//
// The kept primal is a promise about the linear body it sits next to: it computes that body's
// non-linear results from the non-linear operands. After erasure there are no linear operands:
// the erased body's results include the (now non-linear) tangents, which the primal does not
// return, and it takes the primal operands only. A later J keeps the erased body's own primal.
// Same values, same work (the kept primal is never run).
import { construct } from '../../ir/syntax';
import type { Expr } from '../../ir/syntax';
import type { ConstructExpr, EraseOps } from '../types';

export function rematErase(ops: EraseOps, e: ConstructExpr): Expr {
  return construct(e.op, [...e.nl, ...e.lin], [], [ops.eraseBody(e.bodies[0])]);
}
