// Literals concatenated into a string are one literal (s15, size).
//
// A check's message is built where it fails, from the source's words and the values the check
// compared: `"… between two elements (" + checked + " > " + 0 + ")"` where the limit is the
// literal 0. `+` groups to the left, so once a chain has met a string literal every later `+`
// appends to a string, and literals next to each other from there on are one string literal:
// `" > 0)"`. Numbers print as JavaScript's String gives them.
import type * as ts from 'typescript';

export function foldStrings(t: typeof ts, statements: readonly ts.Statement[]): readonly ts.Statement[] {
  let changed = false;
  const visit = (n: ts.Node): ts.Node => {
    if (t.isBinaryExpression(n) && n.operatorToken.kind === t.SyntaxKind.PlusToken) {
      const folded = fold(t, n, visit);
      if (folded !== n) changed = true;
      return folded;
    }
    return t.visitEachChild(n, visit, undefined);
  };
  const out = statements.map((s) => visit(s) as ts.Statement);
  return changed ? out : statements;
}

/** A literal's text as a string, for a string literal or a plain number literal; undefined otherwise. */
function literalText(t: typeof ts, e: ts.Expression): string | undefined {
  if (t.isStringLiteral(e)) return e.text;
  if (t.isNumericLiteral(e)) return String(Number(e.text));
  return undefined;
}

/** The `+` chain with adjacent literals after its first string literal merged; its other operands visited. */
function fold(t: typeof ts, chain: ts.BinaryExpression, visit: (n: ts.Node) => ts.Node): ts.Expression {
  const operands: ts.Expression[] = [];
  let e: ts.Expression = chain;
  while (t.isBinaryExpression(e) && e.operatorToken.kind === t.SyntaxKind.PlusToken) {
    operands.unshift(e.right);
    e = e.left;
  }
  operands.unshift(e);
  const visited = operands.map((o) => visit(o) as ts.Expression);
  const merged: ts.Expression[] = [];
  let stringSeen = false;
  let merges = 0;
  for (const o of visited) {
    const text = literalText(t, o);
    const last = merged[merged.length - 1];
    const lastText = last === undefined ? undefined : literalText(t, last);
    if (stringSeen && text !== undefined && lastText !== undefined) {
      merged[merged.length - 1] = t.factory.createStringLiteral(lastText + text);
      merges++;
      continue;
    }
    if (t.isStringLiteral(o)) stringSeen = true;
    merged.push(o);
  }
  if (merges === 0 && visited.every((o, k) => o === operands[k])) return chain;
  return merged.slice(1).reduce((acc, o) => t.factory.createAdd(acc, o), merged[0]);
}
