// Where JavaScript's sharing of arrays is observable (docs/frontend.md, "Aliasing").
//
// tsad's arrays are values; JavaScript's are objects that every name for them sees change. The
// two meanings coincide wherever no write is seen through a second name. This module holds the
// facts frontend/writes.ts decides that with:
//  - per marked function, which of its parameters its result may share (none: "returns a fresh
//    array"; k: "returns argument k"; every other argument: "keeps no reference to it", since a
//    marked function stores nothing but its result);
//  - a name handed on whole and never used again (`u = next` with next new in every trip);
//  - permutations of names (`[a, b] = [b, a]`), after which every array still has one name;
//  - `const c = b` where b keeps its array: c is lowered as b itself (renames), so a write
//    through either name is seen through the other, as in JavaScript.
import type * as ts from 'typescript';
import { resolveMarkedFunction } from './markers';

/** The parameters (by position) a function's result may share; undefined: unknown. */
type Shared = ReadonlySet<number> | undefined;

/** Per checker (a new program may change a callee in another file), per function. */
const summaryCache = new WeakMap<ts.TypeChecker, WeakMap<ts.Node, Shared>>();
const inProgress = new Set<ts.Node>();

const unwrap = (tsApi: typeof ts, e: ts.Expression): ts.Expression => {
  while (tsApi.isParenthesizedExpression(e) || tsApi.isAsExpression(e) || tsApi.isNonNullExpression(e) || tsApi.isSatisfiesExpression(e)) e = e.expression;
  return e;
};

/**
 * The summary of a marked function: the positions of the arguments its result may share.
 * Computed from its returns; a recursive cycle, a captured or module-level array, or a store
 * anywhere but a local makes it unknown.
 */
export function sharedByResult(tsApi: typeof ts, checker: ts.TypeChecker, fn: ts.SignatureDeclaration, isFresh: (e: ts.Expression) => boolean): Shared {
  let summaries = summaryCache.get(checker);
  if (!summaries) summaryCache.set(checker, (summaries = new WeakMap()));
  if (summaries.has(fn)) return summaries.get(fn);
  if (inProgress.has(fn)) return undefined;
  inProgress.add(fn);
  let result: Shared;
  try {
    result = summarize(tsApi, checker, fn, isFresh);
  } finally {
    inProgress.delete(fn);
  }
  summaries.set(fn, result);
  return result;
}

function summarize(tsApi: typeof ts, checker: ts.TypeChecker, fn: ts.SignatureDeclaration, isFresh: (e: ts.Expression) => boolean): Shared {
  const body = (fn as ts.FunctionLikeDeclaration).body;
  if (!body) return undefined;
  const returns: ts.Expression[] = [];
  let stores = false;
  const visit = (n: ts.Node): void => {
    if (tsApi.isReturnStatement(n) && n.expression) returns.push(n.expression);
    // A store into anything but the function's own locals could keep a reference.
    if (tsApi.isBinaryExpression(n) && n.operatorToken.kind === tsApi.SyntaxKind.EqualsToken) {
      const left = unwrap(tsApi, n.left);
      if (tsApi.isPropertyAccessExpression(left)) stores = true;
      if (tsApi.isIdentifier(left) && !isLocal(checker.getSymbolAtLocation(left), fn)) stores = true;
    }
    if (!tsApi.isFunctionLike(n)) tsApi.forEachChild(n, visit);
  };
  if (tsApi.isBlock(body)) tsApi.forEachChild(body, visit);
  else returns.push(body as ts.Expression);
  if (stores) return undefined;
  const shared = new Set<number>();
  const seen = new Set<ts.Symbol>();
  for (const r of returns) {
    const s = sharedBy(tsApi, checker, fn, r, isFresh, seen);
    if (!s) return undefined;
    for (const k of s) shared.add(k);
  }
  return shared;
}

