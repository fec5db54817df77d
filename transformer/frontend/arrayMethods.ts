// Which calls are array code, and how each is lowered: tsad's array helpers (`sum(xs)`,
// `matmul(a, b)`, ...) and the methods of arrays (`xs.map(f)`, ...), one table entry each.
// Adding one is an entry here and its lowering in the array layers (docs/frontend.md, "Adding an
// array method"). writes.ts reads the tables too: which calls give a new array that the function
// may write into, and which helpers may be passed an array that is written.
import type * as ts from 'typescript';
import { fail } from './diagnostics';
import { NUMBER, describeShape, isMatrix, isNumberArray, isRecords, tensorRank, typedArrayName } from './shapes';
import type { Shape } from './shapes';
import { tsadExportName } from './markers';
import { lastUse } from './aliasing';
import type { Value } from './values';
import type { ArrayLowering } from './arrays';
import { Callback, callbackArg, hasEffects, mapBy, reduceBy } from './arrayCallbacks';
import { at, filter, findIndex, indexOf, lastIndexOf, someEvery } from './arrayQueries';
import { Segment, concat, concatRecords, fillExisting, reverse, sort } from './arrayOrder';
import { bareFind } from './arrayFind';

/** How one array call is lowered, and whether it returns a new array. */
export interface ArrayCall {
  /** The call returns a new array, which the function may then write into (writes.ts). */
  readonly fresh: boolean;
  /**
   * The method changes its array and returns it (`sort`, `reverse`, `fill`): on a local, as a
   * statement, it is a write (writes.ts, statements.ts); on a new array (`a.slice().sort(f)`)
   * a value, as new as its receiver.
   */
  readonly change?: (arrays: ArrayLowering, xs: Value, e: ts.CallExpression, hint: string | undefined) => Value;
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
export const WRITES: ArrayCall = { fresh: false, lower: (arrays, e) => arrays.write(e) };

/** What JavaScript passes the callbacks of the element-wise methods. */
const ELEMENT_ARGS = ['value', 'index', 'array'];

/** A method whose value is the answer to a question about the elements (a constant). */
const query = (lower: (arrays: ArrayLowering, xs: Value, cb: Callback, e: ts.CallExpression, hint: string | undefined) => Value, what: string): ArrayCall => ({
  fresh: false,
  lower: (arrays, e, hint) => {
    if (e.arguments.length !== 1) fail(1121, e, `${what} takes one argument here, the callback (a thisArg is not supported)`);
    const cb = callbackArg(arrays, e, 0, what, ELEMENT_ARGS);
    return lower(arrays, arrays.arrayOf(receiver(e)), cb, e, hint);
  },
});

/** `indexOf(v, from?)`, `includes(v, from?)`, `lastIndexOf(v, from?)`. */
const search = (includes: boolean, last = false): ArrayCall => ({
  fresh: false,
  lower: (arrays, e, hint) => {
    const what = includes ? '.includes' : last ? '.lastIndexOf' : '.indexOf';
    if (e.arguments.length < 1 || e.arguments.length > 2) fail(1121, e, `${what} takes (value) or (value, fromIndex)`);
    const [v, from] = e.arguments.map((a, k) => arrays.site.expr(a, k === 0 ? 'sought' : 'from'));
    for (const [k, x] of [v, from].entries()) if (x && x.shape.kind !== 'number') fail(1121, e.arguments[k], `${what} looks for a number in an array of numbers, got ${describeShape(x.shape)}`);
    if (last) return lastIndexOf(arrays, arrays.arrayOf(receiver(e)), v, from, e, hint);
    return indexOf(arrays, arrays.arrayOf(receiver(e)), v, from, includes, e, hint);
  },
});

/**
 * A method that changes its array and returns it. Its receiver is new (writes.ts refuses any
 * other but a local name); a local name here is a value used (`const t = s.sort(f)`: t and s are
 * one array in JavaScript), since the statement `s.sort(f)` is statements.ts's.
 */
const inPlace = (lower: (arrays: ArrayLowering, xs: Value, e: ts.CallExpression, hint: string | undefined) => Value): ArrayCall => ({
  fresh: true,
  change: lower,
  lower: (arrays, e, hint) => {
    const { t } = arrays.site;
    let r: ts.Expression = receiver(e);
    while (t.isParenthesizedExpression(r) || t.isNonNullExpression(r) || t.isAsExpression(r)) r = r.expression;
    let use: ts.Node = e.parent;
    while (t.isParenthesizedExpression(use)) use = use.parent;
    // `return s.sort(f)`, `const t = s.reverse()` where nothing reads s afterwards: the second
    // name is never seen.
    if (t.isIdentifier(r) && !t.isReturnStatement(use) && !lastUse(t, arrays.site.checker, r)) {
      const method = (e.expression as ts.PropertyAccessExpression).name.text;
      fail(
        1123,
        e,
        `${r.text}.${method}(…) changes '${r.text}' and returns '${r.text}' itself: used as a value it is a second name for the array; write ${r.text}.${method}(…) as a statement and read '${r.text}', or ${method} a copy: ${r.text}.slice().${method}(…)`,
      );
    }
    return lower(arrays, arrays.arrayOf(r), e, hint);
  },
});

/** `a.fill(v, start?, end?)` of an array no other name sees. */
const FILL = inPlace((arrays, xs, e, hint) => {
  if (e.arguments.length < 1 || e.arguments.length > 3) fail(1121, e, '.fill takes (value, start?, end?)');
  const v = arrays.site.expr(e.arguments[0], 'x');
  const [start, end] = positions(arrays, e, 1);
  return fillExisting(arrays, xs, arrays.isFloat32(e) && v.shape.kind === 'number' ? arrays.round32(v) : v, start, end, e, hint);
});

const isInt32 = (s: Shape): boolean => s.kind === 'array' && s.container === 'Int32Array';

/** The positions a call takes from argument `first` on (`.slice(start?, end?)`), numbers. */
function positions(arrays: ArrayLowering, e: ts.CallExpression, first = 0): (Value | undefined)[] {
  const given = e.arguments.slice(first, first + 2).map((a) => arrays.site.expr(a, 'position'));
  for (const [k, v] of given.entries()) if (v.shape.kind !== 'number') fail(1121, e.arguments[first + k], 'a position must be a number');
  return [given[0], given[1]];
}

/** The methods of arrays, by name. */
export const ARRAY_METHODS: ReadonlyMap<string, ArrayCall> = new Map<string, ArrayCall>([
  [
    'map',
    {
      fresh: true,
      lower: (arrays, e, hint) => {
        const xs = arrays.arrayOf(receiver(e));
        const mapped = !inPlaceCallback(arrays, e, 0)
          ? mapBy(arrays, xs, callbackArg(arrays, e, 0, '.map', ELEMENT_ARGS), e, arrays.isFloat32(e), hint)
          : arrays.map(xs, callback(arrays, e, 0, '.map'), e, hint, arrays.isFloat32(e));
        // An Int32Array's map is an Int32Array: each result stored as a 32-bit integer.
        return isInt32(xs.shape) ? arrays.inContainer(mapped, xs.shape, hint) : mapped;
      },
    },
  ],
  [
    'reduce',
    {
      fresh: false,
      lower: (arrays, e, hint) => {
        if (e.arguments.length < 2) fail(1121, e, '.reduce needs its initial value here: xs.reduce((a, b) => a + b, 0)');
        if (!inPlaceCallback(arrays, e, 0)) {
          const cb = callbackArg(arrays, e, 0, '.reduce', ['accumulator', 'value', 'index', 'array']);
          return reduceBy(arrays, arrays.arrayOf(receiver(e)), cb, arrays.site.expr(e.arguments[1], 'init'), e, hint);
        }
        const fn = callback(arrays, e, 0, '.reduce');
        const xs = arrays.arrayOf(receiver(e));
        const init = arrays.site.expr(e.arguments[1], 'init');
        return arrays.reduce(xs, fn, init, e, hint);
      },
    },
  ],
  ['fill', { ...FILL, lower: (arrays, e, hint) => fillNew(arrays, e, e.expression as ts.PropertyAccessExpression, hint) ?? FILL.lower(arrays, e, hint) }],
  [
    'slice',
    {
      fresh: true,
      lower: (arrays, e, hint) => {
        const xs = arrays.arrayOf(receiver(e));
        if (!isNumberArray(xs.shape) && !isMatrix(xs.shape) && !isRecords(xs.shape)) fail(1121, e, `.slice of ${describeShape(xs.shape)} is not supported`);
        const [start, end] = positions(arrays, e);
        const sliced = arrays.slice(xs, start, end, e, hint);
        // An Int32Array's slice is an Int32Array: what is written into it is stored as an integer.
        return isInt32(xs.shape) ? { name: sliced.name, shape: xs.shape } : sliced;
      },
    },
  ],
  ['some', query((arrays, xs, cb, e, hint) => someEvery(arrays, xs, cb, false, e, hint), '.some')],
  ['every', query((arrays, xs, cb, e, hint) => someEvery(arrays, xs, cb, true, e, hint), '.every')],
  ['findIndex', query((arrays, xs, cb, e, hint) => findIndex(arrays, xs, cb, e, hint), '.findIndex')],
  ['find', { fresh: false, lower: (_arrays, e) => bareFind(e) }],
  ['filter', { ...query((arrays, xs, cb, e, hint) => filter(arrays, xs, cb, e, hint), '.filter'), fresh: true }],
  ['indexOf', search(false)],
  ['includes', search(true)],
  ['lastIndexOf', search(false, true)],
  [
    'at',
    {
      fresh: false,
      lower: (arrays, e, hint) => {
        if (e.arguments.length !== 1) fail(1121, e, '.at takes one index');
        return at(arrays, arrays.arrayOf(receiver(e)), arrays.site.expr(e.arguments[0], 'i'), e, hint);
      },
    },
  ],
  [
    // A read-only window: a copy of the elements, as .slice (writes.ts refuses a write into one, and a view of an array that is written).
    'subarray',
    {
      fresh: false,
      lower: (arrays, e, hint) => {
        const xs = arrays.arrayOf(receiver(e));
        const [start, end] = positions(arrays, e);
        return arrays.slice(xs, start, end, e, hint ?? 'window');
      },
    },
  ],
  [
    'concat',
    {
      fresh: true,
      lower: (arrays, e, hint) => {
        const xs = arrays.arrayOf(receiver(e));
        if (isRecords(xs.shape)) return concatRecords(arrays, xs, e, hint);
        if (!isNumberArray(xs.shape)) fail(1121, e, `.concat of ${describeShape(xs.shape)} is not supported`);
        const segments = e.arguments.map((a): Segment => {
          if (arrays.site.t.isSpreadElement(a)) return { kind: 'all', value: arrays.arrayOf(a.expression) };
          const typed = typedArrayName(arrays.site.t, arrays.site.checker.getTypeAtLocation(a));
          if (typed) fail(1121, a, `.concat does not spread a ${typed} (JavaScript would add the whole array as one element): spread it, [...${sourceOf(a)}, …] or .concat([...${sourceOf(a)}])`);
          const v = arrays.site.expr(a);
          return v.shape.kind === 'number' ? { kind: 'one', value: v } : { kind: 'all', value: arrays.asArray(a, v) };
        });
        const shape: Shape = { kind: 'array', container: 'Array', elem: NUMBER };
        return concat(arrays, arrays.zero(shape as Extract<Shape, { kind: 'array' }>), [{ kind: 'all', value: xs }, ...segments], shape, e, hint);
      },
    },
  ],
  [
    'sort',
    inPlace((arrays, xs, e, hint) => {
      if (e.arguments.length > 1) fail(1121, e, '.sort takes one comparator');
      const cmp = e.arguments.length === 1 ? callbackArg(arrays, e, 0, '.sort', ['a', 'b', '']) : undefined;
      if (cmp && hasEffects(arrays.site.t, arrays.site.checker, cmp))
        fail(1121, cmp.node, "the comparator of .sort throws or logs: JavaScript calls it on pairs of its own choosing, tsad's sort on others; compare without effects");
      return sort(arrays, xs, cmp, typedArrayName(arrays.site.t, arrays.site.checker.getTypeAtLocation(receiver(e))) !== undefined, e, hint);
    }),
  ],
  [
    'reverse',
    inPlace((arrays, xs, e, hint) => {
      if (e.arguments.length > 0) fail(1121, e, '.reverse takes no arguments');
      return reverse(arrays, xs, e, hint);
    }),
  ],
  [
    // A matrix's or tensor's data is row-major already: one level less costs nothing (matrices.ts);
    // `.flat()` of an array of numbers is a copy.
    'flat',
    {
      fresh: true,
      lower: (arrays, e, hint) => {
        const { t } = arrays.site;
        const depth = e.arguments[0];
        const levels = depth === undefined ? 1 : t.isNumericLiteral(depth) ? Number(depth.text) : Number.NaN;
        if (e.arguments.length > 1 || !(levels >= 1)) fail(1121, depth ?? e, '.flat takes no argument or a depth written as a number ≥ 1');
        const xs = arrays.arrayOf(receiver(e));
        if (isNumberArray(xs.shape)) return arrays.slice({ name: xs.name, shape: { kind: 'array', container: 'Array', elem: NUMBER } }, undefined, undefined, e, hint ?? 'flat');
        if (isMatrix(xs.shape) && (levels === 1 || tensorRank(xs.shape) === 2)) return arrays.matrices.flat(xs, e, hint);
        return fail(1121, e, `.flat(${depth?.getText() ?? ''}) of ${describeShape(xs.shape)} is not supported: tsad flattens an array of numbers, or a matrix or tensor by one level`);
      },
    },
  ],
  ...['pop', 'shift', 'unshift', 'splice', 'copyWithin', 'set'].map((name) => [name, WRITES] as const),
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

/** A node's source, shortened, for messages. */
const sourceOf = (n: ts.Node): string => {
  const text = n.getText().replace(/\s+/g, ' ');
  return text.length > 30 ? `${text.slice(0, 27)}...` : text;
};

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

/** Is argument k of the call a function written in place (else one passed by name)? */
function inPlaceCallback(arrays: ArrayLowering, e: ts.CallExpression, k: number): boolean {
  const { t } = arrays.site;
  let a = e.arguments[k];
  while (a && t.isParenthesizedExpression(a)) a = a.expression;
  return !a || t.isArrowFunction(a) || t.isFunctionExpression(a);
}

/** The callback argument k of an array call, written in place. */
function callback(arrays: ArrayLowering, e: ts.CallExpression, k: number, what: string): ts.ArrowFunction | ts.FunctionExpression {
  const { t } = arrays.site;
  let a = e.arguments[k];
  while (a && t.isParenthesizedExpression(a)) a = a.expression;
  if (!a || !(t.isArrowFunction(a) || t.isFunctionExpression(a))) return fail(1121, e.arguments[k] ?? e, `${what} needs its callback written in place, (x) => ...`);
  return a;
}

/** `new Array(n).fill(x)`, `Array(n).fill(x)`, `new Float64Array(n).fill(x)`: n copies of x (undefined for another receiver). */
function fillNew(arrays: ArrayLowering, e: ts.CallExpression, callee: ts.PropertyAccessExpression, hint?: string): Value | undefined {
  const { t } = arrays.site;
  let r = callee.expression;
  while (t.isParenthesizedExpression(r)) r = r.expression as ts.LeftHandSideExpression;
  const fresh = (t.isNewExpression(r) || t.isCallExpression(r)) && arrays.isGlobal(r.expression, ['Array', 'Float64Array', 'Float32Array']) && r.arguments?.length === 1;
  if (!fresh || e.arguments.length !== 1) return undefined;
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
  if (round) return arrays.isFloat32(src) ? xs : arrays.rounded(xs, hint);
  // Float64Array.from(s) and Array.from(s) of an Int32Array hold reals: a copy (arrays.ts, inContainer).
  const container = (t.isPropertyAccessExpression(e.expression) && t.isIdentifier(e.expression.expression) ? e.expression.expression.text : 'Float64Array') as 'Float64Array' | 'Array';
  return arrays.inContainer(xs, { kind: 'array', container, elem: NUMBER }, hint);
}
