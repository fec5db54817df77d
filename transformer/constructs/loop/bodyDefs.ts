// What the statements of a loop body bind, for the rules that follow a carried value's update back
// through it (recompute.ts, rewind.ts): renamings are followed, computations looked up.
import type { Binder, Stmt } from '../../ir/syntax';

export type Let = Extract<Stmt, { tag: 'let' }>;

export interface BodyDefs {
  /** The non-linear let computing each name that one binds alone (not a renaming). */
  readonly defs: ReadonlyMap<string, Let>;
  /** Every name a non-linear let computes, with its position among the let's results (not a renaming). */
  readonly results: ReadonlyMap<string, { readonly s: Let; readonly at: number }>;
  /** Names bound to other names (`let (y, z) = (a, b)`, how J hands the carried values on). */
  readonly alias: ReadonlyMap<string, string>;
  /** The name a renaming chain ends at. */
  resolve(x: string): string;
}

export function bodyDefs(stmts: readonly Stmt[]): BodyDefs {
  const defs = new Map<string, Let>();
  const results = new Map<string, { s: Let; at: number }>();
  const alias = new Map<string, string>();
  for (const s of stmts) {
    if (s.tag !== 'let' || s.lin.length > 0) continue;
    const rhs = s.rhs;
    if (rhs.tag === 'ret' && rhs.lin.length === 0) s.nl.forEach((x, q) => alias.set(x.name, rhs.nl[q]));
    else if (rhs.tag === 'var' && !rhs.linear && s.nl.length === 1) alias.set(s.nl[0].name, rhs.name);
    else {
      if (s.nl.length === 1) defs.set(s.nl[0].name, s);
      s.nl.forEach((x, at) => results.set(x.name, { s, at }));
    }
  }
  const resolve = (x: string): string => {
    for (let n = 0; alias.has(x) && n < 100; n++) x = alias.get(x)!;
    return x;
  };
  return { defs, results, alias, resolve };
}

/** A loop body's non-linear parameters: the counter, then `nInv` invariants, then the carried values. */
export function bodyParams(params: readonly Binder[], nInv: number): { counter: string; invariants: readonly Binder[]; carried: readonly Binder[] } {
  return { counter: params[0].name, invariants: params.slice(1, 1 + nInv), carried: params.slice(1 + nInv) };
}