/** The parameters of `fn` the value of `e` may share; undefined: unknown. */
function sharedBy(tsApi: typeof ts, checker: ts.TypeChecker, fn: ts.SignatureDeclaration, expr: ts.Expression, isFresh: (e: ts.Expression) => boolean, seen: Set<ts.Symbol>): Shared {
  const e = unwrap(tsApi, expr);
  const type = checker.getTypeAtLocation(e);
  if ((type.flags & tsApi.TypeFlags.Object) === 0 && !type.isUnion()) return new Set();
  if (isFresh(e)) return new Set();
  const union = (parts: readonly ts.Expression[]): Shared => {
    const all = new Set<number>();
    for (const p of parts) {
      const s = sharedBy(tsApi, checker, fn, p, isFresh, seen);
      if (!s) return undefined;
      for (const k of s) all.add(k);
    }
    return all;
  };
  if (tsApi.isConditionalExpression(e)) return union([e.whenTrue, e.whenFalse]);
  if (tsApi.isArrayLiteralExpression(e)) return e.elements.some((x) => tsApi.isSpreadElement(x)) ? undefined : union(e.elements);
  if (tsApi.isObjectLiteralExpression(e)) {
    const parts: ts.Expression[] = [];
    for (const p of e.properties) {
      if (tsApi.isPropertyAssignment(p)) parts.push(p.initializer);
      else if (tsApi.isShorthandPropertyAssignment(p)) parts.push(p.name);
      else return undefined;
    }
    return union(parts);
  }
  if (tsApi.isElementAccessExpression(e) || tsApi.isPropertyAccessExpression(e)) return union([e.expression]);
  if (tsApi.isCallExpression(e)) {
    const callee = resolveMarkedFunction(e.expression, checker);
    const s = callee && sharedByResult(tsApi, checker, callee.decl, isFresh);
    if (!s || e.arguments.some((a) => tsApi.isSpreadElement(a))) return undefined;
    return union([...s].map((k) => e.arguments[k]).filter((a): a is ts.Expression => a !== undefined));
  }
  if (!tsApi.isIdentifier(e)) return undefined;
  const sym = symbolAt(tsApi, checker, e);
  const decl = sym?.valueDeclaration;
  if (!sym || !decl) return undefined;
  if (tsApi.isParameter(decl)) {
    const k = fn.parameters.indexOf(decl);
    return k >= 0 ? new Set([k]) : undefined;
  }
  if (!tsApi.isVariableDeclaration(decl) || !isLocal(sym, fn)) return undefined;
  if (seen.has(sym)) return new Set();
  seen.add(sym);
  const values = assignedValues(tsApi, checker, sym, fn);
  return values ? union(values) : undefined;
}

function isLocal(sym: ts.Symbol | undefined, fn: ts.Node): boolean {
  const decl = sym?.valueDeclaration;
  return !!decl && decl !== fn && isInside(decl, fn);
}

/** The variable a name refers to; in `{ b }`, b's (the checker gives the property's symbol). */
export function symbolAt(tsApi: typeof ts, checker: ts.TypeChecker, id: ts.Identifier): ts.Symbol | undefined {
  return tsApi.isShorthandPropertyAssignment(id.parent) && id.parent.name === id ? checker.getShorthandAssignmentValueSymbol(id.parent) : checker.getSymbolAtLocation(id);
}

export function isInside(node: ts.Node, container: ts.Node): boolean {
  for (let n: ts.Node | undefined = node; n; n = n.parent) if (n === container) return true;
  return false;
}

/**
 * Every value a local variable is given: its initializer, `x = e`, and its partner in a
 * destructuring assignment of literals (`[a, b] = [b, a]`); undefined when it is given one any
 * other way (`[x] = f()`, `x += …`).
 */
