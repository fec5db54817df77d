// The construct registry: higher-order constructs (conditionals, loops, maps, scans) with their
// rules side by side, as the primitive registry does for primitives. Passes reach a construct only
// through `constructRule`; the rules reach the passes only through the operation records the
// passes hand them (Futhark's VjpOps), so no construct module imports a pass.
import { Expr, InternalError } from '../ir/syntax';

export type ConstructExpr = Extract<Expr, { tag: 'construct' }>;

/** Every construct's rules; the record type makes the compiler list what a new construct lacks. */
export interface ConstructRule {
  readonly name: string;
}

export const CONSTRUCTS: Readonly<Record<string, ConstructRule>> = {};

export function constructRule(e: ConstructExpr, pass: string): ConstructRule {
  const rule = Object.prototype.hasOwnProperty.call(CONSTRUCTS, e.op) ? CONSTRUCTS[e.op] : undefined;
  if (!rule) throw new InternalError(`${pass}: unknown construct ${e.op}`);
  return rule;
}
