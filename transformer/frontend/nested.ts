// Transforms of transforms, and transforms called inside marked functions. `grad(h)` (of a
// marked function, of a local arrow, or of another such transform) becomes a def of its own
// (plan/nested.ts), made before the function that uses it is differentiated; the outer
// transform, or the marked function's own derivatives, then differentiate through it like any
// other callee. A local arrow is lifted to a def whose first parameters are the variables it
// captures: the inner transform differentiates only its own parameters, and the outer one flows
// through the captured values, so d/dx [x · (d/dy (x + y))|y=1] is 1, as it should be.
import type * as ts from 'typescript';
import type { LoweredFunction, Value } from './values';
import { Expr, FnDef, call, construct, tuple } from '../ir/syntax';
import { fail } from './diagnostics';
import { MarkerInfo, isRuleCall, notDifferentiableReason, resolveMarkedFunction, transformCallBehind, tsadExportName, wrtList } from './markers';
import { Shape, componentShapes, describeShape, hasArray, isMatrix, shapeOfType, tensorRank } from './shapes';
import { stateName } from './moduleState';
import { isInstanceMethod } from './methods';
import { DriverOptions } from '../ad/drivers';
import { DRIVER } from '../plan/request';
import { closureOf, loopIn, reachable } from '../plan/closure';
import { NestedKind, isNestable, nestedDerivative, tangentShape } from '../plan/nested';
import { TRANSFORMS, TransformKind, isTransformKind } from '../plan/transforms';
import type { Program } from '../ir/syntax';

/** The fix when forward mode would stand in for reverse mode over a derivative of arrays. */
export const SIZED_FORWARD_HINT = 'use forward mode over the derivative, jvp(grad(f), [w], [v]), or hvp(f)(w, v): both take arrays; or write the inner function of numbers';

/** A variable of the enclosing function that a lifted arrow reads. */
export interface Capture {
  readonly symbol: ts.Symbol;
  readonly shape: Shape;
}

/** What a transform is applied to. */
export type Target =
  | { readonly tag: 'fn'; readonly decl: ts.SignatureDeclaration; readonly marker: MarkerInfo }
  | { readonly tag: 'arrow'; readonly decl: ts.ArrowFunction | ts.FunctionExpression }
  | { readonly tag: 'derived'; readonly kind: NestedKind; readonly call: ts.CallExpression; readonly of: Target; readonly wrt: readonly number[] };

/** The lowering of the whole program (lower.ts's Lowerer), as nested.ts and each function's lowering need it. */
export interface ProgramLowering {
  readonly tsApi: typeof ts;
  readonly checker: ts.TypeChecker;
  readonly defs: FnDef[];
  readonly nested: NestedDerivatives;
  lower(decl: ts.SignatureDeclaration, at?: ts.Node): LoweredFunction;
  lift(decl: ts.SignatureDeclaration, captures: readonly Capture[]): LoweredFunction;
  uniqueName(base: string): string;
  /**
   * A marked function whose lowering failed with `error` that runs taped instead, called from
   * compiled code as an opaque call (constructs/taped): the str literal naming it and its copies,
   * or undefined where it does not (the error stands).
   */
  tapedCallee(decl: ts.SignatureDeclaration, error: unknown): string | undefined;
}

/** Where a nested call is lowered: the enclosing function's lowering, as nested.ts needs it. */
export interface NestedSite {
  readonly owner: ProgramLowering;
  expr(e: ts.Expression): Value;
  conform(node: ts.Node, v: Value, expected: Shape, what: string): void;
  bind(base: string, rhs: Expr, shape: Shape): Value;
  lit(x: number): string;
  /** The value a variable of the enclosing function has here, if it is one. */
  valueOf(sym: ts.Symbol): Value | undefined;
}

export type ShapeOf = (sym: ts.Symbol) => Shape | undefined;

