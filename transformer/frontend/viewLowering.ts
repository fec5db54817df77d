// Lowering a view of a typed array (views.ts found it): `const c = b.subarray(k, e)` or
// `const c = m[j].subarray(k)`. The view holds no array of its own: it is where it starts in its
// base's numbers (an array's, or a matrix's or tensor's flat data) and how many it has, both
// computed once where it is declared, as JavaScript computes them. Each `c[i]` reads or writes
// the base's current value at start + i, so a write through either name is seen through the
// other; the view used whole is a copy of its numbers now (a gather).
import type { ArrayLowering } from './arrays';
import type { Value } from './values';
import { NUMBER, isMatrix, tensorRank } from './shapes';
import { fail } from './diagnostics';
import type * as ts from 'typescript';
import { userName } from './arraySite';

export interface OpenView {
  /** The variable whose array the view's numbers live in. */
  readonly base: ts.Symbol;
  /** Where the view starts in the base's (flat) numbers. */
  readonly start: Value;
  /** Its length. */
  readonly count: Value;
  /** `c (cols[j].subarray(k))`, for run-time messages. */
  readonly what: string;
}

export class ViewLowering {
  constructor(private readonly arrays: ArrayLowering) {}

  private get b() {
    return this.arrays.site.b();
  }

  /**
   * `base[r0]…[rk].subarray(from?, to?)` with base's value now and the row indices and positions
   * lowered: each row index must be inside its dimension (a RangeError; JavaScript would fail
   * reading .subarray of undefined), the positions are JavaScript's (negative from the end,
   * clamped to the row).
   */
  open(sym: ts.Symbol, base: Value, rows: readonly Value[], from: Value | undefined, to: Value | undefined, what: string, node: ts.Node): OpenView {
    const { arrays } = this;
    if (!isMatrix(base.shape)) {
      if (base.shape.kind !== 'array' || rows.length > 0) return fail(1121, node, `${what}: a view of ${base.shape.kind === 'array' ? 'an element' : 'this value'} is not supported`);
      const { from: start, count } = arrays.span(arrays.length(base), from, to);
      return { base: sym, start, count, what };
    }
    const { dims } = arrays.matrices.parts(base);
    if (rows.length !== tensorRank(base.shape) - 1) return fail(1121, node, `${what}: a view of a row needs one index per dimension but the last`);
    let at: Value | undefined;
    rows.forEach((r, q) => {
      const i = this.checked(r, dims[q], `${what} takes a row outside '${userName(base.name)}'`);
      at = at ? this.num('add', [this.num('mul', [at, dims[q]], 'row_start'), i], 'row_start') : i;
    });
    const width = dims[dims.length - 1];
    const { from: offset, count } = arrays.span(width, from, to);
    const start = this.num('add', [this.num('mul', [at!, width], 'row_start'), offset], 'view_start');
    return { base: sym, start, count, what };
  }

  /** `c[i]`: the base's number at start + i. */
  read(view: OpenView, base: Value, i: Value, hint: string | undefined, node: ts.Node): Value {
    return this.arrays.read(this.numbers(base), this.position(view, i), hint, node);
  }

  /** `c[i] = v`: the base's new value, with its number at start + i replaced. */
  write(view: OpenView, base: Value, i: Value, v: Value, node: ts.Node): Value {
    const written = this.arrays.update(this.numbers(base), this.position(view, i), v, node);
    if (!isMatrix(base.shape)) return written;
    return this.arrays.matrices.make(written, this.arrays.matrices.parts(base).dims, base.shape, userName(base.name));
  }

  /** The view used whole: a copy of its numbers as they are now. */
  copy(view: OpenView, base: Value, hint: string): Value {
    const copied = this.arrays.gatherRange(this.numbers(base), view.start, view.count, hint);
    return isMatrix(base.shape) ? copied : { name: copied.name, shape: base.shape };
  }

  /** The array the base's numbers are in: itself, or a matrix's data. */
  private numbers(base: Value): Value {
    return isMatrix(base.shape) ? this.arrays.matrices.parts(base).data : base;
  }

  /** start + i, where i must be an index of the view (a RangeError otherwise, never a neighbour's number). */
  private position(view: OpenView, i: Value): Value {
    const at = this.checked(i, view.count, `${view.what} has no element at this index`);
    return this.num('add', [view.start, at], 'at');
  }

  /** i when it is a whole number in [0, n); a RangeError saying `what` otherwise. */
  private checked(i: Value, n: Value, what: string): Value {
    const b = this.b;
    const whole = b.test('eq', [b.prim('trunc', [i.name], 'whole'), i.name], 'whole');
    const low = b.test('ge', [i.name, b.lit(0, 'zero')], 'low');
    const ok = b.nl('valid', { tag: 'prim', op: 'and', args: [whole, low] }, { tag: 'bool' });
    // An index that is no whole number, or is negative, is tested as n: the check fails.
    const tested = { name: b.nl('index', { tag: 'prim', op: 'select', args: [ok, i.name, n.name] }, { tag: 'real' }), shape: NUMBER };
    const last = this.num('sub', [n, { name: b.lit(1, 'one'), shape: NUMBER }], 'last');
    return this.arrays.atMost(tested, last, what);
  }

  private num(op: string, args: readonly Value[], hint: string): Value {
    return {
      name: this.b.prim(
        op,
        args.map((a) => a.name),
        hint,
      ),
      shape: NUMBER,
    };
  }
}
