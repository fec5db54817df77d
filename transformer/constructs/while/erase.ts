// E of a while loop: the linear invariants become carried values the step returns unchanged.
//
//   E(let (c̄' ; ċ̄') = while(ū, c̄ ; u̇̄, ċ̄)[cond, |ū, c̄ ; u̇̄, ċ̄| { e }])
//     = let (c̄', ċ̄') = { let (c̄', u̇̄', ċ̄') = while(ū, c̄, u̇̄, ċ̄)[cond, |ū, c̄, u̇̄, ċ̄| { let (r̄ ; ṙ̄) = E e in (r̄, u̇̄, ṙ̄) }]
//                        drop(u̇̄') in (c̄', ċ̄') }
//
// The carried values must be the last operands and the condition reads a prefix of the
// non-linear ones (ū, c̄), so a linear invariant has nowhere to go but the carried values:
// between them it would split the condition's prefix, and the condition would have to take and
// drop it in every iteration. Returning a parameter costs nothing; the final drop costs the
// invariants' scalars once. Without linear invariants this is E's default order.
import { binder, block, blockE, construct, drop, letS, nvar, ret } from '../../ir/syntax';
import type { Expr, Lambda } from '../../ir/syntax';
import type { ConstructExpr, EraseOps } from '../types';
import { CONDITION, STEP } from './operands';

export function whileErase(ops: EraseOps, e: ConstructExpr): Expr {
  const step = e.bodies[STEP];
  const carried = ops.arity(step);
  const linInv = e.lin.length - carried.lin;
  const erasedStep = ops.eraseBody(step);
  const bodies = [ops.eraseBody(e.bodies[CONDITION]), erasedStep];
  const loop = construct(e.op, [...e.nl, ...e.lin], [], bodies);
  if (linInv === 0) return loop;
  const invParams = erasedStep.nlParams.slice(step.nlParams.length, step.nlParams.length + linInv).map((p) => p.name);
  const r = erasedStep.body.result;
  const stmts = [...erasedStep.body.stmts];
  let results: readonly string[];
  if (r.tag === 'ret') results = r.nl;
  else {
    const names = Array.from({ length: carried.nl + carried.lin }, () => binder(ops.fresh('r')));
    stmts.push(letS(names, [], r));
    results = names.map((x) => x.name);
  }
  const newStep: Lambda = { ...erasedStep, body: block(stmts, ret([...results.slice(0, carried.nl), ...invParams, ...results.slice(carried.nl)])) };
  const ys = Array.from({ length: carried.nl }, () => binder(ops.fresh('y')));
  const us = invParams.map(() => binder(ops.fresh('u')));
  const yDots = Array.from({ length: carried.lin }, () => binder(ops.fresh('y')));
  const out = construct(e.op, [...e.nl, ...e.lin], [], [bodies[CONDITION], newStep]);
  return blockE(block([letS([...ys, ...us, ...yDots], [], out), ...us.map((u) => letS([], [], drop(nvar(u.name))))], ret([...ys, ...yDots].map((x) => x.name))));
}
