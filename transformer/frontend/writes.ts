// Which writes into arrays a differentiable function may make (docs/frontend.md, "Writes").
//
// tsad's arrays are values: `a[i] = v` lowers to `a = update(a, i, v)`, a new version of a, and
// the backend runs it in place where nobody can see the old version (ad/inplace.ts). JavaScript
// arrays are objects: every name for one array sees every write. The two agree exactly when the
// written array has one name. So a written array must be a local variable that starts as a new
// array (new Float64Array(n), new Array(n) (its holes NaN), new Array(n).fill(x), Float64Array.from(...), .map, .slice, a
// literal) and is used as a whole only where no second name can come of it: an element, its
// length or a method call on it, an argument of a call that returns no array, or what the function
// returns. Anything else is a diagnostic here, before lowering, rather than a wrong derivative.
import type * as ts from 'typescript';
import { fail } from './diagnostics';
import { typedArrayName } from './shapes';
import { tsadExportName } from './markers';
import { ARRAY_HELPERS, ARRAY_METHODS } from './arrayMethods';
import { checkRecordWrites, writtenRecord } from './recordWrites';

/** `b.push(v, …)`: the array pushed onto, when it is a plain name. */
export function pushedArray(tsApi: typeof ts, n: ts.Node): ts.Identifier | undefined {
  if (!tsApi.isCallExpression(n) || !tsApi.isPropertyAccessExpression(n.expression) || n.expression.name.text !== 'push') return undefined;
  let base: ts.Expression = n.expression.expression;
  while (tsApi.isParenthesizedExpression(base)) base = base.expression;
  return tsApi.isIdentifier(base) ? base : undefined;
}

/** The array a statement writes into: `a[i] = v`, `a[i] += v`, `a[i]++`, `a.push(v)`. */
export function writtenArray(tsApi: typeof ts, n: ts.Node): ts.Identifier | undefined {
  const K = tsApi.SyntaxKind;
  const pushed = pushedArray(tsApi, n);
  if (pushed) return pushed;
  let target: ts.Expression | undefined;
  if (tsApi.isBinaryExpression(n) && n.operatorToken.kind >= K.FirstAssignment && n.operatorToken.kind <= K.LastAssignment) target = n.left;
  if ((tsApi.isPrefixUnaryExpression(n) || tsApi.isPostfixUnaryExpression(n)) && (n.operator === K.PlusPlusToken || n.operator === K.MinusMinusToken)) target = n.operand;
  while (target && tsApi.isParenthesizedExpression(target)) target = target.expression;
  if (!target || !tsApi.isElementAccessExpression(target)) return undefined;
  let base: ts.Expression = target.expression;
  while (tsApi.isParenthesizedExpression(base)) base = base.expression;
  // `m[i][j] = v` writes into the matrix m.
  if (tsApi.isElementAccessExpression(base)) {
    base = base.expression;
    while (tsApi.isParenthesizedExpression(base)) base = base.expression;
  }
  return tsApi.isIdentifier(base) ? base : undefined;
}

/**
 * Expressions that build a new array, which a write may then change. A matrix is new when its
 * rows are too: `m.slice()`, `Array.from(m)` and `m.map((r) => r)` copy only the outer array,
 * and JavaScript's rows would stay shared.
 */
function isFreshArray(tsApi: typeof ts, checker: ts.TypeChecker, e: ts.Expression): boolean {
  while (tsApi.isParenthesizedExpression(e) || tsApi.isAsExpression(e) || tsApi.isNonNullExpression(e)) e = e.expression;
  if (isMatrixType(tsApi, checker, checker.getTypeAtLocation(e))) return isFreshMatrix(tsApi, checker, e);
  if (tsApi.isArrayLiteralExpression(e)) return true;
  // tsad's helpers that build arrays return new ones.
  if (tsApi.isCallExpression(e) && ARRAY_HELPERS.get(tsadExportName(e.expression, checker) ?? '')?.fresh) return true;
  if (tsApi.isNewExpression(e)) return tsApi.isIdentifier(e.expression) && ['Float64Array', 'Float32Array', 'Int32Array', 'Array'].includes(e.expression.text);
  if (tsApi.isCallExpression(e) && tsApi.isPropertyAccessExpression(e.expression)) {
    const method = e.expression.name.text;
    if (method === 'from' && tsApi.isIdentifier(e.expression.expression)) return true;
    return ARRAY_METHODS.get(method)?.fresh ?? false;
  }
  return false;
}

