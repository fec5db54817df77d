// How many results of each sort an expression has, without types: passes that must name the
// results of a leaf in result position (J, T, the emitter) ask here. A construct's count comes
// from its record, which may look at its bodies' results.
import { InternalError } from '../ir/syntax';
import type { Expr } from '../ir/syntax';
import { constructRule } from '../constructs/registry';
import type { Counts } from '../constructs/types';

/** `callee` gives the result counts of a function (undefined: unknown, an internal error). */
export function arityOf(e: Expr, callee: (fn: string) => Counts | undefined): Counts {
  for (;;) {
    switch (e.tag) {
      case 'ret':
        return { nl: e.nl.length, lin: e.lin.length };
      case 'call': {
        const c = callee(e.fn);
        if (!c) throw new InternalError(`arity: unknown function ${e.fn}`);
        return c;
      }
      case 'var':
      case 'tuple':
        return e.linear ? { nl: 0, lin: 1 } : { nl: 1, lin: 0 };
      case 'lit':
      case 'prim':
        return { nl: 1, lin: 0 };
      case 'lprim':
      case 'zero':
        return { nl: 0, lin: 1 };
      case 'dup':
        return { nl: 0, lin: 2 };
      case 'drop':
        return { nl: 0, lin: 0 };
      case 'block':
        e = e.block.result;
        continue;
      case 'construct':
        return constructRule(e, 'arity').arity(e, (body) => arityOf(body.body.result, callee));
    }
  }
}

/** Result counts of the defs of a program, for `arityOf`. */
export const defArity =
  (defs: ReadonlyMap<string, { readonly nlResults: readonly unknown[]; readonly linResults: readonly unknown[] }>) =>
  (fn: string): Counts | undefined => {
    const d = defs.get(fn);
    return d && { nl: d.nlResults.length, lin: d.linResults.length };
  };
