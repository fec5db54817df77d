// Arrays of records and tuples in differentiable functions (docs/frontend.md, "Arrays of
// records"): `{ x: number; y: number }[]`, `[number, number][]`, records holding arrays of
// numbers. The IR holds one as a record of arrays, one column per leaf of the element
// (plan/shapes.ts, recordColumns): a number leaf is an array of numbers, an array or tensor
// leaf a ragged column `(data, starts, dims)` holding every element's numbers one after the
// other (plan/shapes.ts, raggedColumn), so that element k's array may have its own size (a
// network's layers). Reading `ps[i].x` is one `index` of column x, writing it one
// `update`, pushing a record one `append` per column: every array rule (and its adjoint) applies
// to a column unchanged.
import type * as ts from 'typescript';
import { Builder } from '../ir/build';
import { REAL, binder, construct, lambda, tuple } from '../ir/syntax';
import { fail } from './diagnostics';
import { Shape, NUMBER, componentShapes, describeShape, irType, layoutOf, raggedLeaf, recordColumns, recordLeaves, tensorRank } from './shapes';
import type { ArrayOps, ArraySite } from './arraySite';
import { sourceSnippet, userName } from './arraySite';
import { appendRagged } from './raggedAppend';
import type { MatrixLowering } from './matrices';
import type { Value } from './values';

type ArrayShape = Extract<Shape, { kind: 'array' }>;
/** A step into a record: a field name or a tuple position. */
export type RecordKey = string | number;

export class RecordLowering {
  constructor(
    private readonly site: ArraySite,
    private readonly arrays: ArrayOps,
    private readonly matrices: MatrixLowering,
  ) {}

  private get b(): Builder {
    return this.site.b();
  }

  /** The columns of an array of records (unpacked once per scope). */
  columns(ps: Value): Value[] {
    return this.site.parts(ps);
  }

  /** The array of records made of `columns`. */
  make(columns: readonly Value[], shape: Shape, hint = 'records'): Value {
    return {
      name: this.b.nl(
        hint,
        tuple(
          false,
          columns.map((c) => c.name),
        ),
        irType(shape),
      ),
      shape,
    };
  }

  /** `ps.length`: the length of its first column (its starts, for a ragged one). */
  length(ps: Value): Value {
    const first = this.columns(ps)[0];
    // A ragged column has one start per element.
    return this.arrays.length(raggedLeaf(first.shape) ? this.site.parts(first)[1] : first);
  }

  /**
   * A check that element i exists: JavaScript's `ps[i]` past the end is `undefined` (reading or
   * writing a field of it is a TypeError), where each column's read would be `undefined` or NaN.
   */
  private checkElement(ps: Value, i: Value, node: ts.Node | undefined, verb?: 'writes'): void {
    // No node: an element the lowering reads itself (a map's, a for…of's), at an index it made.
    if (!node) return;
    // Unpacked before the check: a check that leaves a loop's body takes what it bound with it.
    const first = this.columns(ps)[0];
    if (raggedLeaf(first.shape)) this.site.parts(first);
    this.arrays.checkIndex(i, (name) => this.length({ name, shape: ps.shape }), ps.name, sourceSnippet(node), verb);
  }

  /** The shape at `path` inside an element, and the column of the first leaf under it (the others follow in order). */
  private under(ps: Value, path: readonly RecordKey[], node: ts.Node): { shape: Shape; first: number } {
    const elem = (ps.shape as ArrayShape).elem;
    let shape = elem;
    const leaves = recordLeaves(elem);
    for (const key of path) {
      if (shape.kind === 'object' && typeof key === 'string') {
        const f = shape.fields.find(([k]) => k === key);
        if (!f) fail(1102, node, `no field ${key}`);
        shape = f[1];
      } else if (shape.kind === 'tuple' && typeof key === 'number') {
        if (!(key >= 0 && key < shape.elems.length)) fail(1102, node, `index ${key} is outside the tuple`);
        shape = shape.elems[key];
      } else return fail(1102, node, `${describeShape(shape)} has no part ${JSON.stringify(key)}`);
    }
    const first = leaves.findIndex((l) => path.every((k, j) => l.path[j] === k));
    return { shape, first };
  }

