// An array taken out of a record that a marked function returned new (docs/frontend.md,
// "Aliasing"): `const prior = predict(track); const mean = prior.mean; mean[0] += k * y;`.
// In JavaScript `mean` and `prior.mean` are one array, so the write is seen through prior.mean;
// tsad's values agree exactly when prior.mean is not read again after it was taken (the record
// keeps no other name for it: the callee built that field new, in the literal it returns).
import type * as ts from 'typescript';
import { resolveMarkedFunction } from './markers';
import { isInside } from './aliasing';

/**
 * Whether `e` is `r.f` of a local `const r = g(…)`, where every return of the marked g is an
 * object literal whose field f is a new array (`isFresh`), taken where r.f is never read again
 * (no later `r.f`, no later use of r whole, no loop between r's declaration and here).
 */
export function takenFromFreshRecord(t: typeof ts, checker: ts.TypeChecker, e: ts.Expression, isFresh: (x: ts.Expression) => boolean): boolean {
  if (!t.isPropertyAccessExpression(e) || !t.isIdentifier(e.expression)) return false;
  const field = e.name.text;
  const sym = checker.getSymbolAtLocation(e.expression);
  const decl = sym?.valueDeclaration;
  if (!sym || !decl || !t.isVariableDeclaration(decl) || !decl.initializer || (t.getCombinedNodeFlags(decl) & t.NodeFlags.Const) === 0) return false;
  let init = decl.initializer;
  while (t.isParenthesizedExpression(init) || t.isAsExpression(init) || t.isNonNullExpression(init)) init = init.expression;
  if (!t.isCallExpression(init) || !buildsFieldNew(t, checker, init, field, isFresh)) return false;
  const scope = t.isVariableDeclarationList(decl.parent) ? decl.parent.parent?.parent : undefined;
  if (!scope || !isInside(e, scope)) return false;
  for (let n: ts.Node = e.parent; n !== scope; n = n.parent) if (t.isIterationStatement(n, false) || t.isFunctionLike(n)) return false;
  // Later uses of r: only its other fields.
  let shared = false;
  const visit = (n: ts.Node): void => {
    if (shared) return;
    if (t.isIdentifier(n) && n.pos >= e.end && checker.getSymbolAtLocation(n) === sym) {
      let use: ts.Node = n;
      while (t.isParenthesizedExpression(use.parent) || t.isNonNullExpression(use.parent)) use = use.parent;
      const other = t.isPropertyAccessExpression(use.parent) && use.parent.expression === use && use.parent.name.text !== field;
      if (!other) shared = true;
    }
    t.forEachChild(n, visit);
  };
  visit(scope);
  return !shared;
}

/** Every return of the marked function called is an object literal whose field is a new array. */
function buildsFieldNew(t: typeof ts, checker: ts.TypeChecker, call: ts.CallExpression, field: string, isFresh: (x: ts.Expression) => boolean): boolean {
  const callee = resolveMarkedFunction(call.expression, checker)?.decl as ts.FunctionLikeDeclaration | undefined;
  const body = callee?.body;
  if (!body) return false;
  const returns: ts.Node[] = [];
  const visit = (n: ts.Node): void => {
    if (t.isReturnStatement(n)) returns.push(n.expression ?? n.getSourceFile());
    if (!t.isFunctionLike(n)) t.forEachChild(n, visit);
  };
  if (t.isBlock(body)) t.forEachChild(body, visit);
  else returns.push(body);
  return (
    returns.length > 0 &&
    returns.every((r) => {
      let lit: ts.Node = r;
      while (t.isParenthesizedExpression(lit) || t.isAsExpression(lit)) lit = lit.expression;
      if (!t.isObjectLiteralExpression(lit)) return false;
      const p = lit.properties.find((q) => q.name !== undefined && t.isIdentifier(q.name) && q.name.text === field);
      return p !== undefined && t.isPropertyAssignment(p) && isFresh(p.initializer);
    })
  );
}
