// T of cond, branchwise on the saved predicate:
//
//   T(let (; ẏ̄) = cond(p, r̄ ; ẋ̄)[f, g]) with cotangents ȳ_bar
//     ↝ let (; x̄_bar) = cond(p, r̄ ; ȳ_bar)[T f, T g]
//
// Adjoint identity: for p true, ⟨cond(p, r̄ ; ẋ̄)[f, g], ȳ⟩ = ⟨f(r̄ ; ẋ̄), ȳ⟩ = ⟨ẋ̄, (T f)(r̄ ; ȳ)⟩ =
// ⟨ẋ̄, cond(p, r̄ ; ȳ)[T f, T g]⟩, and likewise with g for p false. Symbolic zero cotangents of
// results are materialised; when all are zero, so are the operands' (linearity), and nothing
// is emitted.
import { binder, construct } from '../../ir/syntax';
import type { Type } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, TransposeOps } from '../types';
import { barName } from '../../ir/names';

export function condTranspose(ops: TransposeOps, e: ConstructExpr, cotangents: readonly Tangent[], resultTypes: readonly Type[]): readonly Tangent[] {
  const { b } = ops;
  if (cotangents.every((c) => c === null)) return e.lin.map(() => null);
  const cts = cotangents.map((c, i) => c ?? b.zero(resultTypes[i], 'zero'));
  const bars = e.lin.map((x) => binder(b.fresh(barName(x)), ops.typeOf(x)));
  b.bind(
    [],
    bars,
    construct(
      e.op,
      e.nl,
      cts,
      e.bodies.map((body) => ops.transposeBody(body, resultTypes)),
    ),
  );
  return bars.map((x) => x.name);
}
