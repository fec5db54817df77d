// Dropping results nobody reads from a construct whose results are its bodies' results (cond: one
// body runs; remat: its primal body and the J-kept copy stay alike): each body stops returning
// them, and the simplifier's dead-code pass then removes what only they needed (the value in a
// gradient that discards it).
//
//   let (y₁, y₂) = cond(p, x̄)[|ā| { …; (e₁, e₂) }, |ā| { …; (f₁, f₂) }]   with y₁ unused
//   ⇒ let (y₂) = cond(p, x̄)[|ā| { …; (e₂) }, |ā| { …; (f₂) }]
//
// And dropping operands no body reads (`bodyOperandsPartly`): a cond's operand that every branch
// only drops (the primal cotangent of a Hessian's last branch, which only the dropped gradient
// read) kept its producer alive, a loop's carried cotangent among them.
//
//   let (y) = cond(p, a, b)[|a₁, b₁| { drop(b₁); … }, |a₂, b₂| { drop(a₂); drop(b₂); … }]
//   ⇒ let (y) = cond(p, a)[|a₁| { … }, |a₂| { drop(a₂); … }]
import { ret } from '../ir/syntax';
import type { Expr, Lambda, Stmt } from '../ir/syntax';
import { closedFreeVars } from '../ir/freeVars';
import type { ConstructExpr } from './types';
import { keptAlive } from './effect';

export function pruneBodyResults(e: ConstructExpr, keep: readonly boolean[]): ConstructExpr | undefined {
  const bodies: Lambda[] = [];
  for (const l of e.bodies) {
    const r = l.body.result;
    // A body ending in a call or another construct would need a binding first: left as it is.
    if (r.tag !== 'ret') return undefined;
    bodies.push({
      ...l,
      body: {
        ...l.body,
        result: ret(
          r.nl.filter((_, k) => keep[k]),
          r.lin,
        ),
      },
    });
  }
  return { ...e, bodies };
}

/** `drop(v)` of a non-linear variable: it computes nothing and keeps nothing alive. */
export const nonLinearDrop = (s: Stmt): string | undefined =>
  s.tag === 'let' && s.nl.length === 0 && s.lin.length === 0 && s.rhs.tag === 'drop' && s.rhs.expr.tag === 'var' && !s.rhs.expr.linear ? s.rhs.expr.name : undefined;

/**
 * The non-linear variables a body reads to compute its result and what stays unread (`alive`: a
 * check, an effect), other than to drop them: a backward pass, so what only a dropped result
 * needed reads nothing.
 */
function readsOf(l: Lambda, alive: (e: Expr) => boolean): Set<string> {
  const reads = new Set<string>();
  const add = (f: { nl: Set<string> }) => f.nl.forEach((n) => reads.add(n));
  add(closedFreeVars(l.body.result));
  for (let i = l.body.stmts.length - 1; i >= 0; i--) {
    const s = l.body.stmts[i];
    if (s.tag === 'unpack') {
      if (s.linear || s.names.some((b) => reads.has(b.name))) reads.add(s.tuple);
      continue;
    }
    if (nonLinearDrop(s) !== undefined) continue;
    if (s.nl.length > 0 && s.lin.length === 0 && !s.nl.some((b) => reads.has(b.name)) && !alive(s.rhs)) continue;
    add(closedFreeVars(s.rhs));
  }
  return reads;
}

/**
 * pruneBodyResults for a construct whose non-linear operands after the first `lead` are its
 * bodies' non-linear parameters, one for one (cond after its test, remat): it also drops the
 * operands no body reads, with their parameters and drops. Asked even when every result is read;
 * undefined where nothing changes.
 */
export function bodyOperandsPartly(e: ConstructExpr, keep: readonly boolean[], lead: number, alive: (e: Expr) => boolean = keptAlive): { expr: ConstructExpr; kept: boolean[] } | undefined {
  const results = keep.some((k) => !k) ? pruneBodyResults(e, keep) : undefined;
  const base = results ?? e;
  const kept = results ? [...keep] : keep.map(() => true);
  if (base.bodies.length === 0 || base.bodies.some((l) => l.nlParams.length !== base.nl.length - lead)) return results && { expr: results, kept };
  const reads = base.bodies.map((l) => readsOf(l, alive));
  const unread = new Set<number>();
  base.bodies[0].nlParams.forEach((_, k) => {
    if (base.bodies.every((l, b) => !reads[b].has(l.nlParams[k].name))) unread.add(k);
  });
  if (unread.size === 0) return results && { expr: results, kept };
  const bodies = base.bodies.map((l) => {
    const gone = new Set(l.nlParams.filter((_, k) => unread.has(k)).map((b) => b.name));
    const stmts = l.body.stmts.filter((s) => !gone.has(nonLinearDrop(s) ?? ''));
    return { ...l, nlParams: l.nlParams.filter((_, k) => !unread.has(k)), body: { ...l.body, stmts } };
  });
  return { expr: { ...base, nl: base.nl.filter((_, k) => k < lead || !unread.has(k - lead)), bodies }, kept };
}
