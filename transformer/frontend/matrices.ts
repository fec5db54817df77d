// Matrices in differentiable functions (docs/frontend.md, "Matrices"): a `number[][]` (or
// `Float64Array[]`) is rectangular, and the IR holds it flat, as the tuple `(data, rows, cols)`
// with data row-major. Flat storage is what makes the array machinery apply unchanged: `m[i][j]`
// is one `index` into data (its cotangent accumulates in O(1), linear-a.md "laccum"), a row is a
// gather of `cols` elements, a write is one `update`, and `matmul` is one construct. The
// dimensions are integers: they are read through stop_gradient, so no tangent flows from them.
import type * as ts from 'typescript';
import { Builder } from '../ir/build';
import { REAL, arrayType, binder, construct, lambda, ret, tuple } from '../ir/syntax';
import { isConstruct } from '../constructs/registry';
import { fail } from './diagnostics';
import { Shape, NUMBER, NUMBER_MATRIX, describeShape, irType, isMatrix, rowShape } from './shapes';
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

  /** The matrix value `(data, rows, cols)`. */
  make(data: Value, rows: Value, cols: Value, shape: Shape = NUMBER_MATRIX, hint = 'matrix'): Value {
    return { name: this.b.nl(hint, tuple(false, [data.name, rows.name, cols.name]), irType(shape)), shape };
  }

  /** `m.length` */
  rows(m: Value): Value {
    return this.parts(m).rows;
  }

  /** `m[i].length` */
  cols(m: Value): Value {
    return this.parts(m).cols;
  }

  /** The flat position i·cols + j. */
  private position(m: Value, i: Value, j: Value): Value {
    const b = this.b;
    const start = b.prim('mul', [i.name, this.parts(m).cols.name], 'row_start');
    return { name: b.prim('add', [start, j.name], 'at'), shape: NUMBER };
  }

  /** Each `m[i][j]` read by the name it binds: its matrix and indices (for loop trip checks). */
  private readonly reads = new Map<string, { readonly matrix: Value; readonly row: string; readonly col: string }>();

  /** `m[i][j]`: one read of the data, whatever the row. */
  element(m: Value, i: Value, j: Value, hint?: string): Value {
    const { data } = this.parts(m);
    const read = this.arrays.read(data, this.position(m, i, j), hint ?? `${userName(m.name)}_ij`);
    this.reads.set(read.name, { matrix: m, row: i.name, col: j.name });
    return read;
  }

  /** The matrix read `m[i][j]` that bound `name`, if it is one. */
  readOf(name: string): { readonly matrix: Value; readonly row: string; readonly col: string } | undefined {
    return this.reads.get(name);
  }

  /** `m[i]` as a value: the row, a gather of cols elements from i·cols (an index past the end is a RangeError). */
  row(m: Value, i: Value, hint?: string): Value {
    const b = this.b;
    const { data, cols } = this.parts(m);
    const start = { name: b.prim('mul', [i.name, cols.name], 'row_start'), shape: NUMBER };
    const r = this.arrays.gatherRange(data, start, cols, hint ?? `${userName(m.name)}_row`);
    return { name: r.name, shape: rowShape(m.shape as ArrayShape) };
  }

  /**
   * `m.slice(start?, end?)`: rows start … end − 1 (JavaScript's positions), their data one gather.
   * JavaScript shares the rows with m; frontend/writes.ts refuses a write into either that
   * would show it.
   */
  slice(m: Value, start: Value | undefined, end: Value | undefined, hint?: string): Value {
    const b = this.b;
    const { data, rows, cols } = this.parts(m);
    const { from, count } = this.arrays.span(rows, start, end);
    const at = { name: b.prim('mul', [from.name, cols.name], 'row_start'), shape: NUMBER };
    const size = { name: b.prim('mul', [count.name, cols.name], 'size'), shape: NUMBER };
    const part = this.arrays.gatherRange(data, at, size, hint ? `${hint}_data` : 'rows_data');
    return this.make(part, count, cols, m.shape, hint ?? 'rows');
  }

  /** `m[i][j] = v`: a new version of the matrix with one element of its data updated. */
  update(m: Value, i: Value, j: Value, v: Value, node: ts.Node): Value {
    const { data, rows, cols } = this.parts(m);
    const written = this.arrays.update(data, this.position(m, i, j), v, node);
    return this.make(written, rows, cols, m.shape, userName(m.name));
  }

  /**
   * `m[i] = r` (a row swap, frontend/aliasing.ts): the row's cols elements of the data replaced
   * by r's, one scatter; r must be as long as a row (a matrix stays rectangular: RangeError).
   */
  updateRow(m0: Value, i: Value, r: Value, node: ts.Node, holes = false): Value {
    if (!isConstruct('scatter')) return fail(1121, node, 'replacing a row of a matrix is not supported in differentiable functions in this build');
    const b = this.b;
    const m = holes ? this.widen(m0, this.arrays.length(r)) : m0;
    const { data, rows, cols } = this.parts(m);
    const n = this.arrays.sameNumber(this.arrays.length(r), cols, `the row written by ${sourceSnippet(node)} must be as long as the matrix's rows`);
    const start = { name: b.prim('mul', [i.name, cols.name], 'row_start'), shape: NUMBER };
    const idx = this.arrays.rangeIndex(start, n, 'row_slots');
    const written = b.nl(`${userName(m.name)}_data`, construct('scatter', [data.name, idx.name, r.name], [], []), REAL_ARRAY_TYPE);
    return this.make({ name: written, shape: FLAT }, rows, cols, m.shape, userName(m.name));
  }

  /**
   * `new Array(n)` typed as a matrix: n rows with no width yet, (no data, n, 0). The first row
   * written gives the width (`widen`); reading a row before is out of range, as reading a field
   * of JavaScript's undefined throws.
   */
  holes(rows: Value, shape: ArrayShape, hint?: string): Value {
    const none = { name: this.b.lit(0, 'none'), shape: NUMBER };
    const n = { name: this.b.prim('stop_gradient', [rows.name], 'rows'), shape: NUMBER };
    return this.make(this.arrays.zero(FLAT), n, none, shape, hint ?? 'rows');
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
    const body = new Builder(b.names);
    const next = body.nl('data', construct('append', [acc.name, body.lit(Number.NaN, 'hole')], [], []), REAL_ARRAY_TYPE);
    const filled = b.nl(`${userName(m.name)}_data`, construct('loop', [missing, data.name], [], [lambda([j, acc], [], body.finish(ret([next])))]), REAL_ARRAY_TYPE);
    return this.make({ name: filled, shape: FLAT }, rows, { name: w, shape: NUMBER }, m.shape, userName(m.name));
  }

  /** stopGradient of a matrix: its data through stop_gradient. */
  stop(m: Value, hint?: string): Value {
    const { data, rows, cols } = this.parts(m);
    return this.make(this.arrays.stop(data), rows, cols, m.shape, hint ?? `${m.name}_const`);
  }

  /** The 0 × 0 matrix. */
  zero(shape: ArrayShape): Value {
    const none = { name: this.b.lit(0, 'none'), shape: NUMBER };
    return this.make(this.arrays.zero(FLAT), none, none, shape, 'empty');
  }

  /**
   * `[[a, b], [c, d]]` typed as a matrix: its rows written in place must be equally long (a
   * ragged literal is TSAD1120).
   */
  literal(e: ts.ArrayLiteralExpression, shape: ArrayShape, hint?: string): Value {
    const { t } = this.site;
    const rows = e.elements.map((el) => {
      let r = el;
      while (t.isParenthesizedExpression(r)) r = r.expression;
      if (!t.isArrayLiteralExpression(r))
        return fail(1121, el, 'a matrix literal needs its rows written in place, [[a, b], [c, d]]: build a matrix from other arrays with .map or Array.from({ length: n }, ...)');
      return r;
    });
    const cols = rows[0]?.elements.length ?? 0;
    for (const r of rows) if (r.elements.length !== cols) fail(1120, r, `the rows of a matrix must be equally long: this row has ${r.elements.length} numbers, the first ${cols}`);
    const data = this.arrays.literalOf(
      e,
      rows.flatMap((r) => [...r.elements]),
      FLAT,
      hint ? `${hint}_data` : 'data',
    );
    return this.make(data, { name: this.b.lit(rows.length, 'rows'), shape: NUMBER }, { name: this.b.lit(cols, 'cols'), shape: NUMBER }, shape, hint);
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
    const width = binder(b.fresh('width'), REAL);
    const lowered = this.site.scope((bind) => {
      const r = lowerRow(bind, { name: k.name, shape: NUMBER });
      if (r.shape.kind !== 'array' || r.shape.elem.kind !== 'number') fail(1121, node, `each row of a matrix must be an array of numbers, got ${describeShape(r.shape)}`);
      const inner = this.site.b();
      // The row's elements appended one by one (in place: the data is the loop's own).
      const j = binder(inner.fresh('j'), REAL);
      const rowParam = binder(inner.fresh('row'), REAL_ARRAY_TYPE);
      const acc = binder(inner.fresh('data'), REAL_ARRAY_TYPE);
      const body = new Builder(inner.names);
      const x = body.nl('x', construct('index', [rowParam.name, j.name], [], []), REAL);
      const next = body.nl('data', construct('append', [acc.name, x], [], []), REAL_ARRAY_TYPE);
      const n = inner.nl('n', construct('len', [r.name], [], []), REAL);
      const appended = inner.nl('data', construct('loop', [n, r.name, data.name], [], [lambda([j, rowParam, acc], [], body.finish(ret([next])))]), REAL_ARRAY_TYPE);
      // Every row as long as the one before (checked once per row): |n − width| on rows after
      // the first must be 0; the check feeds the width carried on, so that it stays.
      const later = inner.test('gt', [k.name, inner.lit(0, 'zero')], 'later');
      const gap = inner.prim('abs', [inner.prim('sub', [n, width.name], 'gap')], 'gap');
      const counted = inner.nl('gap', { tag: 'prim', op: 'select', args: [later, gap, inner.lit(0, 'zero')] }, REAL);
      const none = this.arrays.atMost(
        { name: counted, shape: NUMBER },
        { name: inner.lit(0, 'zero'), shape: NUMBER },
        `the rows of ${sourceSnippet(node)} must be equally long (a matrix is rows × cols)`,
      );
      const checked = inner.prim('add', [inner.prim('stop_gradient', [n], 'width'), none.name], 'width');
      return [
        { name: appended, shape: FLAT },
        { name: checked, shape: NUMBER },
      ];
    });
    const closed = this.arrays.close(lowered.block, new Set([k.name, data.name, width.name]), node, 'loop');
    const empty = this.arrays.zero(FLAT);
    const zero = b.lit(0, 'zero');
    const lam = lambda([k, ...closed.params, data, width], [], closed.body);
    const names = [binder(b.fresh('data'), REAL_ARRAY_TYPE), binder(b.fresh('cols'), REAL)];
    b.bind(names, [], construct('loop', [count.name, ...closed.operands, empty.name, zero], [], [lam]));
    const rows = { name: b.prim('stop_gradient', [count.name], 'rows'), shape: NUMBER };
    return this.make({ name: names[0].name, shape: FLAT }, rows, { name: names[1].name, shape: NUMBER }, shape, hint);
  }

  /** tsad's `matmul(a, b)`: the matmul construct over the flat data (a's columns must be b's rows). */
  matmul(a: Value, b2: Value, node: ts.Node, hint?: string): Value {
    if (!isConstruct('matmul')) return fail(1121, node, 'matmul is not supported in differentiable functions in this build');
    for (const [k, m] of [a, b2].entries()) if (!isMatrix(m.shape)) fail(1121, node, `matmul multiplies two matrices (number[][]); argument ${k + 1} is ${describeShape(m.shape)}`);
    const pa = this.parts(a);
    const pb = this.parts(b2);
    const inner = this.arrays.sameNumber(pa.cols, pb.rows, `matmul(a, b) needs as many columns in a as rows in b`);
    const c = this.b.nl(hint ? `${hint}_data` : 'product', construct('matmul', [pa.data.name, pb.data.name, pa.rows.name, inner.name, pb.cols.name], [], []), REAL_ARRAY_TYPE);
    return this.make({ name: c, shape: FLAT }, pa.rows, pb.cols, NUMBER_MATRIX, hint ?? 'product');
  }
}
