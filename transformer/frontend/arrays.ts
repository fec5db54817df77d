// Arrays in differentiable functions (docs/frontend.md, "Arrays"): reads, lengths, builders,
// `.map`, `.reduce` and tsad's array helpers, lowered to the IR's array constructs (len, index,
// fill, sum, map, the combinators) and counted loops. FunctionLowering owns statements, scopes and
// variables; it hands this module an ArraySite, asks it whether an expression is array code
// (`call`, `newArray`, `wantsArray`, `isArrayValued`) and has it lower reads and writes.
import type * as ts from 'typescript';
import { Builder } from '../ir/build';
import { Binder, Block, REAL, Stmt, Type, arrayType, binder, block, construct, lambda, ret } from '../ir/syntax';
import { freeVars } from '../ir/freeVars';
import { renameOperands, renameStmtOperands, rewriteBlock } from '../ir/traverse';
import { isConstruct } from '../constructs/registry';
import { fail } from './diagnostics';
import { Shape, NUMBER, NUMBER_MATRIX, describeShape, irType, isMatrix, isNumberArray, shapeOfType, typedArrayName } from './shapes';
import { MatrixLowering, MatrixParts } from './matrices';
import { tsadExportName } from './markers';
import type { Value } from './values';

/** What array lowering needs from the function being lowered. */
export interface ArraySite {
  readonly t: typeof ts;
  readonly checker: ts.TypeChecker;
  /** The builder of the current scope. */
  b(): Builder;
  expr(e: ts.Expression, hint?: string): Value;
  /** Lowers `f` in a scope of its own (`bind` binds a symbol there); `f` gives the block's results. */
  scope(f: (bind: (sym: ts.Symbol, v: Value) => void) => Value[]): { block: Block; results: Value[] };
  /** The value of a callback's body: its expression, or its statements ending in a return. */
  callbackBody(fn: ts.ArrowFunction | ts.FunctionExpression, hint?: string): Value;
  /** The shape of a value of the enclosing scopes, by IR name, when it is one. */
  shapeOfName(name: string): Shape | undefined;
  /** Records the shape of a value built here (not by `expr`), so a callback that reads it, hoisted out, still knows it is an array. */
  noteShape(v: Value): void;
  conform(node: ts.Node, v: Value, expected: Shape, what: string): void;
  /** The function's name, for run-time messages. */
  readonly functionName: string;
  /** The parts of a matrix value (frontend/matrices.ts), unpacked once per scope. */
  matrixParts(m: Value): MatrixParts;
}

/** A user's name for an IR variable (`a_2` is a version of `a`). */
export const userName = (irName: string): string => irName.replace(/(_\d+)+$/, '');

const REAL_ARRAY: Shape = { kind: 'array', container: 'Float64Array', elem: NUMBER };
const REAL_ARRAY_TYPE = arrayType(REAL);

/** The tsad exports that are array helpers. */
export const ARRAY_HELPERS = new Set(['sum', 'dot', 'prod', 'iota', 'scan', 'gather', 'scatter', 'reduceByIndex', 'matmul']);

/** The operators scan and reduce know by name, as primitives, with their neutral elements. */
const OPERATORS: Record<string, { prim: string; neutral: number }> = {
  '+': { prim: 'add', neutral: 0 },
  '*': { prim: 'mul', neutral: 1 },
  min: { prim: 'min', neutral: Infinity },
  max: { prim: 'max', neutral: -Infinity },
};

/** The IR's scan and reduce combinators (constructs/array/scan.ts, reduce.ts), when this build has them. */
export const hasFolds = (): boolean => isConstruct('scan') && isConstruct('reduce');

export class ArrayLowering {
  readonly matrices: MatrixLowering;

  constructor(private readonly site: ArraySite) {
    this.matrices = new MatrixLowering(site, this);
  }

  private get b(): Builder {
    return this.site.b();
  }

  // ---- recognising array code (FunctionLowering asks) ----

  /** Does TypeScript type this expression as an array or tuple (so `.map` is Array's)? */
  isArrayValued(e: ts.Expression): boolean {
    const type = this.site.checker.getTypeAtLocation(e);
    return this.site.checker.isArrayType(type) || this.site.checker.isTupleType(type) || typedArrayName(this.site.t, type) !== undefined;
  }

  /** A global of the default library (`Float64Array`, `Array`), not a user's variable of that name. */
  isGlobal(e: ts.Expression, names: readonly string[]): e is ts.Identifier {
    if (!this.site.t.isIdentifier(e) || !names.includes(e.text)) return false;
    return !!this.site.checker.getSymbolAtLocation(e)?.declarations?.some((d) => d.getSourceFile().hasNoDefaultLib);
  }

  /** `[x, y]` where the type says array (number[], a Float64Array parameter), not tuple. */
  wantsArray(e: ts.ArrayLiteralExpression): boolean {
    const ctx = this.site.checker.getContextualType(e);
    if (!ctx || this.site.checker.isTupleType(ctx)) return false;
    return this.site.checker.isArrayType(ctx) || typedArrayName(this.site.t, ctx) !== undefined;
  }

  arrayOf(e: ts.Expression, hint?: string): Value {
    return this.asArray(e, this.site.expr(e, hint));
  }

  private callback(e: ts.CallExpression, k: number, what: string): ts.ArrowFunction | ts.FunctionExpression {
    const { t } = this.site;
    let a = e.arguments[k];
    while (a && t.isParenthesizedExpression(a)) a = a.expression;
    if (!a || !(t.isArrowFunction(a) || t.isFunctionExpression(a))) return fail(1121, e.arguments[k] ?? e, `${what} needs its callback written in place, (x) => ...`);
    return a;
  }

  /** `new Float64Array(n)` (zeros), `new Float64Array(a)` (a copy); `new Array(n)` only with `.fill`. */
  newArray(e: ts.NewExpression, hint?: string): Value {
    const args = e.arguments ?? [];
    if (this.isGlobal(e.expression, ['Float64Array', 'Float32Array', 'Int32Array']) && args.length === 1) {
      const a = this.site.expr(args[0], 'n');
      // An Int32Array holds indices: a constant, whose writes are truncated (FunctionLowering).
      const shape: Shape = e.expression.text === 'Int32Array' ? { kind: 'array', container: 'Int32Array', elem: NUMBER, constant: true } : { kind: 'array', container: 'Float64Array', elem: NUMBER };
      // The length as JavaScript reads it (ToIndex: truncated; a negative one is its RangeError).
      if (a.shape.kind === 'number') return this.fill(this.toIndex(a), { name: this.b.lit(0, 'zero'), shape: NUMBER }, shape, hint);
      const copy = this.asArray(args[0], a);
      return e.expression.text === 'Float32Array' && !this.isFloat32(args[0]) ? this.rounded(copy, hint) : copy;
    }
    if (this.isGlobal(e.expression, ['Array']) && args.length <= 1) {
      // `new Array(n)` has n holes, which read as undefined: arithmetic on one is NaN. tsad's
      // arrays hold numbers, so a hole is NaN from the start (writes then fill it, as in JavaScript).
      const n = args.length === 0 ? { name: this.b.lit(0, 'none'), shape: NUMBER } : this.site.expr(args[0], 'n');
      if (n.shape.kind !== 'number') fail(1121, args[0], 'new Array(n) needs a number n here; write an array literal for given elements');
      return this.fill(args.length === 0 ? n : this.arrayLength(n), { name: this.b.lit(NaN, 'hole'), shape: NUMBER }, { kind: 'array', container: 'Array', elem: NUMBER }, hint);
    }
    if (this.isGlobal(e.expression, ['Array'])) fail(1121, e, 'new Array(a, b, …) is not supported: write the literal [a, b, …]');
    return fail(1102, e, `'new ${e.expression.getText()}(...)' is not supported in differentiable functions`);
  }

