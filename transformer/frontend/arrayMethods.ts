// Which calls are array code, and how each is lowered: tsad's array helpers (`sum(xs)`,
// `matmul(a, b)`, ...) and the methods of arrays (`xs.map(f)`, ...), one table entry each.
// Adding one is an entry here and its lowering in the array layers (docs/frontend.md, "Adding an
// array method"). writes.ts reads the tables too: which calls give a new array that the function
// may write into, and which helpers may be passed an array that is written.
import type * as ts from 'typescript';
import { fail } from './diagnostics';
import { NUMBER, describeShape, isMatrix, isNumberArray, isRecords } from './shapes';
import { tsadExportName } from './markers';
import type { Value } from './values';
import type { ArrayLowering } from './arrays';

/** How one array call is lowered, and whether it returns a new array. */
export interface ArrayCall {
  /** The call returns a new array, which the function may then write into (writes.ts). */
  readonly fresh: boolean;
  readonly lower: (arrays: ArrayLowering, e: ts.CallExpression, hint: string | undefined) => Value;
}

/** tsad's exports that are array helpers, by name. */
export const ARRAY_HELPERS: ReadonlyMap<string, ArrayCall> = new Map<string, ArrayCall>([
  ['sum', { fresh: false, lower: (arrays, e, hint) => arrays.sum(numberArrays(arrays, e, 'sum', 1)[0], hint ?? 'total') }],
  ['prod', { fresh: false, lower: (arrays, e) => arrays.prod(numberArrays(arrays, e, 'prod', 1)[0]) }],
  [
    'dot',
    {
      fresh: false,
      lower: (arrays, e) => {
        const [a, b] = numberArrays(arrays, e, 'dot', 2);
        return arrays.dot(a, b, e);
      },
    },
  ],
  [
    'iota',
    {
      fresh: true,
      lower: (arrays, e) => {
        const args = e.arguments;
        if (args.length !== 1) fail(1121, e, 'iota takes 1 argument(s)');
        const n = arrays.site.expr(args[0], 'n');
        if (n.shape.kind !== 'number') fail(1121, args[0], 'iota(n) needs a number');
        return arrays.iota(arrays.toIndex(n));
      },
    },
  ],
  [
    'scan',
    {
      fresh: true,
      lower: (arrays, e, hint) => {
        const args = e.arguments;
        if (args.length < 2 || args.length > 3) fail(1121, e, 'scan takes (xs, op) or (xs, op, init)');
        const xs = arrays.arrayOf(args[0]);
        const init = args[2] ? arrays.site.expr(args[2], 'init') : undefined;
        if (init && init.shape.kind !== 'number') fail(1121, args[2], 'the initial value of scan must be a number');
        return arrays.scan(xs, args[1], init, e, hint);
      },
    },
  ],
  [
    'gather',
    {
      fresh: true,
      lower: (arrays, e, hint) => {
        const [xs, idx] = indexedArrays(arrays, e, 'gather', 2, 2);
        return arrays.gather(xs, idx, e, hint);
      },
    },
  ],
  [
    'scatter',
    {
      fresh: true,
      lower: (arrays, e, hint) => {
        const [dest, idx, vals] = indexedArrays(arrays, e, 'scatter', 3, 3);
        return arrays.scatter(dest, idx, vals, e, hint);
      },
    },
  ],
  [
    'reduceByIndex',
    {
      fresh: true,
      lower: (arrays, e, hint) => {
        const [dest, idx, vals] = indexedArrays(arrays, e, 'reduceByIndex', 4, 3);
        return arrays.reduceByIndex(dest, idx, vals, e.arguments[3], e, hint);
      },
    },
  ],
  [
    'matmul',
    {
      fresh: true,
      lower: (arrays, e, hint) => {
        if (e.arguments.length !== 2) fail(1121, e, 'matmul takes two matrices');
        return arrays.matrices.matmul(arrays.site.expr(e.arguments[0], 'a'), arrays.site.expr(e.arguments[1], 'b'), e, hint);
      },
    },
  ],
]);

/** A method that changes the array it is called on: not supported (TSAD1122). */
const WRITES: ArrayCall = { fresh: false, lower: (arrays, e) => arrays.write(e) };

