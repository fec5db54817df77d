// map over arrays (docs/linear-a.md, "Arrays"):
//
//   let (ȳ ; ẏ̄) = map(n, x̄ ; ẋ̄) [|i, p̄: τ̄ ; ṗ̄: σ̄| { body }]
//
// runs its body for i = 0 … n − 1 and returns, for each body result, the array of its n values.
// Operand x (after n) goes to parameter p: **mapped** when x is an array of p's type (p is its
// element i), **invariant** when x has p's type itself (the same value for every i: a free scalar
// or array of the body, passed in because bodies are closed: an array read by index is a gather).
// The index parameter i is optional: the body declares it when it has as many non-linear
// parameters as the map has non-linear operands.
// Mapped arrays hold n elements, except arrays of reals, which may be shorter (tangents, and
// their erasures, are sparse at the end: an element past the end reads 0, so a symbolic zero
// passes as the empty array). Linear mapped operands are arrays of reals.
//
// Work: the sum of the n bodies' work (the map itself costs nothing).
//
// J:  map(n, x̄)[|i, p̄| e]  ↦  map(n, x̄ ; x̄_dot)[|i, p̄ ; p̄_dot| J e]
//     a mapped operand's tangent is mapped (array<tangent τ>), an invariant's is a linear
//     invariant, used once per element: the map is linear in it (the sum of the elements' uses).
//     A mapped array of booleans or strings (no reals in its tangent) gets the invariant zero(<>).
// U:  with U(e) = (e_N : |i, p̄| -> (r̄, s̄), e_L : |s̄ ; ṗ̄| -> (; ṙ̄)):
//     C:   let (r̄, s̄_arr) = map(n, x̄)[e_N]               one residual array per stored residual
//     ė_L: map(n, s̄_arr, ū_s ; ẋ̄)[e_L]                   the residuals mapped back, element by element
//     so W(C) + W(ė_L) = W(J map). A residual that is the index is not stored (the linear map
//     declares its own), nor one that is an invariant parameter (its operand ū_s is passed to the
//     linear map as an invariant: JAX's intensive residuals, as loops do).
// T:  of a linear map(n, s̄ ; ẋ̄)[|s̄ ; ṗ̄| L] with result cotangents ȳ̄ (arrays):
//     let (; c̄) = map(n, s̄ ; ȳ̄)[|s̄ ; ȳ̄| T L]        one cotangent array per linear operand
//     a mapped operand's cotangent is its array; an invariant's is Σ_i of its per-element
//     cotangents, lsum(n ; c) (the paper's freeContrib; ⟨Σ_i ṗ ȳ_i⟩ = ⟨ṗ, Σ_i ȳ_i⟩).
//     With a linear invariant array (a gather) it is a scatter-add, run as a loop accumulating
//     in place (scatterTranspose below).
// E:  the default: linear operands after the non-linear ones, linear parameters likewise, which
//     keeps operand k on parameter k.
// TypeScript: backend/ts/constructs/array/map.ts.
import { binder, construct, lambda, letS, lprim, ret, tangentType, arrayType, typeEquals, realCount, lvar, drop, InternalError, IrError, REAL } from '../../ir/syntax';
import type { Binder, Lambda, Stmt, Type } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { conforms } from '../../ir/conforms';
import { printType } from '../../ir/printType';
import type { CheckOps, ConstructExpr, ConstructRule, Sides, TransposeOps, TypeRun } from '../types';
import type { Tangent } from '../../prims/types';
import { barName } from '../../ir/names';
import { residualArrays } from '../shared/residuals';
import { loopLikeJvp } from '../shared/loopLikeJvp';

/** Whether the body declares the index parameter. */
export const hasIndex = (e: ConstructExpr): boolean => e.bodies.length === 1 && e.bodies[0].nlParams.length === e.nl.length;

/** The body's parameters that receive the operands after n, non-linear then linear. */
export function operandParams(e: ConstructExpr): Sides<Binder> {
  const l = e.bodies[0];
  return { nl: l.nlParams.slice(hasIndex(e) ? 1 : 0), lin: l.linParams };
}

