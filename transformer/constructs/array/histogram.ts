// reduceByIndex (the histogram) and its linear recurrences (docs/linear-a.md, "gather, scatter,
// reduceByIndex"):
//
//   let h̄ = reduceByIndex(d̄ests, idx, v̄als) [|h̄: τ̄, v̄: τ̄| { body -> (h̄', ō) }]
//
// k histograms start as copies of the k destinations (one length M) and, for i = 0 … n − 1 in
// order, the bin b = idx_i gets h[b] ⊙ v_i; a bin outside 0 … M − 1 is ignored (Futhark's
// reduce_by_index), a non-integer one is an error. The operator is a body: `add`, `mul`, `min`,
// `max`, or any other. Per-element outputs ō are collected as for scan (0 where the bin was
// ignored), which is how U hands the residuals on. Work: the bodies run, plus M per histogram
// (the copy).
//
// J: the histogram of J body over pairs (the tangent histograms ḣ beside the values).
// U: with U(J body) = (body_N : |h̄, v̄| -> (h̄', s̄), body_L : |s̄ ; ḣ̄, v̇̄| -> (; ḣ̄')):
//      C:   let (h̄, s̄_arr) = reduceByIndex(d̄ests, idx, v̄als)[body_N]
//      ė_L: lhist(M, idx, s̄_arr ; ḋ̄, v̇̄)[body_L]
//    lhist: ḣ = ḋ (padded to M); for i in order with b = idx_i in range: ḣ[b] = body_L(s̄_i ; ḣ[b], v̇_i).
// T: lhist ↔ lrhist, the recurrence backwards: c̄ = h̄; for i = n − 1 … 0 with b in range:
//    (c̄[b], v̄_i) = body_Lᵀ(s̄_i ; c̄[b]); d̄ = c̄. So histogram(+) transposes to a gather of h̄
//    (v̄_i = h̄[idx_i], d̄ = h̄), histogram(*) is exact with zeros (no division), and min/max send
//    the cotangent to the one value the bin kept (the destination wins ties: it is the
//    accumulator, which min/max's JVP prefers; then the lowest index).
import { typeEquals, binder, construct, letS, arrayType, InternalError, IrError, REAL } from '../../ir/syntax';
import type { Lambda, Type } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { CheckOps, ConstructExpr, ConstructRule, Sides, TypeRun } from '../types';
import { barName } from '../../ir/names';
import { loopLikeJvp } from '../shared/loopLikeJvp';
import { residualArrays } from '../shared/residuals';
import { flattenResiduals } from './flatResiduals';
import { at, count, eraseInPairs } from './fold';
import { binAt } from './indices';
import { expectIndexArray } from './gather';
import { erasedHistogramJvp } from './histogramJvp';
import { neverTransposed } from '../shared/nonLinear';

/** k: the destinations come first, then idx, then k value arrays. */
export const histograms = (e: ConstructExpr): number => (e.nl.length - 1) / 2;

const padded = (a: Value, m: number): Value[] => Array.from({ length: m }, (_, k) => at(a, k));

function typeRule(): ConstructRule['typeRule'] {
  return function* (ops: CheckOps, e: ConstructExpr, t: Sides<Type>): TypeRun {
    const fail = (msg: string): Sides<Type> => {
      ops.error(msg);
      return { nl: [], lin: [] };
    };
    if (e.bodies.length !== 1) return fail(`${e.op} takes one body, got ${e.bodies.length}`);
    if (t.nl.length < 3 || t.nl.length % 2 !== 1) return fail(`${e.op} takes k destinations, the index array and k value arrays (k ≥ 1), got ${t.nl.length} non-linear operands`);
    const k = histograms(e);
    expectIndexArray(ops, e.op, t.nl[k]);
    const dests = t.nl.slice(0, k);
    const vals = t.nl.slice(k + 1);
    const elems = dests.map((d, j) => {
      if (d.tag !== 'array' || !typeEquals(d, vals[j]))
        ops.error(`${e.op}: destination ${e.nl[j]} and values ${e.nl[k + 1 + j]} must be arrays of one type, got ${printType(d)} and ${printType(vals[j])}`);
      return d.tag === 'array' ? d.elem : REAL;
    });
    const l = e.bodies[0];
    if (l.nlParams.length !== 2 * k) return fail(`the body of ${e.op} takes ${k} bin value(s) and ${k} value(s), got ${l.nlParams.length} non-linear parameters`);
    if (t.lin.length !== 0 && t.lin.length !== 2 * k) return fail(`${e.op} takes no linear operands or the tangents of its destinations and values, got ${t.lin.length}`);
    if (l.linParams.length !== t.lin.length) return fail(`the body of ${e.op} takes one linear parameter per linear operand: ${t.lin.length}, got ${l.linParams.length}`);
    const r = yield ops.typeBody(l, { nl: [...elems, ...elems], lin: t.lin.map((x) => (x.tag === 'array' ? x.elem : x)) });
    if (r.nl.length < k) return fail(`the body of ${e.op} returns the ${k} new bin value(s) first, got ${r.nl.length} result(s)`);
    r.nl.slice(0, k).forEach((y, j) => {
      if (!typeEquals(y, elems[j])) ops.error(`${e.op}: the body's result ${j} is a bin value of type ${printType(elems[j])}, got ${printType(y)}`);
    });
    return { nl: r.nl.map(arrayType), lin: r.lin.map(arrayType) };
  };
}

