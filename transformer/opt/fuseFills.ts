// Loops fused with the loops filling the stacks they read (ConstructRule.fuseFill): a walk over
// every block of a non-linear def, asking the record of each construct statement. What the rule
// removes (the filling loop, its stack) leaves dead bindings the simplifier's next round takes.
import { blockE } from '../ir/syntax';
import type { Block, FnDef, Stmt } from '../ir/syntax';
import { NameSupply, namesIn } from '../ir/build';
import { holdsConstruct, mapChildren } from '../ir/traverse';
import { constructRule, hasEffect } from '../constructs/registry';
import type { FillOps } from '../constructs/types';

/** The def with every fusion made; undefined when there was none. */
export function fuseFills(d: FnDef): FnDef | undefined {
  if (d.linParams.length > 0 || d.linResults.length > 0 || !holdsConstruct(d.body)) return undefined;
  // The def's names are gathered only for a fusion that binds new ones.
  let names: NameSupply | undefined;
  const ops: FillOps = {
    get names() {
      return (names ??= new NameSupply(namesIn({ nlParams: d.nlParams, linParams: d.linParams, body: d.body })));
    },
    accumulatesErased: (e) => (e.tag === 'construct' ? constructRule(e, 'simplify').accumulatesErased : undefined),
    readsOnly: (e) => {
      const t = e.tag === 'construct' ? constructRule(e, 'simplify').threads?.(e) : undefined;
      return t?.unchanged ? { array: t.array, result: t.result } : undefined;
    },
    hasEffect,
  };
  let changed = false;
  const walk = (b: Block): Block => {
    let stmts: Stmt[] = b.stmts.map((s) => {
      if (s.tag !== 'let') return s;
      const rhs = s.rhs.tag === 'block' ? blockE(walk(s.rhs.block)) : mapChildren(s.rhs, (l) => ({ ...l, body: walk(l.body) }));
      return rhs === s.rhs ? s : { ...s, rhs };
    });
    for (let k = 0; k < stmts.length; k++) {
      const s = stmts[k];
      if (s.tag !== 'let' || s.rhs.tag !== 'construct') continue;
      const fused = constructRule(s.rhs, 'simplify').fuseFill?.(ops, stmts, k, b.result);
      if (!fused) continue;
      stmts = fused;
      changed = true;
      k = -1;
    }
    return stmts === b.stmts ? b : { stmts, result: b.result };
  };
  const body = walk(d.body);
  return changed ? { ...d, body } : undefined;
}
