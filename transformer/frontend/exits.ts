// Loop exits (`break`, `continue`, `return` inside a loop) and local helper functions, as the
// front end sees them syntactically. The IR has no jumps: lower.ts turns each exit into an
// assignment of a boolean flag carried like any other variable, and guards what follows a
// possible exit with a cond on the flags (docs/frontend.md, "Leaving a loop early").
import type * as ts from 'typescript';

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
  return scan(tsApi, [statement]);
}

/** How the body (and condition, incrementor) of `loop` can leave it. */
export function loopExits(tsApi: typeof ts, loop: ts.IterationStatement): Exits {
  const parts: ts.Node[] = [];
  tsApi.forEachChild(loop, (c) => {
    parts.push(c);
  });
  return scan(tsApi, parts);
}

function scan(tsApi: typeof ts, nodes: readonly ts.Node[]): Exits {
  let breaks = false;
  let continues = false;
  let returns = false;
  const visit = (n: ts.Node, inSwitch: boolean, inLoop: boolean): void => {
    if (tsApi.isFunctionLike(n) || tsApi.isClassLike(n)) return;
    if (tsApi.isReturnStatement(n)) returns = true;
    // A labeled jump is reported where it is lowered; counting it here keeps the code after it
    // from being lowered as if it always ran.
    if (tsApi.isBreakStatement(n) && (n.label || (!inSwitch && !inLoop))) breaks = true;
    if (tsApi.isContinueStatement(n) && (n.label || !inLoop)) continues = true;
    const loop = inLoop || tsApi.isIterationStatement(n, false);
    const sw = inSwitch || tsApi.isSwitchStatement(n);
    tsApi.forEachChild(n, (c) => visit(c, sw, loop));
  };
  for (const n of nodes) visit(n, false, false);
  return { breaks, continues, returns };
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