function isFreshMatrix(tsApi: typeof ts, checker: ts.TypeChecker, e: ts.Expression): boolean {
  if (tsApi.isArrayLiteralExpression(e)) return e.elements.every((r) => isFreshArray(tsApi, checker, r));
  if (tsApi.isCallExpression(e) && tsadExportName(e.expression, checker) === 'matmul') return true;
  if (!tsApi.isCallExpression(e) || !tsApi.isPropertyAccessExpression(e.expression)) return false;
  const method = e.expression.name.text;
  const callback = method === 'map' ? e.arguments[0] : method === 'from' ? e.arguments[1] : undefined;
  return callback !== undefined && returnsFresh(tsApi, checker, callback);
}

/** A callback written in place whose every return is a new array (a row of a new matrix). */
function returnsFresh(tsApi: typeof ts, checker: ts.TypeChecker, fn: ts.Expression): boolean {
  while (tsApi.isParenthesizedExpression(fn)) fn = fn.expression;
  if (!tsApi.isArrowFunction(fn) && !tsApi.isFunctionExpression(fn)) return false;
  if (!tsApi.isBlock(fn.body)) return isFreshArray(tsApi, checker, fn.body);
  let fresh = true;
  const visit = (n: ts.Node): void => {
    if (tsApi.isReturnStatement(n)) fresh &&= !!n.expression && isFreshArray(tsApi, checker, n.expression);
    if (!tsApi.isFunctionLike(n)) tsApi.forEachChild(n, visit);
  };
  tsApi.forEachChild(fn.body, visit);
  return fresh;
}

/**
 * Checks every write into an array in `body`: the array is a local that starts as a new array
 * and never gets a second name. Reports TSAD1122 (a write into a parameter or an array from
 * elsewhere) or TSAD1123 (a written array used as a whole where a second name could come of it).
 * Returns the arrays written into.
 */
export function checkArrayWrites(tsApi: typeof ts, checker: ts.TypeChecker, fn: ts.Node, body: ts.Node): ReadonlySet<ts.Symbol> {
  const written = new Map<ts.Symbol, ts.Identifier>();
  const visit = (n: ts.Node): void => {
    const id = writtenArray(tsApi, n) ?? writtenRecord(tsApi, checker, n);
    if (id) {
      const sym = checker.getSymbolAtLocation(id);
      if (sym && !written.has(sym)) written.set(sym, id);
    }
    tsApi.forEachChild(n, visit);
  };
  visit(body);
  for (const [sym, first] of written) checkOne(tsApi, checker, fn, sym, first);
  checkRecordWrites(tsApi, checker, body);
  return new Set(written.keys());
}

