// Which writes into arrays a differentiable function may make (docs/frontend.md, "Writes").
//
// tsad's arrays are values: `a[i] = v` lowers to `a = update(a, i, v)`, a new version of a, and
// the backend runs it in place where nobody can see the old version (opt/inplace.ts). JavaScript
// arrays are objects: every name for one array sees every write. The two agree exactly when the
// written array has one name. So a written array must be a local variable that starts as a new
// array (new Float64Array(n), new Array(n) (its holes NaN), new Array(n).fill(x), Float64Array.from(...), .map, .slice, a
// literal) and is used as a whole only where no second name can come of it: an element, its
// length or a method call on it, an argument of a call that returns no array, or what the function
// returns. Anything else is a diagnostic here, before lowering, rather than a wrong derivative.
import type * as ts from 'typescript';
import { fail } from './diagnostics';
import { typedArrayName } from './shapes';
import { resolveMarkedFunction, tsadExportName } from './markers';
import { ARRAY_HELPERS, ARRAY_METHODS } from './arrayMethods';
import { assignedValues, isInside, lastUse, permutation, rowSwap, sharedByResult } from './aliasing';
import { checkRecordWrites, writtenRecord } from './recordWrites';
import { takenFromFreshRecord } from './freshFields';

/** `b.push(v, …)`: the array pushed onto, when it is a plain name. */
export function pushedArray(tsApi: typeof ts, n: ts.Node): ts.Identifier | undefined {
  if (!tsApi.isCallExpression(n) || !tsApi.isPropertyAccessExpression(n.expression) || n.expression.name.text !== 'push') return undefined;
  let base: ts.Expression = n.expression.expression;
  while (tsApi.isParenthesizedExpression(base)) base = base.expression;
  return tsApi.isIdentifier(base) ? base : undefined;
}

/** `s.sort(f)`, `s.reverse()`, `s.fill(v)`: the local array a method changes in place, when it is a plain name. */
export function changedInPlace(tsApi: typeof ts, n: ts.Node): ts.Identifier | undefined {
  if (!tsApi.isCallExpression(n) || !tsApi.isPropertyAccessExpression(n.expression) || !ARRAY_METHODS.get(n.expression.name.text)?.change) return undefined;
  let base: ts.Expression = n.expression.expression;
  while (tsApi.isParenthesizedExpression(base) || tsApi.isNonNullExpression(base)) base = base.expression;
  return tsApi.isIdentifier(base) ? base : undefined;
}

