// Accumulating reads' cotangents in place (docs/linear-a.md, "Arrays", "Accumulation").
//
//   let (; ā') = laccum(i, w ; ā, ẏ) []     ā + e_i·ẏ, dense of w's length      cost 1
//                                           (w: an array, or the length itself)
//   let (x1, x2) = share(x) []              x twice (E of a dup of an array)    cost 0
//   let (; ā', ẏ) = lpeek(i, w ; ā) []      (ā, ā[i]): a read that hands ā on   cost 1
//
// T of a read `lindex(i, w ; ȧ)` is the one-hot `lonehot(i, w ; ȳ)`, and the fan-in of many reads
// of one array (a loop's invariant read every iteration) adds one-hots with `ladd`, which costs
// the longer array: O(n) per read. The simplifier fuses `ladd(; ā, lonehot(i, w ; ẏ))` into
// `laccum(i, w ; ā, ẏ)` (the one-hot record's `fuseAdd`), which is ā + e_i·ẏ as a value and, in
// the interpreter and in emitted code, an in-place `ā[i] += ẏ` on an array of w's length: the
// dense cotangent is allocated once (copying ā) and then updated at O(1) per read.
//
// In place is safe when nobody else holds ā. ā is linear, used once, so within one run of a
// function or body the only other holders come from `dup` (and its erasure, `share`), from the
// caller (a `.bwd`'s cotangent input, which must never change) or from the enclosing scope (a
// loop invariant, seen again next iteration). So an array is updated in place only by the run that
// allocated it (InterpOps.owns; in TypeScript a per-call set of arrays, EmitTsOps.owned): a dup or
// share releases it, and everything else is copied once, densely, before its first update.
//
// Adjoint: ⟨laccum(i, w ; ā, ẏ), c̄⟩ = ⟨ā, c̄⟩ + ẏ·c̄_i, so T(laccum)(c̄) = (c̄, c̄_i) = lpeek(i, w ; c̄),
// and T(lpeek) = laccum. lpeek is `dup` then `lindex` without the second holder: the array it
// hands on is the same one, still owned by the run that owned it, so an update after a read of
// the same tangent (J of `h[j] = f(h[j])`: lindex then lupdate of ḣ) stays in place
// (ad/peek.ts puts it in for the pair, through lindex's `peek` facet).
// J of the erased form (all operands non-linear, second order): laccum is linear in (ā, ẏ), so
// its tangent is laccum(i, w ; ȧ, ẏ̇), a zero tangent materialised.
import { binder, construct, dup, tangentType, InternalError, IrError, arrayType, REAL } from '../../ir/syntax';
import type { Type } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { ConstructExpr, ConstructRule, InterpOps, Sides } from '../types';
import { barName, dotName } from '../../ir/names';
import { nonLinearOnly } from '../shared/nonLinear';

const REAL_ARRAY = arrayType(REAL);

/** The dense length a witness gives: an array's length, or the length itself. */
export const witnessLength = (w: Value): number => (Array.isArray(w) ? w.length : (w as number));

/**
 * The array to update in place: `a` itself when this run owns it and it is dense, otherwise a
 * dense copy of length n (charged per element) that this run then owns (laccum, lupdate, ltake).
 */
export function ownedDense(ops: InterpOps, a: Value[], n: number): Value[] {
  if (a.length >= n && ops.owns(a)) return a;
  const dense = new Array<Value>(Math.max(n, a.length)).fill(0);
  for (let k = 0; k < a.length; k++) dense[k] = a[k];
  ops.charge(dense.length);
  ops.claim(dense);
  return dense;
}

export const isLinear = (e: ConstructExpr): boolean => e.lin.length > 0;
/** (i, w) and (ā, ẏ), from the linear form or the erased one (all four non-linear). */
export const split = <T>(e: ConstructExpr, v: Sides<T>): { i: T; w: T; a: T; y: T } =>
  isLinear(e) ? { i: v.nl[0], w: v.nl[1], a: v.lin[0], y: v.lin[1] } : { i: v.nl[0], w: v.nl[1], a: v.nl[2], y: v.nl[3] };
/** Results on the side the form's operands are on: linear, or non-linear once erased. */
const sides = <T>(e: ConstructExpr, xs: T[]): Sides<T> => (isLinear(e) ? { nl: [], lin: xs } : { nl: xs, lin: [] });
const result = <T>(e: ConstructExpr, x: T): Sides<T> => sides(e, [x]);