function checkOne(tsApi: typeof ts, checker: ts.TypeChecker, fn: ts.Node, sym: ts.Symbol, first: ts.Identifier): void {
  const name = first.text;
  const decl = sym.valueDeclaration;
  if (decl && tsApi.isParameter(decl)) {
    fail(1122, first, `'${name}' is a parameter: writing into it would change the caller's array; write into a copy instead: const ${name}2 = ${name}.slice()`);
  }
  if (!decl || !tsApi.isVariableDeclaration(decl) || !isInside(decl, fn)) {
    fail(1122, first, `'${name}' is not a local array of this function: write into a local copy instead (const ${name}2 = ${name}.slice())`);
  }
  const kind = typedArrayName(tsApi, checker.getTypeAtLocation(decl));
  // An Int32Array holds indices: constants, what is written truncated toward zero as JavaScript
  // does (frontend/lower.ts). Other integer arrays wrap or clamp, and a Float32Array rounds a
  // value whose derivative would then be wrong.
  if (kind !== undefined && kind !== 'Float64Array' && kind !== 'Int32Array') {
    fail(1122, first, `'${name}' is a ${kind}, which rounds what is written into it: write into a Float64Array or number[] (a derivative of rounded values would be wrong), or an Int32Array for indices`);
  }
  if (!decl.initializer || !isFreshArray(tsApi, checker, decl.initializer)) {
    if (isMatrixType(tsApi, checker, checker.getTypeAtLocation(decl))) {
      fail(1122, decl.initializer ?? decl, `'${name}' is written into, so it must start as a new matrix whose rows are new too (matmul(a, b), m.map((r) => r.slice()), Array.from({ length: n }, () => new Float64Array(k)) or a literal): here its rows may be another matrix's`, MATRIX_COPY_HINT);
    }
    fail(1122, decl.initializer ?? decl, `'${name}' is written into, so it must start as a new array (new Float64Array(n), new Array(n).fill(0), Float64Array.from(...), .map, .slice() or a literal): here it may be another name for an existing one`);
  }
  const uses = (n: ts.Node): void => {
    if (tsApi.isIdentifier(n) && n !== decl.name && checker.getSymbolAtLocation(n) === sym) checkUse(tsApi, checker, n, name);
    tsApi.forEachChild(n, uses);
  };
  uses(fn);
}

