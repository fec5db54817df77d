// Views of typed arrays: `const c = b.subarray(k)`, `const c = m[j].subarray(k, e)`
// (docs/frontend.md, "Views"). In JavaScript a subarray shares its base's buffer: a write through
// either is seen through the other. tsad's arrays are values, so a view whose base is written (or
// that is written itself) is lowered as its base at an offset (viewLowering.ts): `c[i]` reads and
// writes the base at `k + i`, which is what JavaScript means. This module finds such views and
// checks that nothing gives the view a second name or moves its base, where the offset alone
// would no longer say which numbers the view sees.
import type * as ts from 'typescript';
import { fail } from './diagnostics';
import { typedArrayName } from './shapes';
import { writtenArray } from './writes';
import { assignedValues, isInside, symbolAt } from './aliasing';
import { assignedSymbols } from './syntax';

/** A view declaration: `const c = base[r0]…[rk].subarray(start?, end?)`. */
export interface ViewInfo {
  readonly decl: ts.VariableDeclaration & { readonly name: ts.Identifier };
  readonly call: ts.CallExpression;
  /** The array the view's numbers live in (through `const b2 = b` renames). */
  readonly base: ts.Identifier;
  readonly baseSym: ts.Symbol;
  /** The row indices of a matrix or tensor base, outermost first (empty for an array). */
  readonly rows: readonly ts.Expression[];
}

const unwrap = (tsApi: typeof ts, e: ts.Expression): ts.Expression => {
  while (tsApi.isParenthesizedExpression(e) || tsApi.isNonNullExpression(e) || tsApi.isAsExpression(e) || tsApi.isSatisfiesExpression(e)) e = e.expression;
  return e;
};

/** `b.subarray(…)`, `m[j].subarray(…)`: the name of the array and the row indices, when the receiver is one. */
export function subarrayCall(tsApi: typeof ts, checker: ts.TypeChecker, e: ts.Expression): { call: ts.CallExpression; base: ts.Identifier; rows: ts.Expression[] } | undefined {
  const call = unwrap(tsApi, e);
  if (!tsApi.isCallExpression(call) || !tsApi.isPropertyAccessExpression(call.expression) || call.expression.name.text !== 'subarray') return undefined;
  if (call.arguments.length > 2 || call.arguments.some((a) => tsApi.isSpreadElement(a))) return undefined;
  let r = unwrap(tsApi, call.expression.expression);
  if (typedArrayName(tsApi, checker.getTypeAtLocation(r)) === undefined) return undefined;
  const rows: ts.Expression[] = [];
  while (tsApi.isElementAccessExpression(r)) {
    rows.unshift(r.argumentExpression);
    r = unwrap(tsApi, r.expression);
  }
  return tsApi.isIdentifier(r) ? { call, base: r, rows } : undefined;
}

const cache = new WeakMap<ts.TypeChecker, WeakMap<ts.SourceFile, ReadonlyMap<ts.Symbol, ViewInfo>>>();

/**
 * The views of a file that are lowered as their base at an offset: `const` views of a local or
 * parameter whose array is written somewhere in the function that declares it (through any
 * name: the base, a view, a `const` alias). A view of an array nobody writes is a copy of its
 * elements (arrayMethods.ts), which is the same. `aliases` are aliasing.ts's `const c = b`.
 */
export function viewsOf(tsApi: typeof ts, checker: ts.TypeChecker, sf: ts.SourceFile, aliases: ReadonlyMap<ts.Symbol, ts.Symbol>): ReadonlyMap<ts.Symbol, ViewInfo> {
  let perFile = cache.get(checker);
  if (!perFile) cache.set(checker, (perFile = new WeakMap()));
  const known = perFile.get(sf);
  if (known) return known;
  const candidates = new Map<ts.Symbol, ViewInfo>();
  const visit = (n: ts.Node): void => {
    if (tsApi.isVariableDeclaration(n) && tsApi.isIdentifier(n.name) && n.initializer && (tsApi.getCombinedNodeFlags(n) & tsApi.NodeFlags.Const) !== 0) {
      const found = subarrayCall(tsApi, checker, n.initializer);
      const sym = checker.getSymbolAtLocation(n.name);
      const raw = found && checker.getSymbolAtLocation(found.base);
      const baseSym = raw && (aliases.get(raw) ?? raw);
      if (found && sym && baseSym && scopeOf(tsApi, baseSym)) candidates.set(sym, { decl: n as ViewInfo['decl'], call: found.call, base: found.base, baseSym, rows: found.rows });
    }
    tsApi.forEachChild(n, visit);
  };
  visit(sf);
  const views = new Map<ts.Symbol, ViewInfo>();
  if (candidates.size > 0) {
    // One name per array: aliases, and every candidate view as its base.
    const names = new Map(aliases);
    for (const [sym, v] of candidates) names.set(sym, v.baseSym);
    const resolve = (s: ts.Symbol | undefined): ts.Symbol | undefined => (s && names.get(s)) ?? s;
    const writtenIn = new Map<ts.Node, Set<ts.Symbol>>();
    for (const [sym, v] of candidates) {
      const scope = scopeOf(tsApi, v.baseSym)!;
      let written = writtenIn.get(scope);
      if (!written) writtenIn.set(scope, (written = writtenSymbols(tsApi, checker, scope, resolve)));
      if (written.has(v.baseSym)) views.set(sym, v);
    }
  }
  perFile.set(sf, views);
  return views;
}

