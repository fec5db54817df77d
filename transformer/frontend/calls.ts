// Calls inside a marked function: Math functions as primitives, marked functions as calls of
// their defs, local functions inlined, derivatives (nested.ts) and array code (arrayMethods.ts).
import type * as ts from 'typescript';
import { call, construct } from '../ir/syntax';
import type { Expr } from '../ir/syntax';
import { fail, reportedByTypeScript } from './diagnostics';
import { BOOLEAN, NUMBER, Shape, shapeOfType, irType } from './shapes';
import { TRANSFORM_NAMES, isBuiltIn, isRuleCall, isTsadExport, nestedTransformMessage, resolveMarkedFunction, transformCallBehind, tsadExportName } from './markers';
import { MATH_FUNCTIONS, primDef } from '../prims/registry';
import { NestedSite, lowerNestedCall } from './nested';
import { LocalFunction, isInside, localFunctionOf } from './exits';
import type { LoweredFunction, Value } from './values';
import { methodCall } from './methods';
import { lowerArrayCall } from './arrayMethods';
import { extremum } from './arrayQueries';
import { AlreadyReported, PLAIN_PARAMETER_HINT, functionName } from './loweringState';
import { assignedSymbols, runsInOrder } from './syntax';
import { ExpressionLowering } from './expressions';
import { numberPredicate } from './numberBuiltins';

export abstract class CallLowering extends ExpressionLowering {
  /** The shape a function (or local function) returns, from its signature. */
  protected resultShape(decl: ts.SignatureDeclaration): Shape {
    const { t, checker } = this;
    const sig = checker.getSignatureFromDeclaration(decl);
    return shapeOfType(t, checker, sig ? checker.getReturnTypeOfSignature(sig) : checker.getAnyType(), decl.type ?? decl);
  }

  /**
   * `h(a, b)` of a local function `h` (declared in this function, see exits.ts): inlined. The
   * arguments are computed here, the parameters bound to them in the environment, and the body
   * lowered in place with a frame of its own (its returns are its own, no loop of the caller's
   * is in scope). It reads the caller's variables as they are at the call, as a closure does;
   * assigning them would be a side effect of the call, which is not modelled: TSAD1108.
   */
  private inlineCall(e: ts.CallExpression, fn: LocalFunction, hint?: string): Value {
    if (e.arguments.length !== fn.parameters.length) fail(1102, e, `'${e.expression.getText()}' takes ${fn.parameters.length} argument(s)`);
    return this.inlineWith(
      e,
      e.expression,
      fn,
      () => e.arguments.map((a) => this.expr(a)),
      (i) => e.arguments[i],
      hint,
    );
  }

  /** Inlines a local function's body for arguments computed by `values` (`at(i)` is where argument i is written). */
  private inlineWith(e: ts.Node, callee: ts.Expression, fn: LocalFunction, values: () => Value[], at: (i: number) => ts.Node, hint?: string): Value {
    const { t, checker } = this;
    const name = callee.getText();
    if (this.inlinedCalls.has(fn)) fail(1109, e, `the local function '${name}' calls itself: tsad inlines a local function's calls, so it cannot be recursive; write the recursion as a loop`);
    const assigned = new Set<ts.Symbol>();
    if (fn.body) assignedSymbols(t, checker, fn.body, assigned);
    const outer = [...assigned].filter((sym) => sym.valueDeclaration && !isInside(sym.valueDeclaration, fn));
    if (outer.length > 0) checkCallerUpdate(t, checker, e, callee, fn, name, outer);
    const args = values();
    const saved = { frame: this.frame, exitCtx: this.exitCtx, keys: new Set(this.env.keys()) };
    this.frame = { decl: fn };
    this.exitCtx = undefined;
    this.inlinedCalls.add(fn);
    try {
      fn.parameters.forEach((p, i) => {
        if (p.dotDotDotToken || p.questionToken || p.initializer) fail(1105, p, 'parameters of a local function cannot be optional, have defaults or be rest parameters', PLAIN_PARAMETER_HINT);
        const shape = shapeOfType(t, checker, checker.getTypeAtLocation(p), p);
        this.conform(at(i), args[i], shape, `argument ${i + 1} of '${name}'`);
        this.bindPattern(p.name, args[i]);
      });
      const errors = this.errors.length;
      const body = fn.body!;
      const value = t.isBlock(body) ? this.tail(body.statements) : this.expr(body, hint);
      if (!value) {
        if (this.errors.length > errors) throw new AlreadyReported();
        return fail(1107, fn, `the local function '${name}' must end with a return statement`);
      }
      this.conform(e, value, this.resultShape(fn), `the value '${name}' returns`);
      return value;
    } finally {
      this.frame = saved.frame;
      this.exitCtx = saved.exitCtx;
      this.inlinedCalls.delete(fn);
      // Its parameters and locals mean nothing after the call (and must not join an if's results).
      for (const k of [...this.env.keys()]) if (!saved.keys.has(k)) this.env.delete(k);
    }
  }

