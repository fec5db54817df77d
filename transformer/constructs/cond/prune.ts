// Dropping results of cond nobody reads: each body stops returning them, and the simplifier's
// dead-code pass then removes what only they needed (the value in a gradient that discards it).
//
//   let (y₁, y₂) = cond(p, x̄)[|ā| { …; (e₁, e₂) }, |ā| { …; (f₁, f₂) }]   with y₁ unused
//   ⇒ let (y₂) = cond(p, x̄)[|ā| { …; (e₂) }, |ā| { …; (f₂) }]
import { ret } from '../../ir/syntax';
import type { Lambda } from '../../ir/syntax';
import type { ConstructExpr } from '../types';

export function condPruneResults(e: ConstructExpr, keep: readonly boolean[]): ConstructExpr | undefined {
  const bodies: Lambda[] = [];
  for (const l of e.bodies) {
    const r = l.body.result;
    // A body ending in a call or another construct would need a binding first: left as it is.
    if (r.tag !== 'ret') return undefined;
    bodies.push({ ...l, body: { ...l.body, result: ret(r.nl.filter((_, k) => keep[k]), r.lin) } });
  }
  return { ...e, bodies };
}
