// Whether a record literal's array fields are new arrays (recordWrites.ts): in JavaScript
// `const w = [1, 2]; q.push({ w }); q[0].w[0] = 5;` writes into w too, and `ps.map((p) =>
// ({ w: p.w }))` shares each p.w; tsad's ragged columns hold copies. So an array of records whose
// arrays are written element by element may hold only arrays built in place.
import type * as ts from 'typescript';

/** The first part of the record literal `e` that may be an array another name sees, if any. */
export function sharedArrayIn(t: typeof ts, checker: ts.TypeChecker, e: ts.Expression): ts.Node | undefined {
  e = bare(t, e);
  if (t.isObjectLiteralExpression(e)) {
    for (const p of e.properties) {
      if (!t.isPropertyAssignment(p)) return p;
      const shared = sharedPart(t, checker, p.initializer);
      if (shared) return shared;
    }
    return undefined;
  }
  if (t.isArrayLiteralExpression(e)) {
    for (const el of e.elements) {
      const shared = sharedPart(t, checker, el);
      if (shared) return shared;
    }
  }
  return undefined;
}

/** A field's value: a number, or a record or array built in place. */
function sharedPart(t: typeof ts, checker: ts.TypeChecker, e: ts.Expression): ts.Node | undefined {
  if (checker.getTypeAtLocation(e).flags & t.TypeFlags.NumberLike) return undefined;
  const x = bare(t, e);
  if (t.isObjectLiteralExpression(x) || t.isArrayLiteralExpression(x)) return sharedArrayIn(t, checker, x);
  return freshArray(t, checker, x) ? undefined : e;
}

/** `new Array(n).fill(0)`, `new Float64Array(n)`, `xs.map((x) => [x, 1])`, `Array.from(…, () => […])`, `a.slice()`: an array no other name holds (nor its rows). */
function freshArray(t: typeof ts, checker: ts.TypeChecker, e: ts.Expression): boolean {
  e = bare(t, e);
  if (t.isNewExpression(e)) return true;
  if (!t.isCallExpression(e) || !t.isPropertyAccessExpression(e.expression)) return false;
  const method = e.expression.name.text;
  if (method === 'fill') return freshArray(t, checker, e.expression.expression);
  const fn = method === 'map' ? e.arguments[0] : method === 'from' ? (e.arguments[1] ?? (numbers(t, checker, e) ? e.arguments[0] : undefined)) : undefined;
  if (method === 'slice' || method === 'concat' || method === 'filter') return numbers(t, checker, e);
  if (!fn) return false;
  const f = bare(t, fn);
  if (!(t.isArrowFunction(f) || t.isFunctionExpression(f))) return numbers(t, checker, e);
  // Each element the callback returns: a number, or an array built in place.
  if (!t.isBlock(f.body)) return !sharedPart(t, checker, f.body);
  let fresh = true;
  const visit = (n: ts.Node): void => {
    if (t.isReturnStatement(n)) fresh &&= !!n.expression && !sharedPart(t, checker, n.expression);
    if (!t.isFunctionLike(n)) t.forEachChild(n, visit);
  };
  t.forEachChild(f.body, visit);
  return fresh;
}

/** Is `e` an array (or typed array) of numbers, whose copy shares nothing? */
function numbers(t: typeof ts, checker: ts.TypeChecker, e: ts.Expression): boolean {
  const type = checker.getTypeAtLocation(e);
  const elem = checker.isArrayType(type) ? checker.getTypeArguments(type as ts.TypeReference)[0] : type.getNumberIndexType();
  return !!elem && (elem.flags & t.TypeFlags.NumberLike) !== 0;
}

function bare(t: typeof ts, e: ts.Expression): ts.Expression {
  while (t.isParenthesizedExpression(e) || t.isAsExpression(e) || t.isNonNullExpression(e)) e = e.expression;
  return e;
}