function impl(sparse: boolean): ConstructRule['impl'] {
  return (ops, e, v) => {
    const k = histograms(e);
    const idx = v.nl[k] as Value[];
    const vals = v.nl.slice(k + 1);
    const m = (v.nl[0] as Value[]).length;
    const n = idx.length;
    vals.forEach((a, j) => {
      const len = (a as Value[]).length;
      if (sparse ? len > n : len !== n) throw new IrError(`${e.op}: ${e.nl[k + 1 + j]} has ${len} elements, ${e.nl[k]} has ${n}`);
    });
    v.lin.slice(k).forEach((a, j) => {
      if ((a as Value[]).length > n) throw new IrError(`${e.op}: the tangent ${e.lin[k + j]} has ${(a as Value[]).length} elements, ${e.nl[k]} has ${n}`);
    });
    const hs = v.nl.slice(0, k).map((d, j) => {
      if (sparse ? (d as Value[]).length > m : (d as Value[]).length !== m) throw new IrError(`${e.op}: destination ${e.nl[j]} has ${(d as Value[]).length} elements, ${e.nl[0]} has ${m}`);
      return padded(d, m);
    });
    const lhs = v.lin.slice(0, k).map((d) => padded(d, m));
    ops.charge(m * (hs.length + lhs.length));
    const counts = ops.arity(e.bodies[0]);
    const outs: Value[][] = Array.from({ length: counts.nl - k }, () => []);
    const linOuts: Value[][] = Array.from({ length: counts.lin - lhs.length }, () => []);
    const fillers = outputFillers(e.bodies[0], k);
    for (let i = 0; i < n; i++) {
      const b = binAt(e.op, e.nl[k], idx, i, m);
      if (b < 0) {
        // An ignored element has no outputs; its slot holds a value of the right type, never read.
        outs.forEach((o, j) => o.push(fillers[j]));
        linOuts.forEach((o) => o.push(0));
        continue;
      }
      const r = ops.runBody(e.bodies[0], { nl: [...hs.map((h) => h[b]), ...vals.map((a) => at(a, i))], lin: [...lhs.map((h) => h[b]), ...v.lin.slice(k).map((a) => at(a, i))] });
      hs.forEach((h, j) => (h[b] = r.nl[j]));
      lhs.forEach((h, j) => (h[b] = r.lin[j]));
      r.nl.slice(k).forEach((y, j) => outs[j].push(y));
      r.lin.slice(lhs.length).forEach((y, j) => linOuts[j].push(y));
    }
    return { nl: [...hs, ...outs], lin: [...lhs, ...linOuts] };
  };
}

/** A value of each per-element output's type (its binder's, where annotated; else a real). */
function outputFillers(body: Lambda, k: number): Value[] {
  const r = body.body.result;
  if (r.tag !== 'ret') return [];
  const types = new Map<string, Type | undefined>();
  for (const p of body.nlParams) types.set(p.name, p.type);
  for (const st of body.body.stmts) for (const x of st.tag === 'let' ? st.nl : st.names) types.set(x.name, x.type);
  const filler = (t: Type | undefined): Value =>
    t === undefined ? 0 : t.tag === 'tuple' ? t.elems.map(filler) : t.tag === 'array' || t.tag === 'stack' ? [] : t.tag === 'bool' ? false : t.tag === 'str' ? '' : 0;
  return r.nl.slice(k).map((x) => filler(types.get(x)));
}