  /** Calls that build or consume arrays: `.map`, `.reduce`, `.fill`, `Float64Array.from`, tsad's sum/dot/prod/iota. */
  call(e: ts.CallExpression, hint?: string): Value | undefined {
    const { t, checker } = this.site;
    const callee = e.expression;
    const helper = tsadExportName(callee, checker);
    if (helper && ARRAY_HELPERS.has(helper)) return this.arrayHelper(helper, e, hint);
    if (!t.isPropertyAccessExpression(callee)) return undefined;
    const method = callee.name.text;
    if (this.isGlobal(callee.expression, ['Float64Array', 'Float32Array', 'Array'])) {
      if (method !== 'from') fail(1121, e, `${callee.getText()} is not supported: build arrays with ${callee.expression.text}.from, new Float64Array(n) or a literal`);
      return this.arrayFrom(e, hint);
    }
    if (!this.isArrayValued(callee.expression)) return undefined;
    switch (method) {
      case 'map': {
        const xs = this.arrayOf(callee.expression);
        return this.map(xs, this.callback(e, 0, '.map'), e, hint, this.isFloat32(e));
      }
      case 'reduce': {
        const fn = this.callback(e, 0, '.reduce');
        if (e.arguments.length < 2) fail(1121, e, '.reduce needs its initial value here: xs.reduce((a, b) => a + b, 0)');
        const xs = this.arrayOf(callee.expression);
        const init = this.site.expr(e.arguments[1], 'init');
        return this.reduce(xs, fn, init, e, hint);
      }
      case 'fill':
        return this.fillNew(e, callee, hint);
      case 'slice': {
        const xs = this.arrayOf(callee.expression);
        if (!isNumberArray(xs.shape) && !isMatrix(xs.shape)) fail(1121, e, `.slice of ${describeShape(xs.shape)} is not supported`);
        const [start, end] = e.arguments.slice(0, 2).map((a) => this.site.expr(a, 'position'));
        for (const [k, v] of [start, end].entries()) if (v && v.shape.kind !== 'number') fail(1121, e.arguments[k], 'a slice position must be a number');
        return this.slice(xs, start, end, e, hint);
      }
      case 'pop':
      case 'shift':
      case 'unshift':
      case 'splice':
      case 'sort':
      case 'reverse':
      case 'copyWithin':
      case 'set':
        return this.write(e);
      default:
        return fail(1121, callee.name, `'.${method}' of an array is not supported in differentiable functions yet`);
    }
  }

  /** `new Array(n).fill(x)`, `Array(n).fill(x)`, `new Float64Array(n).fill(x)`: n copies of x. */
  private fillNew(e: ts.CallExpression, callee: ts.PropertyAccessExpression, hint?: string): Value {
    const { t } = this.site;
    let r = callee.expression;
    while (t.isParenthesizedExpression(r)) r = r.expression as ts.LeftHandSideExpression;
    const fresh = (t.isNewExpression(r) || t.isCallExpression(r)) && this.isGlobal(r.expression, ['Array', 'Float64Array', 'Float32Array']) && r.arguments?.length === 1;
    if (!fresh) return this.write(e);
    if (e.arguments.length !== 1) fail(1121, e, '.fill(x) with a start or end is not supported: fill a whole new array');
    const n = this.site.expr((r as ts.NewExpression).arguments![0], 'n');
    if (n.shape.kind !== 'number') fail(1121, r, 'the length of a new array must be a number');
    const x = this.site.expr(e.arguments[0], 'x');
    if (x.shape.kind !== 'number') fail(1120, e.arguments[0], `arrays hold numbers: cannot fill with ${describeShape(x.shape)}`);
    // new Array(n) takes only a whole n below 2^32 (a RangeError otherwise); a typed array truncates it.
    const count = this.isGlobal((r as ts.NewExpression | ts.CallExpression).expression, ['Array']) ? this.arrayLength(n) : this.toIndex(n);
    return this.fill(count, this.isFloat32(e) ? this.round32(x) : x, { kind: 'array', container: 'Float64Array', elem: NUMBER }, hint);
  }

  /** `Float64Array.from(a)`, `Float64Array.from(a, f)`, `Float64Array.from({ length: n }, (_, i) => f(i))`. */
  private arrayFrom(e: ts.CallExpression, hint?: string): Value {
    const { t } = this.site;
    const [src] = e.arguments;
    if (!src || e.arguments.length > 2) return fail(1121, e, 'write Float64Array.from(a), Float64Array.from(a, (x, i) => ...) or Float64Array.from({ length: n }, (_, i) => ...)');
    if (t.isObjectLiteralExpression(src)) {
      const prop = src.properties.length === 1 ? src.properties[0] : undefined;
      if (!prop || !t.isPropertyAssignment(prop) || prop.name.getText() !== 'length') fail(1121, src, 'the source of from must be an array or { length: n }');
      const n = this.site.expr(prop.initializer, 'n');
      if (n.shape.kind !== 'number') fail(1121, prop.initializer, 'the length must be a number');
      // JavaScript reads the length with ToLength: truncated, and clamped to 0 (a length of -1 is 0).
      return this.fromLength(this.toLength(n), this.callback(e, 1, 'from({ length: n }, ...)'), e, hint, this.isFloat32(e));
    }
    const xs = this.arrayOf(src);
    const round = this.isFloat32(e);
    if (e.arguments.length === 2) return this.map(xs, this.callback(e, 1, 'from(a, ...)'), e, hint, round);
    return round && !this.isFloat32(src) ? this.rounded(xs, hint) : xs;
  }

  private arrayHelper(name: string, e: ts.CallExpression, hint?: string): Value {
    const args = e.arguments;
    const want = name === 'dot' ? 2 : 1;
    if ((name === 'sum' || name === 'dot' || name === 'prod' || name === 'iota') && args.length !== want) fail(1121, e, `${name} takes ${want} argument(s)`);
    if (name === 'scan') {
      if (args.length < 2 || args.length > 3) fail(1121, e, 'scan takes (xs, op) or (xs, op, init)');
      const xs = this.arrayOf(args[0]);
      const init = args[2] ? this.site.expr(args[2], 'init') : undefined;
      if (init && init.shape.kind !== 'number') fail(1121, args[2], 'the initial value of scan must be a number');
      return this.scan(xs, args[1], init, e, hint);
    }
    if (name === 'gather' || name === 'scatter' || name === 'reduceByIndex') {
      const arity = name === 'gather' ? 2 : name === 'scatter' ? 3 : 4;
      if (args.length !== arity) fail(1121, e, `${name} takes ${arity} arguments`);
      const arrays = args.slice(0, name === 'reduceByIndex' ? 3 : arity).map((a) => this.arrayOf(a));
      for (const [k, x] of arrays.entries()) if (x.shape.kind !== 'array' || x.shape.elem.kind !== 'number') fail(1121, args[k], `${name} needs arrays of numbers, got ${describeShape(x.shape)}`);
      if (name === 'gather') return this.gather(arrays[0], arrays[1], e, hint);
      if (name === 'scatter') return this.scatter(arrays[0], arrays[1], arrays[2], e, hint);
      return this.reduceByIndex(arrays[0], arrays[1], arrays[2], args[3], e, hint);
    }
    if (name === 'matmul') {
      if (args.length !== 2) fail(1121, e, 'matmul takes two matrices');
      return this.matrices.matmul(this.site.expr(args[0], 'a'), this.site.expr(args[1], 'b'), e, hint);
    }
    if (name === 'iota') {
      const n = this.site.expr(args[0], 'n');
      if (n.shape.kind !== 'number') fail(1121, args[0], 'iota(n) needs a number');
      return this.iota(this.toIndex(n));
    }
    const xs = args.map((a) => this.arrayOf(a));
    for (const [k, x] of xs.entries()) if (x.shape.kind !== 'array' || x.shape.elem.kind !== 'number') fail(1121, args[k], `${name} needs arrays of numbers, got ${describeShape(x.shape)}`);
    if (name === 'sum') return this.sum(xs[0], hint ?? 'total');
    if (name === 'prod') return this.prod(xs[0]);
    return this.dot(xs[0], xs[1], e);
  }

  /** `a[i] = v`, `a[i] += v`, `a.push(v)`, `a.fill(v)`: writes into an array. */
  write(e: ts.Node): never {
    return fail(1122, e, 'this method changes the array it is called on, which is not supported: write elements with a[i] = v into a new local array, or build the array with .map or Float64Array.from({ length: n }, (_, i) => ...)');
  }

