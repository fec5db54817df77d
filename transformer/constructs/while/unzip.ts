// U of a while loop: the non-linear while counts its iterations and stacks each iteration's
// residuals; the linear half is a counted loop over the stacks, run for the saved trip count.
//
// With U(step) = (step_N : |ū, c̄| -> (c̄', s̄), step_L : |s̄ ; u̇̄, ċ̄| -> (; ċ̄')) (ops.unzipBody):
//
//   U(let (c̄' ; ċ̄') = while(ū, c̄ ; u̇̄, ċ̄)[cond, step]) =
//     C:   let st̄₀ = stack(⊥) []                        one empty stack per stacked residual
//          let n₀ = 0
//          let (c̄', n, st̄) = while(ū, c̄, n₀, st̄₀)[cond, |ū, c̄, m, st̄| {
//            let (c̄'', s̄) = step_N(ū, c̄)
//            let m' = add(m, 1)
//            (c̄'', m', push(st̄, s̄)) }]
//
// (The numbers of s̄ form one record: an outermost while reserves it, `extend(st, 1, stride)`, and
// puts each field at record m, one room check per iteration; a nested one pushes its fields, so
// that loop/flatten.ts can place its runs in the enclosing loop's flat stack.)
//     ė_L: let (; ċ̄') = loop(n, st̄, ū_s ; u̇̄, ċ̄)[|i, st̄, ū_s ; u̇̄, ċ̄| {
//            let s̄ = at(st̄, i) in step_L(s̄ ; u̇̄, ċ̄) }]
//
// The condition is unchanged: it takes the first non-linear operands (operands.ts), ū and c̄, and
// never sees the counter or the stacks carried after them. The linear half is the counted loop
// of constructs/loop/ (its residual plumbing is shared: residualSources, stackingBody,
// readingBody), so T of a while is T of that loop: the tangents run backwards over the saved
// iterations, k of them, with k and a run-time number of residuals saved (JAX's while_loop has
// no reverse mode: XLA's static shapes cannot hold a run-time number of residuals). A residual
// that is an invariant parameter u is passed once as an operand (ū_s), every other one is
// stacked. n, the final stacks and ū_s become residuals of the enclosing function.
//
// Work: the counter costs one add per iteration and stack operations nothing, so
// W(C) + W(ė_L) = W(J while) + k for k iterations, linear in k.
import { REAL, binder, construct, letS, lit, prim, stackType } from '../../ir/syntax';
import type { Binder, Expr } from '../../ir/syntax';
import type { ConstructExpr, Sides, UnzipOps } from '../types';
import { emptyStacks, invariantLengths, readingBody, stackingBody } from '../loop/unzip';
import { residualSources } from '../shared/residuals';
import { CONDITION, STEP } from './operands';

export function whileUnzip(ops: UnzipOps, e: ConstructExpr, results: Sides<Binder>): Expr {
  const { b } = ops;
  const step = e.bodies[STEP];
  const h = ops.unzipBody(step);
  const k = results.nl.length;
  const nInv = e.nl.length - k;
  const direct = step.nlParams.slice(0, nInv).map((p, j) => ({ param: p.name, operand: e.nl[j] }));
  const carried = step.nlParams.slice(nInv).map((p, m) => ({ param: p.name, operand: e.nl[nInv + m] }));
  const invariants = [...direct, ...invariantLengths(ops, h, [...direct, ...carried], k)];
  // Records always, flags included: a while's stacks have no room reserved, so each stack costs a
  // room check per iteration. An outermost while reserves a record per iteration and puts at its count (its
  // stacks start empty); a nested one pushes, so that flatten.ts can place its runs in a flat stack.
  const { sources, stacked } = residualSources(h, undefined, invariants, true, true);
  const st0 = emptyStacks(b, stacked);
  const n0 = b.lit(0, 'n');
  // The counter inside the step: m' = m + 1.
  const m = binder(b.fresh('m'), REAL);
  const one = binder(b.fresh('one'), REAL);
  const m1 = binder(b.fresh('m'), REAL);
  const counter = { params: [m], stmts: [letS([one], [], lit(1)), letS([m1], [], prim('add', [m.name, one.name]))], results: [m1.name] };
  const n = binder(b.fresh('trips'), REAL);
  const stFinal = stacked.map((t) => binder(b.fresh('st'), stackType(t)));
  const nlStep = stackingBody(b, h, k, sources, stacked, counter, undefined, ops.nested ? undefined : m.name);
  b.bind([...results.nl, n, ...stFinal], [], construct(e.op, [...e.nl, n0, ...st0], [], [e.bodies[CONDITION], nlStep]));
  const lin = readingBody(b, h, sources, stFinal);
  return construct('loop', [n.name, ...lin.operands], e.lin, [lin.body]);
}
