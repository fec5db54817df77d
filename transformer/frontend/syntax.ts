// What a piece of code assigns, reads or calls, seen syntactically (not inside nested functions).
import type * as ts from 'typescript';
import { writtenArray } from './writes';
import { writtenRecord } from './recordWrites';

/** True when an expression calls a function anywhere (not inside a nested function). */
export function containsCall(tsApi: typeof ts, e: ts.Node): boolean {
  if (tsApi.isCallExpression(e)) return true;
  if (tsApi.isFunctionLike(e)) return false;
  return tsApi.forEachChild(e, (c) => (containsCall(tsApi, c) ? true : undefined)) ?? false;
}

/**
 * The symbol of an assigned name, remembered per checker: each loop level asks for everything
 * its body assigns, so in loops nested n deep a name is asked about n times (issue 18, item 10).
 */
const assignedSymbolOf = new WeakMap<ts.TypeChecker, WeakMap<ts.Node, ts.Symbol | undefined>>();
function symbolAt(checker: ts.TypeChecker, n: ts.Node): ts.Symbol | undefined {
  let known = assignedSymbolOf.get(checker);
  if (!known) assignedSymbolOf.set(checker, (known = new WeakMap()));
  if (known.has(n)) return known.get(n);
  const sym = checker.getSymbolAtLocation(n);
  known.set(n, sym);
  return sym;
}

/** The local variables a piece of code assigns (`=`, compound assignments, `++`, `--`), not inside nested functions. */
export function assignedSymbols(tsApi: typeof ts, checker: ts.TypeChecker, node: ts.Node, out: Set<ts.Symbol>): void {
  const K = tsApi.SyntaxKind;
  const visit = (n: ts.Node): void => {
    if (tsApi.isFunctionLike(n) || tsApi.isClassLike(n)) return;
    let target: ts.Expression | undefined;
    if (tsApi.isBinaryExpression(n) && n.operatorToken.kind >= K.FirstAssignment && n.operatorToken.kind <= K.LastAssignment) target = n.left;
    if ((tsApi.isPrefixUnaryExpression(n) || tsApi.isPostfixUnaryExpression(n)) && (n.operator === K.PlusPlusToken || n.operator === K.MinusMinusToken)) target = n.operand;
    // `[a, b] = [b, a]`, `[m[p], m[c]] = …`: each name, and each array written by element.
    const targets: (ts.Expression | undefined)[] =
      target && tsApi.isArrayLiteralExpression(target) ? target.elements.map((x) => (tsApi.isElementAccessExpression(x) ? baseName(tsApi, x) : x)) : [target];
    for (const tg of targets) {
      if (tg && tsApi.isIdentifier(tg)) {
        const sym = symbolAt(checker, tg);
        if (sym) out.add(sym);
      }
    }
    // `a[i] = v` (and `ps[i].x = v`) gives a a new value (a new version of the array), as `a = ...` does.
    const array = writtenArray(tsApi, n) ?? writtenRecord(tsApi, checker, n);
    if (array) {
      const sym = symbolAt(checker, array);
      if (sym) out.add(sym);
    }
    tsApi.forEachChild(n, visit);
  };
  visit(node);
}

/** The symbols an expression reads. */
export function readSymbols(tsApi: typeof ts, checker: ts.TypeChecker, node: ts.Node, out: Set<ts.Symbol>): void {
  const visit = (n: ts.Node): void => {
    if (tsApi.isIdentifier(n)) {
      const sym = checker.getSymbolAtLocation(n);
      if (sym) out.add(sym);
    }
    tsApi.forEachChild(n, visit);
  };
  visit(node);
}

/** The array `a[i]` or `m[i][j]` writes into. */
function baseName(tsApi: typeof ts, e: ts.ElementAccessExpression): ts.Expression {
  let base: ts.Expression = e.expression;
  while (tsApi.isParenthesizedExpression(base) || tsApi.isElementAccessExpression(base)) base = base.expression;
  return base;
}