  /** `a.push(v)` as a new version of a: `append(a, v)` (in place where it may, ad/inplace.ts). */
  append(a: Value, v: Value, node: ts.Node): Value {
    if (a.shape.kind !== 'array' || a.shape.elem.kind !== 'number') return fail(1122, node, `only arrays of numbers can be pushed onto here, not ${describeShape(a.shape)}`);
    if (v.shape.kind !== 'number') fail(1120, node, `arrays hold numbers: cannot push ${describeShape(v.shape)}`);
    return { name: this.b.nl(userName(a.name), construct('append', [a.name, v.name], [], []), REAL_ARRAY_TYPE), shape: a.shape };
  }

  /** `a[i] = v` as a new version of a: `update(a, i, v)` (the backend runs it in place where it may, ad/inplace.ts). */
  update(a: Value, i: Value, v: Value, node: ts.Node): Value {
    if (a.shape.kind !== 'array' || a.shape.elem.kind !== 'number') return fail(1122, node, `only arrays of numbers can be written into here, not ${describeShape(a.shape)}`);
    if (i.shape.kind !== 'number') fail(1121, node, `an array index must be a number, got ${describeShape(i.shape)}`);
    if (v.shape.kind !== 'number') fail(1120, node, `arrays hold numbers: cannot write ${describeShape(v.shape)}`);
    return { name: this.b.nl(userName(a.name), construct('update', [a.name, i.name, v.name], [], []), REAL_ARRAY_TYPE), shape: a.shape };
  }

  // ---- reading ----

  /** The array each `len` result measures (a loop bounded by a.length needs no check against a). */
  private readonly measures = new Map<string, string>();
  /** The IR types of what `hoist` moved out of a callback: a comparison or an array built there has no front-end shape, but its binder is typed. */
  private readonly hoistedTypes = new Map<string, Type>();

  /** A free name's shape: the front end's, or one read off a hoisted binder's IR type. */
  private shapeOfFree(name: string): Shape | undefined {
    const known = this.site.shapeOfName(name);
    if (known) return known;
    const type = this.hoistedTypes.get(name);
    if (type?.tag === 'array' && type.elem.tag === 'real') return REAL_ARRAY;
    return undefined;
  }

  /** The type of a closed-over free name's parameter: from its shape, else its hoisted binder's type (a bool stays a bool). */
  private freeType(name: string, shape: Shape | undefined): Type | undefined {
    return shape ? irType(shape) : this.hoistedTypes.get(name);
  }

  length(v: Value, hint = 'n'): Value {
    if (isMatrix(v.shape)) return this.matrices.rows(v);
    const name = this.b.nl(hint, construct('len', [v.name], [], []), REAL);
    this.measures.set(name, v.name);
    return { name, shape: NUMBER };
  }

  /** Is `n` the length of the array `a` (computed by `length`)? */
  isLengthOf(n: string, a: string): boolean {
    return this.measures.get(n) === a;
  }

  read(a: Value, i: Value, hint?: string, node?: ts.Node): Value {
    if (isMatrix(a.shape)) return this.matrices.row(a, i, hint);
    const elem = elemShape(a.shape);
    // The IR's index has a tangent rule for elements that are numbers only.
    if (elem.kind !== 'number') {
      fail(1120, node!, `reading a row of an array of arrays (${describeShape(a.shape)}) is not differentiable yet: store the matrix flat, in a Float64Array with its row length (m[i * cols + j])`);
    }
    return { name: this.b.nl(hint ?? `${a.name}_i`, construct('index', [a.name, i.name], [], []), irType(elem)), shape: elem };
  }

  /** A tuple of numbers used where an array is expected (`const v = [a, b]` has TypeScript type number[]). */
  asArray(node: ts.Node, v: Value): Value {
    if (v.shape.kind === 'array') return v;
    if (v.shape.kind === 'tuple' && v.shape.elems.every((e) => e.kind === 'number')) {
      const arr = this.fromScalars(v.shape.elems.length, v, REAL_ARRAY);
      this.site.noteShape(arr);
      return arr;
    }
    return fail(1121, node, `this needs an array, got ${describeShape(v.shape)}`);
  }

  // ---- building ----

  fill(n: Value, x: Value, shape: Shape, hint = 'filled'): Value {
    return { name: this.b.nl(hint, construct('fill', [n.name, x.name], [], []), irType(shape)), shape };
  }

  zero(shape: Extract<Shape, { kind: 'array' }>): Value {
    if (isMatrix(shape)) return this.matrices.zero(shape);
    const none = { name: this.b.lit(0, 'none'), shape: NUMBER };
    const inner = shape.elem;
    const elem = inner.kind === 'array' ? this.zero(inner) : { name: this.b.lit(0, 'zero'), shape: NUMBER };
    return this.fill(none, elem, shape, 'empty');
  }

  /**
   * `[x, y, z]` typed as an array: a map over the indices choosing the element by a chain of
   * selects (the IR builds arrays only by fill and map). Each element is an invariant scalar,
   * so its cotangent is the sum over the map: k elements cost k² selects, fine for literals.
   */
  literal(e: ts.ArrayLiteralExpression, shape: Shape, hint?: string): Value {
    if (isMatrix(shape)) return this.matrices.literal(e, shape, hint);
    return this.literalOf(e, e.elements, shape, hint);
  }

  /** An array of numbers from the expressions `elements` (of the literal `e`). */
  literalOf(e: ts.ArrayLiteralExpression, elements: readonly ts.Expression[], shape: Shape, hint?: string): Value {
    const { t } = this.site;
    if (!isNumberArray(shape)) return fail(1121, e, `an array literal of ${describeShape(shape)} is not supported yet: build the inner arrays first and keep them in a tuple`);
    const parts = elements.map((el) => {
      if (t.isSpreadElement(el) || t.isOmittedExpression(el)) fail(1121, el, 'spread and holes are not supported in array literals');
      const v = this.site.expr(el);
      if (v.shape.kind !== 'number') fail(1105, el, `an element of a number array must be a number, got ${describeShape(v.shape)}`);
      return v;
    });
    const tup = { name: this.b.nl(`${hint ?? 'elems'}_t`, { tag: 'tuple', linear: false, elems: parts.map((p) => p.name) }), shape: { kind: 'tuple', elems: parts.map(() => NUMBER) } as Shape };
    return this.fromScalars(parts.length, tup, shape, parts, hint);
  }

  private fromScalars(k: number, tup: Value, shape: Shape, known?: Value[], hint?: string): Value {
    const b = this.b;
    let parts = known;
    if (!parts) {
      const names = Array.from({ length: k }, (_, j) => binder(b.fresh(`${tup.name}_${j}`), REAL));
      b.unpack(false, names, tup.name);
      parts = names.map((n) => ({ name: n.name, shape: NUMBER }));
    }
    const n = { name: b.lit(k, 'n'), shape: NUMBER };
    if (k === 0) return this.fill(n, { name: b.lit(0, 'zero'), shape: NUMBER }, shape, hint);
    const i = binder(b.fresh('j'), REAL);
    const params = parts.map((p) => binder(b.fresh(`${p.name}_e`), REAL));
    const inner = new Builder(b.names);
    // select(i == 0, p0, select(i == 1, p1, ... p_{k-1})).
    let acc = params[k - 1].name;
    for (let j = k - 2; j >= 0; j--) {
      const c = inner.lit(j, 'at');
      const is = inner.test('eq', [i.name, c], 'is');
      acc = inner.nl('elem', { tag: 'prim', op: 'select', args: [is, params[j].name, acc] }, REAL);
    }
    const body = inner.finish(ret([acc]));
    const slots = this.indices(n);
    const name = b.nl(hint ?? 'arr', construct('map', [n.name, slots.operand, ...parts.map((p) => p.name)], [], [lambda([i, slots.param, ...params], [], body)]), irType(shape));
    return { name, shape };
  }

