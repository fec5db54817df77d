// U of remat: save the operands, not the body's residuals; recompute those in the linear half.
//
// With U(body) = (body_N : |ū| -> (r̄, s̄), body_L : |s̄ ; u̇̄| -> (; ṙ̄)) (ops.unzipBody):
//
//   U(let (r̄ ; ṙ̄) = remat(ū ; u̇̄)[body]) =
//     C:   let r̄ = remat(ū)[primal]          the primal body J kept (else body_N restricted to r̄)
//     ė_L: let (; ṙ̄) = remat(ū ; u̇̄)[|ū ; u̇̄| { body_N restricted to s̄ ; body_L(s̄ ; u̇̄) }]
//
// The residuals of the enclosing function are the operands ū: whatever the body would have
// saved (a loop's stacks of residuals) exists only while the linear half runs. Hence
// W(C) + W(ė_L) = W(primal) + W(J body) + (drops): the primal runs twice, once in C and once
// again under the linear half, plus a drop for each value a kept statement binds that the
// restriction does not need (a loop's final carried values when only its stacks are wanted).
import { block, construct, lambda, ret } from '../../ir/syntax';
import type { Binder, Expr, Lambda, Stmt } from '../../ir/syntax';
import { InternalError } from '../../ir/syntax';
import { closedFreeNonLinear } from '../../ir/freeVars';
import type { ConstructExpr, Sides, UnzipOps } from '../types';
import { keptAlive, withoutEffects } from '../effect';

/** The statements of `stmts` that the names `wanted` depend on, in order (a backwards liveness walk). */
export function restrictTo(stmts: readonly Stmt[], wanted: Iterable<string>, effects = false): Stmt[] {
  const live = new Set(wanted);
  const kept: Stmt[] = [];
  for (let i = stmts.length - 1; i >= 0; i--) {
    const s = stmts[i];
    const bound = s.tag === 'let' ? [...s.nl, ...s.lin] : s.names;
    // A statement binding nothing is there for its effect on linearity (a drop): not needed.
    // With `effects`, a throw or a check stays too: the forward run is where it happens (never the recomputation).
    if (!bound.some((x) => live.has(x.name)) && !(effects && s.tag === 'let' && keptAlive(s.rhs))) continue;
    kept.push(s);
    if (s.tag === 'let') closedFreeNonLinear(s.rhs).forEach((n) => live.add(n));
    else live.add(s.tuple);
  }
  return kept.reverse();
}

const boundBy = (stmts: readonly Stmt[]): Set<string> => {
  const out = new Set<string>();
  for (const s of stmts) (s.tag === 'let' ? [...s.nl, ...s.lin] : s.names).forEach((x: Binder) => out.add(x.name));
  return out;
};

export function rematUnzip(ops: UnzipOps, e: ConstructExpr, results: Sides<Binder>): Expr {
  const body = e.bodies[0];
  const h = ops.unzipBody(body);
  const r = h.primal.body.result;
  if (r.tag !== 'ret') throw new InternalError('remat: unzipBody must return a ret');
  const outs = r.nl.slice(0, results.nl.length);
  const forward: Lambda = e.bodies[1] ?? lambda(h.primal.nlParams, [], block(restrictTo(h.primal.body.stmts, outs, true), ret(outs)));
  ops.b.bind([...results.nl], [], construct(e.op, e.nl, [], [forward]));
  // The recomputation prints nothing and throws nothing: the forward run did (constructs/effect).
  const again = withoutEffects(
    block(
      restrictTo(
        h.primal.body.stmts,
        h.tangent.nlParams.map((p) => p.name),
      ),
      ret([]),
    ),
  ).stmts;
  // Under the recompute policy body_L starts with bindings body_N may also have kept: bind once.
  const have = boundBy(again);
  const rest = h.tangent.body.stmts.filter((s) => s.tag !== 'let' || s.lin.length > 0 || !s.nl.every((x) => have.has(x.name)));
  const linBody = lambda(body.nlParams, body.linParams, block([...again, ...rest], h.tangent.body.result));
  return construct(e.op, e.nl, e.lin, [linBody]);
}
