// The construct registry: higher-order constructs (conditionals, loops, maps, scans) with their
// rules side by side, as the primitive registry holds the primitives. Passes reach a construct
// only through `constructRule` and hand it the operations it needs (types.ts); nothing here
// imports a pass.
import { InternalError } from '../ir/syntax';
import type { ConstructExpr, ConstructRule } from './types';

export type { ConstructExpr, ConstructRule } from './types';

/** Every construct by IR name (none yet: the conditional and loops arrive with control flow). */
export const CONSTRUCTS: Readonly<Record<string, ConstructRule>> = Object.freeze({});

export const isConstruct = (op: string): boolean => Object.prototype.hasOwnProperty.call(CONSTRUCTS, op);

export function constructRule(e: ConstructExpr, pass: string): ConstructRule {
  if (!isConstruct(e.op)) throw new InternalError(`${pass}: unknown construct ${e.op}`);
  return CONSTRUCTS[e.op];
}
