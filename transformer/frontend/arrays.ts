// Arrays in differentiable functions (docs/frontend.md, "Arrays"): builders (`new Float64Array`,
// literals, `Array.from`), `.map` and `.reduce`, lowered to the IR's array constructs and counted
// loops. ArrayLowering is the top layer of array lowering (arrayBasics.ts says how it is built);
// FunctionLowering asks it whether an expression is array code (`newArray`, `wantsArray`,
// `isArrayValued`, arrayMethods.ts's `lowerArrayCall`) and has it lower reads and writes.
import type * as ts from 'typescript';
import { Binder, REAL, binder, block, construct, drop, lambda, letS, nvar, ret } from '../ir/syntax';
import { closeLoop } from '../ir/close';
import { fail } from './diagnostics';
import { Shape, NUMBER, NUMBER_MATRIX, describeShape, irType, isMatrix, isNumberArray, isRecords, shapeOfType, typedArrayName } from './shapes';
import type { Value } from './values';
import { ArraySite, INT32_ARRAY, REAL_ARRAY, REAL_ARRAY_TYPE, elemShape, sourceSnippet, storedValue, userName } from './arraySite';
import { ArrayCombinators } from './arrayCombinators';

export class ArrayLowering extends ArrayCombinators {
  arrayOf(e: ts.Expression, hint?: string): Value {
    return this.asArray(e, this.site.expr(e, hint));
  }

