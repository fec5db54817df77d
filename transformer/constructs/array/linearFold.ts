// The linear recurrences that U makes of scan and reduce, and their transposes (docs/linear-a.md,
// "scan and reduce"): each carries k linear accumulators through n steps of a linear body that
// reads the step's residuals s̄ (arrays, element i at step i).
//
//   lscan(n, s̄ ; ċ̄, ẋ̄s) [|s̄ ; ċ̄, ẋ̄| -> (; ċ̄')]    → (; ẏ̄s)     ẏ_i = B_i(ẏ_{i−1}, ẋ_i), ẏ_{−1} = ċ̄
//   lfold(n, s̄ ; ċ̄, ẋ̄s) [same]                      → (; ẏ̄)      the last of them (ċ̄ when n = 0)
//   lrscan(n, s̄ ; ȳ̄s) [|s̄ ; c̄̄| -> (; c̄̄, x̄̄)]       → (; ē̄, x̄̄s)  c̄ = 0; for i = n−1 … 0: c̄ += ȳ_i; (c̄, x̄_i) = Bᵢᵀ(c̄); ē = c̄
//   lrfold(n, s̄ ; ȳ̄) [same]                         → (; ē̄, x̄̄s)  the same from c̄ = ȳ, nothing added
//
// lscan ↔ lrscan and lfold ↔ lrfold are transpose pairs, their bodies each other's transposes:
// lscan is the composition of the steps B_i, so its transpose applies B_iᵀ from the last step to
// the first (the backward linear recurrence of the notes' §2.4, "the reverse scan formulation"),
// with each step's output cotangent ȳ_i joining the carried one. O(n) work either way, and exact
// where the Futhark special cases exist to be exact: a product with zeros (no division is ever
// taken), min/max (the primitive's JVP selects one argument), a non-commutative operator (the
// order of the steps is kept). With B_i = `ladd` (scan +), lrscan computes suffix sums.
//
// Erased (E appends the linear operands and parameters) they run with every operand non-linear:
// the layout is told apart by counts (the body returns k results going forward, 2k going back),
// so the residual arrays are the operands before the last 2k (forward) or k (backward).
// Work: the bodies' work, plus k additions per step in lrscan.
import { binder, construct, arrayType, InternalError, IrError } from '../../ir/syntax';
import type { Type } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { CheckOps, ConstructExpr, ConstructRule, Sides, TypeRun } from '../types';
import { barName } from '../../ir/names';
import { at, count } from './fold';
import { erasedRecurrenceJvp } from './linearFoldJvp';

interface Shape {
  readonly forward: boolean;
  /** Collects the accumulator at every step (scan) or returns the last (fold). */
  readonly scan: boolean;
  /** The construct whose body is this one's transposed body. */
  readonly transpose: string;
}

/** Where the operands after n are: r residual arrays, then the linear operands (k or 2k of them). */
export function layout(e: ConstructExpr, s: { readonly forward: boolean }, bodyResults: number): { r: number; k: number } {
  const k = s.forward ? bodyResults : bodyResults / 2;
  const linear = s.forward ? 2 * k : k;
  const r = e.lin.length > 0 ? e.nl.length - 1 : e.nl.length - 1 - linear;
  return { r, k };
}

const resultsOf = (e: ConstructExpr, xs: Value[]): Sides<Value> => (e.lin.length > 0 ? { nl: [], lin: xs } : { nl: xs, lin: [] });

function typeRule(s: Shape): ConstructRule['typeRule'] {
  return function* (ops: CheckOps, e: ConstructExpr, t: Sides<Type>): TypeRun {
    if (e.bodies.length !== 1) {
      ops.error(`${e.op} takes one body, got ${e.bodies.length}`);
      return { nl: [], lin: [] };
    }
    if (t.nl.length < 1 || t.nl[0].tag !== 'real') ops.error(`the first operand of ${e.op} is its length n, a real`);
    const all = [...t.nl.slice(1), ...t.lin];
    const elem = (x: Type): Type => (x.tag === 'array' ? x.elem : x);
    const l = e.bodies[0];
    const linear = e.lin.length > 0;
    const r0 = linear ? t.nl.length - 1 : 0;
    const params = all.map(elem);
    const body = yield ops.typeBody(l, linear ? { nl: params.slice(0, r0), lin: params.slice(r0) } : { nl: params, lin: [] });
    const results = [...body.nl, ...body.lin];
    const { r, k } = layout(e, s, results.length);
    all.slice(0, r).forEach((x, j) => {
      if (x.tag !== 'array') ops.error(`${e.op}: the residual operand ${j + 1} must be an array, got ${printType(x)}`);
    });
    results.forEach((y) => {
      if (y.tag !== 'real') ops.error(`${e.op}: the body's results must be real, got ${printType(y)}`);
    });
    const out = s.forward ? results.map((y) => (s.scan ? arrayType(y) : y)) : [...results.slice(0, k), ...results.slice(k).map(arrayType)];
    return linear ? { nl: [], lin: out } : { nl: out, lin: [] };
  };
}

