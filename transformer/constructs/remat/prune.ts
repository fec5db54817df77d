// Results of remat nobody reads: its bodies stop returning them (the primal J keeps as well, so the
// two stay alike), and the simplifier removes what only they needed.
import { ret } from '../../ir/syntax';
import type { Lambda } from '../../ir/syntax';
import type { ConstructExpr } from '../types';

export function rematPruneResults(e: ConstructExpr, keep: readonly boolean[]): ConstructExpr | undefined {
  const bodies: Lambda[] = [];
  for (const l of e.bodies) {
    const r = l.body.result;
    // A body ending in a call or another construct would need a binding first: left as it is.
    if (r.tag !== 'ret') return undefined;
    bodies.push({ ...l, body: { ...l.body, result: ret(r.nl.filter((_, k) => keep[k]), r.lin) } });
  }
  return { ...e, bodies };
}
