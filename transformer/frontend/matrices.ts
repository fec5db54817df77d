// Matrices in differentiable functions (docs/frontend.md, "Matrices"): a `number[][]` (or
// `Float64Array[]`) is rectangular, and the IR holds it flat, as the tuple `(data, rows, cols)`
// with data row-major. A deeper array of numbers (`number[][][]`, "Tensors") is the same with
// more dimensions, `(data, d0, …, dk−1)`: one rule per operation, whatever the rank. Flat storage is what makes the array machinery apply unchanged: `m[i][j]`
// is one `index` into data (its cotangent accumulates in O(1), linear-a.md "laccum"), a row is a
// gather of `cols` elements, a write is one `update`, and `matmul` is one construct. The
// dimensions are integers: they are read through stop_gradient, so no tangent flows from them.
import type * as ts from 'typescript';
import { Builder } from '../ir/build';
import { REAL, arrayType, binder, construct, lambda, ret, tuple } from '../ir/syntax';
import { isConstruct } from '../constructs/registry';
import { fail } from './diagnostics';
import { Shape, NUMBER, NUMBER_MATRIX, describeShape, irType, isMatrix, rowShape, tensorRank } from './shapes';
import type { ArrayOps, ArraySite, MatrixParts } from './arraySite';
import { sourceSnippet, userName } from './arraySite';
import type { Value } from './values';

type ArrayShape = Extract<Shape, { kind: 'array' }>;

const REAL_ARRAY_TYPE = arrayType(REAL);
const FLAT: ArrayShape = { kind: 'array', container: 'Float64Array', elem: NUMBER };

export class MatrixLowering {
  constructor(
    private readonly site: ArraySite,
    private readonly arrays: ArrayOps,
  ) {}

  private get b(): Builder {
    return this.site.b();
  }

  parts(m: Value): MatrixParts {
    return this.site.matrixParts(m);
  }

  /** The matrix value `(data, rows, cols)`, or a tensor's `(data, d0, …)`. */
  make(data: Value, dims: readonly Value[], shape: Shape = NUMBER_MATRIX, hint = 'matrix'): Value {
    return { name: this.b.nl(hint, tuple(false, [data.name, ...dims.map((d) => d.name)]), irType(shape)), shape };
  }

  /** `t[i][j].length` and so on: dimension k. */
  dim(m: Value, k: number): Value {
    return this.parts(m).dims[k];
  }

  /** How many numbers one index at depth `from` spans: the product of the dimensions after it (a matrix's row: cols). */
  private block(m: Value, from: number): Value {
    const dims = this.parts(m).dims.slice(from);
    let size = dims[0];
    for (const d of dims.slice(1)) size = { name: this.b.prim('mul', [size.name, d.name], 'block'), shape: NUMBER };
    return size;
  }

  /** Where the block at indices i0 … ip−1 starts in the data: ((i0·d1 + i1)·d2 + …)·block(p). */
  private start(m: Value, indices: readonly Value[]): Value {
    const b = this.b;
    const { dims } = this.parts(m);
    let at = indices[0];
    for (let k = 1; k < indices.length; k++) at = { name: b.prim('add', [b.prim('mul', [at.name, dims[k].name], 'row_start'), indices[k].name], 'at'), shape: NUMBER };
    return { name: b.prim('mul', [at.name, this.block(m, indices.length).name], 'row_start'), shape: NUMBER };
  }

  /** `m.length` */
  rows(m: Value): Value {
    return this.parts(m).rows;
  }

  /** `m[i].length` */
  cols(m: Value): Value {
    return this.parts(m).cols;
  }

  /** The flat position of an element: i·cols + j, ((i·d1 + j)·d2 + k) for a tensor. */
  private position(m: Value, indices: readonly Value[]): Value {
    const b = this.b;
    const { dims } = this.parts(m);
    let at = indices[0];
    for (let k = 1; k < indices.length; k++) at = { name: b.prim('add', [b.prim('mul', [at.name, dims[k].name], 'row_start'), indices[k].name], 'at'), shape: NUMBER };
    return at;
  }

