// U of cond: the residuals of the two branches are unified into one list of slots.
//
// With U(then) = (then_N, then_L, s̄ : S̄) and U(else) = (else_N, else_L, t̄ : T̄) (ops.unzipBody):
//
//   U(let (ȳ ; ẏ̄) = cond(p, x̄ ; ẋ̄)[then, else]) =
//     C:   let (ȳ, s̄, t̄) = cond(p, x̄)[
//            |ā| { let (ȳ', s̄') = then_N(ā) in (ȳ', s̄', ⊥_T̄) },
//            |ā| { let (ȳ', t̄') = else_N(ā) in (ȳ', ⊥_S̄, t̄') }]
//     ė_L: let (; ẏ̄) = cond(p, s̄, t̄ ; ẋ̄)[
//            |s̄, t̄ ; ȧ| { drop(t̄) ; then_L(s̄ ; ȧ) },
//            |s̄, t̄ ; ȧ| { drop(s̄) ; else_L(t̄ ; ȧ) }]
//
// ⊥_τ is a placeholder of type τ built from literals (0, false, "", tuples of them), which the
// cost model charges nothing for. The slots are a padded union tagged by p: the linear cond
// reads p, so p is a residual too, and T branches on the saved predicate. Each linear branch
// reads only its own slots; the other branch's are dropped (restoreLinearity writes the drops).
// Work: W(C) + W(ė_L) = W(J cond) + the scalars of the untaken branch's slots (that drop).
import { InternalError, binder, construct, lambda, lit, ret, tuple } from '../../ir/syntax';
import type { Binder, Block, Expr, Lambda, Type } from '../../ir/syntax';
import { Builder } from '../../ir/build';
import type { ConstructExpr, Sides, UnzipOps, UnzippedBody } from '../types';
import { condNames } from './operands';

/** A value of type t made of literals only. */
function placeholder(b: Builder, t: Type): string {
  switch (t.tag) {
    case 'real':
      return b.nl('pad', lit(0), t);
    case 'bool':
      return b.nl('pad', lit(false), t);
    case 'str':
      return b.nl('pad', lit(''), t);
    case 'tuple':
      return b.nl('pad', tuple(false, t.elems.map((e) => placeholder(b, e))), t);
  }
}

/** The primal half of branch k: its results, then every branch's slots (its own filled). */
function paddedPrimal(ops: UnzipOps, halves: readonly UnzippedBody[], k: number, nlResults: number): Lambda {
  const { primal } = halves[k];
  const r = primal.body.result;
  if (r.tag !== 'ret') throw new InternalError('cond: unzipBody must return a ret');
  const b = new Builder(ops.b.names);
  primal.body.stmts.forEach((s) => b.stmt(s));
  const slots = halves.flatMap((h, j) => (j === k ? r.nl.slice(nlResults) : h.residuals.map((t) => placeholder(b, t))));
  const body: Block = b.finish(ret([...r.nl.slice(0, nlResults), ...slots]));
  return lambda(primal.nlParams, [], body);
}

/** The tangent half of branch k, taking every branch's slots (the others unused). */
function paddedTangent(ops: UnzipOps, halves: readonly UnzippedBody[], k: number): Lambda {
  const { tangent } = halves[k];
  const params: Binder[] = halves.flatMap((h, j) => (j === k ? [...tangent.nlParams] : h.residuals.map((t) => binder(ops.b.fresh('unused'), t))));
  return lambda(params, tangent.linParams, tangent.body);
}

export function condUnzip(ops: UnzipOps, e: ConstructExpr, results: Sides<Binder>): Expr {
  const { pred, args } = condNames(e);
  const halves = e.bodies.map((body) => ops.unzipBody(body));
  const slots = halves.map((h, k) => h.residuals.map((t) => binder(ops.b.fresh(k === 0 ? 'then_res' : 'else_res'), t)));
  const primal = halves.map((_, k) => paddedPrimal(ops, halves, k, results.nl.length));
  ops.b.bind([...results.nl, ...slots.flat()], [], construct(e.op, [pred, ...args.nl], [], primal));
  const tangent = halves.map((_, k) => paddedTangent(ops, halves, k));
  return construct(e.op, [pred, ...slots.flat().map((s) => s.name)], args.lin, tangent);
}