/** The methods of arrays, by name. */
export const ARRAY_METHODS: ReadonlyMap<string, ArrayCall> = new Map<string, ArrayCall>([
  [
    'map',
    {
      fresh: true,
      lower: (arrays, e, hint) => {
        const xs = arrays.arrayOf(receiver(e));
        return arrays.map(xs, callback(arrays, e, 0, '.map'), e, hint, arrays.isFloat32(e));
      },
    },
  ],
  [
    'reduce',
    {
      fresh: false,
      lower: (arrays, e, hint) => {
        const fn = callback(arrays, e, 0, '.reduce');
        if (e.arguments.length < 2) fail(1121, e, '.reduce needs its initial value here: xs.reduce((a, b) => a + b, 0)');
        const xs = arrays.arrayOf(receiver(e));
        const init = arrays.site.expr(e.arguments[1], 'init');
        return arrays.reduce(xs, fn, init, e, hint);
      },
    },
  ],
  ['fill', { fresh: true, lower: (arrays, e, hint) => fillNew(arrays, e, e.expression as ts.PropertyAccessExpression, hint) }],
  [
    'slice',
    {
      fresh: true,
      lower: (arrays, e, hint) => {
        const xs = arrays.arrayOf(receiver(e));
        if (!isNumberArray(xs.shape) && !isMatrix(xs.shape) && !isRecords(xs.shape)) fail(1121, e, `.slice of ${describeShape(xs.shape)} is not supported`);
        const [start, end] = e.arguments.slice(0, 2).map((a) => arrays.site.expr(a, 'position'));
        for (const [k, v] of [start, end].entries()) if (v && v.shape.kind !== 'number') fail(1121, e.arguments[k], 'a slice position must be a number');
        return arrays.slice(xs, start, end, e, hint);
      },
    },
  ],
  ...['pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'copyWithin', 'set'].map((name) => [name, WRITES] as const),
]);

/** Calls that build or consume arrays: the methods and helpers above, and `Float64Array.from`. Undefined for other calls. */
export function lowerArrayCall(arrays: ArrayLowering, e: ts.CallExpression, hint?: string): Value | undefined {
  const { t, checker } = arrays.site;
  const callee = e.expression;
  const helper = ARRAY_HELPERS.get(tsadExportName(callee, checker) ?? '');
  if (helper) return helper.lower(arrays, e, hint);
  if (!t.isPropertyAccessExpression(callee)) return undefined;
  const method = callee.name.text;
  if (arrays.isGlobal(callee.expression, ['Float64Array', 'Float32Array', 'Array'])) {
    if (method !== 'from') fail(1121, e, `${callee.getText()} is not supported: build arrays with ${callee.expression.text}.from, new Float64Array(n) or a literal`);
    return arrayFrom(arrays, e, hint);
  }
  if (!arrays.isArrayValued(callee.expression)) return undefined;
  const known = ARRAY_METHODS.get(method);
  if (!known) return fail(1121, callee.name, `'.${method}' of an array is not supported in differentiable functions yet`);
  return known.lower(arrays, e, hint);
}

/** The array a method is called on. */
const receiver = (e: ts.CallExpression): ts.Expression => (e.expression as ts.PropertyAccessExpression).expression;

/** The helper's `count` arguments, each an array of numbers. */
function numberArrays(arrays: ArrayLowering, e: ts.CallExpression, name: string, count: number): Value[] {
  const args = e.arguments;
  if (args.length !== count) fail(1121, e, `${name} takes ${count} argument(s)`);
  const xs = args.map((a) => arrays.arrayOf(a));
  for (const [k, x] of xs.entries()) if (x.shape.kind !== 'array' || x.shape.elem.kind !== 'number') fail(1121, args[k], `${name} needs arrays of numbers, got ${describeShape(x.shape)}`);
  return xs;
}

/** gather, scatter, reduceByIndex: `arity` arguments, the first `count` of them arrays of numbers. */
function indexedArrays(arrays: ArrayLowering, e: ts.CallExpression, name: string, arity: number, count: number): Value[] {
  const args = e.arguments;
  if (args.length !== arity) fail(1121, e, `${name} takes ${arity} arguments`);
  const xs = args.slice(0, count).map((a) => arrays.arrayOf(a));
  for (const [k, x] of xs.entries()) if (x.shape.kind !== 'array' || x.shape.elem.kind !== 'number') fail(1121, args[k], `${name} needs arrays of numbers, got ${describeShape(x.shape)}`);
  return xs;
}

/** The callback argument k of an array call, written in place. */
function callback(arrays: ArrayLowering, e: ts.CallExpression, k: number, what: string): ts.ArrowFunction | ts.FunctionExpression {
  const { t } = arrays.site;
  let a = e.arguments[k];
  while (a && t.isParenthesizedExpression(a)) a = a.expression;
  if (!a || !(t.isArrowFunction(a) || t.isFunctionExpression(a))) return fail(1121, e.arguments[k] ?? e, `${what} needs its callback written in place, (x) => ...`);
  return a;
}

/** `new Array(n).fill(x)`, `Array(n).fill(x)`, `new Float64Array(n).fill(x)`: n copies of x. */
function fillNew(arrays: ArrayLowering, e: ts.CallExpression, callee: ts.PropertyAccessExpression, hint?: string): Value {
  const { t } = arrays.site;
  let r = callee.expression;
  while (t.isParenthesizedExpression(r)) r = r.expression as ts.LeftHandSideExpression;
  const fresh = (t.isNewExpression(r) || t.isCallExpression(r)) && arrays.isGlobal(r.expression, ['Array', 'Float64Array', 'Float32Array']) && r.arguments?.length === 1;
  if (!fresh) return arrays.write(e);
  if (e.arguments.length !== 1) fail(1121, e, '.fill(x) with a start or end is not supported: fill a whole new array');
  const n = arrays.site.expr((r as ts.NewExpression).arguments![0], 'n');
  if (n.shape.kind !== 'number') fail(1121, r, 'the length of a new array must be a number');
  const x = arrays.site.expr(e.arguments[0], 'x');
  if (x.shape.kind !== 'number') fail(1120, e.arguments[0], `arrays hold numbers: cannot fill with ${describeShape(x.shape)}`);
  // new Array(n) takes only a whole n below 2^32 (a RangeError otherwise); a typed array truncates it.
  const count = arrays.isGlobal((r as ts.NewExpression | ts.CallExpression).expression, ['Array']) ? arrays.arrayLength(n) : arrays.toIndex(n);
  return arrays.fill(count, arrays.isFloat32(e) ? arrays.round32(x) : x, { kind: 'array', container: 'Float64Array', elem: NUMBER }, hint);
}

/** `Float64Array.from(a)`, `Float64Array.from(a, f)`, `Float64Array.from({ length: n }, (_, i) => f(i))`. */
function arrayFrom(arrays: ArrayLowering, e: ts.CallExpression, hint?: string): Value {
  const { t } = arrays.site;
  const [src] = e.arguments;
  if (!src || e.arguments.length > 2) return fail(1121, e, 'write Float64Array.from(a), Float64Array.from(a, (x, i) => ...) or Float64Array.from({ length: n }, (_, i) => ...)');
  if (t.isObjectLiteralExpression(src)) {
    const prop = src.properties.length === 1 ? src.properties[0] : undefined;
    if (!prop || !t.isPropertyAssignment(prop) || prop.name.getText() !== 'length') fail(1121, src, 'the source of from must be an array or { length: n }');
    const n = arrays.site.expr(prop.initializer, 'n');
    if (n.shape.kind !== 'number') fail(1121, prop.initializer, 'the length must be a number');
    // JavaScript reads the length with ToLength: truncated, and clamped to 0 (a length of -1 is 0).
    return arrays.fromLength(arrays.toLength(n), callback(arrays, e, 1, 'from({ length: n }, ...)'), e, hint, arrays.isFloat32(e));
  }
  const xs = arrays.arrayOf(src);
  const round = arrays.isFloat32(e);
  if (e.arguments.length === 2) return arrays.map(xs, callback(arrays, e, 1, 'from(a, ...)'), e, hint, round);
  return round && !arrays.isFloat32(src) ? arrays.rounded(xs, hint) : xs;
}