export const laccum: ConstructRule = {
  name: 'laccum',
  arity: (e) => (isLinear(e) ? { nl: 0, lin: 1 } : { nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (e.bodies.length !== 0) ops.error('laccum takes no bodies');
    const ok = isLinear(e) ? t.nl.length === 2 && t.lin.length === 2 : t.nl.length === 4 && t.lin.length === 0;
    if (!ok) {
      ops.error(`laccum takes an index, a witness array and two operands, linear (laccum(i, w ; ā, ẏ)) or, erased, non-linear; got ${t.nl.length} non-linear and ${t.lin.length} linear`);
      return result(e, REAL_ARRAY);
    }
    const { i, w, a, y } = split(e, t);
    if (i.tag !== 'real') ops.error(`the index of laccum must be real, got ${printType(i)}`);
    if (w.tag !== 'array' && w.tag !== 'real') ops.error(`the witness of laccum must be an array or a length (the accumulator's), got ${printType(w)}`);
    if (a.tag !== 'array' || a.elem.tag !== 'real') ops.error(`laccum accumulates into an array<real>, got ${printType(a)}`);
    if (y.tag !== 'real') ops.error(`laccum adds a real, got ${printType(y)}`);
    return result(e, REAL_ARRAY);
  },
  impl: (ops, e, v) => {
    const { i, w, a, y } = split(e, v);
    const n = witnessLength(w);
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= n) throw new IrError(`laccum: index ${String(i)} outside an array of ${n}`);
    ops.charge(1);
    const acc = ownedDense(ops, a as Value[], n);
    acc[i] = (acc[i] as number) + (y as number);
    return result(e, acc);
  },
  jvp: (ops, e, results) => {
    if (isLinear(e)) throw new InternalError('jvp: laccum with linear operands in a non-linear program (J applies to non-linear code; erase first)');
    const { i, w, a, y } = split(e, e);
    ops.b.bind([...results], [], e);
    const aDot = ops.tangentOf(a);
    const yDot = ops.tangentOf(y);
    if (aDot === null && yDot === null) return [null];
    const rDot = binder(ops.b.fresh(dotName(results[0].name)), tangentType(REAL_ARRAY));
    ops.b.bind([], [rDot], construct('laccum', [i, w], [aDot ?? ops.b.zero(REAL_ARRAY), yDot ?? ops.b.zero(REAL)], []));
    return [rDot.name];
  },
  unzip: (_ops, e) => e,
  transpose: (ops, e, [ct]) => {
    if (ct === null) return [null, null];
    const aBar = binder(ops.b.fresh(barName(e.lin[0])), REAL_ARRAY);
    const yBar = binder(ops.b.fresh(barName(e.lin[1])), REAL);
    ops.b.bind([], [aBar, yBar], construct('lpeek', e.nl, [ct], []));
    return [aBar.name, yBar.name];
  },
  pruneResults: () => undefined,
  updatesInPlace: true,
  threads: (e) => (isLinear(e) ? undefined : { array: 2, result: 0, dense: 1, owned: 'laccumw', adds: { index: 0, value: 3 } }),
  lengthOnly: [1],
  accumulates: 0,
  accumulatesErased: 2,
  // x + (ā + e_i·ẏ) = (x + ā) + e_i·ẏ: the inner addition fuses again (a fan-in of two reads,
  // ladd(; lonehot, lonehot), added to an accumulator becomes two accumulations).
  fuseAdd: (ops, e, other) => {
    const sum = isLinear(e) ? ops.add(other, e.lin[0], REAL_ARRAY) : undefined;
    return sum === undefined ? undefined : construct('laccum', e.nl, [sum, e.lin[1]], []);
  },
};