  /** `Float64Array.from({ length: n }, (_, i) => f(i))` and `Array.from(...)`: a map over the indices. */
  fromLength(n: Value, fn: ts.ArrowFunction | ts.FunctionExpression, node: ts.Node, hint?: string, round = false): Value {
    if (fn.parameters.length > 2) fail(1121, fn, 'the callback of Array.from takes (value, index)');
    if (this.returnsArray(fn)) return this.mapByLoop(n, fn, node, hint, undefined, fn.parameters[1]);
    return this.mapOver([], n, fn, node, hint, fn.parameters[1], round);
  }

  // ---- Float32Array: JavaScript rounds every element it stores to the nearest float32 ----

  /** Does TypeScript type this expression as a Float32Array (so its elements are stored rounded)? */
  isFloat32(e: ts.Node): boolean {
    return typedArrayName(this.site.t, this.site.checker.getTypeAtLocation(e)) === 'Float32Array';
  }

  /** x as a Float32Array stores it: Math.fround, whose tangent is the identity's (prims/math). */
  round32(x: Value): Value {
    return { name: this.b.prim('fround', [x.name], `${userName(x.name)}_f32`), shape: NUMBER };
  }

  /** A copy of xs with every element rounded to float32 (`new Float32Array(a)`, `Float32Array.from(a)`). */
  private rounded(xs: Value, hint?: string): Value {
    const b = this.b;
    const [i, x] = [binder(b.fresh('i'), REAL), binder(b.fresh('x'), REAL)];
    const inner = new Builder(b.names);
    const y = inner.prim('fround', [x.name], 'f32');
    return { name: b.nl(hint ?? 'rounded', construct('map', [this.length(xs).name, xs.name], [], [lambda([i, x], [], inner.finish(ret([y])))]), REAL_ARRAY_TYPE), shape: xs.shape };
  }

  // ---- combinators ----

  /** `xs.map((x, i) => body)`: the IR map; free scalars become invariant operands, `w[i]` of another array a mapped operand. */
  /** `round`: the result is a Float32Array, each element stored rounded to float32. */
  map(xs: Value, fn: ts.ArrowFunction | ts.FunctionExpression, node: ts.Node, hint?: string, round = false): Value {
    if (fn.parameters.length > 2) fail(1121, fn.parameters[2], "the callback of .map takes (value, index): the array argument is not supported");
    const n = this.length(xs);
    // Rows in or rows out: a counted loop, its body the callback on row k (frontend/matrices.ts).
    if (isMatrix(xs.shape) || this.returnsArray(fn)) return this.mapByLoop(n, fn, node, hint, [fn.parameters[0], xs], fn.parameters[1], round);
    return this.mapOver([[fn.parameters[0], xs]], n, fn, node, hint, fn.parameters[1], round);
  }

  /** Does TypeScript type the callback's result as an array (the map then builds a matrix)? */
  private returnsArray(fn: ts.ArrowFunction | ts.FunctionExpression): boolean {
    const sig = this.site.checker.getSignatureFromDeclaration(fn);
    if (!sig) return false;
    const r = this.site.checker.getReturnTypeOfSignature(sig);
    return this.site.checker.isArrayType(r) || typedArrayName(this.site.t, r) !== undefined;
  }

  /**
   * A map whose callback takes or returns arrays (rows of a matrix): a counted loop over k < n
   * running the callback on element or row k; numbers are written into a new array, rows
   * appended to a new matrix's data.
   */
  private mapByLoop(
    n: Value,
    fn: ts.ArrowFunction | ts.FunctionExpression,
    node: ts.Node,
    hint: string | undefined,
    mapped: readonly [ts.ParameterDeclaration | undefined, Value] | undefined,
    indexParam: ts.ParameterDeclaration | undefined,
    round = false,
  ): Value {
    const lowerAt = (bind: (sym: ts.Symbol, v: Value) => void, k: Value): Value => {
      if (mapped?.[0]) bind(this.paramSymbol(mapped[0]), this.read(mapped[1], k, this.site.t.isIdentifier(mapped[0].name) ? mapped[0].name.text : 'x'));
      if (indexParam) bind(this.paramSymbol(indexParam), k);
      return this.site.callbackBody(fn, 'y');
    };
    const type = this.site.checker.getTypeAtLocation(node);
    if (this.returnsArray(fn)) {
      const shape = shapeOrMatrix(this.site, type, node);
      return this.matrices.fromRows(n, node, shape, lowerAt, hint);
    }
    // Numbers out: written into n zeros, element k on trip k (in place: the array is the loop's own).
    const out = this.fill(n, { name: this.b.lit(0, 'zero'), shape: NUMBER }, REAL_ARRAY, hint ?? 'mapped');
    return this.fold(n, out, node, hint, (bind, acc, k) => {
      const y = lowerAt(bind, k);
      if (y.shape.kind !== 'number') fail(1121, fn.body, `the callback of .map must return a number or an array of numbers, got ${describeShape(y.shape)}`);
      return this.update(acc, k, round ? this.round32(y) : y, node);
    });
  }

  private mapOver(
    mappedParams: readonly (readonly [ts.ParameterDeclaration | undefined, Value])[],
    length: Value,
    fn: ts.ArrowFunction | ts.FunctionExpression,
    node: ts.Node,
    hint: string | undefined,
    indexParam: ts.ParameterDeclaration | undefined,
    round = false,
  ): Value {
    const { t } = this.site;
    const b = this.b;
    let n = length;
    const i = binder(b.fresh(indexParam && t.isIdentifier(indexParam.name) ? indexParam.name.text : 'i'), REAL);
    const mapped: { operand: string; param: Binder }[] = [];
    const bindings: (readonly [ts.Symbol, Value])[] = [];
    for (const [p, xs] of mappedParams) {
      const elem = elemShape(xs.shape);
      const pname = p && t.isIdentifier(p.name) ? p.name.text : 'x';
      const param = binder(b.fresh(pname), irType(elem));
      mapped.push({ operand: xs.name, param });
      if (p) bindings.push([this.paramSymbol(p), { name: param.name, shape: elem }]);
    }
    if (indexParam) bindings.push([this.paramSymbol(indexParam), { name: i.name, shape: NUMBER }]);
    const { block: raw, results } = this.site.scope((bind) => {
      for (const [sym, v] of bindings) bind(sym, v);
      const y = this.site.callbackBody(fn, 'y');
      return [round && y.shape.kind === 'number' ? this.round32(y) : y];
    });
    const result = results[0];
    if (result.shape.kind !== 'number') fail(1121, fn.body, `the callback of .map must return a number here, got ${describeShape(result.shape)}`);
    const own = new Set([i.name, ...mapped.map((m) => m.param.name)]);
    const body = this.hoist(raw, own);
    // Arrays the body reads only at the map's index are zipped in as mapped operands.
    const zipped = this.zip(body, i.name, own, n, node, mappedParams.length > 0);
    for (const z of zipped.arrays) mapped.push(z);
    // A zip needs arrays of one length: checked once, before the map (JavaScript would read undefined).
    const first = mappedParams[0]?.[1];
    for (const z of zipped.arrays.filter((a) => a.direct)) {
      const what = first ? `the arrays '${userName(first.name)}' and '${userName(z.operand)}' of ${sourceSnippet(node)} must have the same length` : `the array '${userName(z.operand)}' of ${sourceSnippet(node)} must have length n`;
      n = this.sameLength(n, { name: z.operand, shape: REAL_ARRAY }, what);
    }
    const closed = this.close(zipped.body, new Set([...own, ...zipped.arrays.map((z) => z.param.name)]), node, 'map');
    if (mapped.length === 0) mapped.push(this.indices(n));
    const lam = lambda([i, ...mapped.map((m) => m.param), ...closed.params], [], closed.body);
    const name = b.nl(hint ?? 'mapped', construct('map', [n.name, ...mapped.map((m) => m.operand), ...closed.operands], [], [lam]), REAL_ARRAY_TYPE);
    return { name, shape: REAL_ARRAY };
  }