  /** `ps[i]`, `ps[i].pos`, `ps[i].pos[0]`: the part of element i at `path`, reading only its columns. */
  at(ps: Value, i: Value, path: readonly RecordKey[], node: ts.Node, hint?: string): Value {
    if (i.shape.kind !== 'number') fail(1121, node, `an array index must be a number, got ${describeShape(i.shape)}`);
    const { shape, first } = this.under(ps, path, node);
    // A field of an element that is not there is JavaScript's TypeError; the element itself (`const
    // [p] = ps`, `const p = ps[k]`) is only `undefined` until a field of it is read, maybe under a test.
    if (path.length > 0) this.checkElement(ps, i, node);
    const columns = this.columns(ps);
    let next = first;
    const build = (s: Shape, h: string): Value => {
      if (s.kind === 'tuple' || s.kind === 'object') {
        const parts = componentShapes(s).map((c, k) => build(c, `${h}_${s.kind === 'object' ? s.fields[k][0] : k}`));
        return {
          name: this.b.nl(
            h,
            tuple(
              false,
              parts.map((p) => p.name),
            ),
            irType(s),
          ),
          shape: s,
        };
      }
      const column = columns[next++];
      if (raggedLeaf(column.shape)) return this.leafAt(column, i, h);
      return this.arrays.read(column, i, h);
    };
    return build(shape, hint ?? `${userName(ps.name)}_${[...path].join('_') || 'i'}`.replace(/_+$/, ''));
  }

  /** Where element i's numbers start in a ragged column, and its dimensions (integers: through stop_gradient). */
  private place(column: Value, i: Value): { data: Value; start: Value; dims: Value[] } {
    const [data, starts, dims] = this.site.parts(column);
    const rank = tensorRank(raggedLeaf(column.shape)!);
    const b = this.b;
    const stop = (v: Value, hint: string): Value => ({ name: b.prim('stop_gradient', [v.name], hint), shape: NUMBER });
    const start = stop(this.arrays.read(starts, i, 'start'), 'start');
    const at = rank === 1 ? i : { name: b.prim('mul', [i.name, b.lit(rank, 'rank')], 'dims_at'), shape: NUMBER };
    const ds = Array.from({ length: rank }, (_, q) => {
      const k = q === 0 ? at : { name: b.prim('add', [at.name, b.lit(q, 'q')], 'dims_at'), shape: NUMBER };
      return stop(this.arrays.read(dims, k, `d${q}`), `d${q}`);
    });
    return { data, start, dims: ds };
  }

  /** Element i's array (or tensor) of a ragged column: one gather of its numbers. */
  private leafAt(column: Value, i: Value, hint: string): Value {
    const leaf = raggedLeaf(column.shape)!;
    const { data, start, dims } = this.place(column, i);
    let size = dims[0];
    for (const d of dims.slice(1)) size = { name: this.b.prim('mul', [size.name, d.name], 'size'), shape: NUMBER };
    const numbers = this.arrays.gatherRange(data, start, size, hint);
    if (dims.length === 1) return { name: numbers.name, shape: leaf };
    return this.matrices.make(numbers, dims, leaf, hint);
  }

  /** `ps[i].vel[j]` where vel is an array leaf: one read of its column's data at starts[i] + j (j checked inside element i's array). */
  elementOfLeaf(ps: Value, i: Value, path: readonly RecordKey[], j: Value, node: ts.Node, hint?: string): Value {
    const column = this.leafColumn(ps, path, node);
    if (tensorRank(raggedLeaf(column.shape)!) === 1) return this.elementAt(ps, i, path, [j], node, hint);
    this.checkElement(ps, i, node);
    return this.arrays.read(this.leafAt(column, i, `${userName(ps.name)}_leaf`), j, hint, node);
  }

