// Free variables of a block or expression, by sort, with binders respected: a fold on the traversal.
import type { Block, Expr } from './syntax';
import { forEachOperand, visitBlock } from './traverse';

export interface FreeVars {
  readonly nl: Set<string>;
  readonly lin: Set<string>;
}

/** A name may be bound again in an inner block, so names in scope are counted, not just marked. */
export function freeVars(root: Block | Expr): FreeVars {
  const out: FreeVars = { nl: new Set(), lin: new Set() };
  const bound = new Map<string, number>();
  visitBlock('stmts' in root ? root : { stmts: [], result: root }, {
    read: (n, linear) => {
      if (!bound.has(n)) (linear ? out.lin : out.nl).add(n);
    },
    bind: (b) => {
      bound.set(b.name, (bound.get(b.name) ?? 0) + 1);
    },
    leave: (_l, names) => {
      for (const n of names) {
        const k = bound.get(n)! - 1;
        if (k === 0) bound.delete(n);
        else bound.set(n, k);
      }
    },
  });
  return out;
}

export const freeNonLinear = (e: Block | Expr): Set<string> => freeVars(e).nl;
export const freeLinear = (e: Block | Expr): Set<string> => freeVars(e).lin;

/**
 * freeVars, where every construct's bodies are closed (the AD passes' input, checked): a
 * construct reads only its operands, so its bodies are not walked (a walk per level of nesting
 * made deep nesting quadratic). A block's statements are taken one by one, so its constructs'
 * bodies are not walked either.
 */
export function closedFreeVars(root: Block | Expr): FreeVars {
  if ('stmts' in root) return closedBlockFreeVars(root);
  let e = root;
  while (e.tag === 'drop') e = e.expr;
  if (e.tag === 'block') return freeVars(root);
  const out: FreeVars = { nl: new Set(), lin: new Set() };
  forEachOperand(e, (n, linear) => (linear ? out.lin : out.nl).add(n));
  return out;
}

function closedBlockFreeVars(b: Block): FreeVars {
  const out: FreeVars = { nl: new Set(), lin: new Set() };
  const bound = new Set<string>();
  const read = (f: FreeVars) => {
    for (const n of f.nl) if (!bound.has(n)) out.nl.add(n);
    for (const n of f.lin) if (!bound.has(n)) out.lin.add(n);
  };
  for (const s of b.stmts) {
    if (s.tag === 'unpack') {
      if (!bound.has(s.tuple)) (s.linear ? out.lin : out.nl).add(s.tuple);
      for (const x of s.names) bound.add(x.name);
    } else {
      read(closedFreeVars(s.rhs));
      for (const x of s.nl) bound.add(x.name);
      for (const x of s.lin) bound.add(x.name);
    }
  }
  read(closedFreeVars(b.result));
  return out;
}

export const closedFreeNonLinear = (e: Block | Expr): Set<string> => closedFreeVars(e).nl;
export const closedFreeLinear = (e: Block | Expr): Set<string> => closedFreeVars(e).lin;
