// The owned set's bookkeeping taken out of a derivative's statements when nothing reads the set
// (backend/emitTs.ts, withoutUnreadOwnership): `$own.add(r)`, `$own.delete(x)` and `$gen++` go,
// and a `tsad$fresh($own, n)` is a plain `new Float64Array(n)`. Where a claim's helper still asks
// the set (`setRead`), only the release count `$gen++` goes.
import type * as ts from 'typescript';
import { mapNested } from './nestedStatements';

export interface OwnedBookkeeping {
  /** The owned set's identifier. */
  readonly own: ts.Identifier;
  /** The release count's name. */
  readonly generation: string;
  /** Whether some site still asks the set (then its adds and deletes stay). */
  readonly setRead: boolean;
  /** The callee identifiers of the `tsad$fresh` calls (one object per call). */
  readonly freshCalls: ReadonlySet<ts.Node>;
}

export function withoutBookkeeping(t: typeof ts, statements: ts.Statement[], b: OwnedBookkeeping): ts.Statement[] {
  const bookkeeping = (s: ts.Statement): boolean => {
    if (!t.isExpressionStatement(s)) return false;
    const e = s.expression;
    if (t.isPostfixUnaryExpression(e)) return t.isIdentifier(e.operand) && e.operand.text === b.generation;
    return !b.setRead && t.isCallExpression(e) && t.isPropertyAccessExpression(e.expression) && e.expression.expression === b.own;
  };
  const list = (ss: readonly ts.Statement[]): ts.Statement[] => {
    let changed = false;
    const out: ts.Statement[] = [];
    for (const s of ss) {
      if (bookkeeping(s)) {
        changed = true;
        continue;
      }
      const inner = mapNested(t, s, list);
      if (inner !== s) changed = true;
      out.push(inner);
    }
    return changed ? out : (ss as ts.Statement[]);
  };
  const kept = list(statements);
  if (b.setRead || b.freshCalls.size === 0) return kept;
  // Wherever the emitter put a fresh call (a claim's branch, a `const`), it is a plain allocation now.
  const plain: ts.TransformerFactory<ts.Statement> = (ctx) => {
    const visit = (n: ts.Node): ts.Node =>
      t.isCallExpression(n) && b.freshCalls.has(n.expression)
        ? t.factory.createNewExpression(t.factory.createIdentifier('Float64Array'), undefined, [n.arguments[1]!])
        : t.visitEachChild(n, visit, ctx);
    return (s) => visit(s) as ts.Statement;
  };
  const result = t.transform(kept, [plain]);
  const out = result.transformed.slice();
  result.dispose();
  return out;
}
