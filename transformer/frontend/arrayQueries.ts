// Array methods that ask about elements: `.some`, `.every`, `.findIndex`, `.indexOf`,
// `.includes` (whose results are booleans and indices: constants, no derivative flows through
// them), `.filter` (a compaction at indices that are constants given the primal: a gather, whose
// adjoint the IR has) and `.at`. Each is a left fold over the elements, or a combinator.
import type * as ts from 'typescript';
import { BOOL, REAL, binder, construct, lambda, ret } from '../ir/syntax';
import { fail } from './diagnostics';
import { BOOLEAN, NUMBER, describeShape, isRecords } from './shapes';
import type { Value } from './values';
import type { ArrayLowering } from './arrays';
import { REAL_ARRAY, REAL_ARRAY_TYPE, sourceSnippet } from './arraySite';
import { Callback, hasEffects } from './arrayCallbacks';

const literal = (arrays: ArrayLowering, v: number | boolean, hint: string): Value => ({ name: arrays.site.b().lit(v, hint), shape: typeof v === 'number' ? NUMBER : BOOLEAN });

/** JavaScript's truthiness of a callback's value: a boolean as it is; a number unless 0 or NaN. */
function truthy(arrays: ArrayLowering, y: Value, node: ts.Node): string {
  const b = arrays.site.b();
  if (y.shape.kind === 'boolean') return y.name;
  if (y.shape.kind !== 'number') return fail(1121, node, `the callback must return a boolean or a number here, got ${describeShape(y.shape)}`);
  const nonzero = b.test('ne', [y.name, b.lit(0, 'zero')], 'nonzero');
  return b.nl('truthy', { tag: 'prim', op: 'and', args: [nonzero, b.test('eq', [y.name, y.name], 'number')] }, BOOL);
}

/** JavaScript stops calling a search's callback once the answer is known; tsad calls it on every element. */
function noEffects(arrays: ArrayLowering, cb: Callback, what: string): void {
  if (hasEffects(arrays.site.t, arrays.site.checker, cb)) {
    fail(
      1121,
      cb.node,
      `the callback of ${what} throws or logs: JavaScript stops calling it at the first element that decides, tsad's ${what} runs it on every element; test the elements in a for…of loop that breaks`,
    );
  }
}

/** `xs.some(f)` and `xs.every(f)`: a fold of `||` (from false) or `&&` (from true) over f's truthiness. */
export function someEvery(arrays: ArrayLowering, xs: Value, cb: Callback, every: boolean, node: ts.Node, hint?: string): Value {
  noEffects(arrays, cb, every ? '.every' : '.some');
  return arrays.fold(arrays.length(xs), literal(arrays, every, every ? 'all' : 'any'), node, hint, (bind, acc, k) => {
    const t = truthy(arrays, cb.apply(bind, [arrays.read(xs, k, 'x'), k], 'test'), cb.node);
    return { name: arrays.site.b().nl(every ? 'all' : 'any', { tag: 'prim', op: every ? 'and' : 'or', args: [acc.name, t] }, BOOL), shape: BOOLEAN };
  });
}

/** The first index k at which `test(k)` holds, or −1: a fold keeping the first one found (a constant). */
function firstIndex(arrays: ArrayLowering, xs: Value, node: ts.Node, hint: string | undefined, test: (bind: (sym: ts.Symbol, v: Value) => void, k: Value) => string): Value {
  const found = arrays.fold(arrays.length(xs), literal(arrays, -1, 'none'), node, hint, (bind, acc, k) => {
    const b = arrays.site.b();
    const hit = test(bind, k);
    const had = b.test('ge', [acc.name, b.lit(0, 'zero')], 'had');
    const here = b.nl('at', { tag: 'prim', op: 'select', args: [hit, k.name, b.lit(-1, 'none')] }, REAL);
    return { name: b.nl('found', { tag: 'prim', op: 'select', args: [had, acc.name, here] }, REAL), shape: NUMBER };
  });
  return { name: arrays.site.b().prim('stop_gradient', [found.name], hint ?? 'index'), shape: NUMBER };
}

/** `xs.findIndex(f)`: the first index where f is truthy, or −1. */
export function findIndex(arrays: ArrayLowering, xs: Value, cb: Callback, node: ts.Node, hint?: string): Value {
  noEffects(arrays, cb, '.findIndex');
  return firstIndex(arrays, xs, node, hint, (bind, k) => truthy(arrays, cb.apply(bind, [arrays.read(xs, k, 'x'), k], 'test'), cb.node));
}

