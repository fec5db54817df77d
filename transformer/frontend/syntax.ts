// What a piece of code assigns, reads or calls, seen syntactically (not inside nested functions).
import type * as ts from 'typescript';
import { writtenArray } from './writes';
import { writtenRecord } from './recordWrites';
import { nodeMemo } from './nodeFacts';

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

/**
 * The local variables a piece of code assigns (`=`, compound assignments, `++`, `--`), not inside
 * nested functions, but through calls of local functions: `uniform()` assigns the `state` that
 * its body assigns (calls.ts inlines it there).
 */
export function assignedSymbols(tsApi: typeof ts, checker: ts.TypeChecker, node: ts.Node, out: Set<ts.Symbol>, seen = new Set<ts.Node>()): void {
  for (const item of assignmentsIn(tsApi, checker, node)) {
    if (!isLocalFunction(item)) {
      out.add(item);
      continue;
    }
    if (seen.has(item)) continue;
    seen.add(item);
    const inside = new Set<ts.Symbol>();
    assignedSymbols(tsApi, checker, item.body!, inside, seen);
    for (const sym of inside) if (!sym.valueDeclaration || !within(sym.valueDeclaration, item)) out.add(sym);
  }
}

/** What a node assigns, in source order: a name assigned, or a local function called (what it assigns is known per call). */
type Assignment = ts.Symbol | ts.FunctionLikeDeclaration;

const isLocalFunction = (a: Assignment): a is ts.FunctionLikeDeclaration => 'kind' in a;

const NOTHING: ReadonlySet<Assignment> = new Set();

// Each node's once per checker, children first: each level of nested loops asks about its whole
// body. A node adding nothing to a single child's list shares it.
const assignmentsMemo = nodeMemo((n, owner): ReadonlySet<Assignment> => {
  const { tsApi, checker } = owner as { tsApi: typeof ts; checker: ts.TypeChecker };
  if (tsApi.isFunctionLike(n) || tsApi.isClassLike(n)) return NOTHING;
  const own: Assignment[] = [];
  const callee = tsApi.isCallExpression(n) ? calledLocalFunction(tsApi, checker, n) : undefined;
  if (callee?.body) own.push(callee);
  const K = tsApi.SyntaxKind;
  let target: ts.Expression | undefined;
  if (tsApi.isBinaryExpression(n) && n.operatorToken.kind >= K.FirstAssignment && n.operatorToken.kind <= K.LastAssignment) target = n.left;
  if ((tsApi.isPrefixUnaryExpression(n) || tsApi.isPostfixUnaryExpression(n)) && (n.operator === K.PlusPlusToken || n.operator === K.MinusMinusToken)) target = n.operand;
  // `[a, b] = [b, a]`, `[m[p], m[c]] = …`: each name, and each array written by element.
  const targets: (ts.Expression | undefined)[] =
    target && tsApi.isArrayLiteralExpression(target) ? target.elements.map((x) => (tsApi.isElementAccessExpression(x) ? baseName(tsApi, x) : x)) : [target];
  for (const tg of targets) {
    if (tg && tsApi.isIdentifier(tg)) {
      const sym = symbolAt(checker, tg);
      if (sym) own.push(sym);
    }
  }
  // `a[i] = v` (and `ps[i].x = v`) gives a a new value (a new version of the array), as `a = ...` does.
  const array = writtenArray(tsApi, n) ?? writtenRecord(tsApi, checker, n);
  if (array) {
    const sym = symbolAt(checker, array);
    if (sym) own.push(sym);
  }
  const children: ReadonlySet<Assignment>[] = [];
  tsApi.forEachChild(n, (c) => {
    const inner = assignmentsIn(tsApi, checker, c);
    if (inner.size > 0) children.push(inner);
  });
  if (own.length === 0 && children.length <= 1) return children[0] ?? NOTHING;
  const all = new Set<Assignment>(own);
  for (const inner of children) for (const a of inner) all.add(a);
  return all;
});

// The memo's owner: one per checker (symbols are the checker's), holding the TypeScript it came with.
const owners = new WeakMap<ts.TypeChecker, { tsApi: typeof ts; checker: ts.TypeChecker }>();
function assignmentsIn(tsApi: typeof ts, checker: ts.TypeChecker, n: ts.Node): ReadonlySet<Assignment> {
  let owner = owners.get(checker);
  if (!owner) owners.set(checker, (owner = { tsApi, checker }));
  return assignmentsMemo(n, owner);
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

const within = (n: ts.Node, owner: ts.Node): boolean => {
  for (let p: ts.Node | undefined = n.parent; p; p = p.parent) if (p === owner) return true;
  return false;
};

/**
 * The local function a call calls by name: a function declaration, or a `const` holding an arrow
 * function or function expression, declared inside another function.
 */
export function calledLocalFunction(tsApi: typeof ts, checker: ts.TypeChecker, call: ts.CallExpression): ts.FunctionLikeDeclaration | undefined {
  if (!tsApi.isIdentifier(call.expression)) return undefined;
  const decl = symbolAt(checker, call.expression)?.valueDeclaration;
  let fn: ts.Node | undefined = decl;
  if (decl && tsApi.isVariableDeclaration(decl)) {
    if ((decl.parent.flags & tsApi.NodeFlags.Const) === 0 || !decl.initializer) return undefined;
    fn = decl.initializer;
    while (tsApi.isParenthesizedExpression(fn) || tsApi.isAsExpression(fn) || tsApi.isSatisfiesExpression(fn)) fn = fn.expression;
  }
  if (!fn || !(tsApi.isFunctionDeclaration(fn) || tsApi.isArrowFunction(fn) || tsApi.isFunctionExpression(fn))) return undefined;
  for (let p = fn.parent; p; p = p.parent) if (tsApi.isFunctionLike(p)) return fn;
  return undefined;
}

/**
 * Whether an expression inside a statement is evaluated exactly once, after what is to its left:
 * not on the right of `&&`/`||`/`??` or in a side of `?:` (which may not run), not in a loop's
 * condition (run again on every trip) or a callback. An update there (`++steps`, a call of a
 * local function that assigns the caller's variables) is lowered in place, as its statement.
 */
export function runsInOrder(t: typeof ts, e: ts.Expression): boolean {
  const K = t.SyntaxKind;
  let n: ts.Node = e;
  for (;;) {
    const p = n.parent;
    if (t.isParenthesizedExpression(p) || t.isPrefixUnaryExpression(p)) n = p;
    else if (t.isBinaryExpression(p)) {
      const k = p.operatorToken.kind;
      const assigns = k >= K.FirstAssignment && k <= K.LastAssignment;
      // `x = f()`, `a[i] += ++k` as a statement: the right side runs once, after the target's parts.
      if (assigns && !(p.right === n && t.isExpressionStatement(p.parent))) return false;
      if ((k === K.AmpersandAmpersandToken || k === K.BarBarToken || k === K.QuestionQuestionToken) && p.right === n) return false;
      n = p;
    } else if (t.isConditionalExpression(p) && p.condition === n) n = p;
    else if (
      t.isCallExpression(p) &&
      p.expression !== n &&
      (t.isIdentifier(p.expression) || (t.isPropertyAccessExpression(p.expression) && t.isIdentifier(p.expression.expression) && p.expression.expression.text === 'Math'))
    )
      n = p;
    else
      return (
        (t.isIfStatement(p) && p.expression === n) ||
        (t.isVariableDeclaration(p) && p.initializer === n && t.isVariableStatement(p.parent.parent)) ||
        t.isReturnStatement(p) ||
        t.isExpressionStatement(p)
      );
  }
}