  /** Each `m[i][j]` read by the name it binds: its matrix and indices, one per dimension (for loop trip checks). */
  private readonly reads = new Map<string, { readonly matrix: Value; readonly at: readonly string[] }>();

  /** `m[i][j]`, `t[i][j][k]`: one read of the data, whatever the row. */
  element(m: Value, indices: readonly Value[], hint?: string, node?: ts.Node): Value {
    // Each index within its own dimension: a column past the end would read the next row.
    // Unpacked before the checks: a check that leaves a loop's body takes what it bound with it.
    const { data } = this.parts(m);
    if (node) this.checkIndices(m, indices, node);
    const read = this.arrays.read(data, this.position(m, indices), hint ?? `${userName(m.name)}_ij`);
    this.reads.set(read.name, { matrix: m, at: indices.map((i) => i.name) });
    return read;
  }

  /** Each index within its own dimension (after `parts`: a check that leaves a loop's body takes what it bound with it). */
  private checkIndices(m: Value, indices: readonly Value[], node: ts.Node, verb?: 'writes'): void {
    indices.forEach((i, k) => this.arrays.checkIndex(i, (name) => this.dim({ name, shape: m.shape }, k), m.name, sourceSnippet(node), verb, k));
  }

  /** The matrix read `m[i][j]` that bound `name`, if it is one. */
  readOf(name: string): { readonly matrix: Value; readonly at: readonly string[] } | undefined {
    return this.reads.get(name);
  }

  /** `m[i]` as a value: the row, a gather of cols elements from i·cols (an index past the end is a RangeError). */
  row(m: Value, i: Value, hint?: string): Value {
    return this.sub(m, [i], hint);
  }

  /**
   * `t[i]`, `t[i][j]` short of an element: the block there, one gather of its numbers; a row
   * (an array) one index short of the rank, else a tensor of the remaining dimensions.
   */
  sub(m: Value, indices: readonly Value[], hint?: string, node?: ts.Node): Value {
    const { data, dims } = this.parts(m);
    if (node) this.checkIndices(m, indices, node);
    const size = this.block(m, indices.length);
    const r = this.arrays.gatherRange(data, this.start(m, indices), size, hint ?? `${userName(m.name)}_row`);
    let shape = m.shape as ArrayShape;
    for (const _ of indices) shape = rowShape(shape);
    if (!isMatrix(shape)) return { name: r.name, shape };
    return this.make({ name: r.name, shape: FLAT }, dims.slice(indices.length), shape, hint ?? `${userName(m.name)}_part`);
  }

  /**
   * `m.slice(start?, end?)`: rows start … end − 1 (JavaScript's positions), their data one gather.
   * JavaScript shares the rows with m; frontend/writes.ts refuses a write into either that
   * would show it.
   */
  slice(m: Value, start: Value | undefined, end: Value | undefined, hint?: string): Value {
    const b = this.b;
    const { data, rows, dims } = this.parts(m);
    const { from, count } = this.arrays.span(rows, start, end);
    const cols = this.block(m, 1);
    const at = { name: b.prim('mul', [from.name, cols.name], 'row_start'), shape: NUMBER };
    const size = { name: b.prim('mul', [count.name, cols.name], 'size'), shape: NUMBER };
    const part = this.arrays.gatherRange(data, at, size, hint ? `${hint}_data` : 'rows_data');
    return this.make(part, [count, ...dims.slice(1)], m.shape, hint ?? 'rows');
  }

  /** `m[i][j] = v`, `t[i][j][k] = v`: a new version of the matrix with one element of its data updated. */
  update(m: Value, indices: readonly Value[], v: Value, node: ts.Node): Value {
    // JavaScript writes a column past a row's end by making the row longer (and a row past the
    // end is a TypeError); the flat data would write the next row's element instead.
    const { data, dims } = this.parts(m);
    this.checkIndices(m, indices, node, 'writes');
    const written = this.arrays.update(data, this.position(m, indices), v, node);
    return this.make(written, dims, m.shape, userName(m.name));
  }