const jvp: ConstructRule['jvp'] = (ops, e, results) => {
  const k = histograms(e);
  e.nl.slice(0, k).forEach((x) => {
    const t = ops.typeOf(x);
    if (t.tag !== 'array' || t.elem.tag !== 'real') throw new IrError(`${e.op}: derivatives need arrays of reals, not ${printType(t)}`);
  });
  return loopLikeJvp(ops, e, results, [...e.nl.slice(0, k), ...e.nl.slice(k + 1)], (o) => [o.jvpBody(e.bodies[0])]);
};

function unzip(sparse: boolean): ConstructRule['unzip'] {
  return (ops, e, results) => {
    const { b } = ops;
    const k = histograms(e);
    if (results.lin.length > k) throw new IrError(`${e.op}: the tangents of per-element outputs are not supported yet (a second derivative through reduceByIndex)`);
    const h = flattenResiduals(b, ops.unzipBody(e.bodies[0]), results.nl.length);
    const elements = sparse ? [] : e.bodies[0].nlParams.slice(k).map((p, j) => ({ param: p.name, operand: e.nl[k + 1 + j] }));
    const { sources, arrays, primal } = residualArrays(b, e, h, results.nl.length, undefined, elements);
    const len = binder(b.fresh('m'), REAL);
    b.stmt(letS([len], [], construct('len', [e.nl[0]], [], [])));
    b.bind([...results.nl, ...arrays], [], construct(e.op, e.nl, [], [primal]));
    const operands = sources.map((s) => (s.kind === 'stacked' ? arrays[s.slot].name : s.kind === 'invariant' ? s.operand : e.nl[0]));
    return construct('lhist', [len.name, e.nl[k], ...operands], e.lin, [h.tangent]);
  };
}

function histRule(name: string, sparse: boolean): ConstructRule {
  return {
    name,
    arity: (e, bodyArity) => (e.bodies.length > 0 ? bodyArity(e.bodies[0]) : { nl: 0, lin: 0 }),
    typeRule: typeRule(),
    impl: impl(sparse),
    jvp,
    unzip: unzip(sparse),
    transpose: neverTransposed(name),
    pruneResults: () => undefined,
    repeats: true,
    // The source's combinator; its sparse twin is E's output.
    ...(sparse ? {} : { combinator: true }),
    erase: (ops, e) => {
      if (e.lin.length === 0) return { ...e, bodies: e.bodies.map((l) => ops.eraseBody(l)) };
      const k = histograms(e);
      const range = (from: number): number[] => Array.from({ length: k }, (_, j) => from + j);
      return eraseInPairs(ops, e, 'sreduceByIndex', k, { acc: range(0), elem: range(k + 1), operands: (acc, elems) => [...acc, e.nl[k], ...elems] });
    },
  };
}

export const reduceByIndex = histRule('reduceByIndex', false);
/** E's output: destinations and values of reals may be shorter than M and n (sparse tangents). */
export const sreduceByIndex = histRule('sreduceByIndex', true);

// ---- the linear recurrences lhist (forward) and lrhist (backward) ----
//
//   lhist(M, idx, s̄ ; ḋ̄, v̇̄) [|s̄ ; ḣ̄, v̇̄| -> (; ḣ̄')]    → (; ḣ̄s)          (k results)
//   lrhist(M, idx, s̄ ; h̄̄) [|s̄ ; c̄̄| -> (; c̄̄, v̄̄)]       → (; d̄̄, v̄̄s)      (2k results)
// Erased, every operand non-linear: the residual arrays are those before the last 2k (forward) or k (backward).

interface Shape {
  readonly forward: boolean;
  readonly transpose: string;
}

export function layout(e: ConstructExpr, s: { readonly forward: boolean }, bodyResults: number): { r: number; k: number } {
  const k = s.forward ? bodyResults : bodyResults / 2;
  const r = e.lin.length > 0 ? e.nl.length - 2 : e.nl.length - 2 - (s.forward ? 2 * k : k);
  return { r, k };
}

const resultsOf = (e: ConstructExpr, xs: Value[]): Sides<Value> => (e.lin.length > 0 ? { nl: [], lin: xs } : { nl: xs, lin: [] });

