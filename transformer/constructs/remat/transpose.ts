// T of a linear remat: remat of the transposed body. The body's non-linear statements (the
// recomputation U put there) run forward inside it, then its linear statements backwards.
//
//   T(remat(ū ; u̇̄)[|ū ; u̇̄| { e }], r̄_bar) = remat(ū ; r̄_bar)[|ū ; r̄_bar| { T(e) }] : (; ū_bar)
//
// No cotangent: no remat, every operand's cotangent is zero.
import { binder, construct } from '../../ir/syntax';
import type { Type } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, TransposeOps } from '../types';
import { barName } from '../../ir/names';

export function rematTranspose(ops: TransposeOps, e: ConstructExpr, cotangents: readonly Tangent[], resultTypes: readonly Type[]): readonly Tangent[] {
  const { b } = ops;
  if (cotangents.every((c) => c === null)) return e.lin.map(() => null);
  const cts = cotangents.map((c, i) => c ?? b.zero(resultTypes[i], 'zero'));
  const tb = ops.transposeBody(e.bodies[0], resultTypes);
  const bars = e.lin.map((x) => binder(b.fresh(barName(x)), ops.typeOf(x)));
  b.bind([], bars, construct(e.op, e.nl, cts, [tb]));
  return bars.map((x) => x.name);
}
