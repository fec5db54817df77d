// Free variables of an expression, by sort, with binders respected.
import type { Expr } from './syntax';

export interface FreeVars {
  readonly nl: Set<string>;
  readonly lin: Set<string>;
}

export function freeVars(e: Expr): FreeVars {
  const out: FreeVars = { nl: new Set(), lin: new Set() };
  collect(e, out);
  return out;
}

/**
 * Names in scope are counted in one map (a name may be bound again in an inner block), and the
 * walk keeps an explicit stack: bodies can be thousands of statements long or blocks deep.
 */
function collect(start: Expr, out: FreeVars): void {
  const bound = new Map<string, number>();
  const bind = (n: string) => bound.set(n, (bound.get(n) ?? 0) + 1);
  const unbind = (n: string) => {
    const k = bound.get(n)! - 1;
    if (k === 0) bound.delete(n);
    else bound.set(n, k);
  };
  const nl = (n: string) => {
    if (!bound.has(n)) out.nl.add(n);
  };
  const lin = (n: string) => {
    if (!bound.has(n)) out.lin.add(n);
  };
  // Work items: an expression to visit, or names entering or leaving scope around a body.
  type Item = { readonly visit: Expr } | { readonly bind: readonly string[] } | { readonly unbind: readonly string[] };
  const stack: Item[] = [{ visit: start }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ('bind' in item) {
      item.bind.forEach(bind);
      continue;
    }
    if ('unbind' in item) {
      item.unbind.forEach(unbind);
      continue;
    }
    const e = item.visit;
    switch (e.tag) {
      case 'let': {
        const names = [...e.nl, ...e.lin].map((b) => b.name);
        // Popped in order: the right-hand side, then the body with the names bound.
        stack.push({ unbind: names }, { visit: e.body }, { bind: names }, { visit: e.rhs });
        break;
      }
      case 'unpack': {
        (e.linear ? lin : nl)(e.tuple);
        const names = e.names.map((b) => b.name);
        stack.push({ unbind: names }, { visit: e.body }, { bind: names });
        break;
      }
      case 'ret':
      case 'call':
      case 'lprim':
        e.nl.forEach(nl);
        e.lin.forEach(lin);
        break;
      case 'var':
        (e.linear ? lin : nl)(e.name);
        break;
      case 'tuple':
        e.elems.forEach(e.linear ? lin : nl);
        break;
      case 'prim':
        e.args.forEach(nl);
        break;
      case 'dup':
        lin(e.name);
        break;
      case 'drop':
        stack.push({ visit: e.expr });
        break;
      default:
        break;
    }
  }
}

export const freeNonLinear = (e: Expr): Set<string> => freeVars(e).nl;
export const freeLinear = (e: Expr): Set<string> => freeVars(e).lin;