  /**
   * `m[i] = r` (a row swap, frontend/aliasing.ts): the row's cols elements of the data replaced
   * by r's, one scatter; r must be as long as a row (a matrix stays rectangular: RangeError).
   */
  updateRow(m0: Value, i: Value, r: Value, node: ts.Node, holes = false): Value {
    if (!isConstruct('scatter')) return fail(1121, node, 'replacing a row of a matrix is not supported in differentiable functions in this build');
    if (tensorRank(m0.shape) > 2) return fail(1122, node, `replacing a part of ${describeShape(m0.shape)} is not supported yet: write its elements`);
    const b = this.b;
    const m = holes ? this.widen(m0, this.arrays.length(r)) : m0;
    const { data, rows, cols } = this.parts(m);
    const n = this.arrays.sameNumber(this.arrays.length(r), cols, `the row written by ${sourceSnippet(node)} must be as long as the matrix's rows`);
    const start = { name: b.prim('mul', [i.name, cols.name], 'row_start'), shape: NUMBER };
    const idx = this.arrays.rangeIndex(start, n, 'row_slots');
    const written = b.nl(`${userName(m.name)}_data`, construct('scatter', [data.name, idx.name, r.name], [], []), REAL_ARRAY_TYPE);
    return this.make({ name: written, shape: FLAT }, [rows, cols], m.shape, userName(m.name));
  }

  /**
   * `new Array(n)` typed as a matrix: n rows with no width yet, (no data, n, 0). The first row
   * written gives the width (`widen`); reading a row before is out of range, as reading a field
   * of JavaScript's undefined throws.
   */
  holes(rows: Value, shape: ArrayShape, hint?: string): Value {
    const none = { name: this.b.lit(0, 'none'), shape: NUMBER };
    const n = { name: this.b.prim('stop_gradient', [rows.name], 'rows'), shape: NUMBER };
    return this.make(this.arrays.zero(FLAT), [n, none], shape, hint ?? 'rows');
  }

  /**
   * m, with its width set by a row of `width` written into it if it has no data yet (it began
   * as `new Array(n)`): its rows × width elements NaN (JavaScript's holes read as undefined) until
   * written. A matrix with data is returned as it is (the loop appending runs zero times).
   */
  widen(m: Value, width: Value): Value {
    const b = this.b;
    const { data, rows, cols } = this.parts(m);
    const len = this.arrays.length(data, 'len');
    const empty = b.test('eq', [len.name, b.lit(0, 'zero')], 'no_data');
    const w = b.nl('width', { tag: 'prim', op: 'select', args: [empty, b.prim('stop_gradient', [width.name], 'width'), cols.name] }, REAL);
    const missing = b.prim('sub', [b.prim('mul', [rows.name, w], 'size'), len.name], 'missing');
    const j = binder(b.fresh('j'), REAL);
    const acc = binder(b.fresh('data'), REAL_ARRAY_TYPE);
    const body = b.inner();
    const next = body.nl('data', construct('append', [acc.name, body.lit(Number.NaN, 'hole')], [], []), REAL_ARRAY_TYPE);
    const filled = b.nl(`${userName(m.name)}_data`, construct('loop', [missing, data.name], [], [lambda([j, acc], [], body.finish(ret([next])))]), REAL_ARRAY_TYPE);
    return this.make({ name: filled, shape: FLAT }, [rows, { name: w, shape: NUMBER }], m.shape, userName(m.name));
  }

  /** stopGradient of a matrix: its data through stop_gradient. */
  stop(m: Value, hint?: string): Value {
    const { data, dims } = this.parts(m);
    return this.make(this.arrays.stop(data), dims, m.shape, hint ?? `${m.name}_const`);
  }

  /** The 0 × 0 matrix. */
  zero(shape: ArrayShape): Value {
    const none = { name: this.b.lit(0, 'none'), shape: NUMBER };
    return this.make(
      this.arrays.zero(FLAT),
      Array.from({ length: tensorRank(shape) }, () => none),
      shape,
      'empty',
    );
  }