/** A target's def, and the variables its leading parameters take (a lifted arrow's captures). */
export interface LoweredTarget {
  readonly fn: LoweredFunction;
  readonly captures: readonly Capture[];
}

/** The derivatives one module's marked functions need as defs, each made once. */
export class NestedDerivatives {
  private driver: DriverOptions = DRIVER;
  private readonly made = new Map<string, LoweredFunction>();
  /** The names of the defs made here: a second derivative reaches its loops through them. */
  private readonly derived = new Set<string>();

  constructor(private readonly owner: ProgramLowering) {}

  configure(driver: DriverOptions): void {
    this.driver = driver;
  }

  /**
   * The first def a transform of `program` would differentiate twice that runs a loop: a
   * derivative made here, or what it calls. The passes cannot differentiate a loop's tape yet.
   */
  secondOrderLoop(program: Program): { fn: string; op: string; derivative: string } | undefined {
    for (const d of program.defs) {
      if (!this.derived.has(d.name)) continue;
      const looping = loopIn(reachable(program, [d.name]));
      if (looping) return { ...looping, derivative: d.name };
    }
    return undefined;
  }

  /**
   * `shapeOf`: the shape of a variable an arrow may capture, undefined for any other symbol.
   * `at`: the transform call that needs the target (a recursion is reported there).
   */
  lower(target: Target, shapeOf?: ShapeOf, at?: ts.Node): LoweredTarget {
    if (target.tag === 'fn') return { fn: this.owner.lower(target.decl, at), captures: [] };
    if (target.tag === 'arrow') {
      if (!shapeOf) return fail(1001, target.decl, 'a transform outside a function needs a marked function, not an arrow written in place');
      const captures = capturesOf(this.owner.tsApi, this.owner.checker, target.decl, shapeOf);
      return { fn: this.owner.lift(target.decl, captures), captures };
    }
    const inner = this.lower(target.of, shapeOf, at ?? target.call);
    const wrt = target.kind === 'jvp' ? [] : target.wrt.map((i) => i + inner.captures.length);
    return { fn: this.derivative(inner.fn, target, wrt), captures: inner.captures };
  }

  private derivative(inner: LoweredFunction, target: Extract<Target, { tag: 'derived' }>, wrt: readonly number[]): LoweredFunction {
    const key = `${inner.name}|${target.kind}|${wrt.join(',')}`;
    const known = this.made.get(key);
    if (known) return known;
    const where = target.call;
    if (target.kind !== 'jvp' && inner.result.kind !== 'number') {
      fail(1004, where, `${target.kind} needs a function that returns a number; '${target.call.arguments[0]?.getText() ?? inner.name}' returns ${describeShape(inner.result)}`);
    }
    for (const i of wrt) {
      const p = inner.params[i];
      if (!numbersOnly(p.shape)) fail(1002, where, `cannot differentiate with respect to '${p.name}': it holds ${describeShape(p.shape)}, and booleans and strings have no derivative`);
    }
    if (isInstanceMethod(this.owner.tsApi, inner.decl)) {
      fail(
        1102,
        where,
        `${target.kind} of the method '${target.call.arguments[0]?.getText() ?? inner.name}' inside a differentiable function or another transform is not supported yet: make it a static method or a function`,
      );
    }
    if (inner.state.length > 0) {
      fail(
        1106,
        where,
        `${target.kind} of '${target.call.arguments[0]?.getText() ?? inner.name}', which reads '${stateName(inner.state[0])}' when it runs, inside a differentiable function or another transform is not supported yet: pass the variable as a parameter`,
      );
    }
    const program = closureOf({ defs: this.owner.defs }, inner.name);
    // Reverse mode cannot transpose a derivative's loop yet (T of its tangent stacks): the
    // gradient of such a derivative (and hvp's gradient) goes by forward mode, one JVP per scalar.
    const looping = target.kind === 'jvp' ? undefined : this.secondOrderLoop(program);
    const sized = looping ? wrt.map((i) => inner.params[i]).find((p) => hasArray(p.shape)) : undefined;
    if (looping && sized) {
      const where = looping.fn === looping.derivative ? `the derivative '${looping.fn}'` : `'${looping.fn}' (called by the derivative '${looping.derivative}')`;
      fail(
        1007,
        target.call,
        `${target.kind} of ${where}, which runs a loop, differentiates it again in reverse mode, which is not supported yet, and its forward-mode stand-in (one JVP per number) cannot take '${sized.name}', which holds ${describeShape(sized.shape)} here`,
        SIZED_FORWARD_HINT,
      );
    }
    const driver = looping ? { ...this.driver, forwardGrad: true } : this.driver;
    const name = this.owner.uniqueName(`${inner.name}_${target.kind}`);
    const made = nestedDerivative(program, inner, target.kind, wrt, driver, name);
    (this.owner.defs as unknown[]).push(...made.defs);
    for (const d of made.defs) this.derived.add(d.name);
    const fn: LoweredFunction = { ...made.signature, decl: inner.decl, state: [], methods: [] };
    this.made.set(key, fn);
    return fn;
  }
}

