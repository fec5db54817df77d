// Array methods that move or place elements: `.sort` and `.reverse` (a gather at indices that are
// constants given the primal), `.concat` and spread (`[...a, x]`: appends into a new array),
// `.fill` of an array that exists, and `.subarray` (a read-only window: a gather, as `.slice`).
// Adjoints come from the IR's rules for gather, append and update.
import type * as ts from 'typescript';
import { Builder } from '../ir/build';
import { BOOL, REAL, binder, construct, lambda, ret } from '../ir/syntax';
import { isConstruct } from '../constructs/registry';
import { fail } from './diagnostics';
import { NUMBER, describeShape, isNumberArray, isRecords } from './shapes';
import type { Shape } from './shapes';
import type { Value } from './values';
import type { ArrayLowering } from './arrays';
import { REAL_ARRAY_TYPE, storedValue } from './arraySite';
import type { Callback } from './arrayCallbacks';

const num = (name: string): Value => ({ name, shape: NUMBER });

/**
 * `a.sort(cmp)` of an array no other name sees (a copy, or a local sorted as a statement): the
 * permutation that sorts a is computed on a's values through stop_gradient (no derivative flows
 * through an order), then a is gathered at it. The permutation is a stable insertion sort over
 * the indices: element i goes after the last of the sorted ones that `cmp` does not put after it,
 * so for every comparator that is a consistent order the result is JavaScript's (whose sort is
 * stable), and for any other the result is still a permutation. `cmp` is called about n²/2
 * times. Without a comparator a typed array sorts numerically (−0 before +0, NaN last), as in
 * JavaScript; an array of numbers would sort as strings, which is refused.
 */
export function sort(arrays: ArrayLowering, a: Value, cmp: Callback | undefined, typed: boolean, node: ts.Node, hint?: string): Value {
  if (!isConstruct('gather')) return fail(1121, node, "'.sort' of an array is not supported in differentiable functions yet");
  if (!isNumberArray(a.shape)) return fail(1121, node, `.sort of ${describeShape(a.shape)} is not supported`);
  if (!cmp && !typed) {
    return fail(1121, node, '.sort() without a comparator sorts numbers as strings in JavaScript ([10, 9, 1] becomes [1, 10, 9]): pass the order, .sort((a, b) => a - b)');
  }
  const values = arrays.stop(a, 'keys');
  const n = arrays.length(values);
  // Does y go after x? The comparator's sign, or the numeric order of a typed array.
  const after = (bind: (sym: ts.Symbol, v: Value) => void, y: Value, x: Value): string => {
    const b = arrays.site.b();
    if (!cmp) return typedAfter(b, y.name, x.name);
    const r = cmp.apply(bind, [y, x], 'order');
    if (r.shape.kind !== 'number') fail(1121, cmp.node, `the comparator of .sort must return a number (negative, zero or positive), got ${describeShape(r.shape)}`);
    // JavaScript reads NaN as 0: not after.
    return b.test('gt', [r.name, b.lit(0, 'zero')], 'after');
  };
  const start = arrays.fill(n, num(arrays.site.b().lit(0, 'zero')), { kind: 'array', container: 'Float64Array', elem: NUMBER }, 'order');
  const order = arrays.fold(n, start, node, 'order', (_bind, acc, i) => {
    const x = arrays.read(values, i, 'x');
    // Where element i goes: after the last sorted element that does not go after it.
    const place = arrays.fold(i, num(arrays.site.b().lit(0, 'zero')), node, 'place', (bind2, p, m) => {
      const y = arrays.read(values, arrays.read(acc, m, 'j'), 'y');
      const b = arrays.site.b();
      const stays = b.nl('stays', { tag: 'prim', op: 'not', args: [after(bind2, y, x)] }, BOOL);
      return num(b.nl('place', { tag: 'prim', op: 'select', args: [stays, b.prim('add', [m.name, b.lit(1, 'one')], 'next'), p.name] }, REAL));
    });
    // Shift the sorted ones from the place on by one, from the end, and put i there.
    const b = arrays.site.b();
    const moves = num(b.prim('sub', [i.name, place.name], 'moves'));
    const shifted = arrays.fold(moves, acc, node, 'order', (_bind, o, t) => {
      const ib = arrays.site.b();
      const j = num(ib.prim('sub', [i.name, t.name], 'j'));
      const prev = arrays.read(o, num(ib.prim('sub', [j.name, ib.lit(1, 'one')], 'prev')), 'moved');
      return arrays.update(o, j, prev, node);
    });
    return arrays.update(shifted, place, i, node);
  });
  return gatherAt(arrays, a, order.name, hint ?? 'sorted');
}