/**
 * `xs.indexOf(v, from?)` (strict equality: NaN is never found, −0 finds 0) and `xs.includes(v,
 * from?)` (SameValueZero: NaN finds NaN); `from` as JavaScript reads it (negative from the end).
 */
export function indexOf(arrays: ArrayLowering, xs: Value, v: Value, from: Value | undefined, includes: boolean, node: ts.Node, hint?: string): Value {
  const b = arrays.site.b();
  const n = arrays.length(xs);
  const start = from ? arrays.span(n, from, undefined).from : undefined;
  const target = b.prim('stop_gradient', [v.name], 'sought');
  const found = firstIndex(arrays, xs, node, includes ? 'index' : hint, (_bind, k) => {
    const ib = arrays.site.b();
    const x = arrays.read(xs, k, 'x').name;
    let hit = ib.test('eq', [x, target], 'same');
    if (includes) {
      const bothNaN = ib.nl('nan', { tag: 'prim', op: 'and', args: [ib.test('ne', [x, x], 'nan'), ib.test('ne', [target, target], 'nan')] }, BOOL);
      hit = ib.nl('same', { tag: 'prim', op: 'or', args: [hit, bothNaN] }, BOOL);
    }
    if (start) hit = ib.nl('same', { tag: 'prim', op: 'and', args: [ib.test('ge', [k.name, start.name], 'after'), hit] }, BOOL);
    return hit;
  });
  if (!includes) return found;
  return { name: b.test('ge', [found.name, b.lit(0, 'zero')], hint ?? 'included'), shape: BOOLEAN };
}

/** `xs.lastIndexOf(v, from?)`: the last k ≤ from (default the end; negative from the end) with xs[k] === v, or −1. */
export function lastIndexOf(arrays: ArrayLowering, xs: Value, v: Value, from: Value | undefined, node: ts.Node, hint?: string): Value {
  const b = arrays.site.b();
  const n = arrays.length(xs);
  const target = b.prim('stop_gradient', [v.name], 'sought');
  let last = b.prim('sub', [n.name, b.lit(1, 'one')], 'last');
  if (from) {
    const k = arrays.toInteger(from).name;
    const negative = b.test('lt', [k, b.lit(0, 'zero')], 'negative');
    last = b.nl('last', { tag: 'prim', op: 'select', args: [negative, b.prim('add', [n.name, k], 'back'), b.prim('min', [k, last], 'last')] }, REAL);
  }
  const found = arrays.fold(n, literal(arrays, -1, 'none'), node, hint, (_bind, acc, k) => {
    const ib = arrays.site.b();
    const same = ib.test('eq', [arrays.read(xs, k, 'x').name, target], 'same');
    const hit = ib.nl('hit', { tag: 'prim', op: 'and', args: [same, ib.test('le', [k.name, last], 'before')] }, BOOL);
    return { name: ib.nl('found', { tag: 'prim', op: 'select', args: [hit, k.name, acc.name] }, REAL), shape: NUMBER };
  });
  return { name: b.prim('stop_gradient', [found.name], hint ?? 'index'), shape: NUMBER };
}

/**
 * `xs.filter(f)`: the elements where f is truthy, in order. The flags are a fold; the kept
 * indices a compaction (an inclusive scan of the flags gives each kept element its position,
 * reduceByIndex puts its index there, the others fall outside); the result a gather of xs at
 * them, so the adjoint is the gather's (a scatter-add), and the indices are constants.
 */
