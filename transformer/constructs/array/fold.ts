// The shared machinery of scan and reduce (docs/linear-a.md, "Arrays", "scan and reduce"):
//
//   let (ȳ, ō) = scan(n, ē, x̄s) [|ā: τ̄, b̄: τ̄| { body -> (ā', ō) }]     ȳ_j: array<τ_j>, the inclusive scan
//   let (ȳ, ō) = reduce(n, ē, x̄s) [|ā, b̄| { body }]                     ȳ_j: τ_j, the fold's final value
//
// k accumulators ā start at the neutral elements ē and meet element i of the k arrays x̄s
// (n elements each); the body returns the k new accumulators, then any number m of per-element
// outputs ō (collected into arrays: JAX's `ys`, how U hands per-element residuals on). The fold
// runs left to right, so an operator that is only associative (not commutative) is right, and
// ties of min/max go to the lowest index (the primitive's tie rule lets the accumulator win).
//
// Work: the n bodies' work. The construct itself costs nothing.
//
// J: the fold of J body over pairs (its tangents carried beside the values, as for loops):
//      let (ȳ, ō ; ẏ̄, ȯ) = scan(n, ē, x̄s ; ė̄, ẋ̄s)[|ā, b̄ ; ǡ, ḃ̄| J body]
// U: with U(J body) = (body_N : |ā, b̄| -> (ā', ō, s̄), body_L : |s̄ ; ǡ, ḃ̄| -> (; ǡ', ȯ)),
//      C:   let (ȳ, ō, s̄_arr) = scan(n, ē, x̄s)[body_N]        residuals as per-element outputs
//      ė_L: lscan(n, s̄_arr ; ė̄, ẋ̄s)[body_L]                 the linear recurrence (linearFold.ts)
//    (reduce: lfold). W(C) + W(ė_L) = W(J scan) exactly. A residual that is an element b is not
//    stored: its array x̄s is passed to the recurrence (as a loop passes its invariants).
// T: the linear recurrences' transposes run backwards (linearFold.ts): the reverse-scan
//    formulation of the Futhark rules, exact for zeros, min/max, and non-commutative operators.
// E: the pairs become 2k accumulators, (a, ȧ) side by side, as the op `sscan`/`sreduce` whose
//    arrays of reals may be shorter than n (sparse tangents), as `smap` is to `map`.
import { typeEquals, binder, blockE, construct, ret, lambda, letS, arrayType, IrError } from '../../ir/syntax';
import type { Binder, Expr, Lambda, Type } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { CheckOps, ConstructExpr, ConstructRule, EraseOps, Sides, TypeRun } from '../types';
import { loopLikeJvp } from '../shared/loopLikeJvp';
import { residualArrays } from '../shared/residuals';
import { flattenResiduals } from './flatResiduals';
import { recognise, specialJvp } from './reduceSpecial';
import { neverTransposed } from '../shared/nonLinear';

export type FoldKind = 'scan' | 'reduce';

export function count(v: Value, op: string, what = 'length'): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new IrError(`${op}: the ${what} ${String(v)} is not a non-negative integer`);
  return v;
}

/** The number of accumulators: after n come k neutral elements and k arrays. */
export const accumulators = (e: ConstructExpr): number => (e.nl.length - 1) / 2;

/** Element i of a mapped array, 0 past the end of a sparse tangent. */
export const at = (a: Value, i: number): Value => (a as Value[])[i] ?? 0;

function checkLength(a: Value, n: number, op: string, what: string, sparse: boolean): void {
  if (!Array.isArray(a)) throw new IrError(`${op}: ${what} is not an array`);
  if (sparse ? a.length > n : a.length !== n) throw new IrError(`${op}: ${what} has ${a.length} elements, the length is ${n}`);
}