/** y after x in a typed array's numeric order: greater, +0 after −0, NaN after numbers. */
function typedAfter(b: Builder, y: string, x: string): string {
  const zero = b.lit(0, 'zero');
  const greater = b.test('gt', [y, x], 'greater');
  const yNaN = b.test('ne', [y, y], 'nan');
  const xNumber = b.test('eq', [x, x], 'number');
  const nanLast = b.nl('last', { tag: 'prim', op: 'and', args: [yNaN, xNumber] }, BOOL);
  // both zero, x −0 (1/x = −∞) and y +0
  const bothZero = b.nl('zeros', { tag: 'prim', op: 'and', args: [b.test('eq', [y, zero], 'zero'), b.test('eq', [x, zero], 'zero')] }, BOOL);
  const one = b.lit(1, 'one');
  const signs = b.nl('signs', { tag: 'prim', op: 'and', args: [b.test('lt', [b.prim('div', [one, x], 'inv'), zero], 'minus'), b.test('gt', [b.prim('div', [one, y], 'inv'), zero], 'plus')] }, BOOL);
  const zeroOrder = b.nl('signed', { tag: 'prim', op: 'and', args: [bothZero, signs] }, BOOL);
  return b.nl('after', { tag: 'prim', op: 'or', args: [greater, b.nl('after', { tag: 'prim', op: 'or', args: [nanLast, zeroOrder] }, BOOL)] }, BOOL);
}

function gatherAt(arrays: ArrayLowering, a: Value, idx: string, hint: string): Value {
  return { name: arrays.site.b().nl(hint, construct('gather', [a.name, idx], [], []), REAL_ARRAY_TYPE), shape: a.shape };
}

/** `a.reverse()` of an array no other name sees: a gather at n − 1 − j. */
export function reverse(arrays: ArrayLowering, a: Value, node: ts.Node, hint?: string): Value {
  if (!isConstruct('gather')) return fail(1121, node, "'.reverse' of an array is not supported in differentiable functions yet");
  if (!isNumberArray(a.shape) && !isRecords(a.shape)) return fail(1121, node, `.reverse of ${describeShape(a.shape)} is not supported`);
  const b = arrays.site.b();
  const n = arrays.length(a);
  const last = b.prim('sub', [n.name, b.lit(1, 'one')], 'last');
  const [j, slot, top] = [binder(b.fresh('j'), REAL), binder(b.fresh('slot'), REAL), binder(b.fresh('last'), REAL)];
  const inner = b.inner();
  const from = inner.prim('sub', [top.name, j.name], 'from');
  const slots = arrays.fill(n, num(b.lit(0, 'zero')), { kind: 'array', container: 'Float64Array', elem: NUMBER }, 'slots');
  const idx = b.nl('reversed_index', construct('map', [n.name, slots.name, last], [], [lambda([j, slot, top], [], inner.finish(ret([from])))]), REAL_ARRAY_TYPE);
  if (isRecords(a.shape)) return arrays.records.gather(a, num(idx), node, '.reverse', hint ?? 'reversed');
  return gatherAt(arrays, a, idx, hint ?? 'reversed');
}

/** One part of a concatenation: a number, or an array whose elements are spread. */
export type Segment = { readonly kind: 'one'; readonly value: Value } | { readonly kind: 'all'; readonly value: Value };

/**
 * `[x, ...a, y]`, `a.concat(b, x)`, `b.push(...a)`: the segments appended in order into a new
 * array (an array's elements by a counted loop), in place; the adjoint is append's.
 */
export function concat(arrays: ArrayLowering, start: Value, segments: readonly Segment[], shape: Shape, node: ts.Node, hint?: string): Value {
  let out: Value = { name: start.name, shape };
  for (const s of segments) {
    // An array of records takes records (append checks their layout) and arrays of them.
    const records = isRecords(shape);
    if (s.kind === 'one') {
      if (!records && s.value.shape.kind !== 'number') fail(1120, node, `arrays hold numbers: cannot put ${describeShape(s.value.shape)} into ${describeShape(shape)}`);
      out = arrays.append(out, s.value, node);
      continue;
    }
    if (records ? !isRecords(s.value.shape) : !isNumberArray(s.value.shape)) fail(1121, node, `spreading ${describeShape(s.value.shape)} into ${describeShape(shape)} is not supported`);
    const src = s.value;
    out = arrays.fold(arrays.length(src), out, node, hint ?? 'joined', (_bind, acc, k) => arrays.append(acc, arrays.read(src, k, 'x', node), node));
  }
  return { name: out.name, shape };
}

