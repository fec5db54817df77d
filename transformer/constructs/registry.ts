// The construct registry: higher-order constructs (conditionals, loops, maps, scans) with their
// rules side by side, as the primitive registry holds the primitives. Passes reach a construct
// only through `constructRule` and hand it the operations it needs (types.ts); nothing here
// imports a pass. `CONSTRUCTS` maps every `ConstructName` to a complete `ConstructRule`, so
// adding a name makes the compiler list the facets its record lacks.
import { InternalError } from '../ir/syntax';
import type { ConstructExpr, ConstructRule } from './types';
import { cond } from './cond';
import { loop } from './loop';
import { at, extend, lat, lpush, presize, push, put, size, stack } from './stack';
import { whileLoop } from './while';
import { remat } from './remat';
import { absent } from './absent';
import { ARRAY_CONSTRUCTS } from './array';
import { EFFECTFUL, KEPT_UNREAD, log, raise } from './effect';
import { TAPED_CONSTRUCTS } from './taped';

export { hasEffect, holdsCheck, keptAlive } from './effect';

export type { ConstructExpr, ConstructRule } from './types';

const CORE = { cond, loop, while: whileLoop, stack, push, put, extend, presize, at, size, lpush, lat, remat, absent, raise, log } as const;

export type ConstructName = keyof typeof CORE | keyof typeof ARRAY_CONSTRUCTS | keyof typeof TAPED_CONSTRUCTS;

export const CONSTRUCTS: { readonly [K in ConstructName]: ConstructRule } = Object.freeze({ ...CORE, ...ARRAY_CONSTRUCTS, ...TAPED_CONSTRUCTS });

export const isConstruct = (op: string): op is ConstructName => Object.hasOwn(CONSTRUCTS, op);

export function constructRule(e: ConstructExpr, pass: string): ConstructRule {
  if (!isConstruct(e.op)) throw new InternalError(`${pass}: unknown construct ${e.op}`);
  return CONSTRUCTS[e.op];
}

// `effect` and `keptUnread` are read through hasEffect and holdsCheck, which list those constructs in their own leaf module.
for (const [name, rule] of Object.entries(CONSTRUCTS)) {
  if (Boolean(rule.effect) !== EFFECTFUL.has(name)) throw new InternalError(`construct ${name}: its effect facet and constructs/effect disagree`);
  if (Boolean(rule.keptUnread) !== KEPT_UNREAD.has(name)) throw new InternalError(`construct ${name}: its keptUnread facet and constructs/effect disagree`);
}