  protected call(e: ts.CallExpression, hint?: string): Value {
    const { t } = this;
    const callee = e.expression;
    if (t.isPropertyAccessExpression(callee) && this.isGlobalMath(callee.expression)) {
      const fn = callee.name.text;
      if (!MATH_FUNCTIONS.has(fn)) fail(1103, e, `cannot differentiate through a call to 'Math.${fn}': it is not differentiable`);
      if (e.arguments.some((a) => t.isSpreadElement(a))) {
        if (fn !== 'max' && fn !== 'min') fail(1121, e, `a spread argument of Math.${fn} is not supported: pass its arguments one by one`);
        return extremum(this.arrays, fn as 'max' | 'min', e.arguments, e, hint);
      }
      // TypeScript reports a wrong count too, but may not stop the build; JavaScript's NaN for a
      // missing argument is no value to differentiate, so it is ours to refuse at the call.
      const { min, max } = primDef(fn).arity;
      const n = e.arguments.length;
      if (n < min || n > max) fail(1102, e, `Math.${fn} takes ${max === Infinity ? `at least ${min}` : min === max ? min : `${min} to ${max}`} argument(s), got ${n}`);
      const args = e.arguments.map((a) => this.expr(a));
      this.numbers(e, ...args);
      return this.op(fn, args, hint);
    }
    const predicate = numberPredicate(t, this.checker, callee);
    if (predicate) {
      if (e.arguments.length !== 1 || t.isSpreadElement(e.arguments[0])) fail(1102, e, `'${callee.getText()}' takes one argument`);
      const x = this.expr(e.arguments[0]);
      this.numbers(e.arguments[0], x);
      return { name: predicate(this.b, x.name), shape: BOOLEAN };
    }
    const arrayCall = lowerArrayCall(this.arrays, e, hint);
    if (arrayCall) return arrayCall;
    if (isTsadExport(callee, this.checker, 'stopGradient')) {
      if (e.arguments.length !== 1) fail(1102, e, 'stopGradient takes one argument');
      return this.stop(this.expr(e.arguments[0]), hint);
    }
    const nested = lowerNestedCall(this.nestedSite(), e, hint);
    if (nested) return nested;
    const local = t.isIdentifier(callee) ? localFunctionOf(t, this.checker.getSymbolAtLocation(callee), this.decl) : undefined;
    if (local) return this.inlineCall(e, local, hint);
    const target = resolveMarkedFunction(callee, this.checker) ?? this.notDifferentiable(e);
    return this.callMarked(
      e,
      callee,
      target.decl,
      () => e.arguments.map((a) => this.expr(a)),
      (i) => e.arguments[i],
      hint,
    );
  }

  /**
   * A function passed by name as a callback (`xs.map(softplus)`), called with `args` (JavaScript
   * passes the element, its index, ...: as many as the function declares). A marked function is
   * called, a local function inlined.
   */
  protected callBy(callee: ts.Expression, args: readonly Value[], node: ts.Node, hint?: string): Value {
    const { t } = this;
    const local = t.isIdentifier(callee) ? localFunctionOf(t, this.checker.getSymbolAtLocation(callee), this.decl) : undefined;
    if (local) {
      if (args.length !== local.parameters.length) fail(1102, node, `'${callee.getText()}' takes ${local.parameters.length} argument(s)`);
      return this.inlineWith(
        node,
        callee,
        local,
        () => [...args],
        () => node,
        hint,
      );
    }
    const target = resolveMarkedFunction(callee, this.checker);
    if (!target)
      return fail(1104, callee, `cannot differentiate through '${callee.getText()}' passed as a callback: it is not marked differentiable (mark it, or write the callback in place, (x) => ...)`);
    return this.callMarked(
      node,
      callee,
      target.decl,
      () => [...args],
      () => node,
      hint,
    );
  }