  /** `ps[i].W[j][k]` with every index of the leaf: one read of its column's data (each index checked inside element i's dimensions). */
  elementAt(ps: Value, i: Value, path: readonly RecordKey[], js: readonly Value[], node: ts.Node, hint?: string): Value {
    const column = this.leafColumn(ps, path, node);
    this.checkElement(ps, i, node);
    const { data, at } = this.slot(column, i, js, node, `reads '${sourcePath(path)}${js.map(() => '[j]').join('')}' of element i`);
    return this.arrays.read(data, at, hint, node);
  }

  /** Where `ps[i].W[j][k]` is in a ragged column's data: starts[i] + j·d1 + k, with 0 ≤ each index < its dimension checked at run time. */
  private slot(column: Value, i: Value, js: readonly Value[], node: ts.Node, what: string): { data: Value; at: Value } {
    const b = this.b;
    const { data, start, dims } = this.place(column, i);
    if (js.length !== dims.length) fail(1122, node, `write the elements of ${describeShape(raggedLeaf(column.shape)!)} inside a record by all their ${dims.length} indices`);
    const num = (name: string): Value => ({ name, shape: NUMBER });
    let offset: Value | undefined;
    js.forEach((j, q) => {
      if (j.shape.kind !== 'number') fail(1121, node, `an array index must be a number, got ${describeShape(j.shape)}`);
      // A whole number below its dimension (a fraction read undefined in JavaScript too).
      const checked = this.arrays.within(j, j, dims[q], what);
      offset = offset === undefined ? checked : num(b.prim('add', [b.prim('mul', [offset.name, dims[q].name], 'off'), checked.name], 'off'));
    });
    return { data, at: num(b.prim('add', [start.name, offset!.name], 'at')) };
  }

  /** `ps[i].vel.length` of an array leaf: element i's length. */
  leafLength(ps: Value, i: Value, path: readonly RecordKey[], node: ts.Node): Value {
    this.checkElement(ps, i, node);
    return this.place(this.leafColumn(ps, path, node), i).dims[0];
  }

  /** Is the part at `path` an array of numbers (a matrix column)? */
  isArrayLeaf(ps: Value, path: readonly RecordKey[], node: ts.Node): boolean {
    return this.under(ps, path, node).shape.kind === 'array';
  }

  private leafColumn(ps: Value, path: readonly RecordKey[], node: ts.Node): Value {
    const { shape, first } = this.under(ps, path, node);
    if (shape.kind !== 'array') fail(1102, node, `${describeShape(shape)} is not an array`);
    return this.columns(ps)[first];
  }

  /** The leaves of a record value (numbers and arrays), in IR order. */
  leaves(v: Value): Value[] {
    if (v.shape.kind === 'tuple' || v.shape.kind === 'object') return this.site.parts(v).flatMap((p) => this.leaves(p));
    return [v];
  }

  /** `ps[i] = v`, `ps[i].x = v`, `ps[i].pos = [a, b]`: each column under `path` updated at i. */
  write(ps: Value, i: Value, path: readonly RecordKey[], v: Value, node: ts.Node): Value {
    const { shape, first } = this.under(ps, path, node);
    this.site.conform(node, v, shape, 'the value written');
    // A field of an element that is not there is a TypeError in JavaScript; a whole element past the end is JavaScript's append (as for an array of numbers).
    if (path.length > 0) this.checkElement(ps, i, node, 'writes');
    const columns = [...this.columns(ps)];
    this.leaves(v).forEach((leaf, k) => {
      const c = first + k;
      if (raggedLeaf(columns[c].shape)) fail(1122, node, `writing the array '${describeShape(leaf.shape)}' of a record is not supported yet: write its elements, ${sourcePath(path)}[j] = v`);
      columns[c] = this.arrays.update(columns[c], i, leaf, node);
    });
    return this.make(columns, ps.shape, userName(ps.name));
  }