/** The array a statement writes into: `a[i] = v`, `a[i] += v`, `a[i]++`, `a.push(v)`, `a.sort(f)`. */
export function writtenArray(tsApi: typeof ts, n: ts.Node): ts.Identifier | undefined {
  const K = tsApi.SyntaxKind;
  const pushed = pushedArray(tsApi, n) ?? changedInPlace(tsApi, n);
  if (pushed) return pushed;
  let target: ts.Expression | undefined;
  if (tsApi.isBinaryExpression(n) && n.operatorToken.kind >= K.FirstAssignment && n.operatorToken.kind <= K.LastAssignment) target = n.left;
  if ((tsApi.isPrefixUnaryExpression(n) || tsApi.isPostfixUnaryExpression(n)) && (n.operator === K.PlusPlusToken || n.operator === K.MinusMinusToken)) target = n.operand;
  while (target && tsApi.isParenthesizedExpression(target)) target = target.expression;
  if (!target || !tsApi.isElementAccessExpression(target)) return undefined;
  let base: ts.Expression = target.expression;
  while (tsApi.isParenthesizedExpression(base)) base = base.expression;
  // `m[i][j] = v` writes into the matrix m, `t[i][j][k] = v` into the tensor t.
  while (tsApi.isElementAccessExpression(base)) {
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
  // A marked function that returns a fresh array (aliasing.ts's summary).
  if (tsApi.isCallExpression(e) && sharedBy(tsApi, checker, e)?.size === 0) return true;
  if (tsApi.isNewExpression(e)) return tsApi.isIdentifier(e.expression) && ['Float64Array', 'Float32Array', 'Int32Array', 'Array'].includes(e.expression.text);
  if (tsApi.isCallExpression(e) && tsApi.isIdentifier(e.expression) && e.expression.text === 'Array') return true;
  if (tsApi.isCallExpression(e) && tsApi.isPropertyAccessExpression(e.expression)) {
    const method = e.expression.name.text;
    if (method === 'from' && tsApi.isIdentifier(e.expression.expression)) return true;
    const known = ARRAY_METHODS.get(method);
    // `a.slice().sort(f)` is the new array the slice made; `s.sort(f)` is s.
    if (known?.change) return isFreshArray(tsApi, checker, e.expression.expression);
    return known?.fresh ?? false;
  }
  return false;
}

/** The arguments (by position) the result of a call to a marked function may share. */
function sharedBy(tsApi: typeof ts, checker: ts.TypeChecker, call: ts.CallExpression): ReadonlySet<number> | undefined {
  const callee = resolveMarkedFunction(call.expression, checker);
  return callee && sharedByResult(tsApi, checker, callee.decl, (x) => isFreshArray(tsApi, checker, x));
}

function isFreshMatrix(tsApi: typeof ts, checker: ts.TypeChecker, e: ts.Expression): boolean {
  if (tsApi.isArrayLiteralExpression(e)) return e.elements.every((r) => isFreshArray(tsApi, checker, r));
  if (tsApi.isCallExpression(e) && tsadExportName(e.expression, checker) === 'matmul') return true;
  // `new Array(n)`: n holes, no row of anyone's yet (its rows are written later, m[i] = new row).
  if (tsApi.isNewExpression(e) && tsApi.isIdentifier(e.expression) && e.expression.text === 'Array' && (e.arguments?.length ?? 0) <= 1) return true;
  // A marked function whose result shares no row with its arguments (aliasing.ts).
  if (tsApi.isCallExpression(e) && sharedBy(tsApi, checker, e)?.size === 0) return true;
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
 * and never gets a second name that would see a write (aliasing.ts). Reports TSAD1122 (a write
 * into a parameter or an array from elsewhere) or TSAD1123 (a written array used as a whole
 * where a second name could come of it). `renames` (`const c = b`: c is b) are resolved.
 * Returns the arrays written into.
 */
export function checkArrayWrites(tsApi: typeof ts, checker: ts.TypeChecker, fn: ts.Node, body: ts.Node, renames: ReadonlyMap<ts.Symbol, ts.Symbol> = new Map()): ReadonlySet<ts.Symbol> {
  const symbolOf = (id: ts.Node): ts.Symbol | undefined => {
    // `{ b }` names the variable b, whose symbol is not the property's.
    const sym = tsApi.isShorthandPropertyAssignment(id.parent) && id.parent.name === id ? checker.getShorthandAssignmentValueSymbol(id.parent) : checker.getSymbolAtLocation(id);
    return (sym && renames.get(sym)) ?? sym;
  };
  const written = new Map<ts.Symbol, ts.Identifier>();
  const add = (id: ts.Identifier): void => {
    const sym = symbolOf(id);
    if (sym && !written.has(sym)) written.set(sym, id);
  };
  const visit = (n: ts.Node): void => {
    const id = writtenArray(tsApi, n) ?? writtenRecord(tsApi, checker, n);
    if (id) add(id);
    for (const target of literalTargets(tsApi, n)) add(target);
    checkInPlaceReceiver(tsApi, checker, n);
    tsApi.forEachChild(n, visit);
  };
  visit(body);
  const scope = { tsApi, checker, fn, renames, symbolOf };
  // A name that trades arrays with a written one ([a, b] = [b, a]) may hold the written array.
  for (const [sym] of written) for (const partner of partners(scope, sym)) if (!written.has(partner.sym)) written.set(partner.sym, partner.id);
  for (const [sym, first] of written) checkOne(scope, sym, first);
  checkPushedRows(scope, body);
  checkRecordWrites(tsApi, checker, body);
  return new Set(written.keys());
}

/**
 * `m.push(r)` onto a matrix or tensor makes r a row of m in JavaScript, where a later write into
 * either would show in the other; tsad copies it. So the row must be a new array, or a name
 * handed on at its last use (ownedValue), as for `u = next`.
 */
function checkPushedRows(scope: Scope, body: ts.Node): void {
  const { tsApi, checker } = scope;
  const visit = (n: ts.Node): void => {
    const id = pushedArray(tsApi, n);
    if (id && isMatrixType(tsApi, checker, checker.getTypeAtLocation(id))) {
      for (const arg of (n as ts.CallExpression).arguments) {
        if (tsApi.isSpreadElement(arg) || ownedValue(scope, arg, new Set())) continue;
        fail(
          1123,
          arg,
          `pushing ${sourceText(arg)} onto '${id.text}' makes it a row of '${id.text}' in JavaScript, where a write into either would show in the other; push a copy, ${id.text}.push(${sourceText(arg)}.slice()), or push it at its last use`,
        );
      }
    }
    tsApi.forEachChild(n, visit);
  };
  visit(body);
}

interface Scope {
  readonly tsApi: typeof ts;
  readonly checker: ts.TypeChecker;
  readonly fn: ts.Node;
  readonly renames: ReadonlyMap<ts.Symbol, ts.Symbol>;
  readonly symbolOf: (id: ts.Node) => ts.Symbol | undefined;
}

/** `[m[p], m[c]] = …`, `[a, b] = …`: the arrays written by element and the names assigned. */
function literalTargets(tsApi: typeof ts, n: ts.Node): ts.Identifier[] {
  if (!tsApi.isBinaryExpression(n) || n.operatorToken.kind !== tsApi.SyntaxKind.EqualsToken) return [];
  let left = n.left;
  while (tsApi.isParenthesizedExpression(left)) left = left.expression;
  if (!tsApi.isArrayLiteralExpression(left)) return [];
  return left.elements.flatMap((x) => {
    let e = x;
    while (tsApi.isParenthesizedExpression(e)) e = e.expression;
    if (tsApi.isElementAccessExpression(e)) e = e.expression;
    while (tsApi.isParenthesizedExpression(e)) e = e.expression;
    return tsApi.isIdentifier(e) && tsApi.isElementAccessExpression(x) ? [e] : [];
  });
}

/** The names a written array trades places with in a permutation (transitively). */
function partners(scope: Scope, sym: ts.Symbol): { sym: ts.Symbol; id: ts.Identifier }[] {
  const { tsApi, checker, fn, symbolOf } = scope;
  const found = new Map<ts.Symbol, ts.Identifier>();
  const todo = [sym];
  while (todo.length > 0) {
    const s = todo.pop()!;
    const visit = (n: ts.Node): void => {
      if (tsApi.isArrayLiteralExpression(n)) {
        const names = permutation(tsApi, checker, n);
        if (names?.includes(s)) {
          for (const x of n.elements) {
            const id = x as ts.Identifier;
            const other = symbolOf(id);
            if (other && other !== sym && !found.has(other)) {
              found.set(other, id);
              todo.push(other);
            }
          }
        }
      }
      tsApi.forEachChild(n, visit);
    };
    visit(fn);
  }
  return [...found].map(([s, id]) => ({ sym: s, id }));
}

/**
 * `x.sort(f)`, `x.reverse()`, `x.fill(v)` change x: where x is no plain name (a local, checked
 * as any written array), it must be a new array, `a.slice().sort(f)`, `[...a].reverse()`.
 */
function checkInPlaceReceiver(tsApi: typeof ts, checker: ts.TypeChecker, n: ts.Node): void {
  if (!tsApi.isCallExpression(n) || !tsApi.isPropertyAccessExpression(n.expression)) return;
  const method = n.expression.name.text;
  if (!ARRAY_METHODS.get(method)?.change || changedInPlace(tsApi, n)) return;
  const r = n.expression.expression;
  const type = checker.getTypeAtLocation(r);
  if (!checker.isArrayType(type) && typedArrayName(tsApi, type) === undefined) return;
  if (!isFreshArray(tsApi, checker, r)) {
    fail(
      1122,
      n,
      `.${method} changes the array it is called on, and ${sourceText(r)} may be another name for an array the caller or another variable sees: ${method} a copy, ${sourceText(r)}.slice().${method}(…)`,
    );
  }
}

function checkOne(scope: Scope, sym: ts.Symbol, first: ts.Identifier): void {
  const { tsApi, checker, fn, symbolOf } = scope;
  const name = first.text;
  const decl = sym.valueDeclaration;
  const declName = (decl as ts.NamedDeclaration | undefined)?.name;
  const other = declName && tsApi.isIdentifier(declName) && declName.text !== name ? `'${name}' is another name for '${declName.text}', which ` : `'${name}' `;
  if (decl && tsApi.isParameter(decl)) {
    fail(1122, first, `${other}is a parameter: writing into it would change the caller's array; write into a copy instead: const ${name}2 = ${name}.slice()`);
  }
  let root: ts.Node | undefined = decl;
  while (root && (tsApi.isBindingElement(root) || tsApi.isObjectBindingPattern(root) || tsApi.isArrayBindingPattern(root))) root = root.parent;
  if (root && tsApi.isParameter(root)) {
    fail(1122, first, `'${name}' is part of the parameter ${sourceText(root.name)}: writing into it would change the caller's array; write into a copy instead: const ${name}2 = ${name}.slice()`);
  }
  if (!decl || !tsApi.isVariableDeclaration(decl) || !isInside(decl, fn)) {
    fail(1122, first, `${other === `'${name}' ` ? `'${name}' is` : `${other}is`} not a local array of this function: write into a local copy instead (const ${name}2 = ${name}.slice())`);
  }
  const kind = typedArrayName(tsApi, checker.getTypeAtLocation(decl));
  // An Int32Array holds indices: constants, what is written truncated toward zero as JavaScript
  // does (frontend/lower.ts). Other integer arrays wrap or clamp, and a Float32Array rounds a
  // value whose derivative would then be wrong.
  if (kind !== undefined && kind !== 'Float64Array' && kind !== 'Int32Array') {
    fail(
      1122,
      first,
      `'${name}' is a ${kind}, which rounds what is written into it: write into a Float64Array or number[] (a derivative of rounded values would be wrong), or an Int32Array for indices`,
    );
  }
  if (!decl.initializer || !ownedValue(scope, decl.initializer, new Set([sym]))) {
    let init = decl.initializer;
    while (init && (tsApi.isParenthesizedExpression(init) || tsApi.isAsExpression(init) || tsApi.isNonNullExpression(init))) init = init.expression;
    // A view whose array is not one local name (views.ts lowers those): a write through it
    // would change that array in JavaScript, and tsad cannot say which array that is.
    if (init && tsApi.isCallExpression(init) && tsApi.isPropertyAccessExpression(init.expression) && init.expression.name.text === 'subarray') {
      const viewed = sourceText(init.expression.expression);
      fail(
        1123,
        first,
        `'${name}' is a view of ${viewed} (it shares its numbers in JavaScript), and tsad cannot tell at build time which array that is, so the write ${sourceText(first.parent.parent ?? first.parent)} cannot be made into it: declare the view as const c = b.subarray(…) of a local array b, or copy: ${name} = ${viewed}.slice(…)`,
      );
    }
    // Which array a conditional picks is known only at run time: a write through it would
    // change one of the two in JavaScript, and value semantics cannot say which.
    if (init && tsApi.isConditionalExpression(init)) {
      const write = sourceText(first.parent.parent ?? first.parent);
      fail(
        1123,
        first,
        `'${name}' is ${sourceText(init.whenTrue)} or ${sourceText(init.whenFalse)} depending on run-time data, so the write ${write} would change one of them in JavaScript; copy where it is chosen: const ${name} = (${sourceText(init)}).slice()`,
      );
    }
    if (isMatrixType(tsApi, checker, checker.getTypeAtLocation(decl))) {
      fail(
        1122,
        decl.initializer ?? decl,
        `'${decl.name.getText()}' is written into, so it must start as a new matrix whose rows are new too (matmul(a, b), m.map((r) => r.slice()), Array.from({ length: n }, () => new Float64Array(k)) or a literal): here its rows may be another matrix's`,
        MATRIX_COPY_HINT,
      );
    }
    fail(
      1122,
      decl.initializer ?? decl,
      `'${decl.name.getText()}' is written into, so it must start as a new array (new Float64Array(n), new Array(n).fill(0), Float64Array.from(...), .map, .slice(), a marked function that returns a new one, or a literal): here it may be another name for an existing one`,
    );
  }
  const uses = (n: ts.Node): void => {
    if (tsApi.isIdentifier(n) && n !== decl.name && symbolOf(n) === sym && !isDeclarationName(tsApi, n)) checkUse(scope, n, sym, name);
    tsApi.forEachChild(n, uses);
  };
  uses(fn);
}

const isDeclarationName = (tsApi: typeof ts, n: ts.Identifier): boolean => tsApi.isVariableDeclaration(n.parent) && n.parent.name === n;

/**
 * A value a written array may start as or be given: a new array, an array handed on by its
 * only name (`x = xPrime` as xPrime's last use), or a partner in a permutation of such names.
 */
function ownedValue(scope: Scope, value: ts.Expression, visiting: Set<ts.Symbol>): boolean {
  const { tsApi, checker, fn, symbolOf } = scope;
  let e = value;
  while (tsApi.isParenthesizedExpression(e) || tsApi.isAsExpression(e) || tsApi.isNonNullExpression(e)) e = e.expression;
  if (isFreshArray(tsApi, checker, e)) return true;
  if (takenFromFreshRecord(tsApi, checker, e, (x) => isFreshArray(tsApi, checker, x))) return true;
  if (!tsApi.isIdentifier(e)) return false;
  const sym = symbolOf(e);
  const decl = sym?.valueDeclaration;
  if (!sym || !decl || !tsApi.isVariableDeclaration(decl) || !isInside(decl, fn)) return false;
  const swapped = tsApi.isArrayLiteralExpression(e.parent) && permutation(tsApi, checker, e.parent) !== undefined;
  if (!swapped && !lastUse(tsApi, checker, e)) return false;
  if (visiting.has(sym)) return true;
  visiting.add(sym);
  const values = assignedValues(tsApi, checker, sym, fn);
  return !!values && values.length > 0 && values.every((v) => ownedValue(scope, v, visiting));
}

/** `m[i] = r` with r a new array (`new Array(n).fill(0)`, `x.slice()`): the row is m's only. */
function newRow(tsApi: typeof ts, checker: ts.TypeChecker, access: ts.Node): boolean {
  const p = access.parent;
  return tsApi.isBinaryExpression(p) && p.left === access && p.operatorToken.kind === tsApi.SyntaxKind.EqualsToken && isFreshArray(tsApi, checker, p.right);
}

/** A use of a written array as a whole must not give it a second name. */
function checkUse(scope: Scope, id: ts.Identifier, sym: ts.Symbol, name: string): void {
  const { tsApi, checker } = scope;
  let node: ts.Node = id;
  while (tsApi.isParenthesizedExpression(node.parent) || tsApi.isNonNullExpression(node.parent) || tsApi.isAsExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  if (tsApi.isElementAccessExpression(parent) && parent.expression === node) {
    return checkPartUse(scope, partAccess(tsApi, checker, parent), name);
  }
  if (tsApi.isPropertyAccessExpression(parent) && parent.expression === node) {
    const loop = parent.parent.parent;
    if (['entries', 'keys', 'values'].includes(parent.name.text) && tsApi.isForOfStatement(loop) && loop.expression === parent.parent && writesInto(scope, loop.statement, sym)) {
      fail(
        1123,
        parent.parent,
        `the loop writes into '${name}', which JavaScript's for…of over ${name}.${parent.name.text}() would see in its later steps; loop with a counter, for (let i = 0; i < ${name}.length; i++)`,
      );
    }
    if (parent.name.text === 'subarray' && !viewInitializer(scope, parent, sym)) {
      fail(1123, parent, `'${name}' is written into, and ${name}.subarray(…) is a view that sees every write into '${name}' in JavaScript; take a copy of the elements instead: ${name}.slice(…)`);
    }
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
    if (!ownedValue(scope, parent.right, new Set([sym]))) {
      const matrix = isMatrixType(tsApi, checker, checker.getTypeAtLocation(id));
      fail(
        1123,
        parent.right,
        `'${name}' is written into, so a new value for it must be a new array (${matrix ? 'm.map((r) => r.slice())' : '.slice()'} copies one)`,
        matrix ? MATRIX_COPY_HINT : undefined,
      );
    }
    return;
  }
  if (tsApi.isReturnStatement(parent)) return;
  // `[...b]`, `Math.max(...b)`: b's numbers, one by one (a matrix's spread would share its rows).
  if (tsApi.isSpreadElement(parent) && !isMatrixType(tsApi, checker, checker.getTypeAtLocation(id))) return;
  if (sharesNoName(scope, node, id, sym)) return;
  if ((tsApi.isArrayLiteralExpression(parent) || tsApi.isShorthandPropertyAssignment(parent) || tsApi.isPropertyAssignment(parent)) && returnedLiteral(tsApi, parent)) return;
  // `out.concat(head)` of numbers copies head's numbers into a new array: no second name.
  if (tsApi.isCallExpression(parent) && tsApi.isPropertyAccessExpression(parent.expression) && parent.expression.name.text === 'concat' && parent.arguments.includes(node as ts.Expression)) {
    const type = checker.getTypeAtLocation(id);
    const numbers = typedArrayName(tsApi, type) !== undefined || (checker.isArrayType(type) && (checker.getIndexTypeOfType(type, tsApi.IndexKind.Number)?.flags ?? 0) & tsApi.TypeFlags.NumberLike);
    if (numbers) return;
  }
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

/**
 * The part of a written matrix or tensor an access reaches: `m[i]`, or `t[i][j]` of a tensor
 * (the accesses climbed while they still give an array).
 */
function partAccess(tsApi: typeof ts, checker: ts.TypeChecker, access: ts.ElementAccessExpression): ts.ElementAccessExpression {
  let at = access;
  for (;;) {
    let use: ts.Node = at;
    while (tsApi.isParenthesizedExpression(use.parent) || tsApi.isNonNullExpression(use.parent)) use = use.parent;
    const next = use.parent;
    if (!(tsApi.isElementAccessExpression(next) && next.expression === use)) return at;
    const type = checker.getTypeAtLocation(next);
    if (!(checker.isArrayType(type) || typedArrayName(tsApi, type) !== undefined)) return at;
    at = next;
  }
}

/** A row (a part) of a written matrix or tensor is another name for it in JavaScript: only its elements and its length may be read (m[i][j], m[i].length). */
function checkPartUse(scope: Scope, parent: ts.ElementAccessExpression, name: string): void {
  const { tsApi, checker } = scope;
  const rowType = checker.getTypeAtLocation(parent);
  const isRow = checker.isArrayType(rowType) || typedArrayName(tsApi, rowType) !== undefined;
  let use: ts.Node = parent;
  while (tsApi.isParenthesizedExpression(use.parent) || tsApi.isNonNullExpression(use.parent)) use = use.parent;
  const whole =
    !(tsApi.isElementAccessExpression(use.parent) && use.parent.expression === use) &&
    !(tsApi.isPropertyAccessExpression(use.parent) && use.parent.expression === use && use.parent.name.text === 'length');
  const view = tsApi.isPropertyAccessExpression(use.parent) && use.parent.name.text === 'subarray' && viewInitializer(scope, use.parent, scope.symbolOf(baseName(tsApi, parent)));
  if (isRow && whole && !view && !rowSwap(tsApi, checker, parent) && !newRow(tsApi, checker, use)) {
    fail(
      1123,
      parent,
      `'${name}' is written into, and its row ${parent.getText()} used as a whole would be a second name for that row in JavaScript; read its elements (${name}[i][j]) or copy the row (${parent.getText()}.slice())`,
    );
  }
}

/** The array an access `m[i][j]` reads from: its name. */
function baseName(tsApi: typeof ts, access: ts.ElementAccessExpression): ts.Node {
  let e: ts.Expression = access;
  while (tsApi.isElementAccessExpression(e) || tsApi.isParenthesizedExpression(e) || tsApi.isNonNullExpression(e)) e = e.expression;
  return e;
}

/**
 * `const c = b.subarray(k)`, `const c = m[j].subarray(k)` where c is lowered as its base at an
 * offset (views.ts, through `renames`): a view, not a second array.
 */
function viewInitializer(scope: Scope, method: ts.PropertyAccessExpression, sym: ts.Symbol | undefined): boolean {
  const { tsApi, checker, renames } = scope;
  let call: ts.Node = method.parent;
  if (!tsApi.isCallExpression(call) || call.expression !== method) return false;
  while (tsApi.isParenthesizedExpression(call.parent) || tsApi.isNonNullExpression(call.parent) || tsApi.isAsExpression(call.parent)) call = call.parent;
  const decl = call.parent;
  if (!sym || !tsApi.isVariableDeclaration(decl) || decl.initializer !== call) return false;
  const target = checker.getSymbolAtLocation(decl.name);
  return !!target && renames.get(target) === sym;
}

/** Can a call be given an array without keeping a reference to it (a second name that sees later writes)? */
export function keepsNoReference(tsApi: typeof ts, checker: ts.TypeChecker, call: ts.CallExpression, k: number): boolean {
  if (ARRAY_HELPERS.has(tsadExportName(call.expression, checker) ?? '')) return true;
  const shared = sharedBy(tsApi, checker, call);
  if (shared !== undefined) return !shared.has(k);
  const type = checker.getTypeAtLocation(call);
  return !(checker.isArrayType(type) || checker.isTupleType(type) || typedArrayName(tsApi, type) !== undefined || (type.flags & tsApi.TypeFlags.Object) !== 0);
}

/**
 * Uses of a written array as a whole that give it no second name that sees a write
 * (docs/frontend.md, "Aliasing"): the `b` of `const c = b` when c is lowered as b, a name handed
 * on at its last use, a permutation of names, `for…of` over it with no write inside, an
 * argument of a marked function that keeps no reference to it.
 */
function sharesNoName(scope: Scope, node: ts.Node, id: ts.Identifier, sym: ts.Symbol): boolean {
  const { tsApi, checker, renames } = scope;
  const parent = node.parent;
  const own = checker.getSymbolAtLocation(id) === sym;
  if (tsApi.isVariableDeclaration(parent) && parent.initializer === node) {
    const target = checker.getSymbolAtLocation(parent.name);
    if (target && renames.get(target) === sym) return true;
    return own && lastUse(tsApi, checker, id);
  }
  if (tsApi.isBinaryExpression(parent) && parent.right === node && parent.operatorToken.kind === tsApi.SyntaxKind.EqualsToken) return own && lastUse(tsApi, checker, id);
  // `track = { mean, cov }` at mean's last use: the record holds the array from here on (a
  // write through its field is refused as a write into an array taken from an object).
  if (tsApi.isShorthandPropertyAssignment(parent) || (tsApi.isPropertyAssignment(parent) && parent.initializer === node)) return scope.symbolOf(id) === sym && lastUse(tsApi, checker, id);
  if (tsApi.isArrayLiteralExpression(parent) && permutation(tsApi, checker, parent)) return true;
  // A matrix's row bound by for…of would be a second name for that row: only arrays of numbers.
  if (tsApi.isForOfStatement(parent) && parent.expression === node) return !isMatrixType(tsApi, checker, checker.getTypeAtLocation(node)) && !writesInto(scope, parent.statement, sym);
  if (tsApi.isCallExpression(parent) && parent.expression !== node) {
    // `const c = same(b)`, where same returns its argument: c is lowered as b.
    const holder = parent.parent;
    const target = tsApi.isVariableDeclaration(holder) && holder.initializer === parent ? checker.getSymbolAtLocation(holder.name) : undefined;
    if (target && renames.get(target) === sym) return true;
    const k = parent.arguments.indexOf(node as ts.Expression);
    const shared = sharedBy(tsApi, checker, parent);
    return k >= 0 && shared !== undefined && !shared.has(k);
  }
  return false;
}

/** Does `body` write into the array `sym` names (by element, push or a new value)? */
function writesInto(scope: Scope, body: ts.Node, sym: ts.Symbol): boolean {
  const { tsApi, symbolOf } = scope;
  let found = false;
  const visit = (n: ts.Node): void => {
    const id = writtenArray(tsApi, n);
    if (id && symbolOf(id) === sym) found = true;
    if (literalTargets(tsApi, n).some((t) => symbolOf(t) === sym)) found = true;
    if (tsApi.isBinaryExpression(n) && tsApi.isIdentifier(n.left) && symbolOf(n.left) === sym && n.operatorToken.kind === tsApi.SyntaxKind.EqualsToken) found = true;
    if (!found) tsApi.forEachChild(n, visit);
  };
  visit(body);
  return found;
}

const sourceText = (n: ts.Node): string => {
  const t = n.getText().replace(/\s+/g, ' ');
  return t.length > 40 ? `${t.slice(0, 37)}...` : t;
};

/** A copy with no part shared: a matrix's `.slice()` would copy only its outer array. */
const copyOf = (name: string, matrix: boolean): string => (matrix ? `${name}.map((r) => r.slice())` : `${name}.slice()`);

/** TSAD1123's hint for a matrix (its generic one suggests .slice(), which shares the rows). */
export const MATRIX_COPY_HINT =
  "tsad's matrices are values, JavaScript's are arrays of shared rows: copy a written matrix row by row, m.map((r) => r.slice()), where it gets another name (m.slice() would copy only the outer array)";

/** `number[][]`, `Float64Array[]`: an array whose elements are arrays. */
export function isMatrixType(tsApi: typeof ts, checker: ts.TypeChecker, type: ts.Type): boolean {
  if (!checker.isArrayType(type)) return false;
  const row = checker.getIndexTypeOfType(type, tsApi.IndexKind.Number);
  return !!row && (checker.isArrayType(row) || typedArrayName(tsApi, row) !== undefined);
}

/** `return [a, s]`, `return { a, s }`: a literal the function returns (nothing writes after). */
function returnedLiteral(tsApi: typeof ts, n: ts.Node): boolean {
  let node = n;
  while (
    tsApi.isArrayLiteralExpression(node) ||
    tsApi.isObjectLiteralExpression(node) ||
    tsApi.isPropertyAssignment(node) ||
    tsApi.isShorthandPropertyAssignment(node) ||
    tsApi.isParenthesizedExpression(node)
  ) {
    if (tsApi.isReturnStatement(node.parent)) return true;
    node = node.parent;
  }
  return false;
}