  private callMarked(e: ts.Node, callee: ts.Expression, decl: ts.SignatureDeclaration, values: () => Value[], at: (i: number) => ts.Node, hint?: string): Value {
    let lowered: LoweredFunction;
    try {
      lowered = this.owner.lower(decl, e);
    } catch (error) {
      // A callee that runs taped (it recurses): an opaque call, its derivatives from its taped copies.
      const names = this.owner.tapedCallee(decl, error);
      if (names === undefined) throw error;
      return this.tapedCall(decl, names, values, at, hint);
    }
    for (const m of methodCall(this.t, this.decl, callee, decl, lowered.methods)) this.methods.add(m);
    const raw = values();
    if (raw.length !== lowered.params.length) fail(1102, e, `'${lowered.name}' takes ${lowered.params.length} argument(s)`);
    const args = raw.map((a, i) => this.coerce(at(i), a, lowered.params[i].shape));
    args.forEach((a, i) => this.conform(at(i), a, lowered.params[i].shape, `argument ${i + 1} of '${lowered.name}'`));
    // The module state the callee reads, as this function reads it: passed on.
    const state = lowered.state.map((s) => this.stateValue(s, e));
    return {
      name: this.b.nl(
        hint ?? lowered.name,
        call(
          lowered.name,
          [...args, ...state].map((a) => a.name),
        ),
        irType(lowered.result),
      ),
      shape: lowered.result,
    };
  }

  /** `f(x̄)` of a function that runs taped: `tapedCall(names, x̄)`, its arguments numbers and arrays of numbers as its parameters are. */
  private tapedCall(decl: ts.SignatureDeclaration, names: string, values: () => Value[], at: (i: number) => ts.Node, hint?: string): Value {
    const { t, checker } = this;
    const shapes = decl.parameters.map((p) => shapeOfType(t, checker, checker.getTypeAtLocation(p), p));
    const raw = values();
    const name = functionName(t, decl);
    if (raw.length !== shapes.length) fail(1102, at(0), `'${name}' takes ${shapes.length} argument(s)`);
    const args = raw.map((a, i) => this.coerce(at(i), a, shapes[i]));
    args.forEach((a, i) => this.conform(at(i), a, shapes[i], `argument ${i + 1} of '${name}'`));
    const callee = this.b.lit(names, 'callee');
    return { name: this.b.nl(hint ?? name, construct('tapedCall', [callee, ...args.map((a) => a.name)], [], []), irType(NUMBER)), shape: NUMBER };
  }

  private nestedSite(): NestedSite {
    return {
      owner: this.owner,
      expr: (a: ts.Expression) => this.expr(a),
      conform: (node: ts.Node, v: Value, s: Shape, what: string) => this.conform(node, v, s, what),
      bind: (base: string, rhs: Expr, s: Shape): Value => ({ name: this.b.nl(base, rhs, irType(s)), shape: s }),
      lit: (x: number) => this.b.lit(x),
      valueOf: (sym: ts.Symbol) => this.env.get(sym),
    };
  }

