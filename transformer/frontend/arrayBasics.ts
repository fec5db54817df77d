// Arrays in differentiable functions (docs/frontend.md, "Arrays"), the first layer of their
// lowering: recognising array code, lengths, reads and writes, JavaScript's conversions of
// lengths and positions, and the run-time checks. Each layer is a file extending the one below:
// arrayClosures.ts, arrayCombinators.ts, and arrays.ts's ArrayLowering on top; arrayMethods.ts
// says which calls are array code and which layer method lowers each. FunctionLowering owns
// statements, scopes and variables; it hands array lowering an ArraySite (arraySite.ts).
import type * as ts from 'typescript';
import { Builder } from '../ir/build';
import { Binder, Block, REAL, Type, binder, construct, lambda, ret } from '../ir/syntax';
import { fail } from './diagnostics';
import { Shape, NUMBER, describeShape, irType, isMatrix, isRecords, typedArrayName } from './shapes';
import { MatrixLowering } from './matrices';
import { RecordLowering } from './records';
import type { Value } from './values';
import { ArrayOps, ArraySite, REAL_ARRAY, REAL_ARRAY_TYPE, elemShape, sourceSnippet, userName } from './arraySite';
import { ReadChecks } from './readChecks';

export abstract class ArrayBasics implements ArrayOps {
  readonly matrices: MatrixLowering;
  readonly records: RecordLowering;

  /** The checks of the elements the source reads (readChecks.ts). */
  readonly checks: ReadChecks;

  constructor(readonly site: ArraySite) {
    this.checks = new ReadChecks({ b: () => this.site.b(), atMost: (n, limit, what) => this.atMost(n, limit, what), within: (lo, hi, limit, what, runs) => this.within(lo, hi, limit, what, runs) });
    this.matrices = new MatrixLowering(site, this);
    this.records = new RecordLowering(site, this, this.matrices);
  }

  protected get b(): Builder {
    return this.site.b();
  }

  /** A tuple of numbers where an array is needed (arrays.ts). */
  abstract asArray(node: ts.Node, v: Value): Value;

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

  /** `a[i] = v`, `a[i] += v`, `a.push(v)`, `a.fill(v)`: writes into an array. */
  write(e: ts.Node): never {
    return fail(
      1122,
      e,
      'this method changes the array it is called on, which is not supported: write elements with a[i] = v into a new local array, or build the array with .map or Float64Array.from({ length: n }, (_, i) => ...)',
    );
  }

  /** `a.push(v)` as a new version of a: `append(a, v)` (in place where it may, opt/inplace.ts). */
  append(a: Value, v: Value, node: ts.Node): Value {
    if (isRecords(a.shape)) return this.records.append(a, v, node);
    if (isMatrix(a.shape)) return this.matrices.appendRow(a, v, node);
    if (a.shape.kind !== 'array' || a.shape.elem.kind !== 'number') return fail(1122, node, `only arrays of numbers can be pushed onto here, not ${describeShape(a.shape)}`);
    if (v.shape.kind !== 'number') fail(1120, node, `arrays hold numbers: cannot push ${describeShape(v.shape)}`);
    return { name: this.b.nl(userName(a.name), construct('append', [a.name, v.name], [], []), REAL_ARRAY_TYPE), shape: a.shape };
  }

  /** `a[i] = v` as a new version of a: `update(a, i, v)` (the backend runs it in place where it may, opt/inplace.ts). */
  update(a: Value, i: Value, v: Value, node: ts.Node): Value {
    if (isRecords(a.shape)) return this.records.write(a, i, [], v, node);
    if (a.shape.kind !== 'array' || a.shape.elem.kind !== 'number') return fail(1122, node, `only arrays of numbers can be written into here, not ${describeShape(a.shape)}`);
    if (i.shape.kind !== 'number') fail(1121, node, `an array index must be a number, got ${describeShape(i.shape)}`);
    if (v.shape.kind !== 'number') fail(1120, node, `arrays hold numbers: cannot write ${describeShape(v.shape)}`);
    return { name: this.b.nl(userName(a.name), construct('update', [a.name, i.name, v.name], [], []), irType(a.shape)), shape: a.shape };
  }

  // ---- reading ----

  /** The array each `len` result measures (a loop bounded by a.length needs no check against a). */
  protected readonly measures = new Map<string, string>();

  /** The IR types of what `hoist` moved out of a callback: a comparison or an array built there has no front-end shape, but its binder is typed. */
  protected readonly hoistedTypes = new Map<string, Type>();

  /** A free name's shape: the front end's, or one read off a hoisted binder's IR type. */
  protected shapeOfFree(name: string): Shape | undefined {
    const known = this.site.shapeOfName(name);
    if (known) return known;
    const type = this.hoistedTypes.get(name);
    if (type?.tag === 'array' && type.elem.tag === 'real') return REAL_ARRAY;
    return undefined;
  }

  /** The type of a closed-over free name's parameter: from its shape, else its hoisted binder's type (a bool stays a bool). */
  protected freeType(name: string, shape: Shape | undefined): Type | undefined {
    return shape ? irType(shape) : this.hoistedTypes.get(name);
  }

  length(v: Value, hint = 'n'): Value {
    if (isMatrix(v.shape)) return this.matrices.rows(v);
    if (isRecords(v.shape)) return this.records.length(v);
    const name = this.b.nl(hint, construct('len', [v.name], [], []), REAL);
    this.measures.set(name, v.name);
    return { name, shape: NUMBER };
  }

  /** Is `n` the length of some array (computed by `length`): a whole number ≥ 0, never NaN? */
  isLength(n: string): boolean {
    return this.measures.has(n);
  }