function typeRule(kind: FoldKind): ConstructRule['typeRule'] {
  return function* (ops: CheckOps, e: ConstructExpr, t: Sides<Type>): TypeRun {
    const fail = (msg: string): Sides<Type> => {
      ops.error(msg);
      return { nl: [], lin: [] };
    };
    if (e.bodies.length !== 1) return fail(`${e.op} takes one body, got ${e.bodies.length}`);
    if (t.nl.length < 3 || t.nl.length % 2 !== 1) return fail(`${e.op} takes its length n, then k neutral elements and k arrays (k ≥ 1), got ${t.nl.length} non-linear operands`);
    if (t.nl[0].tag !== 'real') return fail(`the first operand of ${e.op} is its length n, a real`);
    const k = accumulators(e);
    const neutral = t.nl.slice(1, 1 + k);
    const arrays = t.nl.slice(1 + k);
    arrays.forEach((a, j) => {
      if (a.tag !== 'array' || !typeEquals(a.elem, neutral[j]))
        ops.error(`${e.op}: operand ${1 + k + j} must be an array of the neutral element ${e.nl[1 + j]}'s type ${printType(arrayType(neutral[j]))}, got ${printType(a)}`);
    });
    const l = e.bodies[0];
    if (l.nlParams.length !== 2 * k) return fail(`the body of ${e.op} takes ${k} accumulator(s) and ${k} element(s), got ${l.nlParams.length} non-linear parameters`);
    if (t.lin.length !== 0 && t.lin.length !== 2 * k) return fail(`${e.op} takes no linear operands or the tangents of its ${2 * k} non-linear ones after n, got ${t.lin.length}`);
    if (l.linParams.length !== t.lin.length) return fail(`the body of ${e.op} takes one linear parameter per linear operand: ${t.lin.length}, got ${l.linParams.length}`);
    const linElems = t.lin.map((x, j) => (j < k ? x : x.tag === 'array' ? x.elem : x));
    const r = yield ops.typeBody(l, { nl: [...neutral, ...neutral], lin: linElems });
    if (r.nl.length < k) return fail(`the body of ${e.op} returns its ${k} new accumulator(s) first, got ${r.nl.length} result(s)`);
    r.nl.slice(0, k).forEach((y, j) => {
      if (!typeEquals(y, neutral[j])) ops.error(`${e.op}: the body's result ${j} is the new accumulator, of the neutral element's type ${printType(neutral[j])}, got ${printType(y)}`);
    });
    const shape = (ys: readonly Type[]): Type[] => ys.map((y, j) => (j < k && kind === 'reduce' ? y : arrayType(y)));
    return { nl: shape(r.nl), lin: t.lin.length === 0 ? [] : shape(r.lin) };
  };
}

function impl(kind: FoldKind, sparse: boolean): ConstructRule['impl'] {
  return function* (ops, e, v) {
    const n = count(v.nl[0], e.op);
    const k = accumulators(e);
    const arrays = v.nl.slice(1 + k);
    arrays.forEach((a, j) => checkLength(a, n, e.op, `the array ${e.nl[1 + k + j]}`, sparse));
    const linArrays = v.lin.slice(k);
    linArrays.forEach((a, j) => checkLength(a, n, e.op, `the tangent array ${e.lin[k + j]}`, true));
    let acc = v.nl.slice(1, 1 + k);
    let linAcc = v.lin.slice(0, k);
    const counts = ops.arity(e.bodies[0]);
    const collect = (c: number): Value[][] => Array.from({ length: c }, () => []);
    const out = { nl: collect(counts.nl), lin: collect(counts.lin) };
    for (let i = 0; i < n; i++) {
      const r = yield ops.bodyRun(e.bodies[0], { nl: [...acc, ...arrays.map((a) => at(a, i))], lin: [...linAcc, ...linArrays.map((a) => at(a, i))] });
      acc = r.nl.slice(0, k);
      linAcc = r.lin.slice(0, k);
      r.nl.forEach((y, j) => out.nl[j].push(y));
      r.lin.forEach((y, j) => out.lin[j].push(y));
    }
    if (kind === 'scan') return out;
    return { nl: [...acc, ...out.nl.slice(k)], lin: [...(e.lin.length > 0 ? linAcc : []), ...out.lin.slice(k)] };
  };
}

const jvp: ConstructRule['jvp'] = (ops, e, results) => {
  const special = recognise(e);
  if (special !== undefined) return specialJvp(ops, e, results, special);
  const k = accumulators(e);
  e.nl.slice(1, 1 + k).forEach((x) => {
    if (ops.typeOf(x).tag !== 'real') throw new IrError(`${e.op}: derivatives need real accumulators, not ${printType(ops.typeOf(x))} (pass a tuple's reals as several accumulators)`);
  });
  return loopLikeJvp(ops, e, results, e.nl.slice(1), (o) => [o.jvpBody(e.bodies[0])]);
};