/** Mapped (operand is an array of the parameter's type) or invariant (the parameter's type itself); undefined: neither. */
export function classify(operand: Type, param: Type): 'mapped' | 'invariant' | undefined {
  if (typeEquals(operand, param)) return 'invariant';
  if (operand.tag === 'array' && typeEquals(operand.elem, param)) return 'mapped';
  return undefined;
}

export function paramType(p: Binder): Type {
  if (!p.type) throw new InternalError(`map: untyped body parameter ${p.name} (annotate types first)`);
  return p.type;
}

/**
 * Invariants whose cotangent T can sum: reals (lsum), arrays of reals read by index in the body
 * (a gather: their cotangents accumulate in place, see transpose), and types without reals
 * (bool, str, <>), whose cotangents are zero-dimensional. Tuples of reals are not supported yet.
 */
const invariantOk = (t: Type): boolean => t.tag === 'real' || isRealArray(t) || (realCount(tangentType(t)) === 0 && !hasSequence(t));
const isRealArray = (t: Type): boolean => t.tag === 'array' && t.elem.tag === 'real';
const hasSequence = (t: Type): boolean => t.tag === 'array' || t.tag === 'stack' || (t.tag === 'tuple' && t.elems.some(hasSequence));

const typeRule = function* (ops: CheckOps, e: ConstructExpr, t: Sides<Type>): TypeRun {
  const fail = (msg: string): Sides<Type> => {
    ops.error(msg);
    return { nl: [], lin: [] };
  };
  if (e.bodies.length !== 1) return fail(`map takes one body, got ${e.bodies.length}`);
  if (t.nl.length < 1 || t.nl[0].tag !== 'real') return fail('the first operand of map is its length n, a real');
  const l = e.bodies[0];
  const index = hasIndex(e);
  if (!index && l.nlParams.length !== e.nl.length - 1)
    return fail(`the body of map takes the index (optional) and one parameter per operand after n: ${e.nl.length - 1} non-linear, got ${l.nlParams.length}`);
  if (l.linParams.length !== e.lin.length) return fail(`the body of map takes one linear parameter per linear operand: ${e.lin.length}, got ${l.linParams.length}`);
  const params = operandParams(e);
  let mapped = 0;
  const check = (operands: readonly Type[], ps: readonly Binder[], linear: boolean): void =>
    operands.forEach((o, k) => {
      if (!ps[k].type) return void ops.error(`the body parameter ${ps[k].name} of map needs a type`);
      const c = classify(o, ps[k].type!);
      if (c === undefined) ops.error(`map: operand ${k + (linear ? 0 : 1)} (${printType(o)}) is neither an array of the parameter ${ps[k].name}'s type ${printType(ps[k].type!)} nor of that type`);
      if (c === 'mapped') mapped++;
      if (c === 'invariant' && !invariantOk(o)) {
        ops.error(
          `map: an invariant operand of type ${printType(o)} is not supported yet (its cotangent would be a sum of per-element ${printType(o)}s): pass reals or arrays of reals, unpacking a tuple first`,
        );
      }
      if (c === 'mapped' && linear && ps[k].type!.tag !== 'real') ops.error(`map: a linear mapped operand must be an array<real>, got ${printType(o)}`);
    });
  check(t.nl.slice(1), params.nl, false);
  check(t.lin, params.lin, true);
  if (index && l.nlParams[0].type && l.nlParams[0].type.tag !== 'real') ops.error(`the index parameter of map must be real, got ${printType(l.nlParams[0].type)}`);
  if (mapped === 0) ops.error('map needs at least one mapped array operand');
  const r = yield ops.typeBody(l, {
    nl: [...(index ? [REAL] : []), ...t.nl.slice(1)].map((o, k) => (k === 0 && index ? REAL : (l.nlParams[k].type ?? o))),
    lin: l.linParams.map((p, k) => p.type ?? t.lin[k]),
  });
  return { nl: r.nl.map(arrayType), lin: r.lin.map(arrayType) };
};

