// Free variables of an expression, by sort, with binders respected.
import type { Expr } from './syntax';

export interface FreeVars {
  readonly nl: Set<string>;
  readonly lin: Set<string>;
}

export function freeVars(e: Expr): FreeVars {
  const out: FreeVars = { nl: new Set(), lin: new Set() };
  collect(e, new Set(), out);
  return out;
}

function collect(e: Expr, bound0: ReadonlySet<string>, out: FreeVars): void {
  let bound = bound0;
  // Let chains in a loop; the bound set is copied once per chain, not once per binding.
  if (e.tag === 'let' || e.tag === 'unpack') {
    const inner = new Set(bound);
    for (;;) {
      if (e.tag === 'let') {
        collect(e.rhs, inner, out);
        [...e.nl, ...e.lin].forEach((b) => inner.add(b.name));
        e = e.body;
      } else if (e.tag === 'unpack') {
        if (!inner.has(e.tuple)) (e.linear ? out.lin : out.nl).add(e.tuple);
        e.names.forEach((b) => inner.add(b.name));
        e = e.body;
      } else break;
    }
    bound = inner;
  }
  const nl = (n: string) => {
    if (!bound.has(n)) out.nl.add(n);
  };
  const lin = (n: string) => {
    if (!bound.has(n)) out.lin.add(n);
  };
  switch (e.tag) {
    case 'ret':
    case 'call':
    case 'lprim':
      e.nl.forEach(nl);
      e.lin.forEach(lin);
      return;
    case 'var':
      (e.linear ? lin : nl)(e.name);
      return;
    case 'tuple':
      e.elems.forEach(e.linear ? lin : nl);
      return;
    case 'prim':
      e.args.forEach(nl);
      return;
    case 'dup':
      lin(e.name);
      return;
    case 'lit':
    case 'zero':
      return;
    case 'drop':
      collect(e.expr, bound, out);
      return;
  }
}

export const freeNonLinear = (e: Expr): Set<string> => freeVars(e).nl;
export const freeLinear = (e: Expr): Set<string> => freeVars(e).lin;
