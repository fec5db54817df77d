// tsad's array helpers and the IR's array combinators: sum, dot, prod, scan, gather, scatter,
// reduceByIndex, iota, slices, and stopGradient of an array.
import type * as ts from 'typescript';
import { Builder } from '../ir/build';
import { Binder, Block, REAL, binder, construct, lambda, ret } from '../ir/syntax';
import { freeVars } from '../ir/freeVars';
import { fail } from './diagnostics';
import { NUMBER, isMatrix, isNumberArray, isRecords } from './shapes';
import type { Value } from './values';
import { REAL_ARRAY, REAL_ARRAY_TYPE, sourceSnippet, userName } from './arraySite';
import { ArrayClosures } from './arrayClosures';

export abstract class ArrayCombinators extends ArrayClosures {
  sum(xs: Value, hint = 'total'): Value {
    return { name: this.b.nl(hint, construct('sum', [xs.name], [], []), REAL), shape: NUMBER };
  }

  /** Σ a_i b_i: a map of products and a sum (the lengths checked once). */
  dot(a: Value, b2: Value, node: ts.Node): Value {
    const b = this.b;
    const n = this.sameLength(this.length(a), b2, `the arrays of ${sourceSnippet(node)} must have the same length`);
    const [x, y, i] = [binder(b.fresh('x'), REAL), binder(b.fresh('y'), REAL), binder(b.fresh('i'), REAL)];
    const inner = b.inner();
    const p = inner.prim('mul', [x.name, y.name], 'p');
    const products = b.nl('products', construct('map', [n.name, a.name, b2.name], [], [lambda([i, x, y], [], inner.finish(ret([p])))]), REAL_ARRAY_TYPE);
    return this.sum({ name: products, shape: REAL_ARRAY }, 'dot');
  }

  /** Π xs: the reduce combinator (exact with zeros: no division). */
  prod(xs: Value): Value {
    return this.combinator('reduce', xs, { name: this.b.lit(1, 'one'), shape: NUMBER }, (acc, x, b) => b.prim('mul', [acc, x], 'acc'), 'product');
  }

  /**
   * tsad's `scan(xs, op, init?)`: the inclusive scan, `op` one of '+', '*', 'min', 'max' (the
   * initial value defaults to its neutral element) or a lambda of its two parameters only.
   */
  scan(xs: Value, op: ts.Expression, init: Value | undefined, node: ts.Node, hint?: string): Value {
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
      const inner = this.b.inner();
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
    if (free.length > 0)
      fail(1121, fn, `${what}'s operator may read only its two parameters, not '${userName(free[0])}': the combinator runs it in any grouping (write a loop for a fold that reads more)`);
    return { acc, x, block: lowered.block };
  }

  /** tsad's `gather(xs, indices)`: out[k] = xs[indices[k]] (an index outside xs is a RangeError). */
  gather(xs: Value, idx: Value, _node: ts.Node, hint?: string): Value {
    return { name: this.b.nl(hint ?? 'gathered', construct('gather', [xs.name, idx.name], [], []), REAL_ARRAY_TYPE), shape: REAL_ARRAY };
  }

  /**
   * `a.slice(start?, end?)` with JavaScript's meaning (negative positions count from the end, both
   * clamped to the array): a gather of a at start + i for i below the slice's length.
   */
  slice(a: Value, start: Value | undefined, end: Value | undefined, _node: ts.Node, hint?: string): Value {
    if (isMatrix(a.shape)) return this.matrices.slice(a, start, end, hint);
    if (isRecords(a.shape)) return this.records.slice(a, start, end, hint);
    const { from, count } = this.span(this.length(a), start, end);
    return this.gatherRange(a, from, count, hint ?? 'sliced');
  }

  /** tsad's `scatter(dest, indices, values)`: a copy of dest with values at the (distinct) indices. */
  scatter(dest: Value, idx: Value, vals: Value, _node: ts.Node, hint?: string): Value {
    return { name: this.b.nl(hint ?? 'scattered', construct('scatter', [dest.name, idx.name, vals.name], [], []), REAL_ARRAY_TYPE), shape: REAL_ARRAY };
  }

  /** tsad's `reduceByIndex(dest, indices, values, op)`: the histogram, bins outside dest ignored. */
  reduceByIndex(dest: Value, idx: Value, vals: Value, op: ts.Expression, _node: ts.Node, hint?: string): Value {
    const body = this.operator(op, 'reduceByIndex');
    const e = construct('reduceByIndex', [dest.name, idx.name, vals.name], [], [lambda([body.acc, body.x], [], body.block)]);
    return { name: this.b.nl(hint ?? 'histogram', e, REAL_ARRAY_TYPE), shape: REAL_ARRAY };
  }

  /** `reduce` or `scan` over xs from init with the operator `step` builds from (accumulator, element). */
  combinator(kind: 'scan' | 'reduce', xs: Value, init: Value, step: (acc: string, x: string, b: Builder) => string, hint?: string): Value {
    const b = this.b;
    const [acc, x] = [binder(b.fresh('acc'), REAL), binder(b.fresh('x'), REAL)];
    const inner = b.inner();
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
    const inner = b.inner();
    const body = inner.finish(ret([i.name]));
    const slots = this.indices(n);
    return { name: b.nl('iota', construct('map', [n.name, slots.operand], [], [lambda([i, slots.param], [], body)]), REAL_ARRAY_TYPE), shape: REAL_ARRAY };
  }

  /** stopGradient of an array: every element through stop_gradient. */
  stop(a: Value, hint?: string): Value {
    if (isMatrix(a.shape)) return this.matrices.stop(a, hint);
    if (isRecords(a.shape)) return this.records.stop(a, hint);
    if (!isNumberArray(a.shape)) return a;
    const b = this.b;
    const n = this.length(a);
    const [i, x] = [binder(b.fresh('i'), REAL), binder(b.fresh('x'), REAL)];
    const inner = b.inner();
    const y = inner.prim('stop_gradient', [x.name], `${x.name}_const`);
    return { name: b.nl(hint ?? `${a.name}_const`, construct('map', [n.name, a.name], [], [lambda([i, x], [], inner.finish(ret([y])))]), REAL_ARRAY_TYPE), shape: a.shape };
  }
}

/** The operators scan and reduce know by name, as primitives, with their neutral elements. */
const OPERATORS: Record<string, { prim: string; neutral: number }> = {
  '+': { prim: 'add', neutral: 0 },
  '*': { prim: 'mul', neutral: 1 },
  min: { prim: 'min', neutral: Infinity },
  max: { prim: 'max', neutral: -Infinity },
};