const impl: ConstructRule['impl'] = function* (ops, e, v) {
  const n = v.nl[0];
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new IrError(`map: the length ${String(n)} is not a non-negative integer`);
  const params = operandParams(e);
  const nlMapped = params.nl.map((p, k) => !conforms(v.nl[k + 1], paramType(p)));
  const linMapped = params.lin.map((p, k) => !conforms(v.lin[k], paramType(p)));
  // A tangent array of reals may be shorter than n (a zero or a one-hot: missing elements read
  // 0), and so may every array of reals an smap maps (they were tangents before erasure); any
  // other mapped array holds exactly n elements.
  const fits = (x: Value, p: Binder, sparse: boolean): boolean => (sparse && paramType(p).tag === 'real' ? (x as Value[]).length <= n : (x as Value[]).length === n);
  nlMapped.forEach((m, k) => {
    if (m && !fits(v.nl[k + 1], params.nl[k], e.op === 'smap')) throw new IrError(`map: an array of ${(v.nl[k + 1] as Value[]).length} elements mapped over a length of ${n}`);
  });
  linMapped.forEach((m, k) => {
    if (m && !fits(v.lin[k], params.lin[k], true)) throw new IrError(`map: a tangent array of ${(v.lin[k] as Value[]).length} elements mapped over a length of ${n}`);
  });
  const index = hasIndex(e);
  const body = e.bodies[0];
  const counts = ops.arity(body);
  const out: Sides<Value[]> = { nl: Array.from({ length: counts.nl }, () => []), lin: Array.from({ length: counts.lin }, () => []) };
  for (let i = 0; i < n; i++) {
    const nl = v.nl.slice(1).map((x, k) => (nlMapped[k] ? ((x as Value[])[i] ?? 0) : x));
    const lin = v.lin.map((x, k) => (linMapped[k] ? ((x as Value[])[i] ?? 0) : x));
    const r = yield ops.bodyRun(body, { nl: index ? [i, ...nl] : nl, lin });
    r.nl.forEach((y, k) => out.nl[k].push(y));
    r.lin.forEach((y, k) => out.lin[k].push(y));
  }
  return out;
};

/**
 * A mapped array of booleans or strings (the predicates of a select inside the body, which U
 * stores as residuals: second order differentiates that map) has tangents without reals, and a
 * linear mapped operand must be an array of reals: its tangent goes in as one invariant
 * `zero(<>)`, which the body's `<>` parameter takes as it is (a tangent it had is left unused: J's linearity pass drops it).
 */
// The length gets no tangent; mapped arrays and invariants do, like a loop's operands.
// A map carries nothing from one element to the next, so an operand without a tangent (a literal
// exponent) has none in the body either.
const jvp: ConstructRule['jvp'] = (ops, e, results) => {
  const operands = e.nl.slice(1);
  const unit = (x: string): Type | undefined => {
    if (!operands.includes(x)) return undefined;
    const t = ops.typeOf(x);
    return t.tag === 'array' && realCount(tangentType(t.elem)) === 0 && !hasSequence(t.elem) ? tangentType(t.elem) : undefined;
  };
  const inner: typeof ops = {
    ...ops,
    tangentOf: (x) => (unit(x) === undefined ? ops.tangentOf(x) : null),
    typeOf: (x) => unit(x) ?? ops.typeOf(x),
  };
  const symbolicZeros = operands.map((x) => inner.tangentOf(x) === null);
  return loopLikeJvp(inner, e, results, operands, (o) => [o.jvpBody(e.bodies[0], hasIndex(e) ? 1 : 0, symbolicZeros)]);
};

const unzip: ConstructRule['unzip'] = (ops, e, results) => {
  const { b } = ops;
  const body = e.bodies[0];
  const h = ops.unzipBody(body);
  // Residuals that are the index or an invariant parameter are not stored: the linear map gets
  // its own index, and the invariant operand itself (JAX's intensive residuals, as for loops).
  const params = operandParams(e).nl;
  const invariants = params.flatMap((p, k) => (classify(ops.typeOf(e.nl[k + 1]), paramType(p)) === 'invariant' ? [{ param: p.name, operand: e.nl[k + 1] }] : []));
  const { sources, arrays, primal } = residualArrays(b, e, h, results.nl.length, hasIndex(e) ? body.nlParams[0].name : undefined, invariants);
  b.bind([...results.nl, ...arrays], [], construct(e.op, e.nl, [], [primal]));
  const residuals = h.tangent.nlParams;
  const counter = residuals.filter((_, j) => sources[j].kind === 'counter');
  const rest = residuals.filter((_, j) => sources[j].kind !== 'counter');
  const operands = residuals.flatMap((_, j) => {
    const s = sources[j];
    return s.kind === 'stacked' ? [arrays[s.slot].name] : s.kind === 'invariant' ? [s.operand] : [];
  });
  return construct(e.op, [e.nl[0], ...operands], e.lin, [lambda([...counter, ...rest], h.tangent.linParams, h.tangent.body)]);
};