  /**
   * `[[a, b], [c, d]]` typed as a matrix: its rows written in place must be equally long (a
   * ragged literal is TSAD1120).
   */
  literal(e: ts.ArrayLiteralExpression, shape: ArrayShape, hint?: string): Value {
    const { t } = this.site;
    const rank = tensorRank(shape);
    if (!writtenInPlace(t, e, rank)) return this.ofRows(e, shape);
    const dims: number[] = [];
    const numbers: ts.Expression[] = [];
    // Depth first: every literal at a depth as long as the first one there.
    const walk = (lit: ts.ArrayLiteralExpression, depth: number): void => {
      if (dims[depth] === undefined) dims[depth] = lit.elements.length;
      else if (lit.elements.length !== dims[depth])
        fail(1120, lit, `the rows of a matrix must be equally long: this row has ${lit.elements.length} ${depth === rank - 1 ? 'numbers' : 'rows'}, the first ${dims[depth]}`);
      for (const el of lit.elements) {
        if (depth === rank - 1) {
          numbers.push(el);
          continue;
        }
        walk(skipParens(t, el) as ts.ArrayLiteralExpression, depth + 1);
      }
    };
    walk(e, 0);
    const data = this.arrays.literalOf(e, numbers, FLAT, hint ? `${hint}_data` : 'data');
    const names = rank === 2 ? ['rows', 'cols'] : dims.map((_, k) => `d${k}`);
    return this.make(
      data,
      Array.from({ length: rank }, (_, k) => ({ name: this.b.lit(dims[k] ?? 0, names[k]), shape: NUMBER })),
      shape,
      hint,
    );
  }

  /**
   * `[k1, k2]`, `[[a, b], r]` typed as a matrix, with rows that are arrays already: each row
   * appended as `m.push(row)` appends it (rows of different lengths: RangeError). JavaScript's
   * literal holds k1 itself; frontend/writes.ts refuses a write through either name that would
   * show it, so the copy is not observable.
   */
  private ofRows(e: ts.ArrayLiteralExpression, shape: ArrayShape): Value {
    const { t } = this.site;
    let m = this.zero(shape);
    for (const el of e.elements) {
      if (t.isSpreadElement(el) || t.isOmittedExpression(el)) return fail(1121, el, 'spread and holes are not supported in a matrix literal: push the rows one by one');
      const row = this.site.expr(el);
      m = this.appendRow(m, tensorRank(shape) === 2 ? this.arrays.asArray(el, row) : row, el, e);
    }
    return m;
  }