  /** Why a call cannot be differentiated through, in the most specific words there are. */
  private notDifferentiable(e: ts.CallExpression): never {
    const { t, checker } = this;
    const callee = e.expression;
    const name = callee.getText();
    // `grad(f)(x)`, `df(x)` with `const df = grad(f)`, or `jvp(f, ...)` itself.
    const direct = tsadExportName(callee, checker);
    const transform = direct && TRANSFORM_NAMES.has(direct) && !isRuleCall(e, checker) ? { call: e, name: direct } : transformCallBehind(callee, checker);
    if (transform) fail(1006, e, nestedTransformMessage(undefined, transform));
    let sym = checker.getSymbolAtLocation(t.isPropertyAccessExpression(callee) ? callee.name : callee);
    if (!sym) {
      // `nope(x)`: TypeScript reports the unknown name; `(cond ? f : g)(x)` and the like are ours.
      if (t.isIdentifier(callee) || t.isPropertyAccessExpression(callee)) reportedByTypeScript(callee, 1104, `cannot differentiate through a call to '${name}': it is not declared`);
      fail(1104, e, `cannot differentiate through a call to '${name}': only calls of named differentiable functions are supported`);
    }
    if (sym.flags & t.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
    const decls = sym.declarations ?? [];
    if (decls.length > 0 && decls.every(isBuiltIn)) {
      const owner = decls[0].parent;
      const method = (t.isInterfaceDeclaration(owner) || t.isClassDeclaration(owner)) && owner.name ? `${owner.name.text.replace(/Constructor$/, '')}.${sym.name}` : sym.name;
      const isMethod = t.isPropertyAccessExpression(callee) && !(t.isIdentifier(callee.expression) && method.startsWith(`${callee.expression.text}.`));
      const written = name === method ? '' : ` (in '${name}')`;
      fail(
        1113,
        e,
        `cannot differentiate through the built-in ${isMethod ? 'method' : 'function'} '${method}'${written}: built-in functions and methods are not supported in differentiable functions yet`,
      );
    }
    if (decls.length > 0 && decls.every((d) => d.getSourceFile().isDeclarationFile || ((d as ts.FunctionLikeDeclaration).body === undefined && t.isFunctionLike(d)))) {
      const where = decls[0].getSourceFile().isDeclarationFile ? `a declaration file (${decls[0].getSourceFile().fileName.split('/').pop()})` : 'a declaration without a body';
      fail(1113, e, `cannot differentiate through a call to '${name}': it comes from ${where}, so tsad cannot see its code`);
    }
    return fail(1104, e, `cannot differentiate through a call to '${name}': it is not marked differentiable`);
  }
}

/**
 * A local function that assigns variables of the function around it (`state = …` in a seeded
 * generator) is inlined with its assignments as written: they update the caller's variables at
 * the call, which is JavaScript's meaning where the call runs once, in order, and the body
 * returns only at its end (an early return's branch would keep its assignments to itself).
 * A call whose statement writes into an array the function assigns too would lose one of the
 * two writes. Anything else is TSAD1108.
 */
function checkCallerUpdate(t: typeof ts, checker: ts.TypeChecker, e: ts.Node, callee: ts.Expression, fn: LocalFunction, name: string, outer: readonly ts.Symbol[]): void {
  const what = `${outer.map((s) => `'${s.name}'`).join(', ')}, ${outer.length > 1 ? 'variables' : 'a variable'} of the function around it`;
  // Passed by name (`xs.map(step)`), it would run once per element, inside the callback's loop.
  if (!t.isCallExpression(e) || e.expression !== callee || !runsInOrder(t, e)) {
    fail(
      1108,
      e,
      `the local function '${name}' assigns ${what}, so a call must run once, in order: call it as a statement, in a declaration, an if condition or an operand of arithmetic (not in a loop condition, on the right of && or ||, in a side of ?: or in a callback), or return the new value and assign it at the call`,
    );
  }
  const early = earlyReturn(t, fn);
  if (early) fail(1108, early, `the local function '${name}' assigns ${what}, and returns before its end: write one return, at the end of '${name}'`);
  let statement: ts.Node = e;
  while (!t.isExpressionStatement(statement) && statement.parent && !t.isBlock(statement.parent)) statement = statement.parent;
  const written = t.isExpressionStatement(statement) ? assignedSymbolsOf(t, checker, statement.expression) : [];
  const both = outer.find((s) => written.includes(s));
  if (both) fail(1108, e, `the local function '${name}' assigns '${both.name}', which the statement around the call writes too: call it in a statement of its own before`);
}

/** A return that is not the last statement of the function's body. */
function earlyReturn(t: typeof ts, fn: LocalFunction): ts.Node | undefined {
  const body = fn.body;
  if (!body || !t.isBlock(body)) return undefined;
  const last = body.statements[body.statements.length - 1];
  let found: ts.Node | undefined;
  const visit = (n: ts.Node): void => {
    if (found || t.isFunctionLike(n)) return;
    if (t.isReturnStatement(n) && n !== last) found = n;
    t.forEachChild(n, visit);
  };
  t.forEachChild(body, visit);
  return found;
}

/** The element or field an assignment statement writes into: the array's symbol (`a[i] = …`, `ps[i].x += …`). */
function assignedSymbolsOf(t: typeof ts, checker: ts.TypeChecker, e: ts.Expression): ts.Symbol[] {
  if (!t.isBinaryExpression(e)) return [];
  let target: ts.Expression = e.left;
  while (t.isElementAccessExpression(target) || t.isPropertyAccessExpression(target) || t.isParenthesizedExpression(target)) target = target.expression;
  const sym = target !== e.left && t.isIdentifier(target) ? checker.getSymbolAtLocation(target) : undefined;
  return sym ? [sym] : [];
}