/** The function a local or parameter belongs to. */
function scopeOf(tsApi: typeof ts, sym: ts.Symbol): ts.Node | undefined {
  const decl = sym.valueDeclaration;
  if (!decl || !(tsApi.isVariableDeclaration(decl) || tsApi.isParameter(decl))) return undefined;
  for (let p: ts.Node | undefined = decl.parent; p; p = p.parent) if (tsApi.isFunctionLike(p)) return p;
  return undefined;
}

/** The arrays a function writes into (by element, push, sort, fill, destructuring) or reassigns, each by its one name. */
function writtenSymbols(tsApi: typeof ts, checker: ts.TypeChecker, scope: ts.Node, resolve: (s: ts.Symbol | undefined) => ts.Symbol | undefined): Set<ts.Symbol> {
  const out = new Set<ts.Symbol>();
  const visit = (n: ts.Node): void => {
    const id = writtenArray(tsApi, n);
    const sym = id && resolve(checker.getSymbolAtLocation(id));
    if (sym) out.add(sym);
    tsApi.forEachChild(n, visit);
  };
  visit(scope);
  const assigned = new Set<ts.Symbol>();
  const body = (scope as ts.FunctionLikeDeclaration).body;
  if (body) assignedSymbols(tsApi, checker, body, assigned);
  for (const s of assigned) out.add(resolve(s)!);
  return out;
}

/** What checkViews needs to know about a call a view is passed to. */
export type KeepsNoReference = (call: ts.CallExpression, k: number) => boolean;

/** Methods that read an array and return numbers or a new array: a view may be their receiver (a copy of its elements now). */
const READING_METHODS = new Set(['slice', 'map', 'reduce', 'some', 'every', 'findIndex', 'filter', 'indexOf', 'includes', 'lastIndexOf', 'at', 'concat', 'forEach']);

/**
 * Checks the views of `fn` (viewsOf): the base keeps its array and its rows stay where they are,
 * and the view is used by its elements and length, or read whole where no second name comes of
 * it (a method that reads it, an argument of a call that keeps no reference, a spread,
 * `for…of` whose body does not write the array). TSAD1123 otherwise, naming both names.
 */
export function checkViews(
  tsApi: typeof ts,
  checker: ts.TypeChecker,
  fn: ts.Node,
  views: ReadonlyMap<ts.Symbol, ViewInfo>,
  renames: ReadonlyMap<ts.Symbol, ts.Symbol>,
  keepsNoReference: KeepsNoReference,
): void {
  const resolve = (s: ts.Symbol | undefined): ts.Symbol | undefined => (s && renames.get(s)) ?? s;
  for (const [sym, v] of views) {
    if (!isInside(v.decl, fn)) continue;
    const name = v.decl.name.text;
    const what = `'${name}' is a view of '${v.call.expression.getText().replace(/\.subarray$/, '')}' (it shares its numbers in JavaScript)`;
    const scope = scopeOf(tsApi, v.baseSym)!;
    const values = v.baseSym.valueDeclaration && tsApi.isVariableDeclaration(v.baseSym.valueDeclaration) ? assignedValues(tsApi, checker, v.baseSym, scope) : [];
    if (!values || values.length > 1) {
      fail(
        1123,
        v.decl,
        `${what}, and '${v.base.text}' is given another array in this function: JavaScript's view would keep the numbers of the array it was made from; copy the elements instead: ${v.call.getText().replace(/\.subarray\(/, '.slice(')}`,
      );
    }
    if (v.rows.length > 0) checkRowsStay(tsApi, checker, scope, v, what, (s) => (s && views.has(s) ? undefined : resolve(s)));
    const uses = (n: ts.Node): void => {
      if (tsApi.isIdentifier(n) && n !== v.decl.name && symbolAt(tsApi, checker, n) === sym) checkUse(tsApi, checker, n, v, what, resolve, keepsNoReference);
      tsApi.forEachChild(n, uses);
    };
    uses(scope);
  }
}

/**
 * A row of a matrix base must stay where it is: no `m[p] = r`, swap, sort or reverse of the rows
 * (the view keeps its row in JavaScript). `resolve` names the base's aliases, not its views.
 */