/** The value twice, released from in-place updates (both holders may read it). */
export const share: ConstructRule = {
  name: 'share',
  arity: () => ({ nl: 2, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (e.bodies.length !== 0) ops.error('share takes no bodies');
    if (t.nl.length !== 1 || t.lin.length !== 0) {
      ops.error(`share takes one non-linear operand, got ${t.nl.length} non-linear and ${t.lin.length} linear`);
      return { nl: [REAL, REAL], lin: [] };
    }
    return { nl: [t.nl[0], t.nl[0]], lin: [] };
  },
  impl: (ops, _e, v) => {
    ops.release(v.nl[0]);
    return { nl: [v.nl[0], v.nl[0]], lin: [] };
  },
  // Linear (the diagonal): its tangent is the fan-out of the operand's.
  jvp: (ops, e, results) => {
    ops.b.bind([...results], [], e);
    const xDot = ops.tangentOf(e.nl[0]);
    if (xDot === null) return [null, null];
    const t: Type = tangentType(ops.typeOf(e.nl[0]));
    const dots = results.map((r) => binder(ops.b.fresh(dotName(r.name)), t));
    ops.b.bind([], dots, dup(xDot));
    return dots.map((d) => d.name);
  },
  ...nonLinearOnly('share'),
};

/** lpeek's (i, w) and ā, from the linear form or the erased one. */
export const peekParts = <T>(e: ConstructExpr, v: Sides<T>): { i: T; w: T; a: T } => (isLinear(e) ? { i: v.nl[0], w: v.nl[1], a: v.lin[0] } : { i: v.nl[0], w: v.nl[1], a: v.nl[2] });

/** `(ā, ā[i])`: element i of ā (0 past the end of a sparse array) and ā itself, still one holder. */
export const lpeek: ConstructRule = {
  name: 'lpeek',
  arity: (e) => (isLinear(e) ? { nl: 0, lin: 2 } : { nl: 2, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (e.bodies.length !== 0) ops.error('lpeek takes no bodies');
    const ok = isLinear(e) ? t.nl.length === 2 && t.lin.length === 1 : t.nl.length === 3 && t.lin.length === 0;
    if (!ok) {
      ops.error(`lpeek takes an index, a witness and an array, linear (lpeek(i, w ; ā)) or, erased, non-linear; got ${t.nl.length} non-linear and ${t.lin.length} linear`);
      return sides(e, [REAL_ARRAY, REAL]);
    }
    const { i, w, a } = peekParts(e, t);
    if (i.tag !== 'real') ops.error(`the index of lpeek must be real, got ${printType(i)}`);
    if (w.tag !== 'array' && w.tag !== 'real') ops.error(`the witness of lpeek must be an array or a length, got ${printType(w)}`);
    if (a.tag !== 'array' || a.elem.tag !== 'real') ops.error(`lpeek reads an array<real>, got ${printType(a)}`);
    return sides(e, [REAL_ARRAY, REAL]);
  },
  impl: (ops, e, v) => {
    const { i, a } = peekParts(e, v);
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0) throw new IrError(`lpeek: index ${String(i)} is not a non-negative integer`);
    ops.charge(1);
    const arr = a as Value[];
    return sides(e, [arr, (arr[i] as number | undefined) ?? 0]);
  },
  jvp: (ops, e, results) => {
    if (isLinear(e)) throw new InternalError('jvp: lpeek with linear operands in a non-linear program (J applies to non-linear code; erase first)');
    const { i, w, a } = peekParts(e, e);
    ops.b.bind([...results], [], e);
    const aDot = ops.tangentOf(a);
    if (aDot === null) return [null, null];
    const dots = [binder(ops.b.fresh(dotName(results[0].name)), REAL_ARRAY), binder(ops.b.fresh(dotName(results[1].name)), REAL)];
    ops.b.bind([], dots, construct('lpeek', [i, w], [aDot], []));
    return dots.map((d) => d.name);
  },
  unzip: (_ops, e) => e,
  // ⟨(ā, ā_i), (c̄, ȳ)⟩ = ⟨ā, c̄ + e_i·ȳ⟩: an accumulation (a one-hot where c̄ is zero).
  transpose: (ops, e, [aCt, yCt]) => {
    if (aCt === null && yCt === null) return [null];
    if (yCt === null) return [aCt];
    const bar = binder(ops.b.fresh(barName(e.lin[0])), REAL_ARRAY);
    ops.b.bind([], [bar], aCt === null ? construct('lonehot', e.nl, [yCt], []) : construct('laccum', e.nl, [aCt, yCt], []));
    return [bar.name];
  },
  pruneResults: () => undefined,
  threads: (e) => (isLinear(e) ? undefined : { array: 2, result: 0, unchanged: true }),
  lengthOnly: [1],
};

// ---- in place where a pass proved it (opt/ownedChains.ts) ----
//
//   let a' = claim(a, w[, n]) []           a, owned by the running call and dense of w's length
//                                          (when n > 0: the trip count of the loop it precedes)
//   let a' = laccumw(i, w, a, y) []        laccum of an array known owned and dense: a[i] += y
//   let a' = laccumw(i, w, a, y1, …, yk) []  a[i] = a[i] + y1 + … + yk (k in a row, paired)
//
// Only the backend sees them: opt/ownedChains.ts puts a claim before a loop that hands its
// carried cotangent only to accumulations, and turns those into their unchecked twins. The
// interpreter checks what the pass proved, so a wrong proof is an internal error in the tests
// that run programs through it, never a silently changed caller's array.

/** J of a form only the backend sees. */
const backendOnly = (name: string) => (): never => {
  throw new InternalError(`${name} is put in by the backend (opt/ownedChains.ts) after differentiation`);
};

/** An array a proof says the running call owns, densely to n: an internal error where it does not. */
export function provedOwned(ops: InterpOps, op: string, a: Value, n: number): Value[] {
  if (!Array.isArray(a) || !ops.owns(a) || a.length < n) throw new InternalError(`${op}: the array is not owned by the running call and dense to ${n} (opt/ownedChains.ts proved it wrongly)`);
  return a;
}

export const claim: ConstructRule = {
  name: 'claim',
  arity: () => ({ nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (e.bodies.length !== 0 || t.lin.length !== 0 || (t.nl.length !== 2 && t.nl.length !== 3)) ops.error('claim takes an array, a witness and optionally a trip count, all non-linear');
    return { nl: [REAL_ARRAY], lin: [] };
  },
  impl: (ops, _e, v) => {
    const [a, w, n] = v.nl;
    if (n !== undefined && !((n as number) > 0)) return { nl: [a], lin: [] };
    return { nl: [ownedDense(ops, a as Value[], witnessLength(w))], lin: [] };
  },
  jvp: backendOnly('claim'),
  ...nonLinearOnly('claim'),
  updatesInPlace: true,
  threads: () => ({ array: 0, result: 0, dense: 1 }),
  lengthOnly: [1],
  // A dense copy of a zero array (its length padded with +0s) is zeros.
  zeros: (e, isZero) => isZero(e.nl[0]),
};

// Several values (`pairs`): accumulations of one element in a row, `a[i] += y1; a[i] += y2` (J of
// `z[r] * z[r]` reads ż[r] twice, so T adds twice into z̄[r]), are one read and one store of the
// element, the same additions in the same order: bit for bit the separate adds.

/** The values a laccumw adds, in order (operands 3 on). */
export const accumValues = (e: ConstructExpr): readonly string[] => e.nl.slice(3);

export const laccumw: ConstructRule = {
  name: 'laccumw',
  arity: () => ({ nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (t.nl.length <= 4 || t.lin.length !== 0) return laccum.typeRule(ops, e, t) as Sides<Type>;
    const rest = t.nl.slice(4);
    if (rest.some((y) => y.tag !== 'real')) ops.error(`laccumw adds reals, got ${rest.map((y) => printType(y)).join(', ')}`);
    return laccum.typeRule(ops, { ...e, nl: e.nl.slice(0, 4) }, { nl: t.nl.slice(0, 4), lin: [] }) as Sides<Type>;
  },
  impl: (ops, e, v) => {
    const { i, w, a } = split(e, v);
    const n = witnessLength(w);
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= n) throw new IrError(`laccumw: index ${String(i)} outside an array of ${n}`);
    const ys = v.nl.slice(3) as number[];
    ops.charge(ys.length);
    const acc = provedOwned(ops, 'laccumw', a, n);
    let sum = acc[i] as number;
    for (const y of ys) sum += y;
    acc[i] = sum;
    return { nl: [acc], lin: [] };
  },
  jvp: backendOnly('laccumw'),
  ...nonLinearOnly('laccumw'),
  updatesInPlace: true,
  // linitw stores one value: only a single add is a first write.
  threads: (e) => ({ array: 2, result: 0, dense: 1, ...(e.nl.length === 4 ? { first: { op: 'linitw', index: 0 } } : {}) }),
  lengthOnly: [1],
  pairs: (first, second) =>
    first.op === 'laccumw' && first.nl[0] === second.nl[0] && first.nl[1] === second.nl[1] ? (construct('laccumw', [...first.nl, ...accumValues(second)], [], []) as ConstructExpr) : undefined,
};

// ---- the first write of an element (opt/firstWrites.ts) ----
//
//   let a' = linitw(i, w, a, y) []         laccumw where a[i] is +0: a[i] = y + 0   cost 1
//
// A loop that adds once per run into a carried array of zeros, at an index different in every
// run (the transpose of a loop reading x[i] once per i: the softmax of lse), adds each element to
// +0 once: storing `y + 0` gives the same bits (0 + y is y + 0, −0 included) without reading the
// element, which on a fresh array of many pages also spares the read of every zero page before it
// is written. The interpreter checks that the element is +0.

export const linitw: ConstructRule = {
  name: 'linitw',
  arity: () => ({ nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => laccum.typeRule(ops, e, t) as Sides<Type>,
  impl: (ops, e, v) => {
    const { i, w, a, y } = split(e, v);
    const n = witnessLength(w);
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= n) throw new IrError(`linitw: index ${String(i)} outside an array of ${n}`);
    ops.charge(1);
    const acc = provedOwned(ops, 'linitw', a, n);
    if (!Object.is(acc[i], 0)) throw new InternalError(`linitw: element ${i} is ${String(acc[i])}, not +0 (opt/firstWrites.ts proved a first write wrongly)`);
    acc[i] = (y as number) + 0;
    return { nl: [acc], lin: [] };
  },
  jvp: backendOnly('linitw'),
  ...nonLinearOnly('linitw'),
  updatesInPlace: true,
  threads: () => ({ array: 2, result: 0, dense: 1 }),
  lengthOnly: [1],
};
