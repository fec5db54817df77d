// J of cond, branchwise:
//
//   J(Σ | let ȳ = cond(p, x̄)[then, else])
//     ↝ let (ȳ ; ȳ_dot) = cond(p, x̄ ; Σ(x̄))[J then, J else]
//   J |ā| { e } = |ā ; ā_dot| { J({ā ↦ ā_dot} | e) }
//
// The predicate gets no tangent: the branch taken is locally constant, so the derivative is the
// taken branch's. Operand tangents are materialised (zero(τ) for a symbolic zero, zero(<>) for a
// bool or str operand, whose tangent space is the unit type); inside the bodies a symbolic zero
// stays symbolic (the materialised one is dropped unread). Bodies are closed, so when every
// operand's tangent is a symbolic zero so is every result's: the primal cond is kept as it is.
import { binder, construct, tangentType } from '../../ir/syntax';
import type { Binder } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, JvpOps } from '../types';
import { condNames } from './operands';
import { dotName } from '../../ir/names';

export function condJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[]): readonly Tangent[] {
  const { b } = ops;
  const { args } = condNames(e);
  const tangents = args.nl.map((x) => ops.tangentOf(x));
  if (tangents.every((t) => t === null)) {
    b.bind([...results], [], e);
    return results.map(() => null);
  }
  const dots = tangents.map((t, i) => t ?? b.zero(tangentType(ops.typeOf(args.nl[i])), 'zero'));
  const resultDots = results.map((y) => binder(b.fresh(dotName(y.name)), tangentType(ops.typeOf(y.name))));
  // An operand without a tangent (a constant) keeps a symbolic zero inside the bodies, so their
  // rules skip its partials, which may be infinite where the value is constant (sqrt at 0).
  const symbolicZeros = tangents.map((t) => t === null);
  b.bind(
    [...results],
    resultDots,
    construct(
      e.op,
      e.nl,
      dots,
      e.bodies.map((body) => ops.jvpBody(body, 0, symbolicZeros)),
    ),
  );
  return resultDots.map((d) => d.name);
}
