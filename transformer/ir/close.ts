// Closing the bodies of a loop (or the arms of a cond) over the values they read from outside:
// the IR's constructs take those as operands, and each body refers to them by parameters of its own.
import { binder } from './syntax';
import type { Binder, Block, Type } from './syntax';
import { freeVars } from './freeVars';
import { renameOperands, renameStmtOperands, rewriteBlock } from './traverse';

/**
 * The variables the bodies read that are not in `own` become invariant operands, and each body
 * gets its own parameters for them (`fresh` names, renamed inside it: names are unique in the
 * function), typed by `typeOf` where a construct needs the type.
 */
export function closeLoop(
  blocks: readonly Block[],
  own: ReadonlySet<string>,
  fresh: (name: string) => string,
  typeOf: (name: string) => Type | undefined = () => undefined,
): { invariants: string[]; bodies: { inv: Binder[]; body: Block }[] } {
  const free = new Set<string>();
  for (const block of blocks) for (const n of freeVars(block).nl) if (!own.has(n)) free.add(n);
  const invariants = [...free];
  const bodies = blocks.map((block) => {
    const renamed = new Map(invariants.map((n) => [n, fresh(n)] as const));
    const rename = (n: string) => renamed.get(n) ?? n;
    const body = rewriteBlock(block, { expr: (e) => renameOperands(e, rename), stmt: (st, emit) => emit(renameStmtOperands(st, rename)) });
    return { inv: invariants.map((n) => binder(renamed.get(n)!, typeOf(n))), body };
  });
  return { invariants, bodies };
}
