// Loop exits (`break`, `continue`, `return` inside a loop) and local helper functions, as the
// front end sees them syntactically. The IR has no jumps: lower.ts turns each exit into an
// assignment of a boolean flag carried like any other variable, and guards what follows a
// possible exit with a cond on the flags (docs/frontend.md, "Leaving a loop early").
import type * as ts from 'typescript';
import { nodeMemo } from './nodeFacts';

/** The ways a statement can leave the loop it is written in (or, for `returns`, the function). */
export interface Exits {
  /** A `break` of this loop (not of a nested loop or switch). */
  readonly breaks: boolean;
  /** A `continue` of this loop (not of a nested loop). */
  readonly continues: boolean;
  /** A `return` anywhere inside (nested loops included, nested functions not). */
  readonly returns: boolean;
}

/**
 * How a statement inside a loop's body can leave that loop. A `break` inside a nested switch
 * leaves the switch, and `break`/`continue` inside a nested loop leave that loop; a `return`
 * leaves them all.
 */
export function exitsOf(tsApi: typeof ts, statement: ts.Node): Exits {
  return outOf(leavesOf(tsApi, statement));
}

/** How the body (and condition, incrementor) of `loop` can leave it. */
export function loopExits(tsApi: typeof ts, loop: ts.IterationStatement): Exits {
  let all = NONE;
  tsApi.forEachChild(loop, (c) => {
    all = either(all, leavesOf(tsApi, c));
  });
  return outOf(all);
}

/**
 * The jumps inside a node that leave it, as seen from outside it: a bare `break` stops at the
 * loop or switch it is in, a bare `continue` at its loop; a labeled one is counted wherever it is
 * (it is reported where it is lowered; counting it keeps the code after it from being lowered as
 * if it always ran).
 */
interface Leaves {
  readonly returns: boolean;
  readonly bareBreak: boolean;
  readonly bareContinue: boolean;
  readonly labeled: { readonly breaks: boolean; readonly continues: boolean };
}

const NONE: Leaves = { returns: false, bareBreak: false, bareContinue: false, labeled: { breaks: false, continues: false } };

function either(a: Leaves, b: Leaves): Leaves {
  if (a === NONE) return b;
  if (b === NONE) return a;
  return {
    returns: a.returns || b.returns,
    bareBreak: a.bareBreak || b.bareBreak,
    bareContinue: a.bareContinue || b.bareContinue,
    labeled: { breaks: a.labeled.breaks || b.labeled.breaks, continues: a.labeled.continues || b.labeled.continues },
  };
}

function outOf(l: Leaves): Exits {
  return { breaks: l.bareBreak || l.labeled.breaks, continues: l.bareContinue || l.labeled.continues, returns: l.returns };
}

// Each node's once, children first: each level of nested loops asks about its whole body.
const leavesMemo = nodeMemo((n, tsApi): Leaves => {
  const t = tsApi as typeof ts;
  if (t.isFunctionLike(n) || t.isClassLike(n)) return NONE;
  let inner = NONE;
  t.forEachChild(n, (c) => {
    inner = either(inner, leavesOf(t, c));
  });
  const loop = t.isIterationStatement(n, false);
  const own: Leaves = {
    returns: inner.returns || t.isReturnStatement(n),
    bareBreak: (inner.bareBreak && !loop && !t.isSwitchStatement(n)) || (t.isBreakStatement(n) && !n.label),
    bareContinue: (inner.bareContinue && !loop) || (t.isContinueStatement(n) && !n.label),
    labeled: {
      breaks: inner.labeled.breaks || (t.isBreakStatement(n) && !!n.label),
      continues: inner.labeled.continues || (t.isContinueStatement(n) && !!n.label),
    },
  };
  return own.returns || own.bareBreak || own.bareContinue || own.labeled.breaks || own.labeled.continues ? own : NONE;
});

function leavesOf(tsApi: typeof ts, n: ts.Node): Leaves {
  return leavesMemo(n, tsApi);
}

export function anyExit(e: Exits): boolean {
  return e.breaks || e.continues || e.returns;
}

/** `break;`, `continue;` or `return …;` itself: what follows it in the same list never runs. */
export function isJump(tsApi: typeof ts, s: ts.Statement): boolean {
  return tsApi.isBreakStatement(s) || tsApi.isContinueStatement(s) || tsApi.isReturnStatement(s);
}

