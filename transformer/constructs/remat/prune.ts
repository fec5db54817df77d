// Results of a non-linear remat nobody reads: the body stops returning them, and the simplifier
// removes what only they needed.
import { ret } from '../../ir/syntax';
import type { ConstructExpr } from '../types';

export function rematPruneResults(e: ConstructExpr, keep: readonly boolean[]): ConstructExpr | undefined {
  const l = e.bodies[0];
  const r = l.body.result;
  if (r.tag !== 'ret' || r.lin.length > 0) return undefined;
  return { ...e, bodies: [{ ...l, body: { ...l.body, result: ret(r.nl.filter((_, k) => keep[k])) } }] };
}