function numbersOnly(s: Shape): boolean {
  return s.kind === 'number' || (s.kind === 'array' && !s.constant && numbersOnly(s.elem)) || ((s.kind === 'tuple' || s.kind === 'object') && componentShapes(s).every(numbersOnly));
}

/** Looks through parentheses and type assertions. */
function unwrap(t: typeof ts, e: ts.Expression): ts.Expression {
  while (t.isParenthesizedExpression(e) || t.isAsExpression(e) || t.isNonNullExpression(e) || t.isSatisfiesExpression(e)) e = e.expression;
  return e;
}

/** The names of a target's parameters, as `wrt` may name them. */
function paramNames(target: Target): string[] {
  if (target.tag !== 'derived') return target.decl.parameters.map((p) => p.name.getText());
  return [...paramNames(target.of), ...(target.kind === 'hvp' ? ['v'] : [])];
}

/** `wrt` of a transform call: its options if it has some, else the marker's, else the first parameter. */
export function wrtOf(t: typeof ts, kind: string, call: ts.CallExpression, target: Target): number[] {
  const params = paramNames(target);
  let wrt: readonly (string | number)[] = (target.tag === 'fn' ? target.marker.wrt : undefined) ?? [0];
  const options = isTransformKind(kind) && TRANSFORMS[kind].options ? call.arguments[1] : undefined;
  if (options) {
    if (!t.isObjectLiteralExpression(options)) fail(1003, options, `the options of ${kind} must be an object literal`);
    for (const p of options.properties) {
      if (t.isPropertyAssignment(p) && p.name.getText() === 'wrt') wrt = wrtList(p.initializer);
      else fail(1003, p, `unknown option '${p.name?.getText()}' (only wrt is supported)`);
    }
  }
  return wrt.map((w) => {
    const i = typeof w === 'number' ? w : params.indexOf(w);
    if (!(Number.isInteger(i) && i >= 0 && i < params.length)) {
      fail(1002, options ?? call, `'${w}' is not a parameter of '${call.arguments[0]?.getText()}' (parameters: ${params.join(', ')})`);
    }
    return i;
  });
}

/** Why a transform's result cannot be differentiated again or used in a marked function. */
function notNestable(kind: string, fn: string, outer: string | undefined): string {
  const written = outer ? `${outer}(${kind}(${fn}))` : `${kind}(${fn}) inside a differentiable function`;
  if (kind === 'vjp' || kind === 'linearize') return `${written} is not supported: it returns a function; use grad, valueAndGrad or jvp there instead`;
  return `${written} is not supported: ${kind} returns a matrix (number[][]), and arrays are not differentiable values; use hvp(${fn})(x, v) for Hessian- or Jacobian-vector products, or jvp`;
}

