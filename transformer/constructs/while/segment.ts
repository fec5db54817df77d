// Checkpointing a while loop by strip-mining (ad/checkpoint.ts), for a fixed segment length k
// (`{ every: k }`; the trip count is known only at the end, so there is no ⌈√n⌉ to aim at):
//
//   while(ū, c̄)[|p̄| { cond }, |ū, c̄| { step }]
//     ↝ while(ū, c̄)[|p̄| { cond }, |ū, c̄| {
//          remat(ū, c̄)[|ū, c̄| {
//            let t₀ = 0
//            let (c̄', t) = while(ū, c̄, t₀)[|ū, c̄, t| { let go = cond; let kk = k; let more = lt(t, kk) in and(go, more) },
//                                           |ū, c̄, t| { let c̄' = step; let one = 1; let t' = add(t, one) in (c̄', t') }]
//            drop(t)
//            c̄' }] }]
//
// The outer loop runs a segment while the condition holds; a segment runs at most k steps, and
// stops early where the condition fails. The steps run are the same, in the same order, so the
// results are. U of the outer while stacks the remat's operands (the state at each segment's
// start: ⌈m/k⌉ snapshots for m steps) and the linear half recomputes one segment at a time
// (at most k residual sets). Costs: per step a comparison, an `and` and the counter's `add`; per
// segment the condition twice more (the outer check and the inner one on the same state).
import { BOOL, REAL, binder, construct, lambda, letS, lit, prim, ret } from '../../ir/syntax';
import type { Binder, Expr, Stmt } from '../../ir/syntax';
import type { ConstructExpr, SegmentOps } from '../types';
import { CONDITION, STEP } from './operands';

const dropStmt = (x: Binder): Stmt => letS([], [], { tag: 'drop', expr: { tag: 'var', linear: false, name: x.name } });

export function whileSegment(ops: SegmentOps, e: ConstructExpr): Expr | undefined {
  const k = ops.every;
  const cond = e.bodies[CONDITION];
  const step = e.bodies[STEP];
  if (k === undefined || e.lin.length > 0 || step.linParams.length > 0 || step.nlParams.some((p) => p.type === undefined)) return undefined;
  const { b } = ops;
  const carried = ops.arity(step).nl;
  const copy = (ps: readonly Binder[]) => ps.map((p) => binder(b.fresh(p.name), p.type));

  // The inner condition: the condition, and fewer than k steps so far.
  const unread = copy(step.nlParams.slice(cond.nlParams.length));
  const t = binder(b.fresh('t'), REAL);
  const go = binder(b.fresh('go'), BOOL);
  const kk = binder(b.fresh('k'), REAL);
  const more = binder(b.fresh('more'), BOOL);
  const innerCond = lambda([...cond.nlParams, ...unread, t], [], {
    stmts: [...unread.map(dropStmt), ...cond.body.stmts, letS([go], [], cond.body.result), letS([kk], [], lit(k)), letS([more], [], prim('lt', [t.name, kk.name]))],
    result: prim('and', [go.name, more.name]),
  });

  // The inner step: the step, and the counter.
  const t1 = binder(b.fresh('t'), REAL);
  const next = copy(step.nlParams.slice(step.nlParams.length - carried));
  const one = binder(b.fresh('one'), REAL);
  const t2 = binder(b.fresh('t'), REAL);
  const innerStep = lambda([...step.nlParams, t1], [], {
    stmts: [...step.body.stmts, letS(next, [], step.body.result), letS([one], [], lit(1)), letS([t2], [], prim('add', [t1.name, one.name]))],
    result: ret([...next.map((x) => x.name), t2.name]),
  });

  // One segment, remat'd.
  const vals2 = copy(step.nlParams);
  const t0 = binder(b.fresh('t'), REAL);
  const ends = copy(step.nlParams.slice(step.nlParams.length - carried));
  const tEnd = binder(b.fresh('t'), REAL);
  const segment = ops.inner(construct('while', [...vals2.map((v) => v.name), t0.name], [], [innerCond, innerStep]) as ConstructExpr);
  const rematBody = lambda(vals2, [], {
    stmts: [letS([t0], [], lit(0)), letS([...ends, tEnd], [], segment), dropStmt(tEnd)],
    result: ret(ends.map((x) => x.name)),
  });

  const vals1 = copy(step.nlParams);
  const outs = copy(step.nlParams.slice(step.nlParams.length - carried));
  const outerStep = lambda(vals1, [], {
    stmts: [
      letS(
        outs,
        [],
        construct(
          'remat',
          vals1.map((v) => v.name),
          [],
          [rematBody],
        ),
      ),
    ],
    result: ret(outs.map((x) => x.name)),
  });
  return construct('while', e.nl, [], [cond, outerStep]);
}
