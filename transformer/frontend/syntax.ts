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

/** The local variables a piece of code assigns (`=`, compound assignments, `++`, `--`), not inside nested functions. */
export function assignedSymbols(tsApi: typeof ts, checker: ts.TypeChecker, node: ts.Node, out: Set<ts.Symbol>): void {
  const K = tsApi.SyntaxKind;
  const visit = (n: ts.Node): void => {
    if (tsApi.isFunctionLike(n) || tsApi.isClassLike(n)) return;
    let target: ts.Expression | undefined;
    if (tsApi.isBinaryExpression(n) && n.operatorToken.kind >= K.FirstAssignment && n.operatorToken.kind <= K.LastAssignment) target = n.left;
    if ((tsApi.isPrefixUnaryExpression(n) || tsApi.isPostfixUnaryExpression(n)) && (n.operator === K.PlusPlusToken || n.operator === K.MinusMinusToken)) target = n.operand;
    if (target && tsApi.isIdentifier(target)) {
      const sym = checker.getSymbolAtLocation(target);
      if (sym) out.add(sym);
    }
    // `a[i] = v` (and `ps[i].x = v`) gives a a new value (a new version of the array), as `a = ...` does.
    const array = writtenArray(tsApi, n) ?? writtenRecord(tsApi, checker, n);
    if (array) {
      const sym = checker.getSymbolAtLocation(array);
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