  /**
   * A matrix from `count` rows, `lowerRow` lowering row k (`m.map((r) => r.map(f))`,
   * `Array.from({ length: n }, (_, i) => …)`): a counted loop appending each row to the data.
   * The columns are the rows' length; a row of another length than the one before is a
   * RangeError (the data would not be rows × cols).
   */
  fromRows(count: Value, node: ts.Node, shape: ArrayShape, lowerRow: (bind: (sym: ts.Symbol, v: Value) => void, k: Value) => Value, hint?: string): Value {
    const b = this.b;
    const k = binder(b.fresh('k'), REAL);
    const data = binder(b.fresh('data'), REAL_ARRAY_TYPE);
    const rank = tensorRank(shape);
    // A matrix's rows have one dimension (their length), a tensor's parts rank − 1.
    const widths = Array.from({ length: rank - 1 }, () => binder(b.fresh('width'), REAL));
    const lowered = this.site.scope((bind) => {
      const lowered = lowerRow(bind, { name: k.name, shape: NUMBER });
      if (tensorRank(lowered.shape) !== rank - 1 || (rank === 2 && (lowered.shape.kind !== 'array' || lowered.shape.elem.kind !== 'number')))
        fail(1121, node, `each row of ${describeShape(shape)} must be ${describeShape(shape.elem)}, got ${describeShape(lowered.shape)}`);
      const r = rank === 2 ? lowered : this.parts(lowered).data;
      const inner = this.site.b();
      // The row's elements appended one by one (in place: the data is the loop's own).
      const j = binder(inner.fresh('j'), REAL);
      const rowParam = binder(inner.fresh('row'), REAL_ARRAY_TYPE);
      const acc = binder(inner.fresh('data'), REAL_ARRAY_TYPE);
      const body = inner.inner();
      const x = body.nl('x', construct('index', [rowParam.name, j.name], [], []), REAL);
      const next = body.nl('data', construct('append', [acc.name, x], [], []), REAL_ARRAY_TYPE);
      const n = inner.nl('n', construct('len', [r.name], [], []), REAL);
      const appended = inner.nl('data', construct('loop', [n, r.name, data.name], [], [lambda([j, rowParam, acc], [], body.finish(ret([next])))]), REAL_ARRAY_TYPE);
      // Every row as long as the one before (checked once per row): |n − width| on rows after
      // the first must be 0; the check feeds the width carried on, so that it stays.
      const rowDims = rank === 2 ? [{ name: n, shape: NUMBER }] : this.parts(lowered).dims;
      const checked = rowDims.map((d, q) => {
        const later = inner.test('gt', [k.name, inner.lit(0, 'zero')], 'later');
        const gap = inner.prim('abs', [inner.prim('sub', [d.name, widths[q].name], 'gap')], 'gap');
        const counted = inner.nl('gap', { tag: 'prim', op: 'select', args: [later, gap, inner.lit(0, 'zero')] }, REAL);
        const none = this.arrays.atMost(
          { name: counted, shape: NUMBER },
          { name: inner.lit(0, 'zero'), shape: NUMBER },
          `the rows of ${sourceSnippet(node)} must be equally long (a matrix is rows × cols)`,
        );
        return { name: inner.prim('add', [inner.prim('stop_gradient', [d.name], 'width'), none.name], 'width'), shape: NUMBER };
      });
      return [{ name: appended, shape: FLAT }, ...checked];
    });
    const closed = this.arrays.close(lowered.block, new Set([k.name, data.name, ...widths.map((w) => w.name)]), node, 'loop');
    const empty = this.arrays.zero(FLAT);
    const zero = b.lit(0, 'zero');
    const lam = lambda([k, ...closed.params, data, ...widths], [], closed.body);
    const names = [binder(b.fresh('data'), REAL_ARRAY_TYPE), ...widths.map(() => binder(b.fresh('cols'), REAL))];
    b.bind(names, [], construct('loop', [count.name, ...closed.operands, empty.name, ...widths.map(() => zero)], [], [lam]));
    const rows = { name: b.prim('stop_gradient', [count.name], 'rows'), shape: NUMBER };
    return this.make({ name: names[0].name, shape: FLAT }, [rows, ...names.slice(1).map((n) => ({ name: n.name, shape: NUMBER }))], shape, hint);
  }

  /**
   * `m.push(r)`: r's numbers appended to the data (in place, as for arrays), one more row. The
   * first row pushed sets the columns (`const out: number[][] = []` has none); a row of another
   * length is a RangeError (a matrix is rows × cols). A tensor takes a part of its dimensions.
   */
  appendRow(m: Value, r: Value, node: ts.Node, literal?: ts.Node): Value {
    const b = this.b;
    const rank = tensorRank(m.shape);
    if (tensorRank(r.shape) !== rank - 1 || (rank === 2 && (r.shape.kind !== 'array' || r.shape.elem.kind !== 'number')))
      return fail(1120, node, `${describeShape(m.shape)} takes rows of ${describeShape((m.shape as ArrayShape).elem)}: cannot push ${describeShape(r.shape)}`);
    const { data, rows, dims } = this.parts(m);
    const rowData = rank === 2 ? r : this.parts(r).data;
    const rowDims = rank === 2 ? [this.arrays.length(r)] : this.parts(r).dims;
    const n = b.nl('n', construct('len', [rowData.name], [], []), REAL);
    const j = binder(b.fresh('j'), REAL);
    const rowParam = binder(b.fresh('row'), REAL_ARRAY_TYPE);
    const acc = binder(b.fresh('data'), REAL_ARRAY_TYPE);
    const body = b.inner();
    const x = body.nl('x', construct('index', [rowParam.name, j.name], [], []), REAL);
    const next = body.nl('data', construct('append', [acc.name, x], [], []), REAL_ARRAY_TYPE);
    const appended = b.nl(`${userName(m.name)}_data`, construct('loop', [n, rowData.name, data.name], [], [lambda([j, rowParam, acc], [], body.finish(ret([next])))]), REAL_ARRAY_TYPE);
    const first = b.test('eq', [rows.name, b.lit(0, 'zero')], 'first');
    const widths = rowDims.map((d, q) => {
      const width = dims[q + 1];
      const gap = b.prim('abs', [b.prim('sub', [d.name, width.name], 'gap')], 'gap');
      const counted = b.nl('gap', { tag: 'prim', op: 'select', args: [first, b.lit(0, 'zero'), gap] }, REAL);
      const none = this.arrays.atMost(
        { name: counted, shape: NUMBER },
        { name: b.lit(0, 'zero'), shape: NUMBER },
        literal ? `the rows of ${sourceSnippet(literal)} must be equally long (a matrix is rows × cols)` : `the rows pushed by ${sourceSnippet(node)} must be equally long (a matrix is rows × cols)`,
      );
      const chosen = b.nl('width', { tag: 'prim', op: 'select', args: [first, b.prim('stop_gradient', [d.name], 'width'), width.name] }, REAL);
      return { name: b.prim('add', [chosen, none.name], 'width'), shape: NUMBER };
    });
    const more = { name: b.prim('add', [rows.name, b.lit(1, 'one')], 'rows'), shape: NUMBER };
    return this.make({ name: appended, shape: FLAT }, [more, ...widths], m.shape, userName(m.name));
  }