  /** `ps[i].vel[j] = v`, `ps[i].W[j][k] = v` of an array leaf: one update of its column's data (each index checked below its dimension). */
  writeLeafElement(ps: Value, i: Value, path: readonly RecordKey[], js: readonly Value[], v: Value, node: ts.Node): Value {
    const { first } = this.under(ps, path, node);
    const columns = [...this.columns(ps)];
    if (v.shape.kind !== 'number') fail(1120, node, `an array of a record holds numbers: cannot write ${describeShape(v.shape)}`);
    const column = this.leafColumn(ps, path, node);
    this.checkElement(ps, i, node, 'writes');
    const b = this.b;
    const { data, at } = this.slot(column, i, js, node, `writes '${sourcePath(path)}${js.map(() => '[j]').join('')}' of element i`);
    const [, starts, allDims] = this.site.parts(column);
    const written = this.arrays.update(data, at, v, node);
    columns[first] = { name: b.nl(userName(column.name), tuple(false, [written.name, starts.name, allDims.name]), irType(column.shape)), shape: column.shape };
    return this.make(columns, ps.shape, userName(ps.name));
  }

  /** `ps.push(v)`: each column appended to (in place where it may, as arrays are). */
  append(ps: Value, v: Value, node: ts.Node): Value {
    const elem = (ps.shape as ArrayShape).elem;
    this.site.conform(node, v, elem, 'the record pushed');
    const columns = this.columns(ps).map((c, k) => this.appendLeaf(c, this.leaves(v)[k], node));
    return this.make(columns, ps.shape, userName(ps.name));
  }

  /** A column with one more element's leaf: a number appended, or an array to a ragged column. */
  private appendLeaf(column: Value, leaf: Value, node: ts.Node): Value {
    return raggedLeaf(column.shape) ? appendRagged(this.site, this.arrays, column, leaf, node) : this.arrays.append(column, leaf, node);
  }

  /** The empty array of records (`const out: P[] = []`). */
  zero(shape: ArrayShape): Value {
    return this.make(
      recordColumns(shape).map((c) => (raggedLeaf(c) ? this.emptyRagged(c) : this.arrays.zero(c as ArrayShape))),
      shape,
      'empty',
    );
  }

  /** A ragged column of no elements. */
  private emptyRagged(c: Shape): Value {
    const parts = componentShapes(c).map((p) => this.arrays.zero(p as ArrayShape).name);
    return { name: this.b.nl('empty', tuple(false, parts), irType(c)), shape: c };
  }

  /** `new Array<P>(n)`: n records of NaNs (JavaScript's holes; writes fill them). */
  holes(n: Value, shape: ArrayShape, node: ts.Node, hint?: string): Value {
    const nan = { name: this.b.lit(NaN, 'hole'), shape: NUMBER };
    const columns = recordColumns(shape).map((c) => {
      if (raggedLeaf(c)) return fail(1121, node, `new Array(n) of records that hold arrays (${describeShape(shape)}) is not supported yet: build it with .map((…) => ({ … }))`);
      return { name: this.b.nl('holes', construct('fill', [n.name, nan.name], [], []), irType(c)), shape: c };
    });
    return this.make(columns, shape, hint);
  }

  /** `[{ x: 1, y: 2 }, p]` typed as an array of records: pushed one by one onto the empty one. */
  literal(e: ts.ArrayLiteralExpression, shape: ArrayShape, hint?: string): Value {
    const { t } = this.site;
    let out = this.zero(shape);
    for (const el of e.elements) {
      if (t.isSpreadElement(el) || t.isOmittedExpression(el)) fail(1121, el, 'spread and holes are not supported in array literals');
      out = this.append(out, this.site.expr(el), el);
    }
    return hint ? this.make(this.columns(out), shape, hint) : out;
  }