  /**
   * `xs.reduce((acc, x) => acc + x, init)` and the other associative operators are the IR's reduce
   * combinator, a left fold from `init` (not `init + sum(xs)`, which rounds differently from
   * JavaScript); any other lambda is JavaScript's left fold, a counted loop carrying the
   * accumulator and reading `xs[k]`.
   */
  reduce(xs: Value, fn: ts.ArrowFunction | ts.FunctionExpression, init: Value, node: ts.Node, hint?: string): Value {
    const { t } = this.site;
    if (fn.parameters.length < 2 || fn.parameters.length > 3) fail(1121, fn, 'the callback of .reduce takes (accumulator, value) or (accumulator, value, index)');
    const op = init.shape.kind === 'number' ? associativeOperator(t, this.site.checker, fn) : undefined;
    if (op === 'add' && !hasFolds()) {
      const s = this.sum(xs);
      return { name: this.b.prim('add', [init.name, s.name], hint ?? 'total'), shape: NUMBER };
    }
    // An associative operator the IR reduces as a combinator (exact adjoints with zeros and ties).
    if (op && hasFolds()) return this.combinator('reduce', xs, init, (acc, x, b) => b.prim(op, [acc, x], 'acc'), hint);
    return this.fold(this.length(xs), init, node, hint, (bind, acc, k) => {
      bind(this.paramSymbol(fn.parameters[0]), acc);
      bind(this.paramSymbol(fn.parameters[1]), this.read(xs, k, 'x'));
      if (fn.parameters[2]) bind(this.paramSymbol(fn.parameters[2]), k);
      return this.site.callbackBody(fn, 'acc');
    });
  }

  /** A left fold as a counted loop of `n` trips: `step` binds the accumulator and the index, and gives the next accumulator. */
  private fold(n: Value, init: Value, node: ts.Node, hint: string | undefined, step: (bind: (sym: ts.Symbol, v: Value) => void, acc: Value, k: Value) => Value): Value {
    const b = this.b;
    const k = binder(b.fresh('k'), REAL);
    const acc = binder(b.fresh('acc'), irType(init.shape));
    const accV = { name: acc.name, shape: init.shape };
    const kV = { name: k.name, shape: NUMBER };
    const lowered = this.site.scope((bind) => [step(bind, accV, kV)]);
    const next = lowered.results[0];
    this.site.conform(node, next, init.shape, 'the value the callback of .reduce returns');
    const own = new Set([k.name, acc.name]);
    const closed = this.close(lowered.block, own, node, 'loop');
    const lam = lambda([k, ...closed.params, acc], [], closed.body);
    const name = b.nl(hint ?? 'folded', construct('loop', [n.name, ...closed.operands, init.name], [], [lam]), irType(init.shape));
    return { name, shape: init.shape };
  }

  sum(xs: Value, hint = 'total'): Value {
    return { name: this.b.nl(hint, construct('sum', [xs.name], [], []), REAL), shape: NUMBER };
  }

  /** Σ a_i b_i: a map of products and a sum (the lengths checked once). */
  dot(a: Value, b2: Value, node: ts.Node): Value {
    const b = this.b;
    const n = this.sameLength(this.length(a), b2, `the arrays of ${sourceSnippet(node)} must have the same length`);
    const [x, y, i] = [binder(b.fresh('x'), REAL), binder(b.fresh('y'), REAL), binder(b.fresh('i'), REAL)];
    const inner = new Builder(b.names);
    const p = inner.prim('mul', [x.name, y.name], 'p');
    const products = b.nl('products', construct('map', [n.name, a.name, b2.name], [], [lambda([i, x, y], [], inner.finish(ret([p])))]), REAL_ARRAY_TYPE);
    return this.sum({ name: products, shape: REAL_ARRAY }, 'dot');
  }

  /** Π xs: the reduce combinator when there is one, else a left fold (both exact with zeros: no division). */
  prod(xs: Value): Value {
    if (hasFolds()) return this.combinator('reduce', xs, { name: this.b.lit(1, 'one'), shape: NUMBER }, (acc, x, b) => b.prim('mul', [acc, x], 'acc'), 'product');
    const one = { name: this.b.lit(1, 'one'), shape: NUMBER };
    const b = this.b;
    const n = this.length(xs);
    const k = binder(b.fresh('k'), REAL);
    const acc = binder(b.fresh('acc'), REAL);
    const u = binder(b.fresh('u'), REAL_ARRAY_TYPE);
    const inner = new Builder(b.names);
    const x = inner.nl('x', construct('index', [u.name, k.name], [], []), REAL);
    const next = inner.prim('mul', [acc.name, x], 'acc');
    const name = b.nl('product', construct('loop', [n.name, xs.name, one.name], [], [lambda([k, u, acc], [], inner.finish(ret([next])))]), REAL);
    return { name, shape: NUMBER };
  }

  /**
   * tsad's `scan(xs, op, init?)`: the inclusive scan, `op` one of '+', '*', 'min', 'max' (the
   * initial value defaults to its neutral element) or a lambda of its two parameters only.
   */
  scan(xs: Value, op: ts.Expression, init: Value | undefined, node: ts.Node, hint?: string): Value {
    if (!hasFolds()) return fail(1121, node, 'scan is not supported in differentiable functions yet: write it as a loop over the array');
    const body = this.operator(op, 'scan');
    if (!init && body.neutral === undefined) return fail(1121, node, 'scan with a function needs its initial value: scan(xs, (a, b) => ..., init)');
    const start = init ?? { name: this.b.lit(body.neutral!, 'neutral'), shape: NUMBER };
    return this.bindFold('scan', xs, start, body.acc, body.x, body.block, hint);
  }

  /**
   * The operator of scan or reduceByIndex as a body over (accumulator, element): '+', '*', 'min',
   * 'max' (with its neutral element), or a lambda written in place that reads only its two
   * parameters (the combinator may group it any way).
   */
  private operator(op: ts.Expression, what: string): { acc: Binder; x: Binder; block: Block; neutral?: number } {
    const { t } = this.site;
    const acc = binder(this.b.fresh('acc'), REAL);
    const x = binder(this.b.fresh('x'), REAL);
    if (t.isStringLiteral(op)) {
      const known = OPERATORS[op.text];
      if (!known) return fail(1121, op, `${what}'s operator is '+', '*', 'min', 'max' or a function, not '${op.text}'`);
      const inner = new Builder(this.b.names);
      const next = inner.prim(known.prim, [acc.name, x.name], 'acc');
      return { acc, x, block: inner.finish(ret([next])), neutral: known.neutral };
    }
    let fn: ts.Expression = op;
    while (t.isParenthesizedExpression(fn)) fn = fn.expression;
    if (!t.isArrowFunction(fn) && !t.isFunctionExpression(fn)) return fail(1121, op, `${what}'s operator must be '+', '*', 'min', 'max' or a function written in place`);
    if (fn.parameters.length !== 2) return fail(1121, fn, `${what}'s operator takes two parameters (accumulator, value)`);
    const lambdaFn = fn;
    const lowered = this.site.scope((bind) => {
      bind(this.paramSymbol(lambdaFn.parameters[0]), { name: acc.name, shape: NUMBER });
      bind(this.paramSymbol(lambdaFn.parameters[1]), { name: x.name, shape: NUMBER });
      return [this.site.callbackBody(lambdaFn, 'acc')];
    });
    if (lowered.results[0].shape.kind !== 'number') fail(1121, fn.body, `${what}'s operator must return a number`);
    const free = [...freeVars(lowered.block).nl].filter((v) => v !== acc.name && v !== x.name);
    if (free.length > 0) fail(1121, fn, `${what}'s operator may read only its two parameters, not '${userName(free[0])}': the combinator runs it in any grouping (write a loop for a fold that reads more)`);
    return { acc, x, block: lowered.block };
  }

  /** tsad's `gather(xs, indices)`: out[k] = xs[indices[k]] (an index outside xs is a RangeError). */
  gather(xs: Value, idx: Value, node: ts.Node, hint?: string): Value {
    if (!isConstruct('gather')) return fail(1121, node, 'gather is not supported in differentiable functions yet: write it as a loop over the indices');
    return { name: this.b.nl(hint ?? 'gathered', construct('gather', [xs.name, idx.name], [], []), REAL_ARRAY_TYPE), shape: REAL_ARRAY };
  }