/**
 * What `expr`, the first argument of a transform, denotes: a marked function, a transform of one
 * (`grad(f)` written in place or held by a const), or (inside a marked function, `site` given)
 * an arrow written in place. Undefined when it is none of these.
 */
export function resolveTarget(t: typeof ts, checker: ts.TypeChecker, expr: ts.Expression, outer: string, inFunction: boolean): Target | undefined {
  const marked = resolveMarkedFunction(expr, checker);
  if (marked) return { tag: 'fn', decl: marked.decl, marker: marked.marker };
  const e = unwrap(t, expr);
  if (t.isArrowFunction(e) || t.isFunctionExpression(e)) {
    if (inFunction && outer !== 'jvp') return { tag: 'arrow', decl: e };
    // Outside a marked function's lowering, an arrow in place is compiled only as T(arrow)(args).
    if (outer === 'jvp' || hasFunctionAround(t, e)) fail(1006, e, arrowNotCalled(outer));
  }
  const inner = transformCallBehind(expr, checker);
  if (!inner) return undefined;
  const arg = inner.call.arguments[0];
  if (!isNestable(inner.name) || TRANSFORMS[inner.name].form !== 'reference') fail(1006, expr, notNestable(inner.name, arg?.getText() ?? 'f', outer));
  if (!arg) return fail(1005, inner.call, `${inner.name} needs the function to differentiate as its first argument`);
  const of = resolveTarget(t, checker, arg, inner.name, inFunction);
  if (!of) return fail(1001, arg, notDifferentiableReason(arg, checker));
  return { tag: 'derived', kind: inner.name, call: inner.call, of, wrt: wrtOf(t, inner.name, inner.call, of) };
}

/**
 * `grad(h)(x)`, `valueAndGrad(h)(x)`, `hvp(h)(x, v)` (also through a module const holding the
 * transform) and `jvp(h, [x], [dx])` inside a marked function: an IR call of the derivative's
 * def. Undefined for any other call.
 */
export function lowerNestedCall(site: NestedSite, e: ts.CallExpression, hint?: string): Value | undefined {
  const { tsApi: t, checker } = site.owner;
  const direct = tsadExportName(e.expression, checker);
  if (direct && isTransformKind(direct) && !isRuleCall(e, checker)) {
    if (TRANSFORMS[direct].form === 'reference') {
      const fn = e.arguments[0]?.getText() ?? 'f';
      return fail(1006, e, `${direct}(${fn}) makes a function, which is not a value here: call it in place, ${direct}(${fn})(x), or hold it in a module-level const`);
    }
    if (direct !== 'jvp') return fail(1006, e, notNestable(direct, e.arguments[0]?.getText() ?? 'f', undefined));
    return jvpCall(site, e, hint);
  }
  const behind = transformCallBehind(e.expression, checker);
  if (!behind) return undefined;
  const arg = behind.call.arguments[0];
  if (!isNestable(behind.name)) return fail(1006, e, notNestable(behind.name, arg?.getText() ?? 'f', undefined));
  const target = resolveTarget(t, checker, e.expression, behind.name, true);
  if (!target) return undefined;
  const { fn, captures } = site.owner.nested.lower(target, siteShapes(site));
  const own = fn.params.slice(captures.length);
  if (e.arguments.length !== own.length) fail(1005, e, `${behind.call.getText()} takes ${own.length} argument(s)`);
  const args = e.arguments.map((a, i) => {
    const v = site.expr(a);
    site.conform(a, v, own[i].shape, `argument ${i + 1} of ${behind.call.getText()}`);
    return v;
  });
  return site.bind(
    hint ?? fn.name,
    call(
      fn.name,
      [...capturedValues(site, captures), ...args].map((v) => v.name),
    ),
    fn.result,
  );
}