function unzip(kind: FoldKind, sparse: boolean): ConstructRule['unzip'] {
  return (ops, e, results) => {
    const { b } = ops;
    const k = accumulators(e);
    if (results.lin.length > k) throw new IrError(`${e.op}: the tangents of per-element outputs are not supported yet (a second derivative through scan or reduce)`);
    const h = flattenResiduals(b, ops.unzipBody(e.bodies[0]), results.nl.length);
    // A residual that is an element is not stored again: the linear recurrence reads the array
    // itself (a strict one: an smap's array may be a sparse tangent, shorter than n).
    const elements = sparse ? [] : e.bodies[0].nlParams.slice(k).map((p, j) => ({ param: p.name, operand: e.nl[1 + k + j] }));
    const { sources, arrays, primal } = residualArrays(b, e, h, results.nl.length, undefined, elements);
    b.bind([...results.nl, ...arrays], [], construct(e.op, e.nl, [], [primal]));
    const operands = [e.nl[0], ...sources.map((s) => (s.kind === 'stacked' ? arrays[s.slot].name : s.kind === 'invariant' ? s.operand : e.nl[0]))];
    return construct(kind === 'scan' ? 'lscan' : 'lfold', operands, e.lin, [h.tangent]);
  };
}

/**
 * E of a fold-like construct with k accumulators: the accumulators and their tangents side by
 * side (pairs (a, ȧ)), then the elements and theirs, as the sparse op; `operands` places the
 * accumulators' and elements' operands (and their tangents) among the others.
 */
export function eraseInPairs(
  ops: EraseOps,
  e: ConstructExpr,
  sparseOp: string,
  k: number,
  place: { acc: readonly number[]; elem: readonly number[]; operands: (acc: string[], elems: string[]) => string[] },
): Expr {
  const counts = ops.arity(e.bodies[0]);
  const l = ops.eraseBody(e.bodies[0]);
  // Erased parameters: ā, b̄, ǡ, ḃ̄ → ā, ǡ, b̄, ḃ̄; results ā', ō, ǡ', ȯ → ā', ǡ', ō, ȯ.
  const p = l.nlParams;
  const params = [...p.slice(0, k), ...p.slice(2 * k, 3 * k), ...p.slice(k, 2 * k), ...p.slice(3 * k)];
  const rs = Array.from({ length: counts.nl + counts.lin }, () => binder(ops.fresh('r')));
  const m = counts.nl - k;
  const order = (xs: readonly Binder[]): string[] => [...xs.slice(0, k), ...xs.slice(counts.nl, counts.nl + k), ...xs.slice(k, counts.nl), ...xs.slice(counts.nl + k)].map((x) => x.name);
  const body: Lambda = lambda(params, [], { stmts: [...l.body.stmts, letS(rs, [], l.body.result)], result: ret(order(rs)) });
  const accs = [...place.acc.map((j) => e.nl[j]), ...e.lin.slice(0, k)];
  const elems = [...place.elem.map((j) => e.nl[j]), ...e.lin.slice(k)];
  const folded = construct(sparseOp, place.operands(accs, elems), [], [body]);
  if (m === 0) return folded;
  // The construct returns ȳ, ẏ̄, ō, ȯ; E's order is ȳ, ō, ẏ̄, ȯ.
  const ys = Array.from({ length: 2 * (k + m) }, () => binder(ops.fresh('y')));
  const back = [...ys.slice(0, k), ...ys.slice(2 * k, 2 * k + m), ...ys.slice(k, 2 * k), ...ys.slice(2 * k + m)];
  return blockE({ stmts: [letS(ys, [], folded)], result: ret(back.map((y) => y.name)) });
}

/** E: the op kept when nothing is linear; otherwise the pairs, as the sparse op. */
function erase(sparseOp: string): NonNullable<ConstructRule['erase']> {
  return (ops, e) => {
    if (e.lin.length === 0) return { ...e, bodies: e.bodies.map((l) => ops.eraseBody(l)) };
    const k = accumulators(e);
    const range = (from: number): number[] => Array.from({ length: k }, (_, j) => from + j);
    return eraseInPairs(ops, e, sparseOp, k, { acc: range(1), elem: range(1 + k), operands: (acc, elems) => [e.nl[0], ...acc, ...elems] });
  };
}

/** The record of scan or reduce, strict (`scan`, `reduce`) or over sparse tangent arrays (`sscan`, `sreduce`: E's output). */
export function foldRule(name: string, kind: FoldKind, sparse: boolean): ConstructRule {
  const sparseOp = kind === 'scan' ? 'sscan' : 'sreduce';
  return {
    name,
    arity: (e, bodyArity) => (e.bodies.length > 0 ? { nl: bodyArity(e.bodies[0]).nl, lin: bodyArity(e.bodies[0]).lin } : { nl: 0, lin: 0 }),
    typeRule: typeRule(kind),
    impl: impl(kind, sparse),
    jvp,
    unzip: unzip(kind, sparse),
    transpose: neverTransposed(name),
    pruneResults: () => undefined,
    repeats: true,
    // The source's combinator; its sparse twin is E's output.
    ...(sparse ? {} : { combinator: true }),
    erase: erase(sparseOp),
  };
}