  /**
   * `a.slice(start?, end?)` with JavaScript's meaning (negative positions count from the end, both
   * clamped to the array): a gather of a at start + i for i below the slice's length.
   */
  slice(a: Value, start: Value | undefined, end: Value | undefined, node: ts.Node, hint?: string): Value {
    if (!isConstruct('gather')) return fail(1121, node, "'.slice' of an array is not supported in differentiable functions yet");
    if (isMatrix(a.shape)) return this.matrices.slice(a, start, end, hint);
    const { from, count } = this.span(this.length(a), start, end);
    return this.gatherRange(a, from, count, hint ?? 'sliced');
  }

  /**
   * The first position and the count of `.slice(start, end)` of `len` elements, as JavaScript
   * computes them: each position through ToIntegerOrInfinity (truncated, NaN is 0), negative
   * ones from the end, both clamped to [0, len].
   */
  span(len: Value, start: Value | undefined, end: Value | undefined): { from: Value; count: Value } {
    const b = this.b;
    const zero = b.lit(0, 'zero');
    // select(k < 0, max(len + k, 0), min(k, len)) of k = ToIntegerOrInfinity(position)
    const position = (p: Value): string => {
      const k = this.toInteger(p).name;
      const negative = b.test('lt', [k, zero], 'negative');
      const fromEnd = b.prim('max', [b.prim('add', [len.name, k], 'back'), zero], 'back');
      const clamped = b.prim('min', [k, len.name], 'clamped');
      return b.nl('position', { tag: 'prim', op: 'select', args: [negative, fromEnd, clamped] }, REAL);
    };
    const from = start ? position(start) : zero;
    const to = end ? position(end) : len.name;
    return { from: { name: from, shape: NUMBER }, count: { name: b.prim('max', [b.prim('sub', [to, from], 'span'), zero], 'n'), shape: NUMBER } };
  }

  // ---- lengths from user code, as JavaScript reads them ----

  /** ECMAScript's ToIntegerOrInfinity: truncated toward zero, NaN is 0 (a count: no tangent flows). */
  toInteger(n: Value): Value {
    const b = this.b;
    const x = b.prim('stop_gradient', [n.name], 'count');
    const nan = b.test('ne', [x, x], 'nan');
    return { name: b.nl('count', { tag: 'prim', op: 'select', args: [nan, b.lit(0, 'zero'), b.prim('trunc', [x], 'count')] }, REAL), shape: NUMBER };
  }

  /** ToLength, what `Array.from({ length: n })` and `Float64Array.from` read: ToIntegerOrInfinity clamped to [0, 2^53 − 1]. */
  toLength(n: Value): Value {
    const b = this.b;
    const k = this.toInteger(n).name;
    const low = b.prim('max', [k, b.lit(0, 'zero')], 'count');
    return { name: b.prim('min', [low, b.lit(Number.MAX_SAFE_INTEGER, 'most')], 'count'), shape: NUMBER };
  }

  /**
   * ToIndex, what `new Float64Array(n)` reads: ToIntegerOrInfinity, and a RangeError below 0 or
   * above 2^53 − 1 (the allocation of the result throws JavaScript's own RangeError for it).
   */
  toIndex(n: Value): Value {
    const b = this.b;
    const k = this.toInteger(n);
    // -0.5 truncates to -0, a valid length: 0. A negative one goes to the allocation as it was
    // written, so that JavaScript's message names it.
    const below = b.test('lt', [k.name, b.lit(0, 'zero')], 'below');
    const given = b.prim('stop_gradient', [n.name], 'count');
    return { name: b.nl('count', { tag: 'prim', op: 'select', args: [below, given, b.prim('add', [k.name, b.lit(0, 'zero')], 'count')] }, REAL), shape: NUMBER };
  }

  /**
   * `new Array(n)` and `Array(n)` with one number: a RangeError unless n is an integer in
   * [0, 2^32 − 1] (ToUint32(n) = n), as JavaScript says: "Invalid array length".
   */
  arrayLength(n: Value): Value {
    const b = this.b;
    const x = b.prim('stop_gradient', [n.name], 'count');
    const whole = b.test('eq', [b.prim('trunc', [x], 'whole'), x], 'whole');
    const low = b.test('ge', [x, b.lit(0, 'zero')], 'low');
    const high = b.test('le', [x, b.lit(2 ** 32 - 1, 'most')], 'high');
    const ok = b.nl('valid', { tag: 'prim', op: 'and', args: [whole, b.nl('valid', { tag: 'prim', op: 'and', args: [low, high] }, { tag: 'bool' })] }, { tag: 'bool' });
    const bad = b.nl('bad', { tag: 'prim', op: 'select', args: [ok, b.lit(0, 'zero'), b.lit(1, 'one')] }, REAL);
    const checked = this.atMostRaw({ name: bad, shape: NUMBER }, { name: b.lit(0, 'zero'), shape: NUMBER }, 'Invalid array length');
    return { name: b.prim('add', [x, checked.name], 'count'), shape: NUMBER };
  }

  /** a[from], …, a[from + count − 1]: a gather (an index outside a is a RangeError). */
  gatherRange(a: Value, from: Value, count: Value, hint: string): Value {
    const b = this.b;
    const j = binder(b.fresh('j'), REAL);
    const offset = binder(b.fresh('offset'), REAL);
    const inner = new Builder(b.names);
    const at = inner.prim('add', [j.name, offset.name], 'at');
    const slots = this.indices(count);
    const idx = b.nl(`${hint}_index`, construct('map', [count.name, slots.operand, from.name], [], [lambda([j, slots.param, offset], [], inner.finish(ret([at])))]), REAL_ARRAY_TYPE);
    return { name: b.nl(hint, construct('gather', [a.name, idx], [], []), REAL_ARRAY_TYPE), shape: REAL_ARRAY };
  }

  /** tsad's `scatter(dest, indices, values)`: a copy of dest with values at the (distinct) indices. */
  scatter(dest: Value, idx: Value, vals: Value, node: ts.Node, hint?: string): Value {
    if (!isConstruct('scatter')) return fail(1121, node, 'scatter is not supported in differentiable functions yet');
    return { name: this.b.nl(hint ?? 'scattered', construct('scatter', [dest.name, idx.name, vals.name], [], []), REAL_ARRAY_TYPE), shape: REAL_ARRAY };
  }

  /** tsad's `reduceByIndex(dest, indices, values, op)`: the histogram, bins outside dest ignored. */
  reduceByIndex(dest: Value, idx: Value, vals: Value, op: ts.Expression, node: ts.Node, hint?: string): Value {
    if (!isConstruct('reduceByIndex')) return fail(1121, node, 'reduceByIndex is not supported in differentiable functions yet');
    const body = this.operator(op, 'reduceByIndex');
    const e = construct('reduceByIndex', [dest.name, idx.name, vals.name], [], [lambda([body.acc, body.x], [], body.block)]);
    return { name: this.b.nl(hint ?? 'histogram', e, REAL_ARRAY_TYPE), shape: REAL_ARRAY };
  }

  /** `reduce` or `scan` over xs from init with the operator `step` builds from (accumulator, element). */
  private combinator(kind: 'scan' | 'reduce', xs: Value, init: Value, step: (acc: string, x: string, b: Builder) => string, hint?: string): Value {
    const b = this.b;
    const [acc, x] = [binder(b.fresh('acc'), REAL), binder(b.fresh('x'), REAL)];
    const inner = new Builder(b.names);
    const next = step(acc.name, x.name, inner);
    return this.bindFold(kind, xs, init, acc, x, inner.finish(ret([next])), hint);
  }

  private bindFold(kind: 'scan' | 'reduce', xs: Value, init: Value, acc: Binder, x: Binder, body: Block, hint?: string): Value {
    const n = this.length(xs);
    const e = construct(kind, [n.name, init.name, xs.name], [], [lambda([acc, x], [], body)]);
    if (kind === 'reduce') return { name: this.b.nl(hint ?? 'reduced', e, REAL), shape: NUMBER };
    return { name: this.b.nl(hint ?? 'scanned', e, REAL_ARRAY_TYPE), shape: REAL_ARRAY };
  }

  /** [0, 1, …, n − 1]: a map over the indices (integers: no tangent flows through them). */
  iota(n: Value): Value {
    const b = this.b;
    const i = binder(b.fresh('i'), REAL);
    const inner = new Builder(b.names);
    const body = inner.finish(ret([i.name]));
    const slots = this.indices(n);
    return { name: b.nl('iota', construct('map', [n.name, slots.operand], [], [lambda([i, slots.param], [], body)]), REAL_ARRAY_TYPE), shape: REAL_ARRAY };
  }

