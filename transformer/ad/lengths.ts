// Which arrays of a body have the length of one of its parameters, whatever the values: an
// `update` keeps its array's length, a branch keeps it where both branches do, a loop keeps a
// carried array's where its body does (ConstructRule.keepsLength). U asks it of a loop body, so
// that the length of a carried array the body only writes is computed once before the loop
// instead of stacked per iteration (constructs/loop/unzip.ts invariantLengths).
import { constructRule } from '../constructs/registry';
import type { Lambda } from '../ir/syntax';

/**
 * A body's answer, once: a branch or loop asks it of each inner body for each of its results, so
 * without it nested conditionals would be walked once per path through them (2^depth).
 */
const known = new WeakMap<Lambda, ReadonlyMap<string, number>>();

/** Each non-linear name of the body (its parameters included) whose length is parameter k's: name -> k. */
export function lengthParams(body: Lambda): ReadonlyMap<string, number> {
  const found = known.get(body);
  if (found) return found;
  const of = new Map<string, number>(body.nlParams.map((p, k) => [p.name, k]));
  for (const s of body.body.stmts) {
    if (s.tag !== 'let') continue;
    const e = s.rhs;
    const sources: (string | undefined)[] =
      e.tag === 'var' && !e.linear
        ? [e.name]
        : e.tag === 'ret'
          ? [...e.nl]
          : e.tag === 'construct'
            ? (constructRule(e, 'lengths')
                .keepsLength?.(e, lengthSource)
                .map((o) => (o === undefined ? undefined : e.nl[o])) ?? [])
            : [];
    s.nl.forEach((b, k) => {
      const src = sources[k];
      const p = src === undefined ? undefined : of.get(src);
      if (p !== undefined) of.set(b.name, p);
    });
  }
  known.set(body, of);
  return of;
}

/** The parameter whose length the body's non-linear result `result` has, if any. */
export function lengthSource(body: Lambda, result: number): number | undefined {
  const r = body.body.result;
  if (r.tag !== 'ret' || result >= r.nl.length) return undefined;
  return lengthParams(body).get(r.nl[result]);
}