  /**
   * `m.flat()`: one level less, the data as it is (row-major already): a matrix's numbers, a
   * tensor's first two dimensions made one. JavaScript flattens only arrays, not typed rows.
   */
  flat(m: Value, node: ts.Node, hint?: string): Value {
    const shape = m.shape as ArrayShape;
    if (shape.elem.kind !== 'array' || shape.elem.container !== 'Array') return fail(1121, node, `.flat of ${describeShape(shape)} is not supported: JavaScript does not flatten typed arrays`);
    const { data, dims } = this.parts(m);
    if (tensorRank(shape) === 2) return { name: data.name, shape: shape.elem };
    const merged = { name: this.b.prim('mul', [dims[0].name, dims[1].name], 'rows'), shape: NUMBER };
    return this.make(data, [merged, ...dims.slice(2)], shape.elem, hint ?? `${userName(m.name)}_flat`);
  }

  /** tsad's `matmul(a, b)`: the matmul construct over the flat data (a's columns must be b's rows). */
  matmul(a: Value, b2: Value, node: ts.Node, hint?: string): Value {
    if (!isConstruct('matmul')) return fail(1121, node, 'matmul is not supported in differentiable functions in this build');
    for (const [k, m] of [a, b2].entries())
      if (!isMatrix(m.shape) || tensorRank(m.shape) !== 2) fail(1121, node, `matmul multiplies two matrices (number[][]); argument ${k + 1} is ${describeShape(m.shape)}`);
    const pa = this.parts(a);
    const pb = this.parts(b2);
    const inner = this.arrays.sameNumber(pa.cols, pb.rows, `matmul(a, b) needs as many columns in a as rows in b`);
    const c = this.b.nl(hint ? `${hint}_data` : 'product', construct('matmul', [pa.data.name, pb.data.name, pa.rows.name, inner.name, pb.cols.name], [], []), REAL_ARRAY_TYPE);
    return this.make({ name: c, shape: FLAT }, [pa.rows, pb.cols], NUMBER_MATRIX, hint ?? 'product');
  }
}

const skipParens = (t: typeof ts, e: ts.Expression): ts.Expression => (t.isParenthesizedExpression(e) ? skipParens(t, e.expression) : e);

/** Whether every part of a rank-`rank` literal above its numbers is itself a literal ([[a, b], [c, d]]). */
function writtenInPlace(t: typeof ts, e: ts.ArrayLiteralExpression, rank: number): boolean {
  if (rank <= 1) return true;
  return e.elements.every((el) => {
    const r = skipParens(t, el);
    return t.isArrayLiteralExpression(r) && writtenInPlace(t, r, rank - 1);
  });
}