/** A use of a written array as a whole must not give it a second name. */
function checkUse(tsApi: typeof ts, checker: ts.TypeChecker, id: ts.Identifier, name: string): void {
  let node: ts.Node = id;
  while (tsApi.isParenthesizedExpression(node.parent) || tsApi.isNonNullExpression(node.parent) || tsApi.isAsExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  if (tsApi.isElementAccessExpression(parent) && parent.expression === node) {
    // A row of a written matrix is another name for it in JavaScript: only its elements and
    // its length may be read (m[i][j], m[i].length).
    const rowType = checker.getTypeAtLocation(parent);
    const isRow = checker.isArrayType(rowType) || typedArrayName(tsApi, rowType) !== undefined;
    let use: ts.Node = parent;
    while (tsApi.isParenthesizedExpression(use.parent) || tsApi.isNonNullExpression(use.parent)) use = use.parent;
    const whole = !(tsApi.isElementAccessExpression(use.parent) && use.parent.expression === use) && !(tsApi.isPropertyAccessExpression(use.parent) && use.parent.expression === use && use.parent.name.text === 'length');
    if (isRow && whole) {
      fail(1123, parent, `'${name}' is written into, and its row ${parent.getText()} used as a whole would be a second name for that row in JavaScript; read its elements (${name}[i][j]) or copy the row (${parent.getText()}.slice())`);
    }
    return;
  }
  if (tsApi.isPropertyAccessExpression(parent) && parent.expression === node) {
    // m.map((r) => r) would be a matrix of m's own rows, m.slice() an outer copy.
    const call = parent.parent;
    const rows = tsApi.isCallExpression(call) && call.expression === parent && isMatrixType(tsApi, checker, checker.getTypeAtLocation(call));
    if (rows && !isFreshMatrix(tsApi, checker, call)) {
      fail(1123, call, `'${name}' is written into, and ${sourceText(call)} would share its rows in JavaScript; copy each row: ${name}.map((r) => r.slice())`, MATRIX_COPY_HINT);
    }
    return;
  }
  // `a = new Float64Array(n)`: a new array under the same name.
  if (tsApi.isBinaryExpression(parent) && parent.left === node && parent.operatorToken.kind === tsApi.SyntaxKind.EqualsToken) {
    if (!isFreshArray(tsApi, checker, parent.right)) {
      const matrix = isMatrixType(tsApi, checker, checker.getTypeAtLocation(id));
      fail(1123, parent.right, `'${name}' is written into, so a new value for it must be a new array (${matrix ? 'm.map((r) => r.slice())' : '.slice()'} copies one)`, matrix ? MATRIX_COPY_HINT : undefined);
    }
    return;
  }
  if (tsApi.isReturnStatement(parent)) return;
  // `for (const p of a)` reads each element once per trip: the same in JavaScript unless the loop writes a.
  if (tsApi.isForOfStatement(parent) && parent.expression === node && !writesInto(tsApi, checker, parent.statement, checker.getSymbolAtLocation(id))) return;
  if ((tsApi.isArrayLiteralExpression(parent) || tsApi.isShorthandPropertyAssignment(parent) || tsApi.isPropertyAssignment(parent)) && returnedLiteral(tsApi, parent)) return;
  // tsad's array helpers read their arguments and return new arrays: no second name.
  if (tsApi.isCallExpression(parent) && parent.expression !== node && ARRAY_HELPERS.has(tsadExportName(parent.expression, checker) ?? '')) return;
  if ((tsApi.isCallExpression(parent) || tsApi.isNewExpression(parent)) && parent.expression !== node) {
    const type = checker.getTypeAtLocation(parent);
    const returnsArray = checker.isArrayType(type) || checker.isTupleType(type) || typedArrayName(tsApi, type) !== undefined || (type.flags & tsApi.TypeFlags.Object) !== 0;
    const copies = tsApi.isNewExpression(parent) || (tsApi.isPropertyAccessExpression(parent.expression) && parent.expression.name.text === 'from');
    if (!returnsArray || copies) return;
  }
  const matrix = isMatrixType(tsApi, checker, checker.getTypeAtLocation(id));
  fail(
    1123,
    id,
    `'${name}' is written into and also used here as a whole, which in JavaScript would give the same array a second name that sees every later write; tsad's arrays are values, so copy it where it gets another name (${copyOf(name, matrix)}) or pass its elements`,
    matrix ? MATRIX_COPY_HINT : undefined,
  );
}

const sourceText = (n: ts.Node): string => {
  const t = n.getText().replace(/\s+/g, ' ');
  return t.length > 40 ? `${t.slice(0, 37)}...` : t;
};

/** A copy with no part shared: a matrix's `.slice()` would copy only its outer array. */
const copyOf = (name: string, matrix: boolean): string => (matrix ? `${name}.map((r) => r.slice())` : `${name}.slice()`);

/** TSAD1123's hint for a matrix (its generic one suggests .slice(), which shares the rows). */
export const MATRIX_COPY_HINT = "tsad's matrices are values, JavaScript's are arrays of shared rows: copy a written matrix row by row, m.map((r) => r.slice()), where it gets another name (m.slice() would copy only the outer array)";

/** `number[][]`, `Float64Array[]`: an array whose elements are arrays. */
export function isMatrixType(tsApi: typeof ts, checker: ts.TypeChecker, type: ts.Type): boolean {
  if (!checker.isArrayType(type)) return false;
  const row = checker.getIndexTypeOfType(type, tsApi.IndexKind.Number);
  return !!row && (checker.isArrayType(row) || typedArrayName(tsApi, row) !== undefined);
}

/** `return [a, s]`, `return { a, s }`: a literal the function returns (nothing writes after). */
function returnedLiteral(tsApi: typeof ts, n: ts.Node): boolean {
  let node = n;
  while (tsApi.isArrayLiteralExpression(node) || tsApi.isObjectLiteralExpression(node) || tsApi.isPropertyAssignment(node) || tsApi.isShorthandPropertyAssignment(node) || tsApi.isParenthesizedExpression(node)) {
    if (tsApi.isReturnStatement(node.parent)) return true;
    node = node.parent;
  }
  return false;
}

/** Does `body` write into the array `sym` (an element, a field of an element, a push)? */
function writesInto(tsApi: typeof ts, checker: ts.TypeChecker, body: ts.Node, sym: ts.Symbol | undefined): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    const id = writtenArray(tsApi, n) ?? writtenRecord(tsApi, checker, n);
    if (id && checker.getSymbolAtLocation(id) === sym) found = true;
    if (!found) tsApi.forEachChild(n, visit);
  };
  visit(body);
  return found;
}

function isInside(node: ts.Node, container: ts.Node): boolean {
  for (let n: ts.Node | undefined = node; n; n = n.parent) if (n === container) return true;
  return false;
}
