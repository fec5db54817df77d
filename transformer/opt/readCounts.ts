// How many times each name is read in a block, for the passes after AD that rewrite an
// accumulation only where nothing else reads what it writes (opt/invariantAccums.ts,
// opt/firstWrites.ts).
import { freeVars } from '../ir/freeVars';
import type { Block, Expr } from '../ir/syntax';
import { forEachOperand } from '../ir/traverse';

/** Reads per name in `b`'s statements and result; a nested block's free names count once per block. */
export function readCounts(b: Block): Map<string, number> {
  const out = new Map<string, number>();
  const add = (n: string) => out.set(n, (out.get(n) ?? 0) + 1);
  const expr = (e: Expr) => {
    let x = e;
    while (x.tag === 'drop') x = x.expr;
    if (x.tag === 'block') {
      const { nl, lin } = freeVars(x);
      for (const n of [...nl, ...lin]) add(n);
      return;
    }
    forEachOperand(x, add);
  };
  for (const s of b.stmts) {
    if (s.tag === 'unpack') add(s.tuple);
    else expr(s.rhs);
  }
  expr(b.result);
  return out;
}
