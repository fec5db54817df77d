// Closing the bodies of a loop (or the arms of a cond) over the values they read from outside:
// the IR's constructs take those as operands, and each body refers to them by parameters of its own.
import { binder } from './syntax';
import type { Binder, Block, Expr, Type } from './syntax';
import { closedFreeVars } from './freeVars';
import { renameOperands, renameStmtOperands } from './traverse';

/**
 * The variables the bodies read that are not in `own` become invariant operands, and each body
 * gets its own parameters for them (`fresh` names, renamed inside it: names are unique in the
 * function), typed by `typeOf` where a construct needs the type. The constructs inside the
 * bodies are closed already (each was closed when it was built), so only the bodies' own
 * statements are read and renamed: a walk into every level made a deep nest quadratic.
 */
export function closeLoop(
  blocks: readonly Block[],
  own: ReadonlySet<string>,
  fresh: (name: string) => string,
  typeOf: (name: string) => Type | undefined = () => undefined,
): { invariants: string[]; bodies: { inv: Binder[]; body: Block }[] } {
  const free = new Set<string>();
  for (const block of blocks) for (const n of closedFreeVars(block).nl) if (!own.has(n)) free.add(n);
  const invariants = [...free];
  const bodies = blocks.map((block) => {
    const renamed = new Map(invariants.map((n) => [n, fresh(n)] as const));
    const rename = (n: string) => renamed.get(n) ?? n;
    const body = renameReads(block, rename);
    return { inv: invariants.map((n) => binder(renamed.get(n)!, typeOf(n))), body };
  });
  return { invariants, bodies };
}

/** The block with what its statements read renamed; its constructs' bodies (closed) untouched. */
function renameReads(b: Block, rename: (name: string) => string): Block {
  const expr = (e: Expr): Expr => {
    if (e.tag === 'drop') return { tag: 'drop', expr: expr(e.expr) };
    if (e.tag === 'block') return { tag: 'block', block: renameReads(e.block, rename) };
    return renameOperands(e, rename);
  };
  return { stmts: b.stmts.map((s) => (s.tag === 'unpack' ? renameStmtOperands(s, rename) : { ...s, rhs: expr(s.rhs) })), result: expr(b.result) };
}