function impl(s: Shape): ConstructRule['impl'] {
  return (ops, e, v) => {
    const n = count(v.nl[0], e.op);
    const counts = ops.arity(e.bodies[0]);
    const { r, k } = layout(e, s, counts.nl + counts.lin);
    const all = [...v.nl.slice(1), ...v.lin];
    const res = all.slice(0, r);
    res.forEach((a, j) => {
      if (!Array.isArray(a) || a.length !== n) throw new IrError(`${e.op}: the residual array ${j + 1} does not hold ${n} elements`);
    });
    const linear = e.lin.length > 0;
    const step = (i: number, lin: Value[]): Value[] => {
      const nl = res.map((a) => (a as Value[])[i]);
      const y = ops.runBody(e.bodies[0], linear ? { nl, lin } : { nl: [...nl, ...lin], lin: [] });
      return [...y.nl, ...y.lin];
    };
    let c = all.slice(r, r + k);
    if (s.forward) {
      const xs = all.slice(r + k);
      const ys: Value[][] = Array.from({ length: k }, () => []);
      for (let i = 0; i < n; i++) {
        c = step(i, [...c, ...xs.map((a) => at(a, i))]);
        if (s.scan) c.forEach((y, j) => ys[j].push(y));
      }
      return resultsOf(e, s.scan ? ys : c);
    }
    const ys = s.scan ? all.slice(r) : [];
    if (s.scan) c = ys.map(() => 0);
    const xs: Value[][] = Array.from({ length: k }, () => new Array<Value>(n));
    for (let i = n - 1; i >= 0; i--) {
      if (s.scan) {
        c = c.map((x, j) => (x as number) + (at(ys[j], i) as number));
        ops.charge(k);
      }
      const y = step(i, c);
      c = y.slice(0, k);
      y.slice(k).forEach((x, j) => (xs[j][i] = x));
    }
    return resultsOf(e, [...c, ...xs]);
  };
}

/** J of an erased recurrence (second order): rewritten as a scan or reduce (linearFoldJvp.ts). */
function jvp(s: Shape): ConstructRule['jvp'] {
  return (ops, e, results) => {
    if (e.lin.length > 0) throw new InternalError(`jvp: ${e.op} with linear operands in a non-linear program (erase first)`);
    const k = s.forward ? results.length : results.length / 2;
    const r = e.nl.length - 1 - (s.forward ? 2 * k : k);
    return erasedRecurrenceJvp(ops, e, results, s, r, k);
  };
}

function transpose(s: Shape): ConstructRule['transpose'] {
  return (ops, e, cotangents, resultTypes) => {
    const { b } = ops;
    if (cotangents.every((c) => c === null)) return e.lin.map(() => null);
    const cts = cotangents.map((c, j) => c ?? b.zero(resultTypes[j], 'zero'));
    const bodyTypes = resultTypes.map((t) => (t.tag === 'array' ? t.elem : t));
    const tb = ops.transposeBody(e.bodies[0], bodyTypes);
    const bars = e.lin.map((x) => binder(b.fresh(barName(x)), ops.typeOf(x)));
    b.bind([], bars, construct(s.transpose, e.nl, cts, [tb]));
    return bars.map((x) => x.name);
  };
}

function rule(name: string, s: Shape): ConstructRule {
  return {
    name,
    arity: (e, bodyArity) => {
      if (e.bodies.length === 0) return { nl: 0, lin: 0 };
      const c = bodyArity(e.bodies[0]);
      const total = c.nl + c.lin;
      return e.lin.length > 0 ? { nl: 0, lin: total } : { nl: total, lin: 0 };
    },
    typeRule: typeRule(s),
    impl: impl(s),
    jvp: jvp(s),
    // Linear through and through: the linear half is the recurrence itself, its residual arrays residuals.
    unzip: (_ops, e) => e,
    transpose: transpose(s),
    pruneResults: () => undefined,
    repeats: true,
  };
}

export const lscan = rule('lscan', { forward: true, scan: true, transpose: 'lrscan' });
export const lfold = rule('lfold', { forward: true, scan: false, transpose: 'lrfold' });
export const lrscan = rule('lrscan', { forward: false, scan: true, transpose: 'lscan' });
export const lrfold = rule('lrfold', { forward: false, scan: false, transpose: 'lfold' });