export function assignedValues(tsApi: typeof ts, checker: ts.TypeChecker, sym: ts.Symbol, scope: ts.Node): ts.Expression[] | undefined {
  const decl = sym.valueDeclaration;
  if (!decl || !tsApi.isVariableDeclaration(decl)) return undefined;
  const values: ts.Expression[] = decl.initializer ? [decl.initializer] : [];
  let unknown = false;
  const visit = (n: ts.Node): void => {
    if (tsApi.isIdentifier(n) && n !== decl.name && symbolAt(tsApi, checker, n) === sym) {
      const v = valueAssignedAt(tsApi, n);
      if (v === null) unknown = true;
      else if (v) values.push(v);
    }
    tsApi.forEachChild(n, visit);
  };
  visit(scope);
  return unknown ? undefined : values;
}

/**
 * At a use of a name: the value it is given there (`x = e`, `[x, y] = [e, f]`), undefined when
 * the use does not assign it, null when it assigns it in another way.
 */
function valueAssignedAt(tsApi: typeof ts, id: ts.Identifier): ts.Expression | undefined | null {
  const K = tsApi.SyntaxKind;
  let node: ts.Node = id;
  while (tsApi.isParenthesizedExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  if (tsApi.isBinaryExpression(parent) && parent.left === node) {
    const op = parent.operatorToken.kind;
    if (op === K.EqualsToken) return parent.right;
    return op >= K.FirstAssignment && op <= K.LastAssignment ? null : undefined;
  }
  if ((tsApi.isPrefixUnaryExpression(parent) || tsApi.isPostfixUnaryExpression(parent)) && (parent.operator === K.PlusPlusToken || parent.operator === K.MinusMinusToken)) return null;
  if (tsApi.isArrayLiteralExpression(parent)) {
    const swap = literalAssignment(tsApi, parent);
    if (swap && swap.left === parent) return swap.right.elements[parent.elements.indexOf(node as ts.Expression)];
    if (isAssignmentPattern(tsApi, parent)) return null;
  }
  if ((tsApi.isShorthandPropertyAssignment(parent) || tsApi.isPropertyAssignment(parent)) && isAssignmentPattern(tsApi, parent.parent)) return null;
  return undefined;
}

/** `[a, b] = [e, f]`: an assignment whose both sides are array literals of one length. */
export function literalAssignment(tsApi: typeof ts, lit: ts.ArrayLiteralExpression): { left: ts.ArrayLiteralExpression; right: ts.ArrayLiteralExpression } | undefined {
  let node: ts.Node = lit;
  while (tsApi.isParenthesizedExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  if (!tsApi.isBinaryExpression(parent) || parent.operatorToken.kind !== tsApi.SyntaxKind.EqualsToken) return undefined;
  const left = unwrap(tsApi, parent.left);
  const right = unwrap(tsApi, parent.right);
  if (!tsApi.isArrayLiteralExpression(left) || !tsApi.isArrayLiteralExpression(right) || left.elements.length !== right.elements.length) return undefined;
  if ([...left.elements, ...right.elements].some((x) => tsApi.isSpreadElement(x) || tsApi.isOmittedExpression(x))) return undefined;
  return { left, right };
}

function isAssignmentPattern(tsApi: typeof ts, n: ts.Node): boolean {
  let node = n;
  while (
    tsApi.isArrayLiteralExpression(node) ||
    tsApi.isObjectLiteralExpression(node) ||
    tsApi.isParenthesizedExpression(node) ||
    tsApi.isPropertyAssignment(node) ||
    tsApi.isShorthandPropertyAssignment(node)
  ) {
    const p = node.parent;
    if (tsApi.isBinaryExpression(p) && p.left === node && p.operatorToken.kind === tsApi.SyntaxKind.EqualsToken) return true;
    node = p;
  }
  return false;
}

/**
 * `[a, b, c] = [b, c, a]`: names given each other's arrays, all at once. Afterwards every array
 * has as many names among them as before, so value semantics still coincides with JavaScript.
 * The symbols, or undefined when `lit` is not one side of such a permutation.
 */
export function permutation(tsApi: typeof ts, checker: ts.TypeChecker, lit: ts.ArrayLiteralExpression): ts.Symbol[] | undefined {
  const swap = literalAssignment(tsApi, lit);
  if (!swap) return undefined;
  const symbols = (l: ts.ArrayLiteralExpression): (ts.Symbol | undefined)[] =>
    l.elements.map((x) => {
      const e = unwrap(tsApi, x);
      return tsApi.isIdentifier(e) ? checker.getSymbolAtLocation(e) : undefined;
    });
  const left = symbols(swap.left);
  const right = symbols(swap.right);
  if (left.some((s) => !s) || right.some((s) => !s) || new Set(left).size !== left.length) return undefined;
  return new Set(right).size === right.length && right.every((s) => left.includes(s)) ? (left as ts.Symbol[]) : undefined;
}

const LOOPS = (tsApi: typeof ts, n: ts.Node): boolean =>
  tsApi.isForStatement(n) || tsApi.isForOfStatement(n) || tsApi.isForInStatement(n) || tsApi.isWhileStatement(n) || tsApi.isDoStatement(n) || tsApi.isFunctionLike(n);

/**
 * Is `use` the last time its local variable is read (`u = next` at the end of a trip, with next
 * declared in that trip)? Then the array it held gets a new name and the old one never sees it
 * again: no loop repeats the use without the declaration, and no reference follows it.
 */
export function lastUse(tsApi: typeof ts, checker: ts.TypeChecker, use: ts.Identifier): boolean {
  const sym = symbolAt(tsApi, checker, use);
  const decl = sym?.valueDeclaration;
  if (!sym || !decl || !tsApi.isVariableDeclaration(decl)) return false;
  const scope = tsApi.isVariableDeclarationList(decl.parent) ? decl.parent.parent?.parent : undefined;
  if (!scope || !isInside(use, scope)) return false;
  for (let n: ts.Node = use.parent; n !== scope; n = n.parent) if (LOOPS(tsApi, n)) return false;
  let later = false;
  const visit = (n: ts.Node): void => {
    if (later) return;
    if (tsApi.isIdentifier(n) && n.pos >= use.end && symbolAt(tsApi, checker, n) === sym) later = true;
    tsApi.forEachChild(n, visit);
  };
  visit(scope);
  return !later;
}

/**
 * `const c = b`, where b never gets another array: c is b wherever it is visible. Returns
 * c → the name it is (through chains, `const d = c`), for a whole file (a callback lowered on
 * its own sees its function's names). Only arrays, only names declared in functions.
 */
export function constAliases(tsApi: typeof ts, checker: ts.TypeChecker, sf: ts.SourceFile, isArray: (t: ts.Type) => boolean): ReadonlyMap<ts.Symbol, ts.Symbol> {
  let perFile = aliasCache.get(checker);
  if (!perFile) aliasCache.set(checker, (perFile = new WeakMap()));
  const cached = perFile.get(sf);
  if (cached) return cached;
  const renames = new Map<ts.Symbol, ts.Symbol>();
  const visit = (n: ts.Node): void => {
    if (tsApi.isVariableDeclaration(n) && tsApi.isIdentifier(n.name) && n.initializer && (tsApi.getCombinedNodeFlags(n) & tsApi.NodeFlags.Const) !== 0) {
      const init = returnedArgument(tsApi, checker, unwrap(tsApi, n.initializer));
      const source = init && tsApi.isIdentifier(init) ? checker.getSymbolAtLocation(init) : undefined;
      const target = checker.getSymbolAtLocation(n.name);
      const sdecl = source?.valueDeclaration;
      const fn = sdecl && enclosingFunction(tsApi, sdecl);
      const keeps = fn && (tsApi.isParameter(sdecl!) || (tsApi.isVariableDeclaration(sdecl!) && sdecl!.initializer !== undefined && assignedValues(tsApi, checker, source!, fn)?.length === 1));
      if (source && target && keeps && enclosingFunction(tsApi, n) && isArray(checker.getTypeAtLocation(n.name))) renames.set(target, renames.get(source) ?? source);
    }
    tsApi.forEachChild(n, visit);
  };
  visit(sf);
  perFile.set(sf, renames);
  return renames;
}

/**
 * `b` for `b` itself and for `same(b)`, a call of a marked function whose every return is that
 * parameter ("returns argument k"): its value is the argument's, and in JavaScript so is its
 * identity. The call is still lowered (its checks and effects stay).
 */
function returnedArgument(tsApi: typeof ts, checker: ts.TypeChecker, e: ts.Expression): ts.Expression | undefined {
  if (tsApi.isIdentifier(e)) return e;
  if (!tsApi.isCallExpression(e)) return undefined;
  const callee = resolveMarkedFunction(e.expression, checker)?.decl;
  const body = callee && (callee as ts.FunctionLikeDeclaration).body;
  if (!callee || !body) return undefined;
  const returns: ts.Expression[] = [];
  const visit = (n: ts.Node): void => {
    if (tsApi.isReturnStatement(n)) returns.push(n.expression ?? (n as unknown as ts.Expression));
    if (!tsApi.isFunctionLike(n)) tsApi.forEachChild(n, visit);
  };
  if (tsApi.isBlock(body)) tsApi.forEachChild(body, visit);
  else returns.push(body as ts.Expression);
  const params = returns.map((r) => {
    const x = unwrap(tsApi, r);
    const decl = tsApi.isIdentifier(x) ? checker.getSymbolAtLocation(x)?.valueDeclaration : undefined;
    return decl && tsApi.isParameter(decl) ? callee.parameters.indexOf(decl) : -1;
  });
  const k = params[0];
  if (k === undefined || k < 0 || params.some((q) => q !== k) || e.arguments.some((a) => tsApi.isSpreadElement(a))) return undefined;
  const arg = e.arguments[k];
  return arg && tsApi.isIdentifier(unwrap(tsApi, arg)) ? unwrap(tsApi, arg) : undefined;
}

const aliasCache = new WeakMap<ts.TypeChecker, WeakMap<ts.SourceFile, ReadonlyMap<ts.Symbol, ts.Symbol>>>();

function enclosingFunction(tsApi: typeof ts, n: ts.Node): ts.Node | undefined {
  for (let p = n.parent; p; p = p.parent) if (tsApi.isFunctionLike(p)) return p;
  return undefined;
}

/** The checker with each renamed name read as the one it stands for. */
export function renamingChecker(checker: ts.TypeChecker, renames: ReadonlyMap<ts.Symbol, ts.Symbol>): ts.TypeChecker {
  if (renames.size === 0) return checker;
  const getSymbolAtLocation = (n: ts.Node): ts.Symbol | undefined => {
    const s = checker.getSymbolAtLocation(n);
    return (s && renames.get(s)) ?? s;
  };
  const getShorthandAssignmentValueSymbol = (n: ts.Node | undefined): ts.Symbol | undefined => {
    const s = checker.getShorthandAssignmentValueSymbol(n);
    return (s && renames.get(s)) ?? s;
  };
  return { ...checker, getSymbolAtLocation, getShorthandAssignmentValueSymbol };
}

/**
 * Is this row access `m[p]` part of a swap of two rows, after which no row has two names:
 * `const tmp = m[p]; m[p] = m[c]; m[c] = tmp;` (tmp used nowhere else) or
 * `[m[p], m[c]] = [m[c], m[p]]`? Value semantics copies the rows, which then agree.
 */
export function rowSwap(tsApi: typeof ts, checker: ts.TypeChecker, access: ts.ElementAccessExpression): boolean {
  let node: ts.Node = access;
  while (tsApi.isParenthesizedExpression(node.parent)) node = node.parent;
  if (tsApi.isArrayLiteralExpression(node.parent)) {
    const swap = literalAssignment(tsApi, node.parent);
    if (!swap) return false;
    const rowsOf = (l: ts.ArrayLiteralExpression): string[] | undefined => {
      const out: string[] = [];
      for (const x of l.elements) {
        const row = rowOf(tsApi, checker, x, access);
        if (row === undefined) return undefined;
        out.push(row);
      }
      return out;
    };
    const left = rowsOf(swap.left);
    const right = rowsOf(swap.right);
    return !!left && !!right && new Set(left).size === left.length && [...left].sort().join('\n') === [...right].sort().join('\n');
  }
  let stmt: ts.Node = access;
  while (stmt.parent && !tsApi.isBlock(stmt.parent) && !tsApi.isSourceFile(stmt.parent)) stmt = stmt.parent;
  const list = (stmt.parent as ts.Block | undefined)?.statements;
  const at = list ? list.indexOf(stmt as ts.Statement) : -1;
  for (let start = at - 2; list && start <= at; start++) if (start >= 0 && tripleSwap(tsApi, checker, list.slice(start, start + 3), access)) return true;
  return false;
}

/** The index text of `m[i]` when x is a row access of the same matrix as `like` with a simple index. */
function rowOf(tsApi: typeof ts, checker: ts.TypeChecker, x: ts.Expression, like: ts.ElementAccessExpression): string | undefined {
  const e = unwrap(tsApi, x);
  if (!tsApi.isElementAccessExpression(e) || !simpleIndex(tsApi, e.argumentExpression)) return undefined;
  const base = unwrap(tsApi, e.expression);
  const likeBase = unwrap(tsApi, like.expression);
  if (!tsApi.isIdentifier(base) || !tsApi.isIdentifier(likeBase) || checker.getSymbolAtLocation(base) !== checker.getSymbolAtLocation(likeBase)) return undefined;
  return e.argumentExpression.getText();
}

/** An index with no effect that reads the same before and after the swap: names, literals, arithmetic. */
function simpleIndex(tsApi: typeof ts, e: ts.Expression): boolean {
  if (tsApi.isIdentifier(e) || tsApi.isNumericLiteral(e)) return true;
  if (tsApi.isParenthesizedExpression(e)) return simpleIndex(tsApi, e.expression);
  if (tsApi.isBinaryExpression(e)) {
    const K = tsApi.SyntaxKind;
    const op = e.operatorToken.kind;
    return [K.PlusToken, K.MinusToken, K.AsteriskToken].includes(op) && simpleIndex(tsApi, e.left) && simpleIndex(tsApi, e.right);
  }
  return false;
}

function tripleSwap(tsApi: typeof ts, checker: ts.TypeChecker, s: readonly ts.Statement[], like: ts.ElementAccessExpression): boolean {
  if (s.length !== 3) return false;
  const [s0, s1, s2] = s;
  if (!tsApi.isVariableStatement(s0) || s0.declarationList.declarations.length !== 1) return false;
  const d = s0.declarationList.declarations[0];
  if (!tsApi.isIdentifier(d.name) || !d.initializer) return false;
  const assign = (st: ts.Statement): ts.BinaryExpression | undefined =>
    tsApi.isExpressionStatement(st) && tsApi.isBinaryExpression(st.expression) && st.expression.operatorToken.kind === tsApi.SyntaxKind.EqualsToken ? st.expression : undefined;
  const a1 = assign(s1);
  const a2 = assign(s2);
  if (!a1 || !a2) return false;
  const p0 = rowOf(tsApi, checker, d.initializer, like);
  const p1 = rowOf(tsApi, checker, a1.left, like);
  const c1 = rowOf(tsApi, checker, a1.right, like);
  const c2 = rowOf(tsApi, checker, a2.left, like);
  const tmp = checker.getSymbolAtLocation(d.name);
  const right = unwrap(tsApi, a2.right);
  if (p0 === undefined || p0 !== p1 || c1 === undefined || c1 !== c2 || !tsApi.isIdentifier(right) || checker.getSymbolAtLocation(right) !== tmp) return false;
  // tmp is a second name for the row it holds: it must not be read anywhere else.
  const fn = s0.parent;
  let uses = 0;
  const visit = (n: ts.Node): void => {
    if (tsApi.isIdentifier(n) && symbolAt(tsApi, checker, n) === tmp) uses++;
    tsApi.forEachChild(n, visit);
  };
  visit(fn);
  return uses === 2;
}