  /** A map needs an array to map over: n zeros, whose element the body ignores, for a map over indices only. */
  private indices(n: Value): { operand: string; param: Binder } {
    const zeros = this.fill(n, { name: this.b.lit(0, 'zero'), shape: NUMBER }, REAL_ARRAY, 'slots');
    return { operand: zeros.name, param: binder(this.b.fresh('slot'), REAL) };
  }

  /** stopGradient of an array: every element through stop_gradient. */
  stop(a: Value, hint?: string): Value {
    if (isMatrix(a.shape)) return this.matrices.stop(a, hint);
    if (!isNumberArray(a.shape)) return a;
    const b = this.b;
    const n = this.length(a);
    const [i, x] = [binder(b.fresh('i'), REAL), binder(b.fresh('x'), REAL)];
    const inner = new Builder(b.names);
    const y = inner.prim('stop_gradient', [x.name], `${x.name}_const`);
    return { name: b.nl(hint ?? `${a.name}_const`, construct('map', [n.name, a.name], [], [lambda([i, x], [], inner.finish(ret([y])))]), REAL_ARRAY_TYPE), shape: a.shape };
  }

  // ---- run-time checks (constructs/array/checks.ts), once per map or loop ----

  /** `n` if it is at most `limit`, else a RangeError saying `what`. */
  atMost(n: Value, limit: Value, what: string): Value {
    return this.atMostRaw(n, limit, `tsad: ${this.site.functionName}: ${what}`);
  }

  /** `atMost` with the message as it is (JavaScript's own words). */
  atMostRaw(n: Value, limit: Value, message: string): Value {
    const msg = this.b.lit(message, 'what');
    return { name: this.b.nl(n.name, construct('atmost', [n.name, limit.name, msg], [], []), REAL), shape: NUMBER };
  }

  /** The number n, checked equal to m (two checks, each feeding the next): m's value. */
  sameNumber(n: Value, m: Value, what: string): Value {
    return this.atMost(m, this.atMost(n, m, what), what);
  }

  /** The length n, checked equal to the length of `other`. */
  sameLength(n: Value, other: Value, what: string): Value {
    return this.sameNumber(n, this.length(other), what);
  }

  // ---- closing bodies ----

  /**
   * Statements of a body that read nothing bound inside it (its parameters or earlier inner
   * statements) move before the construct: they run once, and a free tuple's unpacking or a free
   * array's length becomes a free scalar, which a map can take as an invariant.
   */
  private hoist(body: Block, own: ReadonlySet<string>): Block {
    const inner = new Set(own);
    const kept: Stmt[] = [];
    for (const s of body.stmts) {
      const reads = freeVars(block([s], ret([]))).nl;
      const bound = s.tag === 'let' ? [...s.nl, ...s.lin] : s.names;
      const linear = s.tag === 'let' ? s.lin.length > 0 : s.linear;
      if (!linear && ![...reads].some((r) => inner.has(r))) {
        this.b.stmt(s);
        for (const x of bound) if (x.type) this.hoistedTypes.set(x.name, x.type);
        continue;
      }
      kept.push(s);
      for (const x of bound) inner.add(x.name);
    }
    return { stmts: kept, result: body.result };
  }

  /** Arrays read only as `w[i]` at the map's own index become mapped operands (a zip). */
  /**
   * Arrays the body reads as `w[i]` at the map's own index become mapped operands (a zip, whose
   * lengths are checked); reads at an index computed from i and free numbers only (`w[i + 1]`,
   * `w[n - 1 - i]`) become a gather of w at those indices before the map, itself a mapped
   * operand (when the IR has gather). Any other read of a free array is TSAD1121.
   */
  private zip(body: Block, i: string, own: ReadonlySet<string>, n: Value, node: ts.Node, exact: boolean): { body: Block; arrays: { operand: string; param: Binder; direct: boolean }[] } {
    const free = [...freeVars(body).nl].filter((x) => !own.has(x));
    const arrays: { operand: string; param: Binder; direct: boolean }[] = [];
    const rename = new Map<string, string>();
    const dropped = new Set<Stmt>();
    const isRead = (st: Stmt, w: string): st is Extract<Stmt, { tag: 'let' }> => st.tag === 'let' && st.rhs.tag === 'construct' && st.rhs.op === 'index' && st.rhs.nl[0] === w;
    const refuse = (w: string): never =>
      fail(1121, node, `the callback reads the array '${userName(w)}' other than at an index computed from the map's own: a map may read another array as w[i] or w[f(i)]; write a for loop that accumulates, or map over the indices you need`);
    for (const w of free) {
      const shape = this.shapeOfFree(w);
      if (!shape || shape.kind !== 'array') continue;
      const reads = body.stmts.filter((st) => isRead(st, w));
      const others = body.stmts.filter((st) => !reads.includes(st as never) && freeVars(block([st], ret([]))).nl.has(w));
      if (reads.length === 0 || others.length > 0 || freeVars(body.result).nl.has(w)) refuse(w);
      // One mapped operand per distinct index: w itself at i, a gather of w elsewhere.
      const byIndex = new Map<string, Binder>();
      for (const st of reads) {
        const at = (st.rhs as Extract<typeof st.rhs, { tag: 'construct' }>).nl[1];
        let param = byIndex.get(at);
        if (!param) {
          param = binder(this.b.fresh(`${userName(w)}_${at === i ? 'i' : 'at'}`), irType(elemShape(shape)));
          byIndex.set(at, param);
          // Over an array, w[i] zips w (same length, checked); over indices only, w may be longer.
          if (at === i && (exact || !isConstruct('gather'))) arrays.push({ operand: w, param, direct: true });
          else {
            const slice = isConstruct('gather') ? this.indexSlice(body, at, i, own) : undefined;
            if (!slice) refuse(w);
            arrays.push({ operand: this.gatherAt(w, slice!, at, i, n, node), param, direct: false });
          }
        }
        dropped.add(st);
        rename.set(st.nl[0].name, param.name);
      }
    }
    if (arrays.length === 0) return { body, arrays };
    const kept = { stmts: body.stmts.filter((st) => !dropped.has(st)), result: body.result };
    const r = (x: string) => rename.get(x) ?? x;
    return { body: rewriteBlock(kept, { expr: (e) => renameOperands(e, r), stmt: (st, emit) => emit(renameStmtOperands(st, r)) }), arrays };
  }

  /**
   * The statements of the body that compute `target` from the index i and free numbers only (no
   * array read, no other parameter, no construct), in order; undefined when there are others.
   */
  private indexSlice(body: Block, target: string, i: string, own: ReadonlySet<string>): Stmt[] | undefined {
    const defs = new Map<string, Stmt>();
    for (const st of body.stmts) for (const x of st.tag === 'let' ? [...st.nl, ...st.lin] : st.names) defs.set(x.name, st);
    const need = new Set<Stmt>();
    const todo = [target];
    while (todo.length > 0) {
      const x = todo.pop()!;
      if (x === i) continue;
      if (own.has(x)) return undefined;
      const st = defs.get(x);
      if (!st || need.has(st)) continue;
      if (st.tag === 'let' && (st.lin.length > 0 || st.rhs.tag === 'construct' || st.rhs.tag === 'call' || st.rhs.tag === 'block')) return undefined;
      need.add(st);
      todo.push(...freeVars(block([st], ret([]))).nl);
    }
    return body.stmts.filter((st) => need.has(st));
  }