function linTypeRule(): ConstructRule['typeRule'] {
  return function* (ops: CheckOps, e: ConstructExpr, t: Sides<Type>): TypeRun {
    if (e.bodies.length !== 1 || t.nl.length < 2) {
      ops.error(`${e.op} takes its length M, the index array, residual arrays and one body`);
      return { nl: [], lin: [] };
    }
    if (t.nl[0].tag !== 'real') ops.error(`the first operand of ${e.op} is the histogram's length M, a real`);
    expectIndexArray(ops, e.op, t.nl[1]);
    const all = [...t.nl.slice(2), ...t.lin].map((x) => (x.tag === 'array' ? x.elem : x));
    const linear = e.lin.length > 0;
    const r0 = linear ? t.nl.length - 2 : 0;
    const body = yield ops.typeBody(e.bodies[0], linear ? { nl: all.slice(0, r0), lin: all.slice(r0) } : { nl: all, lin: [] });
    const out = [...body.nl, ...body.lin].map(arrayType);
    return linear ? { nl: [], lin: out } : { nl: out, lin: [] };
  };
}

function linImpl(s: Shape): ConstructRule['impl'] {
  return (ops, e, v) => {
    const m = count(v.nl[0], e.op, 'histogram length');
    const idx = v.nl[1] as Value[];
    const n = idx.length;
    const counts = ops.arity(e.bodies[0]);
    const { r, k } = layout(e, s, counts.nl + counts.lin);
    const all = [...v.nl.slice(2), ...v.lin];
    const res = all.slice(0, r) as Value[][];
    const linear = e.lin.length > 0;
    const step = (i: number, lin: Value[]): Value[] => {
      const nl = res.map((a) => a[i]);
      const y = ops.runBody(e.bodies[0], linear ? { nl, lin } : { nl: [...nl, ...lin], lin: [] });
      return [...y.nl, ...y.lin];
    };
    const hs = all.slice(r, r + k).map((d) => padded(d, m));
    ops.charge(m * k);
    if (s.forward) {
      const vals = all.slice(r + k);
      for (let i = 0; i < n; i++) {
        const b = binAt(e.op, 'idx', idx, i, m);
        if (b < 0) continue;
        step(i, [...hs.map((h) => h[b]), ...vals.map((a) => at(a, i))]).forEach((y, j) => (hs[j][b] = y));
      }
      return resultsOf(e, hs);
    }
    const vs: Value[][] = Array.from({ length: k }, () => new Array<Value>(n).fill(0));
    for (let i = n - 1; i >= 0; i--) {
      const b = binAt(e.op, 'idx', idx, i, m);
      if (b < 0) continue;
      const y = step(
        i,
        hs.map((h) => h[b]),
      );
      hs.forEach((h, j) => (h[b] = y[j]));
      y.slice(k).forEach((x, j) => (vs[j][i] = x));
    }
    return resultsOf(e, [...hs, ...vs]);
  };
}

function linTranspose(s: Shape): ConstructRule['transpose'] {
  return (ops, e, cotangents, resultTypes) => {
    const { b } = ops;
    if (cotangents.every((c) => c === null)) return e.lin.map(() => null);
    const cts = cotangents.map((c, j) => c ?? b.zero(resultTypes[j], 'zero'));
    const tb = ops.transposeBody(
      e.bodies[0],
      resultTypes.map((t) => (t.tag === 'array' ? t.elem : t)),
    );
    const bars = e.lin.map((x) => binder(b.fresh(barName(x)), ops.typeOf(x)));
    b.bind([], bars, construct(s.transpose, e.nl, cts, [tb]));
    return bars.map((x) => x.name);
  };
}

function linRule(name: string, s: Shape): ConstructRule {
  return {
    name,
    arity: (e, bodyArity) => {
      if (e.bodies.length === 0) return { nl: 0, lin: 0 };
      const c = bodyArity(e.bodies[0]);
      return e.lin.length > 0 ? { nl: 0, lin: c.nl + c.lin } : { nl: c.nl + c.lin, lin: 0 };
    },
    typeRule: linTypeRule(),
    impl: linImpl(s),
    // Second order: J of the erased recurrence, rewritten as a histogram (histogramJvp.ts).
    jvp: (ops, e, results) => {
      if (e.lin.length > 0) throw new InternalError(`jvp: ${e.op} with linear operands in a non-linear program (erase first)`);
      const k = s.forward ? results.length : results.length / 2;
      const r = e.nl.length - 2 - (s.forward ? 2 * k : k);
      return erasedHistogramJvp(ops, e, results, s.forward, r, k, sreduceByIndex);
    },
    unzip: (_ops, e) => e,
    transpose: linTranspose(s),
    pruneResults: () => undefined,
    repeats: true,
  };
}

export const lhist = linRule('lhist', { forward: true, transpose: 'lrhist' });
export const lrhist = linRule('lrhist', { forward: false, transpose: 'lhist' });
