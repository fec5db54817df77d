// The functions of a program that a call must keep though nobody reads its results: a callee
// whose body (or a function it calls) holds an effect (a throw, a log) runs for it like the effect
// itself; one that holds a run-time check (`atmost`) may throw. A gradient that needs nothing a
// called function computes (a parameter outside wrt) dropped the call with the throw and the
// checks in it (unreadChecks.test.ts). The simplifier asks these sets as it asks hasEffect and
// holdsCheck of a statement (opt/simplify.ts).
import { blockE } from '../ir/syntax';
import type { Block, Program } from '../ir/syntax';
import { calleesOfDef } from '../ir/program';
import { hasEffect, holdsCheck } from '../constructs/registry';

export interface KeptCalls {
  /** Functions whose run may have an effect: a call of one stays where it is. */
  readonly effect: ReadonlySet<string>;
  /** Functions whose run may fail a check: a call of one stays, and may move like a check. */
  readonly check: ReadonlySet<string>;
}

export const NO_KEPT_CALLS: KeptCalls = { effect: new Set(), check: new Set() };

/** What a body holds itself, remembered per body (most defs are unchanged between passes). */
const own = new WeakMap<Block, { readonly effect: boolean; readonly check: boolean }>();

function holds(body: Block): { readonly effect: boolean; readonly check: boolean } {
  let known = own.get(body);
  if (known === undefined) {
    const e = blockE(body);
    own.set(body, (known = { effect: hasEffect(e), check: holdsCheck(e) }));
  }
  return known;
}

export function keptCalls(p: Program): KeptCalls {
  const effect = new Set<string>();
  const check = new Set<string>();
  const callers = new Map<string, string[]>();
  for (const d of p.defs) {
    const h = holds(d.body);
    if (h.effect) effect.add(d.name);
    if (h.check) check.add(d.name);
    for (const c of calleesOfDef(d)) {
      const list = callers.get(c);
      if (list) list.push(d.name);
      else callers.set(c, [d.name]);
    }
  }
  if (effect.size === 0 && check.size === 0) return NO_KEPT_CALLS;
  // A caller of a kept function is kept for the same reason (a worklist up the call graph).
  for (const set of [effect, check]) {
    const work = [...set];
    while (work.length > 0) {
      for (const caller of callers.get(work.pop()!) ?? []) {
        if (set.has(caller)) continue;
        set.add(caller);
        work.push(caller);
      }
    }
  }
  return { effect, check };
}
