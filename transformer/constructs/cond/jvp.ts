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
import { binder, block, construct, drop, lambda, letS, lvar, ret, tangentType } from '../../ir/syntax';
import type { Binder, Lambda } from '../../ir/syntax';
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
  // An operand without a tangent (a constant) keeps a symbolic zero inside the bodies, so their
  // rules skip its partials, which may be infinite where the value is constant (sqrt at 0).
  const symbolicZeros = tangents.map((t) => t === null);
  const zeros: boolean[][] = e.bodies.map(() => []);
  const bodies = e.bodies.map((body, i) => ops.jvpBody(body, 0, symbolicZeros, zeros[i]));
  // A result both bodies compute without a tangent (an index, a flag) gets none: a materialised
  // zero would be carried on by a loop around the cond, and its cotangent through reverse mode.
  const active = results.map((_, k) => zeros.some((z) => !z[k]));
  if (!active.some((a) => a)) {
    b.bind([...results], [], e);
    return results.map(() => null);
  }
  const resultDots = results.map((y, k) => (active[k] ? binder(b.fresh(dotName(y.name)), tangentType(ops.typeOf(y.name))) : undefined));
  b.bind(
    [...results],
    resultDots.filter((d): d is Binder => d !== undefined),
    construct(
      e.op,
      e.nl,
      dots,
      bodies.map((l) => keepActive(l, active)),
    ),
  );
  return resultDots.map((d) => d?.name ?? null);
}

/** A J'd body returning only the active results' tangents (the others, materialised zeros, dropped). */
function keepActive(l: Lambda, active: readonly boolean[]): Lambda {
  const r = l.body.result;
  if (active.every((a) => a) || r.tag !== 'ret') return l;
  const unused = r.lin.filter((_, k) => !active[k]).map((n) => letS([], [], drop(lvar(n))));
  return lambda(
    l.nlParams,
    l.linParams,
    block(
      [...l.body.stmts, ...unused],
      ret(
        r.nl,
        r.lin.filter((_, k) => active[k]),
      ),
    ),
  );
}