function checkRowsStay(tsApi: typeof ts, checker: ts.TypeChecker, scope: ts.Node, v: ViewInfo, what: string, resolve: (s: ts.Symbol | undefined) => ts.Symbol | undefined): void {
  const visit = (n: ts.Node): void => {
    const id = writtenArray(tsApi, n);
    if (id && resolve(checker.getSymbolAtLocation(id)) === v.baseSym) {
      const call = tsApi.isCallExpression(n) ? n : undefined;
      const method = call && tsApi.isPropertyAccessExpression(call.expression) ? call.expression.name.text : undefined;
      const target = tsApi.isBinaryExpression(n) ? unwrap(tsApi, n.left) : undefined;
      const depth = (e: ts.Expression | undefined): number => (e && tsApi.isElementAccessExpression(e) ? 1 + depth(unwrap(tsApi, e.expression)) : 0);
      if ((method && method !== 'push') || (target && depth(target) <= v.rows.length)) {
        fail(
          1123,
          n,
          `${what}, and this moves or replaces rows of '${v.base.text}': JavaScript's view would keep the row it was made from; copy the elements instead: ${v.call.getText().replace(/\.subarray\(/, '.slice(')}`,
        );
      }
    }
    if (tsApi.isBinaryExpression(n) && tsApi.isArrayLiteralExpression(unwrap(tsApi, n.left))) {
      for (const x of (unwrap(tsApi, n.left) as ts.ArrayLiteralExpression).elements) {
        let e = unwrap(tsApi, x);
        let k = 0;
        while (tsApi.isElementAccessExpression(e)) {
          e = unwrap(tsApi, e.expression);
          k++;
        }
        if (k > 0 && k <= v.rows.length && tsApi.isIdentifier(e) && resolve(checker.getSymbolAtLocation(e)) === v.baseSym) {
          fail(
            1123,
            x,
            `${what}, and this swaps rows of '${v.base.text}': JavaScript's view would keep the row it was made from; copy the elements instead: ${v.call.getText().replace(/\.subarray\(/, '.slice(')}`,
          );
        }
      }
    }
    tsApi.forEachChild(n, visit);
  };
  visit(scope);
}

function checkUse(
  tsApi: typeof ts,
  checker: ts.TypeChecker,
  id: ts.Identifier,
  v: ViewInfo,
  what: string,
  resolve: (s: ts.Symbol | undefined) => ts.Symbol | undefined,
  keepsNoReference: KeepsNoReference,
): void {
  let node: ts.Node = id;
  while (tsApi.isParenthesizedExpression(node.parent) || tsApi.isNonNullExpression(node.parent) || tsApi.isAsExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  const name = id.text;
  // c[i], read or written; c.length.
  if (tsApi.isElementAccessExpression(parent) && parent.expression === node) return;
  if (tsApi.isPropertyAccessExpression(parent) && parent.expression === node) {
    const method = parent.name.text;
    if (method === 'length') return;
    const call = parent.parent;
    if (READING_METHODS.has(method) && tsApi.isCallExpression(call) && call.expression === parent) {
      for (const arg of call.arguments) if (writesThrough(tsApi, checker, arg, v.baseSym, resolve)) refuseLoop(arg, name, what);
      return;
    }
    const change = ['fill', 'sort', 'reverse', 'set', 'copyWithin'].includes(method);
    fail(
      1123,
      parent,
      change
        ? `${what}: .${method} through the view is not supported yet; write its elements, ${name}[i] = …`
        : `${what}: .${method} of the view is not supported; copy it first (${name}.slice()) or index its base`,
    );
  }
  // [...c], Math.max(...c): a copy of the numbers.
  if (tsApi.isSpreadElement(parent)) return;
  if (tsApi.isForOfStatement(parent) && parent.expression === node) {
    if (writesThrough(tsApi, checker, parent.statement, v.baseSym, resolve)) refuseLoop(parent.statement, name, what);
    return;
  }
  if (tsApi.isCallExpression(parent) && parent.expression !== node) {
    const k = parent.arguments.indexOf(node as ts.Expression);
    if (k >= 0 && keepsNoReference(parent, k)) return;
  }
  fail(
    1123,
    id,
    `${what}, and used here as a whole it would be a second name for those numbers that sees every later write; copy it where it gets another name (${name}.slice()) or pass its elements`,
  );
}

function refuseLoop(at: ts.Node, name: string, what: string): never {
  return fail(
    1123,
    at,
    `${what}, and this loop over '${name}' writes into it: JavaScript's loop would see the writes in its later steps; loop with a counter, for (let i = 0; i < ${name}.length; i++)`,
  );
}

/** Does this code write into the base (by any name: a view of it, an alias)? */
function writesThrough(tsApi: typeof ts, checker: ts.TypeChecker, n: ts.Node, base: ts.Symbol, resolve: (s: ts.Symbol | undefined) => ts.Symbol | undefined): boolean {
  let found = false;
  const visit = (x: ts.Node): void => {
    const id = writtenArray(tsApi, x);
    if (id && resolve(checker.getSymbolAtLocation(id)) === base) found = true;
    if (!found) tsApi.forEachChild(x, visit);
  };
  visit(n);
  return found;
}