  /**
   * An array of records from `count` elements, `lowerAt` lowering element k (`xs.map((x) =>
   * ({ … }))`, `Array.from({ length: n }, (_, i) => [a, b])`): a counted loop appending each
   * element's leaves to the columns, carried one by one (so each append runs in place).
   */
  fromCount(count: Value, node: ts.Node, shape: ArrayShape, lowerAt: (bind: (sym: ts.Symbol, v: Value) => void, k: Value) => Value, hint?: string): Value {
    const b = this.b;
    const columnShapes = recordColumns(shape);
    const k = binder(b.fresh('k'), REAL);
    const accs = recordLeaves(shape.elem).map((l, c) => binder(b.fresh(['col', ...l.path].join('_')), irType(columnShapes[c])));
    const lowered = this.site.scope((bind) => {
      const v = lowerAt(bind, { name: k.name, shape: NUMBER });
      if (layoutOf(v.shape) !== layoutOf(shape.elem)) fail(1121, node, `each element must be ${describeShape(shape.elem)}, got ${describeShape(v.shape)}`);
      return this.leaves(v).map((leaf, c) => this.appendLeaf({ name: accs[c].name, shape: columnShapes[c] }, leaf, node));
    });
    const closed = this.arrays.close(lowered.block, new Set([k.name, ...accs.map((a) => a.name)]), node, 'loop');
    const inits = columnShapes.map((c) => (raggedLeaf(c) ? this.emptyRagged(c) : this.arrays.zero(c as ArrayShape)).name);
    const names = accs.map((a) => binder(b.fresh(a.name), a.type));
    b.bind(names, [], construct('loop', [count.name, ...closed.operands, ...inits], [], [lambda([k, ...closed.params, ...accs], [], closed.body)]));
    return this.make(
      names.map((n, c) => ({ name: n.name, shape: columnShapes[c] })),
      shape,
      hint,
    );
  }

  /**
   * `ps.slice(start?, end?)`: elements start … end − 1 (JavaScript's positions), a gather of each
   * column. JavaScript shares the records with ps; recordWrites.ts refuses a field write into
   * the copy that would show it.
   */
  slice(ps: Value, start: Value | undefined, end: Value | undefined, hint?: string): Value {
    const { from, count } = this.arrays.span(this.length(ps), start, end);
    const columns = this.columns(ps).map((c) => {
      if (raggedLeaf(c.shape)) {
        // The elements' starts and dimensions gathered; their numbers stay where they are.
        const [data, starts, dims] = this.site.parts(c);
        const rank = tensorRank(raggedLeaf(c.shape)!);
        const b = this.b;
        const scale = (v: Value): Value => (rank === 1 ? v : { name: b.prim('mul', [v.name, b.lit(rank, 'rank')], 'dims_at'), shape: NUMBER });
        const parts = [data, this.arrays.gatherRange(starts, from, count, 'starts'), this.arrays.gatherRange(dims, scale(from), scale(count), 'dims')];
        return {
          name: b.nl(
            'col',
            tuple(
              false,
              parts.map((p) => p.name),
            ),
            irType(c.shape),
          ),
          shape: c.shape,
        };
      }
      return { name: this.arrays.gatherRange(c, from, count, 'col').name, shape: c.shape };
    });
    return this.make(columns, ps.shape, hint ?? 'sliced');
  }

  /**
   * The elements of ps at the indices `idx` (constants: `.filter`'s kept ones, `.reverse`'s), a
   * gather of each column. Like slice, JavaScript's result shares the records with ps.
   */
  gather(ps: Value, idx: Value, node: ts.Node, what: string, hint?: string): Value {
    const columns = this.columns(ps).map((c) => {
      if (raggedLeaf(c.shape)) return fail(1121, node, `${what} of ${describeShape(ps.shape)}, whose records hold arrays, is not supported yet: loop over the indices and push the records you keep`);
      return { name: this.b.nl('col', construct('gather', [c.name, idx.name], [], []), irType(c.shape)), shape: c.shape };
    });
    return this.make(columns, ps.shape, hint ?? 'gathered');
  }

  /** stopGradient of an array of records: each column's. */
  stop(ps: Value, hint?: string): Value {
    return this.make(
      this.columns(ps).map((c) => {
        if (!raggedLeaf(c.shape)) return this.arrays.stop(c);
        const [data, starts, dims] = this.site.parts(c);
        return { name: this.b.nl('col', tuple(false, [this.arrays.stop(data).name, starts.name, dims.name]), irType(c.shape)), shape: c.shape };
      }),
      ps.shape,
      hint ?? `${ps.name}_const`,
    );
  }
}

/** `.pos[0]` as the user wrote it. */
function sourcePath(path: readonly RecordKey[]): string {
  return path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('');
}
