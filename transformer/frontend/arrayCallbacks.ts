// The callback argument of an array method, as JavaScript calls it: written in place
// (`(x, i) => …`) or passed by name (a marked function, a local function, a one-argument Math
// function). JavaScript passes every callback the same arguments (element, index, ...); a
// function by name receives as many of them as it declares, as it would in JavaScript
// (`xs.map(f)` with `f(x, scale)` gets the index as its scale).
import type * as ts from 'typescript';
import { fail } from './diagnostics';
import { callbackParamSymbol } from './callbackParams';
import { MATH_FUNCTIONS, primDef } from '../prims/registry';
import { NUMBER, describeShape } from './shapes';
import { REAL_ARRAY } from './arraySite';
import type { Value } from './values';
import type { ArrayLowering } from './arrays';

export interface Callback {
  readonly node: ts.Node;
  /** How many of JavaScript's arguments the callback reads. */
  readonly arity: number;
  /** The callback's value for JavaScript's arguments (`bind` binds a parameter in the current scope). */
  apply(bind: (sym: ts.Symbol, v: Value) => void, args: readonly Value[], hint?: string): Value;
}

/**
 * Argument k of the call `e` as a callback that JavaScript passes `passed` arguments
 * (`names` says what they are, for messages: ['value', 'index', 'array']). A callback that
 * would read an argument tsad does not pass (the array itself) is TSAD1121.
 */
export function callbackArg(arrays: ArrayLowering, e: ts.CallExpression, k: number, what: string, names: readonly string[]): Callback {
  const { t, checker } = arrays.site;
  let a = e.arguments[k];
  while (a && t.isParenthesizedExpression(a)) a = a.expression;
  if (!a) return fail(1121, e, `${what} needs a callback`);
  const tooMany = (node: ts.Node, n: number): never =>
    fail(1121, node, `the callback of ${what} takes (${names.join(', ')}), and reads ${n} of them here: the last one is not supported (read the array by its own name)`);
  if (t.isArrowFunction(a) || t.isFunctionExpression(a)) {
    const fn = a;
    const symbols = fn.parameters.map((p) => callbackParamSymbol(t, checker, p));
    if (fn.parameters.length >= names.length) tooMany(fn.parameters[names.length - 1], fn.parameters.length);
    return {
      node: fn,
      arity: fn.parameters.length,
      apply: (bind, args, hint) => {
        symbols.forEach((sym, i) => bind(sym, args[i]));
        return arrays.site.callbackBody(fn, hint);
      },
    };
  }
  // Math.exp by name: Math functions of one argument ignore the index JavaScript passes too.
  if (t.isPropertyAccessExpression(a) && arrays.isGlobal(a.expression, ['Math'])) {
    const name = a.name.text;
    if (!MATH_FUNCTIONS.has(name)) fail(1103, a, `cannot differentiate through 'Math.${name}': it is not differentiable`);
    if (primDef(name).arity.max !== 1) {
      fail(
        1121,
        a,
        `Math.${name} passed by name would also get the index${names.length > 2 ? ' and the array' : ''} as arguments (JavaScript passes ${names.join(', ')}): write the callback in place, (x) => Math.${name}(x, …)`,
      );
    }
    const b = () => arrays.site.b();
    return { node: a, arity: 1, apply: (_bind, args, hint) => ({ name: b().prim(name, [args[0].name], hint ?? name), shape: NUMBER }) };
  }
  if (!t.isIdentifier(a) && !t.isPropertyAccessExpression(a)) return fail(1121, a, `${what} takes a callback written in place, (x) => ..., or a function passed by name`);
  const callee = a;
  const sig = checker.getTypeAtLocation(callee).getCallSignatures()[0];
  if (!sig) return fail(1121, callee, `'${callee.getText()}' is not a function`);
  const decl = sig.getDeclaration() as ts.SignatureDeclaration | undefined;
  if (decl?.parameters.some((p) => p.dotDotDotToken)) fail(1121, callee, `'${callee.getText()}' takes rest parameters: write the callback in place, (x) => ${callee.getText()}(x)`);
  const arity = sig.getParameters().length;
  if (arity >= names.length) tooMany(callee, arity);
  return { node: callee, arity, apply: (_bind, args, hint) => arrays.site.callBy(callee, args.slice(0, arity), callee, hint) };
}

/**
 * Does a callback throw or log? JavaScript stops calling the callback of `.some`, `.every` and
 * `.findIndex` at the first element that decides, tsad runs it on every element: the same value
 * only when running it has no effect. (A function passed by name is checked in its own body.)
 */
export function hasEffects(t: typeof ts, checker: ts.TypeChecker, cb: Callback): boolean {
  let body: ts.Node | undefined = cb.node;
  if (!t.isArrowFunction(body) && !t.isFunctionExpression(body)) {
    const decl = checker.getTypeAtLocation(cb.node).getCallSignatures()[0]?.getDeclaration() as ts.Node | undefined;
    body = decl;
  }
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (t.isThrowStatement(n)) found = true;
    else if (t.isCallExpression(n) && t.isPropertyAccessExpression(n.expression) && t.isIdentifier(n.expression.expression) && n.expression.expression.text === 'console') found = true;
    else t.forEachChild(n, visit);
  };
  if (body) visit(body);
  return found;
}

/** `xs.map(f)` with f passed by name: a counted loop writing f(x, k) into element k of a new array (in place). */
export function mapBy(arrays: ArrayLowering, xs: Value, cb: Callback, node: ts.Node, round: boolean, hint?: string): Value {
  const n = arrays.length(xs);
  const out = arrays.fill(n, { name: arrays.site.b().lit(0, 'zero'), shape: NUMBER }, REAL_ARRAY, hint ?? 'mapped');
  return arrays.fold(n, out, node, hint, (bind, acc, k) => {
    const y = cb.apply(bind, [arrays.read(xs, k, 'x'), k], 'y');
    if (y.shape.kind !== 'number') fail(1121, cb.node, `a function passed by name to .map must return a number here, got ${describeShape(y.shape)}: write the callback in place`);
    return arrays.update(acc, k, round ? arrays.round32(y) : y, node);
  });
}

/** `xs.reduce(f, init)` with f passed by name: JavaScript's left fold, f(acc, x, k). */
export function reduceBy(arrays: ArrayLowering, xs: Value, cb: Callback, init: Value, node: ts.Node, hint?: string): Value {
  return arrays.fold(arrays.length(xs), init, node, hint, (bind, acc, k) => cb.apply(bind, [acc, arrays.read(xs, k, 'x'), k], 'acc'));
}