/**
 * `ps.concat(qs, p, [p, q])` of an array of records: arrays of records spread, a record (an
 * object) appended. JavaScript spreads every array argument, so a tuple record `[x, y]` passed
 * alone would add x and y, not the pair: refused, with the wrapping that means the pair.
 */
export function concatRecords(arrays: ArrayLowering, ps: Value, e: ts.CallExpression, hint?: string): Value {
  const { t, checker } = arrays.site;
  const segments = e.arguments.map((a): Segment => {
    if (t.isSpreadElement(a)) return { kind: 'all', value: arrays.arrayOf(a.expression) };
    let inner = a;
    while (t.isParenthesizedExpression(inner)) inner = inner.expression;
    // `[p, q]`: an array of records in place (JavaScript spreads it: p and q are appended).
    const numbers = t.isArrayLiteralExpression(inner) && inner.elements.length > 0 && inner.elements.every((x) => checker.getTypeAtLocation(x).flags & t.TypeFlags.NumberLike);
    if (t.isArrayLiteralExpression(inner) && !numbers && !inner.elements.some((x) => t.isSpreadElement(x))) return { kind: 'all', value: arrays.literal(inner, ps.shape, 'more') };
    const type = checker.getTypeAtLocation(a);
    const v = arrays.site.expr(a);
    if (isRecords(v.shape)) return { kind: 'all', value: v };
    if (checker.isArrayType(type) || checker.isTupleType(type) || v.shape.kind === 'array')
      fail(1121, a, `.concat spreads an array argument: ${a.getText()} would add its elements one by one, not as one element; wrap it, .concat([${a.getText()}])`);
    return { kind: 'one', value: v };
  });
  return concat(arrays, arrays.zero(ps.shape as Extract<Shape, { kind: 'array' }>), [{ kind: 'all', value: ps }, ...segments], ps.shape, e, hint);
}

/**
 * `a.fill(v, start?, end?)` of an array no other name sees: n copies of v, or a map keeping the
 * elements outside [start, end) (positions as JavaScript reads them).
 */
export function fillExisting(arrays: ArrayLowering, a: Value, v: Value, start: Value | undefined, end: Value | undefined, node: ts.Node, hint?: string): Value {
  if (!isNumberArray(a.shape)) return fail(1121, node, `.fill of ${describeShape(a.shape)} is not supported`);
  if (v.shape.kind !== 'number') return fail(1120, node, `arrays hold numbers: cannot fill with ${describeShape(v.shape)}`);
  const b = arrays.site.b();
  // An Int32Array (indices, a constant) stores the value as a 32-bit integer, as JavaScript does.
  const x = num(storedValue(b, a.shape, v.name, 'filler'));
  const n = arrays.length(a);
  if (!start && !end) return arrays.fill(n, x, a.shape, hint ?? 'filled');
  const { from, count } = arrays.span(n, start, end);
  const to = b.prim('add', [from.name, count.name], 'to');
  const [j, old, lo, hi, val] = [binder(b.fresh('j'), REAL), binder(b.fresh('old'), REAL), binder(b.fresh('from'), REAL), binder(b.fresh('to'), REAL), binder(b.fresh('v'), REAL)];
  const inner = b.inner();
  const inside = inner.nl('inside', { tag: 'prim', op: 'and', args: [inner.test('ge', [j.name, lo.name], 'low'), inner.test('lt', [j.name, hi.name], 'high')] }, BOOL);
  const y = inner.nl('y', { tag: 'prim', op: 'select', args: [inside, val.name, old.name] }, REAL);
  const name = b.nl(hint ?? 'filled', construct('map', [n.name, a.name, from.name, to, x.name], [], [lambda([j, old, lo, hi, val], [], inner.finish(ret([y])))]), REAL_ARRAY_TYPE);
  return { name, shape: a.shape };
}

/** `[x, ...a, y]` typed as an array of numbers: the elements and spread arrays appended in order. */
export function spreadLiteral(arrays: ArrayLowering, elements: readonly ts.Expression[], shape: Shape, node: ts.Node, hint?: string): Value {
  const { t } = arrays.site;
  const segments = elements.map((el): Segment => {
    if (t.isOmittedExpression(el)) fail(1121, el, 'holes ([a, , b]) are not supported in array literals: write each element');
    if (t.isSpreadElement(el)) return { kind: 'all', value: arrays.arrayOf(el.expression) };
    return { kind: 'one', value: arrays.site.expr(el) };
  });
  return concat(arrays, arrays.zero(shape as Extract<Shape, { kind: 'array' }>), segments, shape, node, hint);
}