/** A function declared inside the function being lowered: `function h(…) {…}` or `const h = (…) => …`. */
export type LocalFunction = ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression;

/**
 * The local function a symbol names, when it is declared inside `owner` (the function being
 * lowered): a function declaration, or a `const` initialized with an arrow function or a
 * function expression. `let`/`var` bindings are not: they could be reassigned.
 */
export function localFunctionOf(tsApi: typeof ts, sym: ts.Symbol | undefined, owner: ts.Node): LocalFunction | undefined {
  const decl = sym?.valueDeclaration;
  if (!decl || !isInside(decl, owner)) return undefined;
  if (tsApi.isFunctionDeclaration(decl) && decl.body) return decl;
  if (!tsApi.isVariableDeclaration(decl) || !decl.initializer || (decl.parent.flags & tsApi.NodeFlags.Const) === 0) return undefined;
  let init: ts.Expression = decl.initializer;
  while (tsApi.isParenthesizedExpression(init) || tsApi.isAsExpression(init) || tsApi.isSatisfiesExpression(init)) init = init.expression;
  return tsApi.isArrowFunction(init) || tsApi.isFunctionExpression(init) ? init : undefined;
}

/** True when the declaration initializes a const with a function (lowering it binds nothing). */
export function declaresLocalFunction(tsApi: typeof ts, d: ts.VariableDeclaration, owner: ts.Node, checker: ts.TypeChecker): boolean {
  return tsApi.isIdentifier(d.name) && localFunctionOf(tsApi, checker.getSymbolAtLocation(d.name), owner) !== undefined;
}

export function isInside(n: ts.Node, owner: ts.Node): boolean {
  for (let p: ts.Node | undefined = n.parent; p; p = p.parent) if (p === owner) return true;
  return false;
}

/** The statements of an `if` branch: a block's, or the one statement written without braces. */
export function statementsOf(tsApi: typeof ts, s: ts.Statement): readonly ts.Statement[] {
  return tsApi.isBlock(s) ? s.statements : [s];
}

/** True when a `return` occurs anywhere in a statement (not inside a nested function). */
export function containsReturn(tsApi: typeof ts, s: ts.Node): boolean {
  if (tsApi.isReturnStatement(s)) return true;
  if (tsApi.isFunctionLike(s) || tsApi.isClassLike(s)) return false;
  return tsApi.forEachChild(s, (c) => (containsReturn(tsApi, c) ? true : undefined)) ?? false;
}

/** A `break` that would leave the switch `s` is in (not one of a nested switch or loop), if any. */
export function breakIn(tsApi: typeof ts, s: ts.Node): ts.BreakStatement | undefined {
  if (tsApi.isBreakStatement(s)) return s;
  if (tsApi.isFunctionLike(s) || tsApi.isClassLike(s) || tsApi.isSwitchStatement(s) || tsApi.isIterationStatement(s, false)) return undefined;
  return tsApi.forEachChild(s, (c) => breakIn(tsApi, c));
}

/** True when every path through the statements ends in a return. */
export function alwaysReturns(tsApi: typeof ts, stmts: readonly ts.Statement[]): boolean {
  const last = stmts[stmts.length - 1];
  if (!last) return false;
  // A throw ends its path too: the path needs no value.
  if (tsApi.isReturnStatement(last) || tsApi.isThrowStatement(last)) return true;
  if (tsApi.isBlock(last)) return alwaysReturns(tsApi, last.statements);
  if (tsApi.isSwitchStatement(last)) {
    // Every case returns (an empty one falls into the next) and there is a default.
    const clauses = last.caseBlock.clauses;
    return clauses.some((c) => tsApi.isDefaultClause(c)) && clauses.every((c, i) => (c.statements.length === 0 && i < clauses.length - 1) || alwaysReturns(tsApi, c.statements));
  }
  return (
    tsApi.isIfStatement(last) && last.elseStatement !== undefined && alwaysReturns(tsApi, statementsOf(tsApi, last.thenStatement)) && alwaysReturns(tsApi, statementsOf(tsApi, last.elseStatement))
  );
}