  /** gather(w, idx) with idx the map over i < n of the slice's value: its binders renamed. */
  private gatherAt(w: string, slice: readonly Stmt[], target: string, i: string, n: Value, node: ts.Node): string {
    const b = this.b;
    const j = binder(b.fresh('j'), REAL);
    const fresh = new Map<string, string>([[i, j.name]]);
    const r = (x: string) => fresh.get(x) ?? x;
    const copied = slice.map((st): Stmt => {
      const rebind = (x: Binder) => {
        fresh.set(x.name, b.fresh(x.name));
        return binder(fresh.get(x.name)!, x.type);
      };
      if (st.tag === 'unpack') {
        const tuple = r(st.tuple);
        return { ...st, tuple, names: st.names.map(rebind) };
      }
      const rhs = renameOperands(st.rhs, r);
      return { ...st, rhs, nl: st.nl.map(rebind), lin: st.lin.map(rebind) };
    });
    const closed = this.close({ stmts: copied, result: ret([r(target)]) }, new Set([j.name]), node, 'map');
    const slots = this.indices(n);
    const at = b.nl(`${userName(w)}_index`, construct('map', [n.name, slots.operand, ...closed.operands], [], [lambda([j, slots.param, ...closed.params], [], closed.body)]), REAL_ARRAY_TYPE);
    return b.nl(`${userName(w)}_at`, construct('gather', [w, at], [], []), REAL_ARRAY_TYPE);
  }

  /** A loop body's free variables as operands with parameters of their own. */
  closeLoop(body: Block, own: ReadonlySet<string>, node: ts.Node): { operands: string[]; params: Binder[]; body: Block } {
    return this.close(body, own, node, 'loop');
  }

  /** The body's free variables become operands with parameters of their own (renamed inside). */
  private close(body: Block, own: ReadonlySet<string>, node: ts.Node, op: 'map' | 'loop'): { operands: string[]; params: Binder[]; body: Block } {
    const free = [...freeVars(body).nl].filter((n) => !own.has(n));
    const fresh = new Map(free.map((n) => [n, this.b.fresh(n)] as const));
    const rename = (n: string) => fresh.get(n) ?? n;
    const renamed = rewriteBlock(body, { expr: (e) => renameOperands(e, rename), stmt: (st, emit) => emit(renameStmtOperands(st, rename)) });
    if (op === 'loop') {
      return { operands: free, params: free.map((n) => binder(fresh.get(n)!, this.freeType(n, this.shapeOfFree(n)))), body: renamed };
    }
    // A map's invariants are scalars: a free tuple or object (a parameter passed on to a call,
    // `xs.map((x) => model(p, x))`) goes in as its numbers, and is rebuilt at the top of the body.
    // The parameters are typed: a map tells mapped from invariant operands by them.
    const operands: string[] = [];
    const params: Binder[] = [];
    const rebuild: Stmt[] = [];
    for (const n of free) {
      const known = this.shapeOfFree(n);
      const shape = known ?? NUMBER;
      const type = this.freeType(n, known);
      if (hasArrayIn(shape) || type?.tag === 'array') {
        fail(1121, node, `the callback of .map uses '${userName(n)}' (${describeShape(shape)}) other than by reading it at the map's index: a map reads another array only as w[i]; write a for loop`);
      }
      if (shape.kind === 'tuple' || shape.kind === 'object') {
        const leaves = this.scalarLeaves(n, shape);
        operands.push(...leaves.map((l) => l.name));
        const inside = leaves.map((l) => binder(this.b.fresh(l.name), irType(l.shape)));
        params.push(...inside);
        rebuild.push(...this.rebuilt(fresh.get(n)!, shape, inside.map((b) => b.name)));
        continue;
      }
      operands.push(n);
      params.push(binder(fresh.get(n)!, type ?? REAL));
    }
    return { operands, params, body: { stmts: [...rebuild, ...renamed.stmts], result: renamed.result } };
  }

  /** The scalars of a tuple value, unpacked before the construct, in order. */
  private scalarLeaves(name: string, shape: Shape): Value[] {
    if (shape.kind !== 'tuple' && shape.kind !== 'object') return [{ name, shape }];
    const parts = shape.kind === 'tuple' ? shape.elems : shape.fields.map(([, f]) => f);
    const names = parts.map((p, k) => binder(this.b.fresh(`${name}_${k}`), irType(p)));
    this.b.unpack(false, names, name);
    return parts.flatMap((p, k) => this.scalarLeaves(names[k].name, p));
  }

  /** Statements binding `name` to the tuple of a shape built from its scalar leaves, in order. */
  private rebuilt(name: string, shape: Shape, leaves: readonly string[]): Stmt[] {
    const out: Stmt[] = [];
    let next = 0;
    const go = (s: Shape, into?: string): string => {
      if (s.kind !== 'tuple' && s.kind !== 'object') return leaves[next++];
      const parts = (s.kind === 'tuple' ? s.elems : s.fields.map(([, f]) => f)).map((p) => go(p));
      const target = into ?? this.b.fresh(`${name}_part`);
      out.push({ tag: 'let', nl: [binder(target, irType(s))], lin: [], rhs: { tag: 'tuple', linear: false, elems: parts } });
      return target;
    };
    go(shape, name);
    return out;
  }

  private paramSymbol(p: ts.ParameterDeclaration): ts.Symbol {
    const { t, checker } = this.site;
    if (!t.isIdentifier(p.name) || p.dotDotDotToken || p.initializer) fail(1121, p, 'callback parameters must be plain names');
    return checker.getSymbolAtLocation(p.name)!;
  }
}

function hasArrayIn(s: Shape): boolean {
  return s.kind === 'array' || (s.kind === 'tuple' && s.elems.some(hasArrayIn)) || (s.kind === 'object' && s.fields.some(([, f]) => hasArrayIn(f)));
}

/** A node's source on one line, shortened, for run-time messages. */
export function sourceSnippet(node: ts.Node): string {
  const t = node.getText().replace(/\s+/g, ' ');
  return t.length > 40 ? `${t.slice(0, 37)}...` : t;
}

/** The shape of an expression TypeScript types as a matrix; number[][] when it says otherwise. */
function shapeOrMatrix(site: ArraySite, type: ts.Type, node: ts.Node): Extract<Shape, { kind: 'array' }> {
  let shape: Shape | undefined;
  try {
    shape = shapeOfType(site.t, site.checker, type, node);
  } catch {
    shape = undefined;
  }
  return shape && isMatrix(shape) ? shape : NUMBER_MATRIX;
}

export function elemShape(s: Shape): Shape {
  if (s.kind !== 'array') throw new Error(`not an array: ${describeShape(s)}`);
  return s.elem;
}

/**
 * The primitive of a lambda that is an associative operator of its two parameters, in either
 * order: `(a, b) => a + b`, `a * b`, `Math.min(a, b)`, `Math.max(a, b)`.
 */
function associativeOperator(t: typeof ts, checker: ts.TypeChecker, fn: ts.ArrowFunction | ts.FunctionExpression): string | undefined {
  let body: ts.Node | undefined = fn.body;
  if (t.isBlock(body)) {
    const only = body.statements.length === 1 ? body.statements[0] : undefined;
    body = only && t.isReturnStatement(only) ? only.expression : undefined;
  }
  while (body && t.isParenthesizedExpression(body)) body = body.expression;
  if (!body || fn.parameters.length !== 2) return undefined;
  const [a, b] = fn.parameters.map((p) => (t.isIdentifier(p.name) ? checker.getSymbolAtLocation(p.name) : undefined));
  const sym = (e: ts.Expression) => (t.isIdentifier(e) ? checker.getSymbolAtLocation(e) : undefined);
  const both = (l: ts.Expression, r: ts.Expression) => !!a && !!b && ((sym(l) === a && sym(r) === b) || (sym(l) === b && sym(r) === a));
  if (t.isBinaryExpression(body) && both(body.left, body.right)) {
    if (body.operatorToken.kind === t.SyntaxKind.PlusToken) return 'add';
    if (body.operatorToken.kind === t.SyntaxKind.AsteriskToken) return 'mul';
  }
  if (t.isCallExpression(body) && body.arguments.length === 2 && both(body.arguments[0], body.arguments[1])) {
    const callee = body.expression;
    if (t.isPropertyAccessExpression(callee) && t.isIdentifier(callee.expression) && callee.expression.text === 'Math' && (callee.name.text === 'min' || callee.name.text === 'max')) {
      const decl = checker.getSymbolAtLocation(callee.expression)?.declarations?.[0];
      if (decl?.getSourceFile().hasNoDefaultLib) return callee.name.text;
    }
  }
  return undefined;
}