  /** Is `n` the length of the array `a` (computed by `length`)? */
  isLengthOf(n: string, a: string): boolean {
    return this.measures.get(n) === a;
  }

  read(a: Value, i: Value, hint?: string, node?: ts.Node): Value {
    if (isMatrix(a.shape)) return this.matrices.row(a, i, hint);
    if (isRecords(a.shape)) return this.records.at(a, i, [], node!, hint);
    const elem = elemShape(a.shape);
    // The IR's index has a tangent rule for elements that are numbers only.
    if (elem.kind !== 'number') {
      fail(1120, node!, `reading a row of an array of arrays (${describeShape(a.shape)}) is not differentiable yet: store the matrix flat, in a Float64Array with its row length (m[i * cols + j])`);
    }
    return { name: this.b.nl(hint ?? `${a.name}_i`, construct('index', [a.name, i.name], [], []), irType(elem)), shape: elem };
  }

  /**
   * `a[i]` as the source reads it: the element, with a check that i is one of a's indices
   * (JavaScript's `undefined` past an end would make the value NaN; readChecks.ts).
   */
  readChecked(a: Value, i: Value, node: ts.Node, hint?: string): Value {
    if (!isMatrix(a.shape) && !isRecords(a.shape)) this.checkIndex(i, (name) => this.length({ name, shape: a.shape }), a.name, sourceSnippet(node));
    return this.read(a, i, hint, node);
  }

  /** A check that `i` is an index below `limit()` (the length of `source`, or one of its dimensions). */
  checkIndex(i: Value, limit: (source: string) => Value, source: string, what: string, verb?: 'writes', dim?: number): void {
    this.checks.check({ lo: [i.name], hi: [i.name], limit, source, what, verb, dim, natural: this.isNatural(i.name), direct: true });
  }

  /** Loop counters from 0 (each a whole number ≥ 0), set by the loops as they are lowered. */
  readonly naturals = new Set<string>();

  private isNatural(name: string): boolean {
    if (this.naturals.has(name)) return true;
    const def = this.b.recentDef(name);
    return def?.tag === 'let' && def.rhs.tag === 'lit' && typeof def.rhs.value === 'number' && Number.isInteger(def.rhs.value) && def.rhs.value >= 0;
  }

  // ---- building ----

  fill(n: Value, x: Value, shape: Shape, hint = 'filled'): Value {
    return { name: this.b.nl(hint, construct('fill', [n.name, x.name], [], []), irType(shape)), shape };
  }

  zero(shape: Extract<Shape, { kind: 'array' }>): Value {
    if (isMatrix(shape)) return this.matrices.zero(shape);
    if (isRecords(shape)) return this.records.zero(shape);
    const none = { name: this.b.lit(0, 'none'), shape: NUMBER };
    const inner = shape.elem;
    const elem = inner.kind === 'array' ? this.zero(inner) : { name: this.b.lit(0, 'zero'), shape: NUMBER };
    return this.fill(none, elem, shape, 'empty');
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
    const idx = this.rangeIndex(from, count, `${hint}_index`);
    return { name: this.b.nl(hint, construct('gather', [a.name, idx.name], [], []), REAL_ARRAY_TYPE), shape: REAL_ARRAY };
  }

  /** The indices from, …, from + count − 1 (for a gather or a scatter of a range). */
  rangeIndex(from: Value, count: Value, hint: string): Value {
    const b = this.b;
    const j = binder(b.fresh('j'), REAL);
    const offset = binder(b.fresh('offset'), REAL);
    const inner = b.inner();
    const at = inner.prim('add', [j.name, offset.name], 'at');
    const slots = this.indices(count);
    return { name: b.nl(hint, construct('map', [count.name, slots.operand, from.name], [], [lambda([j, slots.param, offset], [], inner.finish(ret([at])))]), REAL_ARRAY_TYPE), shape: REAL_ARRAY };
  }

  /** A map needs an array to map over: n zeros, whose element the body ignores, for a map over indices only. */
  protected indices(n: Value): { operand: string; param: Binder } {
    const zeros = this.fill(n, { name: this.b.lit(0, 'zero'), shape: NUMBER }, REAL_ARRAY, 'slots');
    return { operand: zeros.name, param: binder(this.b.fresh('slot'), REAL) };
  }

  // ---- run-time checks (constructs/array/checks.ts), once per map or loop ----

  /** `n` if it is at most `limit`, else a RangeError saying `what`. */
  atMost(n: Value, limit: Value, what: string): Value {
    return this.atMostRaw(n, limit, `tsad: ${this.site.functionName}: ${what}`);
  }

  /** lo, checked (with hi) as the indices of elements `limit` has where the bool `runs` holds (absent: always): else a RangeError naming the read (`what`). */
  within(lo: Value, hi: Value, limit: Value, what: string, runs?: string): Value {
    const msg = this.b.lit(`tsad: ${this.site.functionName}: ${what}`, 'what');
    const operands = [lo.name, hi.name, limit.name, msg, ...(runs === undefined ? [] : [runs])];
    return { name: this.b.nl(lo.name, construct('within', operands, [], []), REAL), shape: NUMBER };
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

  // ---- implemented by the layers above (matrices.ts builds on them) ----

  abstract literalOf(e: ts.ArrayLiteralExpression, elements: readonly ts.Expression[], shape: Shape, hint?: string): Value;
  abstract stop(a: Value, hint?: string): Value;
  abstract close(body: Block, own: ReadonlySet<string>, node: ts.Node, op: 'map' | 'loop'): { operands: string[]; params: Binder[]; body: Block };
}