  /** `new Float64Array(n)` (zeros), `new Float64Array(a)` (a copy); `new Array(n)` only with `.fill`. */
  newArray(e: ts.NewExpression, hint?: string): Value {
    const args = e.arguments ?? [];
    if (this.isGlobal(e.expression, ['Float64Array', 'Float32Array', 'Int32Array']) && args.length === 1) {
      const a = this.site.expr(args[0], 'n');
      // An Int32Array holds indices: a constant, whose writes are truncated (FunctionLowering).
      const shape: Shape = e.expression.text === 'Int32Array' ? INT32_ARRAY : { kind: 'array', container: 'Float64Array', elem: NUMBER };
      // The length as JavaScript reads it (ToIndex: truncated; a negative one is its RangeError).
      if (a.shape.kind === 'number') return this.fill(this.toIndex(a), { name: this.b.lit(0, 'zero'), shape: NUMBER }, shape, hint);
      const copy = this.asArray(args[0], a);
      if (e.expression.text === 'Float32Array') return this.isFloat32(args[0]) ? copy : this.rounded(copy, hint);
      return this.inContainer(copy, shape, hint);
    }
    const typed = this.isGlobal(e.expression, ['Array']) && args.length <= 1 ? this.typedShape(e) : undefined;
    // TypeScript types `new Array(n)` any[]: the rows it will hold are in the declared type.
    const context = this.isGlobal(e.expression, ['Array']) && args.length === 1 && !typed ? this.site.checker.getContextualType(e) : undefined;
    const rowsOf = typed ?? (context ? this.typedShapeOf(context, e) : undefined);
    if (rowsOf && isMatrix(rowsOf)) {
      // `const L: number[][] = new Array(n)`: n rows not written yet (matrices.ts, holes).
      const n = this.site.expr(args[0], 'n');
      if (n.shape.kind !== 'number') fail(1121, args[0], 'new Array(n) needs a number n here; write an array literal for given rows');
      return this.matrices.holes(this.arrayLength(n), rowsOf, hint);
    }
    if (typed && isRecords(typed)) {
      // `new Array<Mass>(n)`: n holes, each read as a record of NaNs (JavaScript's would throw on
      // a field of undefined; the writes that follow fill them, as in JavaScript).
      const n = args.length === 0 ? { name: this.b.lit(0, 'none'), shape: NUMBER } : this.site.expr(args[0], 'n');
      if (n.shape.kind !== 'number') fail(1121, args[0], 'new Array(n) needs a number n here; write an array literal for given elements');
      return this.records.holes(args.length === 0 ? n : this.arrayLength(n), typed, e, hint);
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

  /** The shape TypeScript gives an expression, or undefined where it is none tsad holds. */
  private typedShape(e: ts.Expression): Shape | undefined {
    return this.typedShapeOf(this.site.checker.getTypeAtLocation(e), e);
  }

  private typedShapeOf(type: ts.Type, e: ts.Expression): Shape | undefined {
    try {
      return shapeOfType(this.site.t, this.site.checker, type, e);
    } catch {
      return undefined;
    }
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

  /**
   * `[x, y, z]` typed as an array: a map over the indices choosing the element by a chain of
   * selects (the IR builds arrays only by fill and map). Each element is an invariant scalar,
   * so its cotangent is the sum over the map: k elements cost k² selects, fine for literals.
   */
  literal(e: ts.ArrayLiteralExpression, shape: Shape, hint?: string): Value {
    if (isMatrix(shape)) return this.matrices.literal(e, shape, hint);
    if (isRecords(shape)) return this.records.literal(e, shape, hint);
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
    const inner = b.inner();
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
    if (this.returnsArray(fn) || this.returnsRecord(fn)) return this.mapByLoop(n, fn, node, hint, undefined, fn.parameters[1]);
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
  rounded(xs: Value, hint?: string): Value {
    const b = this.b;
    const [i, x] = [binder(b.fresh('i'), REAL), binder(b.fresh('x'), REAL)];
    const inner = b.inner();
    const y = inner.prim('fround', [x.name], 'f32');
    return { name: b.nl(hint ?? 'rounded', construct('map', [this.length(xs).name, xs.name], [], [lambda([i, x], [], inner.finish(ret([y])))]), REAL_ARRAY_TYPE), shape: xs.shape };
  }

  // ---- Int32Array: JavaScript stores every element as a 32-bit integer ----

  /**
   * xs copied into a new array of the shape `into` (`new Int32Array(a)`, `Float64Array.from(s)`,
   * `s.map(f)` of an Int32Array): into an Int32Array, each element as it stores it (ToInt32, a
   * constant); out of an Int32Array into an array of reals, a copy whose IR type holds reals, so
   * that what is written into it later is stored as it is (the backend may hold an Int32Array as
   * one, ir/types.ts); xs itself where both hold the same kind of numbers.
   */
  inContainer(xs: Value, into: Shape, hint?: string): Value {
    if (!isNumberArray(xs.shape) || !isNumberArray(into)) return xs;
    const ints = (s: Shape) => s.kind === 'array' && s.container === 'Int32Array';
    if (ints(xs.shape) === ints(into)) return xs;
    const b = this.b;
    const [i, x] = [binder(b.fresh('i'), REAL), binder(b.fresh('x'), REAL)];
    const inner = b.inner();
    const y = storedValue(inner, into, x.name, 'stored');
    return { name: b.nl(hint ?? 'copied', construct('map', [this.length(xs).name, xs.name], [], [lambda([i, x], [], inner.finish(ret([y])))]), irType(into)), shape: into };
  }

  // ---- map and reduce ----

  /** `xs.map((x, i) => body)`: the IR map; free scalars become invariant operands, `w[i]` of another array a mapped operand. */
  /** `round`: the result is a Float32Array, each element stored rounded to float32. */
  map(xs: Value, fn: ts.ArrowFunction | ts.FunctionExpression, node: ts.Node, hint?: string, round = false): Value {
    if (fn.parameters.length > 2) fail(1121, fn.parameters[2], 'the callback of .map takes (value, index): the array argument is not supported');
    const n = this.length(xs);
    // Rows in or rows out: a counted loop, its body the callback on row k (frontend/matrices.ts).
    // A callback that reads another array whole (`x.reduce(…)` in `W[0].map((_, k) => …)`) is no
    // map combinator's body (arrayClosures.ts, zip): the counted loop runs it as written.
    if (isMatrix(xs.shape) || isRecords(xs.shape) || this.returnsArray(fn) || this.returnsRecord(fn) || readsArrayWhole(this.site.t, this.site.checker, fn))
      return this.mapByLoop(n, fn, node, hint, [fn.parameters[0], xs], fn.parameters[1], round);
    return this.mapOver([[fn.parameters[0], xs]], n, fn, node, hint, fn.parameters[1], round);
  }

  /** Does TypeScript type the callback's result as an array (the map then builds a matrix)? */
  private returnsArray(fn: ts.ArrowFunction | ts.FunctionExpression): boolean {
    const sig = this.site.checker.getSignatureFromDeclaration(fn);
    if (!sig) return false;
    const r = this.site.checker.getReturnTypeOfSignature(sig);
    return this.site.checker.isArrayType(r) || typedArrayName(this.site.t, r) !== undefined;
  }

  /** Does TypeScript type the callback's result as a record or tuple (the map then builds an array of records)? */
  private returnsRecord(fn: ts.ArrowFunction | ts.FunctionExpression): boolean {
    const sig = this.site.checker.getSignatureFromDeclaration(fn);
    if (!sig) return false;
    const r = this.site.checker.getReturnTypeOfSignature(sig);
    if (this.site.checker.isTupleType(r)) return true;
    return !!(r.flags & this.site.t.TypeFlags.Object) && !this.site.checker.isArrayType(r) && typedArrayName(this.site.t, r) === undefined && r.getCallSignatures().length === 0;
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
    if (this.returnsRecord(fn)) {
      const shape = shapeOfType(this.site.t, this.site.checker, type, node);
      if (!isRecords(shape)) return fail(1121, fn.body, `the callback of .map must return a number, an array of numbers or a record of numbers, got ${describeShape(shape)}`);
      return this.records.fromCount(n, node, shape, lowerAt, hint);
    }
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
    const {
      block: raw,
      results,
      inner,
    } = this.site.scope((bind) => {
      for (const [sym, v] of bindings) bind(sym, v);
      const y = this.site.callbackBody(fn, 'y');
      return [round && y.shape.kind === 'number' ? this.round32(y) : y];
    });
    const result = results[0];
    if (result.shape.kind !== 'number') fail(1121, fn.body, `the callback of .map must return a number here, got ${describeShape(result.shape)}`);
    const own = new Set([i.name, ...mapped.map((m) => m.param.name)]);
    // The zip and the gathers below check the reads at positions that i moves; a read at a
    // position the same for every i moves out of the body with its check (readChecks.ts).
    const placeChecks = this.checks.take(inner, raw, i.name, n, [], true, [...own]);
    const body = this.moveInvariantsOut(raw, own, n.name);
    // Arrays the body reads only at the map's index are zipped in as mapped operands.
    const zipped = this.zip(body, i.name, own, n, node, mappedParams.length > 0);
    for (const z of zipped.arrays) mapped.push(z);
    // A zip needs arrays of one length. JavaScript lets the array read at i be longer than the
    // mapped one (`xs.slice(1).map((x, i) => x - xs[i])`): its first n elements are zipped. A
    // shorter one would read undefined: checked once, before the map.
    const first = mappedParams[0]?.[1];
    for (const z of zipped.arrays.filter((a) => a.direct)) {
      if (first) {
        const what = `the array '${userName(z.operand)}' read at i in ${sourceSnippet(node)} must be at least as long as '${userName(first.name)}'`;
        z.operand = this.prefix(z.operand, this.atMost(n, this.length({ name: z.operand, shape: REAL_ARRAY }), what));
      } else n = this.sameLength(n, { name: z.operand, shape: REAL_ARRAY }, `the array '${userName(z.operand)}' of ${sourceSnippet(node)} must have length n`);
    }
    placeChecks(() => false);
    const closed = this.close(zipped.body, new Set([...own, ...zipped.arrays.map((z) => z.param.name)]), node, 'map');
    if (mapped.length === 0) mapped.push(this.indices(n));
    const lam = lambda([i, ...mapped.map((m) => m.param), ...closed.params], [], closed.body);
    const name = b.nl(hint ?? 'mapped', construct('map', [n.name, ...mapped.map((m) => m.operand), ...closed.operands], [], [lam]), REAL_ARRAY_TYPE);
    return { name, shape: REAL_ARRAY };
  }

  /**
   * The first n elements of w (n ≤ its length, checked): w itself where it has exactly n, else a
   * gather of them, so an array as long as the map costs a comparison, not a copy.
   */
  private prefix(w: string, n: Value): string {
    const b = this.b;
    const whole = b.test('eq', [this.length({ name: w, shape: REAL_ARRAY }).name, n.name], 'whole');
    const part = b.inner();
    const slots = part.nl('slots', construct('fill', [n.name, part.lit(0, 'zero')], [], []), REAL_ARRAY_TYPE);
    const [j, slot] = [binder(b.fresh('j'), REAL), binder(b.fresh('slot'), REAL)];
    const idx = part.nl('first', construct('map', [n.name, slots], [], [lambda([j, slot], [], block([letS([], [], drop(nvar(slot.name)))], ret([j.name])))]), REAL_ARRAY_TYPE);
    const taken = part.nl(`${userName(w)}_first`, construct('gather', [w, idx], [], []), REAL_ARRAY_TYPE);
    const closed = closeLoop([block([], ret([w])), part.finish(ret([taken]))], new Set(), (x) => b.fresh(x));
    return b.nl(
      `${userName(w)}_zipped`,
      construct(
        'cond',
        [whole, ...closed.invariants],
        [],
        closed.bodies.map(({ inv, body }) => lambda(inv, [], body)),
      ),
      REAL_ARRAY_TYPE,
    );
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
    // An associative operator the IR reduces as a combinator (exact adjoints with zeros and ties).
    if (op) return this.combinator('reduce', xs, init, (acc, x, b) => b.prim(op, [acc, x], 'acc'), hint);
    return this.fold(this.length(xs), init, node, hint, (bind, acc, k) => {
      bind(this.paramSymbol(fn.parameters[0]), acc);
      bind(this.paramSymbol(fn.parameters[1]), this.read(xs, k, 'x'));
      if (fn.parameters[2]) bind(this.paramSymbol(fn.parameters[2]), k);
      return this.site.callbackBody(fn, 'acc');
    });
  }

  /** A left fold as a counted loop of `n` trips: `step` binds the accumulator and the index, and gives the next accumulator. */
  fold(n: Value, init: Value, node: ts.Node, hint: string | undefined, step: (bind: (sym: ts.Symbol, v: Value) => void, acc: Value, k: Value) => Value): Value {
    const b = this.b;
    const k = binder(b.fresh('k'), REAL);
    const acc = binder(b.fresh('acc'), irType(init.shape));
    const accV = { name: acc.name, shape: init.shape };
    const kV = { name: k.name, shape: NUMBER };
    const lowered = this.site.scope((bind) => [step(bind, accV, kV)]);
    const next = lowered.results[0];
    this.site.conform(node, next, init.shape, 'the value the callback of .reduce returns');
    this.checks.hoist(lowered.inner, lowered.block, k.name, n, [{ param: acc.name, init: init.name }]);
    const own = new Set([k.name, acc.name]);
    const closed = this.close(lowered.block, own, node, 'loop');
    const lam = lambda([k, ...closed.params, acc], [], closed.body);
    const name = b.nl(hint ?? 'folded', construct('loop', [n.name, ...closed.operands, init.name], [], [lam]), irType(init.shape));
    return { name, shape: init.shape };
  }
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

/** Whether a callback uses an array of the function around it other than by element or length (`x.reduce(…)`, `dot(x, w)`). */
function readsArrayWhole(t: typeof ts, checker: ts.TypeChecker, fn: ts.ArrowFunction | ts.FunctionExpression): boolean {
  let whole = false;
  const visit = (n: ts.Node): void => {
    if (whole) return;
    if (t.isIdentifier(n) && !(t.isPropertyAccessExpression(n.parent) && n.parent.name === n)) {
      const decl = checker.getSymbolAtLocation(n)?.valueDeclaration;
      const outside = decl !== undefined && (t.isVariableDeclaration(decl) || t.isParameter(decl)) && !isWithin(decl, fn);
      const type = outside ? checker.getTypeAtLocation(n) : undefined;
      const array = type !== undefined && (checker.isArrayType(type) || typedArrayName(t, type) !== undefined);
      const p = n.parent;
      const part = (t.isElementAccessExpression(p) && p.expression === n) || (t.isPropertyAccessExpression(p) && p.expression === n && p.name.text === 'length');
      if (array && !part) whole = true;
    }
    t.forEachChild(n, visit);
  };
  visit(fn.body);
  return whole;
}

const isWithin = (n: ts.Node, owner: ts.Node): boolean => {
  for (let p: ts.Node | undefined = n; p; p = p.parent) if (p === owner) return true;
  return false;
};