/** `jvp(h, [x̄], [ẋ̄])`: constants take `undefined` as their tangent, and captures a zero one. */
function jvpCall(site: NestedSite, e: ts.CallExpression, hint?: string): Value {
  const { tsApi: t, checker } = site.owner;
  const [f, primals, tangents] = e.arguments;
  const lists = [primals, tangents].map((l) => (l && t.isArrayLiteralExpression(unwrap(t, l)) ? (unwrap(t, l) as ts.ArrayLiteralExpression).elements : undefined));
  if (!f || !lists[0] || !lists[1] || e.arguments.length !== 3) return fail(1005, e, 'inside a differentiable function, write jvp(f, [primals...], [tangents...]) with the lists in place');
  const of = resolveTarget(t, checker, f, 'jvp', true);
  if (!of) return fail(1001, f, notDifferentiableReason(f, checker));
  const { fn, captures } = site.owner.nested.lower({ tag: 'derived', kind: 'jvp', call: e, of, wrt: [] }, siteShapes(site));
  const n = (fn.params.length - 2 * captures.length) / 2;
  const [ps, ts_] = lists as [ts.NodeArray<ts.Expression>, ts.NodeArray<ts.Expression>];
  if (ps.length !== n || ts_.length !== n) fail(1005, e, `jvp(${f.getText()}, ...) needs ${n} primal(s) and ${n} tangent(s)`);
  const primalParams = fn.params.slice(captures.length, captures.length + n);
  const prim = ps.map((a, i) => {
    const v = site.expr(a);
    site.conform(a, v, primalParams[i].shape, `primal ${i + 1}`);
    return v;
  });
  const tan = ts_.map((a, i) => {
    const shape = tangentShape(primalParams[i].shape);
    // A constant's tangent is `undefined` (the runtime types say so): nothing to lower.
    if (!hasNumbers(shape)) return zeroValue(site, shape);
    const v = site.expr(a);
    site.conform(a, v, shape, `tangent ${i + 1}`);
    return v;
  });
  const zeros = captures.map((c) => zeroValue(site, tangentShape(c.shape)));
  return site.bind(
    hint ?? fn.name,
    call(
      fn.name,
      [...capturedValues(site, captures), ...prim, ...zeros, ...tan].map((v) => v.name),
    ),
    fn.result,
  );
}

function hasNumbers(s: Shape): boolean {
  return s.kind === 'number' || (s.kind === 'array' && !s.constant && hasNumbers(s.elem)) || componentShapes(s).some(hasNumbers);
}

function zeroValue(site: NestedSite, s: Shape): Value {
  if (s.kind === 'number') return { name: site.lit(0), shape: s };
  if (s.kind === 'array' && !s.constant) {
    // The zero tangent array is the empty one (tangent arrays are sparse at the end); a matrix's
    // is that, with zero dimensions.
    const empty = site.bind('zero', construct('fill', [site.lit(0), site.lit(0)], [], []), { kind: 'array', container: 'Float64Array', elem: { kind: 'number' } });
    return isMatrix(s) ? site.bind('zero', tuple(false, [empty.name, ...Array.from({ length: tensorRank(s) }, () => site.lit(0))]), s) : { ...empty, shape: s };
  }
  return site.bind(
    'zero',
    tuple(
      false,
      componentShapes(s).map((c) => zeroValue(site, c).name),
    ),
    s,
  );
}

function capturedValues(site: NestedSite, captures: readonly Capture[]): Value[] {
  return captures.map((c) => site.valueOf(c.symbol)!);
}

function arrowNotCalled(kind: string): string {
  if (kind === 'jvp' || !(isTransformKind(kind) && TRANSFORMS[kind].form === 'reference')) {
    return `${kind} of an arrow written in place is not supported yet: mark a function and pass what the arrow captures as parameters, or use grad, valueAndGrad or hvp of the arrow, called in place`;
  }
  return `${kind} of an arrow written in place must be called in place, ${kind}((y) => ...)(y), so that what it captures is passed to the compiled derivative`;
}

function hasFunctionAround(t: typeof ts, n: ts.Node): boolean {
  for (let p = n.parent; p; p = p.parent) if (t.isFunctionLike(p)) return true;
  return false;
}