const transpose: ConstructRule['transpose'] = (ops, e, cotangents, resultTypes) => {
  const { b } = ops;
  if (cotangents.every((c) => c === null)) return e.lin.map(() => null);
  const cts = cotangents.map((c, k) => c ?? b.zero(resultTypes[k], 'zero'));
  const elemTypes = resultTypes.map((t) => {
    if (t.tag !== 'array') throw new InternalError(`map: a result of type ${printType(t)}`);
    return t.elem;
  });
  const tb = ops.transposeBody(e.bodies[0], elemTypes);
  const params = operandParams(e);
  const mapped = e.lin.map((x, k) => classify(ops.typeOf(x), paramType(params.lin[k])) === 'mapped');
  if (e.lin.some((x, k) => !mapped[k] && isRealArray(ops.typeOf(x)))) return scatterTranspose(ops, e, cts, elemTypes, tb, mapped);
  const bars = e.lin.map((x, k) => binder(b.fresh(barName(x)), mapped[k] ? ops.typeOf(x) : arrayType(ops.typeOf(x))));
  b.bind([], bars, construct(e.op, e.nl, cts, [tb]));
  return bars.map((bar, k) => {
    if (mapped[k]) return bar.name;
    const t = ops.typeOf(e.lin[k]);
    if (t.tag === 'real') return b.lin(barName(e.lin[k]), construct('lsum', [e.nl[0]], [bar.name], []), t);
    // A zero-dimensional invariant (the tangent of a bool): its cotangent is zero.
    b.drop(lvar(bar.name));
    return null;
  });
};

/**
 * T of a linear map with a linear invariant array (a gather: the body reads ȧ by index). Its
 * cotangent is the sum of the elements' one-hots, a scatter-add; summing per-element arrays would
 * cost n per element, so the transposed map runs as a counted loop over the elements carrying one
 * accumulator per linear operand, every element adding its contribution in place:
 *
 *   let (; c̄) = loop(n, n, x̄ ; ȳ̄, zero(τ̄)) [|j, len, x̄ ; ȳ̄_arr, ā| {
 *     let p = index(x, j)            a mapped residual's element (an invariant one is passed as it is)
 *     let (; ȳ) = lindex(j, len ; ȳ_arr)  the element's result cotangents (len the witness, so
 *                                   that T of this loop accumulates in place too: T∘T)
 *     (T body)(p̄ ; ȳ̄) -> (; c̄_j)
 *     ā' = laccum(j, len ; ā, c_j)  for a mapped operand (element j of its cotangent, once)
 *     ā' = ladd(; ā, c_j)           for an invariant (a gathered array's c_j is a one-hot, which
 *                                   the simplifier fuses into an in-place laccum)
 *   }]
 *
 * It is the map's T, summed in element order as lsum sums (the same rounding), at O(1) per read.
 */
