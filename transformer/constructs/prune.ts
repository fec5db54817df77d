// Dropping results nobody reads from a construct whose results are its bodies' results (cond: one
// body runs; remat: its primal body and the J-kept copy stay alike): each body stops returning
// them, and the simplifier's dead-code pass then removes what only they needed (the value in a
// gradient that discards it).
//
//   let (y₁, y₂) = cond(p, x̄)[|ā| { …; (e₁, e₂) }, |ā| { …; (f₁, f₂) }]   with y₁ unused
//   ⇒ let (y₂) = cond(p, x̄)[|ā| { …; (e₂) }, |ā| { …; (f₂) }]
import { ret } from '../ir/syntax';
import type { Lambda } from '../ir/syntax';
import type { ConstructExpr } from './types';

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