export function filter(arrays: ArrayLowering, xs: Value, cb: Callback, node: ts.Node, hint?: string): Value {
  const records = isRecords(xs.shape);
  if (xs.shape.kind !== 'array' || (xs.shape.elem.kind !== 'number' && !records)) return fail(1121, node, `.filter of ${describeShape(xs.shape)} is not supported`);
  const n = arrays.length(xs);
  const zeros = arrays.fill(n, literal(arrays, 0, 'zero'), REAL_ARRAY, 'flags');
  const flags = arrays.fold(n, zeros, node, 'flags', (bind, acc, k) => {
    const ib = arrays.site.b();
    const t = truthy(arrays, cb.apply(bind, [arrays.read(xs, k, 'x', node), k], 'test'), cb.node);
    const flag = ib.nl('flag', { tag: 'prim', op: 'select', args: [t, ib.lit(1, 'one'), ib.lit(0, 'zero')] }, REAL);
    return arrays.update(acc, k, { name: flag, shape: NUMBER }, node);
  });
  const b = arrays.site.b();
  const positions = arrays.combinator('scan', flags, literal(arrays, 0, 'zero'), (acc, x, ib) => ib.prim('add', [acc, x], 'acc'), 'positions');
  const count = arrays.sum(flags, 'kept');
  // bin k: the kept element's place (its position − 1), or −1 (outside: dropped).
  const [i, f, p] = [binder(b.fresh('i'), REAL), binder(b.fresh('flag'), REAL), binder(b.fresh('position'), REAL)];
  const inner = b.inner();
  const keep = inner.test('gt', [f.name, inner.lit(0, 'zero')], 'keep');
  const bin = inner.nl('bin', { tag: 'prim', op: 'select', args: [keep, inner.prim('sub', [p.name, inner.lit(1, 'one')], 'place'), inner.lit(-1, 'none')] }, REAL);
  const bins = b.nl('bins', construct('map', [n.name, flags.name, positions.name], [], [lambda([i, f, p], [], inner.finish(ret([bin])))]), REAL_ARRAY_TYPE);
  const dest = arrays.fill(count, literal(arrays, 0, 'zero'), REAL_ARRAY, 'kept');
  const [acc, x] = [binder(b.fresh('acc'), REAL), binder(b.fresh('x'), REAL)];
  const op = b.inner();
  const sum = op.prim('add', [acc.name, x.name], 'acc');
  const kept = b.nl('kept', construct('reduceByIndex', [dest.name, bins, arrays.iota(n).name], [], [lambda([acc, x], [], op.finish(ret([sum])))]), REAL_ARRAY_TYPE);
  if (records) return arrays.records.gather(xs, { name: kept, shape: REAL_ARRAY }, node, '.filter', hint ?? 'filtered');
  return { name: b.nl(hint ?? 'filtered', construct('gather', [xs.name, kept], [], []), REAL_ARRAY_TYPE), shape: xs.shape };
}

/** `xs.at(i)`: i truncated, a negative one from the end; outside the array it reads undefined, as in JavaScript. */
export function at(arrays: ArrayLowering, xs: Value, i: Value, node: ts.Node, hint?: string): Value {
  if (i.shape.kind !== 'number') return fail(1121, node, `.at needs a number, got ${describeShape(i.shape)} (${sourceSnippet(node)})`);
  const b = arrays.site.b();
  const k = arrays.toInteger(i).name;
  const n = arrays.length(xs);
  const negative = b.test('lt', [k, b.lit(0, 'zero')], 'negative');
  const index = b.nl('at', { tag: 'prim', op: 'select', args: [negative, b.prim('add', [n.name, k], 'back'), k] }, REAL);
  return arrays.read(xs, { name: index, shape: NUMBER }, hint, node);
}

/**
 * `Math.max(...a)`, `Math.min(x, ...a, ...[p, q])`: a reduce of each spread array and the
 * primitive on each number, from −∞ (+∞ for min), as JavaScript's `Math.max()` is −∞. Its
 * adjoint is the reduce's (the lowest index of a tie gets it).
 */
export function extremum(arrays: ArrayLowering, fn: 'max' | 'min', args: readonly ts.Expression[], _node: ts.Node, _hint?: string): Value {
  const { t } = arrays.site;
  let acc = literal(arrays, fn === 'max' ? -Infinity : Infinity, 'start');
  const take = (a: ts.Expression): void => {
    if (t.isSpreadElement(a)) {
      let inner = a.expression;
      while (t.isParenthesizedExpression(inner)) inner = inner.expression;
      // `...[a, b]`: the elements themselves.
      if (t.isArrayLiteralExpression(inner)) return inner.elements.forEach(take);
      const xs = arrays.arrayOf(inner);
      if (xs.shape.kind !== 'array' || xs.shape.elem.kind !== 'number') fail(1121, a, `Math.${fn} of ${describeShape(xs.shape)} is not supported: spread an array of numbers`);
      acc = arrays.combinator('reduce', xs, acc, (p, x, b) => b.prim(fn, [p, x], 'acc'), fn);
      return;
    }
    const x = arrays.site.expr(a);
    if (x.shape.kind !== 'number') fail(1105, a, `Math.${fn} needs numbers, got ${describeShape(x.shape)}`);
    acc = { name: arrays.site.b().prim(fn, [acc.name, x.name], fn), shape: NUMBER };
  };
  args.forEach(take);
  return acc;
}
