// Adjacent `let` statements of one block become one: `let a = 0; let b = x;` prints as
// `let a = 0, b = x;`, as the emitter already writes a construct's carried values. The same
// declarations in the same order, so the same evaluation order and scopes; only the text is
// shorter (a `let`, a line and its indentation per merged statement: the accumulators that a
// reversed loop starts at zero come in runs). Runs after the tidy (fold.ts), whose rewrites look at
// one statement's declarations together (a `let` is made `const` when none of them is assigned).
import type * as ts from 'typescript';
import { mapNested } from './nestedStatements';

export function mergeAdjacentLets(t: typeof ts, statements: readonly ts.Statement[]): readonly ts.Statement[] {
  let changed = false;
  const out: ts.Statement[] = [];
  for (const s0 of statements) {
    const s = mapNested(t, s0, (ss) => mergeAdjacentLets(t, ss));
    if (s !== s0) changed = true;
    const prev = out[out.length - 1];
    if (prev && plainLet(t, prev) && plainLet(t, s)) {
      const list = t.factory.updateVariableDeclarationList(prev.declarationList, [...prev.declarationList.declarations, ...s.declarationList.declarations]);
      out[out.length - 1] = t.factory.updateVariableStatement(prev, undefined, list);
      changed = true;
      continue;
    }
    out.push(s);
  }
  return changed ? out : statements;
}

/** `let …;` with no modifiers (an `export let` or `declare let` keeps its own statement). */
function plainLet(t: typeof ts, s: ts.Statement): s is ts.VariableStatement {
  return t.isVariableStatement(s) && !s.modifiers?.length && (s.declarationList.flags & t.NodeFlags.BlockScoped) === t.NodeFlags.Let;
}