function siteShapes(site: NestedSite): ShapeOf {
  return (sym) => site.valueOf(sym)?.shape;
}

function innermost(target: Target): Exclude<Target, { tag: 'derived' }> {
  return target.tag === 'derived' ? innermost(target.of) : target;
}

/** The enclosing function's variables an arrow reads, in the order it first reads them. */
export function capturesOf(t: typeof ts, checker: ts.TypeChecker, arrow: ts.Node, shapeOf: ShapeOf): Capture[] {
  const seen = new Map<ts.Symbol, Capture>();
  const visit = (n: ts.Node): void => {
    if (t.isIdentifier(n) && !(t.isPropertyAccessExpression(n.parent) && n.parent.name === n)) {
      const sym = checker.getSymbolAtLocation(n);
      const shape = sym && !seen.has(sym) ? shapeOf(sym) : undefined;
      if (sym && shape) seen.set(sym, { symbol: sym, shape });
    }
    t.forEachChild(n, visit);
  };
  visit(arrow);
  return [...seen.values()];
}

/**
 * `T(...(arrow))(args)` in TypeScript that runs as written (the body of a marked function, or
 * any function): the transform of a local arrow, compiled once with the arrow's captures as
 * leading parameters, so the call site passes them and no closure is made per call.
 */
export function appliedLocalTransform(
  t: typeof ts,
  checker: ts.TypeChecker,
  node: ts.CallExpression,
): { kind: TransformKind; call: ts.CallExpression; of: Target; arrow: ts.ArrowFunction | ts.FunctionExpression } | undefined {
  const callee = unwrap(t, node.expression);
  if (!t.isCallExpression(callee) || !callee.arguments[0]) return undefined;
  const kind = tsadExportName(callee.expression, checker);
  if (!kind || !isTransformKind(kind) || TRANSFORMS[kind].form !== 'reference' || isRuleCall(callee, checker)) return undefined;
  if (!reachesArrow(t, checker, callee.arguments[0])) return undefined;
  const of = resolveTarget(t, checker, callee.arguments[0], kind, true);
  if (!of) return undefined;
  const arrow = innermost(of);
  return arrow.tag === 'arrow' ? { kind, call: callee, of, arrow: arrow.decl } : undefined;
}

/** Is `e` an arrow written in place, or a transform of one written in place? */
function reachesArrow(t: typeof ts, checker: ts.TypeChecker, e: ts.Expression): boolean {
  const u = unwrap(t, e);
  if (t.isArrowFunction(u) || t.isFunctionExpression(u)) return !resolveMarkedFunction(u, checker);
  if (!t.isCallExpression(u) || !u.arguments[0]) return false;
  const kind = tsadExportName(u.expression, checker);
  return !!kind && isTransformKind(kind) && reachesArrow(t, checker, u.arguments[0]);
}

/** In TypeScript, what an arrow captures: the variables of the functions around it (all of them, out to the outermost). */
export function declaredAround(t: typeof ts, checker: ts.TypeChecker, arrow: ts.Node): ShapeOf {
  let outer: ts.Node | undefined;
  for (let n: ts.Node | undefined = arrow.parent; n; n = n.parent) if (t.isFunctionLike(n)) outer = n;
  return (sym) => {
    const d = sym.valueDeclaration;
    if (!d || !outer || d.getSourceFile() !== arrow.getSourceFile()) return undefined;
    const inside = (n: ts.Node) => d.pos >= n.pos && d.end <= n.end;
    // A variable is declared by a name, a parameter or a destructuring pattern's element.
    if (!inside(outer) || inside(arrow) || !(t.isVariableDeclaration(d) || t.isParameter(d) || t.isBindingElement(d))) return undefined;
    return shapeOfType(t, checker, checker.getTypeOfSymbolAtLocation(sym, arrow), d);
  };
}