function scatterTranspose(ops: TransposeOps, e: ConstructExpr, cts: readonly string[], elemTypes: readonly Type[], tb: Lambda, mapped: readonly boolean[]): readonly Tangent[] {
  const { b } = ops;
  const index = hasIndex(e);
  const j = index ? tb.nlParams[0] : binder(b.fresh('j'), REAL);
  const len = binder(b.fresh('len'), REAL);
  const stmts: Stmt[] = [];
  // Non-linear operands: a mapped one is read at j, an invariant one passed as it is.
  const nlParams = tb.nlParams.slice(index ? 1 : 0).map((p, k) => {
    const x = e.nl[k + 1];
    if (classify(ops.typeOf(x), paramType(p)) !== 'mapped') return p;
    const arr = binder(b.fresh(`${p.name}_arr`), ops.typeOf(x));
    stmts.push(letS([p], [], construct('index', [arr.name, j.name], [], [])));
    return arr;
  });
  const ctParams = tb.linParams.map((p, k) => {
    const arr = binder(b.fresh(`${p.name}_arr`), arrayType(elemTypes[k]));
    stmts.push(letS([], [p], construct('lindex', [j.name, len.name], [arr.name], [])));
    return arr;
  });
  const opTypes = e.lin.map((x) => ops.typeOf(x));
  // An operand whose cotangent is a zero in every element (an index array's) accumulates nothing.
  const zeros = new Set(tb.body.stmts.flatMap((st) => (st.tag === 'let' && st.rhs.tag === 'zero' ? st.lin.map((x) => x.name) : [])));
  const r = tb.body.result;
  const accumulates = opTypes.map((t, k) => !(r.tag === 'ret' && zeros.has(r.lin[k])) && (mapped[k] || t.tag === 'real' || isRealArray(t)));
  const accs = opTypes.map((t) => binder(b.fresh('acc'), t));
  const bars = opTypes.map((t, k) => binder(b.fresh('c'), mapped[k] ? REAL : t));
  stmts.push(...tb.body.stmts, letS([], bars, tb.body.result));
  const next = opTypes.map((t) => binder(b.fresh('acc'), t));
  opTypes.forEach((_, k) => {
    if (!accumulates[k]) return void stmts.push(letS([], [], drop(lvar(bars[k].name))));
    const add = mapped[k] ? construct('laccum', [j.name, len.name], [accs[k].name, bars[k].name], []) : lprim('ladd', [], [accs[k].name, bars[k].name]);
    stmts.push(letS([], [next[k]], add));
  });
  const carried = opTypes.flatMap((_, k) => (accumulates[k] ? [k] : []));
  const body = lambda([j, len, ...nlParams], [...ctParams, ...carried.map((k) => accs[k])], {
    stmts,
    result: ret(
      [],
      carried.map((k) => next[k].name),
    ),
  });
  const acc0 = carried.map((k) => b.zero(opTypes[k], 'acc'));
  const out = carried.map((k) => binder(b.fresh(barName(e.lin[k])), opTypes[k]));
  b.bind([], out, construct('loop', [e.nl[0], e.nl[0], ...e.nl.slice(1)], [...cts, ...acc0], [body]));
  const byOperand = new Map(carried.map((k, c) => [k, out[c].name]));
  return e.lin.map((_, k) => byOperand.get(k) ?? null);
}

const pruneResults: ConstructRule['pruneResults'] = (e, keep) => {
  const l = e.bodies[0];
  const r = l.body.result;
  if (r.tag !== 'ret') return undefined;
  return {
    ...e,
    bodies: [
      {
        ...l,
        body: {
          ...l.body,
          result: ret(
            r.nl.filter((_, k) => keep[k]),
            r.lin,
          ),
        },
      },
    ],
  };
};

const mapRule = (name: string, erase?: ConstructRule['erase']): ConstructRule => ({
  // Each result array is allocated by the map: a write into it can run in place (opt/inplace.ts).
  fresh: true,
  name,
  arity: (e, bodyArity) => (e.bodies.length > 0 ? bodyArity(e.bodies[0]) : { nl: 0, lin: 0 }),
  typeRule,
  impl,
  jvp,
  unzip,
  transpose,
  pruneResults,
  repeats: true,
  ...(erase ? { erase } : {}),
});

/**
 * The sparse map: a map whose arrays of reals may all be shorter than n, reading 0 past their
 * end. E turns a map with linear operands into one (its linear mapped operands were sparse
 * tangents), and erased linear primitives on arrays are smaps (ad/erase.ts); a map written by hand
 * keeps the strict check, so arrays of different lengths are an error, never silently padded.
 */
export const smap = mapRule('smap');

/** E: the default order (linear operands after the others), as an smap when anything was linear. */
export const map: ConstructRule = {
  ...mapRule('map', (ops, e) => ({ ...e, op: e.lin.length > 0 ? 'smap' : 'map', nl: [...e.nl, ...e.lin], lin: [], bodies: e.bodies.map((l) => ops.eraseBody(l)) })),
  combinator: true,
};
