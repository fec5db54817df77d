// The body-less array operations (docs/linear-a.md, "Arrays"), non-linear and linear side by side.
//
//   let n = len(a) []              a's length                                  cost 0
//   let x = index(a, i) []         element i (0 ≤ i < len a, an integer)       cost 1
//   let a = fill(n, x) []          n copies of x (broadcast)                   cost n
//   let s = sum(a) []              Σ a (array<real>)                           cost len a
//
// and, on array<real> tangents (each also usable erased, all operands non-linear, same value):
//
//   let (; ẏ) = lindex(i ; ȧ) []   ȧ[i], 0 where ȧ has no element i            cost 1
//   let (; ȧ) = lonehot(i ; ẏ) []  the array e_i·ẏ: ẏ at i, zeros elsewhere    cost 1
//   (both also with a witness after the index, lindex(i, a ; ȧ): the primal array, or a length,
//   whose length a dense cotangent takes; J gives it, so that T's one-hots fuse into in-place
//   accumulations, laccum in accum.ts)
//   let (; ẏ) = lsum(n ; ȧ) []     Σ ȧ                                         cost n
//   let (; ȧ) = lfill(n ; ẏ) []    n copies of ẏ                               cost n
//
// Tangent arrays are *sparse at the end*: the zero array is the empty one and an element past
// the end reads as 0, so a symbolic zero stands for an array of zeros of any length, and the
// one-hot array e_i·ẏ is i + 1 long. lindex ↔ lonehot and lsum ↔ lfill are transpose pairs:
//   ⟨lindex(i ; ȧ), ȳ⟩ = ȧ[i]·ȳ = ⟨ȧ, lonehot(i ; ȳ)⟩,   ⟨lsum(n ; ȧ), ȳ⟩ = Σ ȧ_k ȳ = ⟨ȧ, lfill(n ; ȳ)⟩
// (lsum carries n, which it does not need, so that its transpose knows the length it fills).
// J:  index(a, i) ↦ lindex(i, a ; ȧ);  fill(n, x) ↦ lfill(n ; ẋ);  sum(a) ↦ lsum(len a ; ȧ);  len ↦ 0;
// the erased linear forms are linear again: J(lindex(i, a)) = lindex(i ; ȧ), and so on.
// U of a linear form is the form itself (its coefficient a residual).
import { binder, construct, letS, tangentType, InternalError, IrError, arrayType, REAL } from '../../ir/syntax';
import type { Binder, Type } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { Tangent } from '../../prims/types';
import type { CheckOps, ConstructExpr, ConstructRule, JvpOps, Sides } from '../types';
import { dotName, barName } from '../../ir/names';
import { nonLinearOnly } from '../shared/nonLinear';

export const REAL_ARRAY = arrayType(REAL);

function count(v: Value, op: string, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new IrError(`${op}: the ${what} ${String(v)} is not a non-negative integer`);
  return v;
}

function expectReal(ops: CheckOps, op: string, what: string, t: Type): void {
  if (t.tag !== 'real') ops.error(`the ${what} of ${op} must be real, got ${printType(t)}`);
}

function expectRealArray(ops: CheckOps, op: string, t: Type): void {
  if (t.tag !== 'array' || t.elem.tag !== 'real') ops.error(`${op} needs an array<real>, got ${printType(t)}`);
}

/** A type whose tangent space has no dimension (bool, str, <>): its tangent is always zero. */
const zeroDimensional = (t: Type): boolean => t.tag === 'bool' || t.tag === 'str' || (t.tag === 'tuple' && t.elems.every(zeroDimensional));

function resultType(y: Binder): Type {
  if (!y.type) throw new InternalError(`jvp: untyped result ${y.name} of an array operation (annotate types first)`);
  return y.type;
}

/** Binds a linear construct `op(nl ; lin)` to a fresh tangent of `y`. */
function tangentBy(ops: JvpOps, op: string, nl: readonly string[], lin: string, y: Binder): Tangent {
  const yDot = binder(ops.b.fresh(dotName(y.name)), tangentType(resultType(y)));
  ops.b.bind([], [yDot], construct(op, nl, [lin], []));
  return yDot.name;
}

function shapeCheck(ops: CheckOps, e: ConstructExpr, t: Sides<Type>, name: string, nl: number, lin: number): boolean {
  if (e.bodies.length !== 0) ops.error(`${name} takes no bodies`);
  if (t.nl.length !== nl || t.lin.length !== lin) {
    ops.error(`${name} takes ${nl} non-linear and ${lin} linear operand(s), got ${t.nl.length} and ${t.lin.length}`);
    return false;
  }
  return true;
}

interface NonLinearOp {
  readonly name: string;
  readonly operands: number;
  readonly type: (ops: CheckOps, t: readonly Type[]) => Type;
  readonly run: (v: readonly Value[], charge: (n: number) => void) => Value;
  readonly jvp: ConstructRule['jvp'];
  /** ConstructRule.cheap: an element read or a length, recomputed rather than stored under the 'cheap' policy. */
  readonly cheap?: boolean;
  /** ConstructRule.fresh: the result is a newly allocated array. */
  readonly fresh?: boolean;
}

function nonLinearRule(o: NonLinearOp): ConstructRule {
  return {
    name: o.name,
    arity: () => ({ nl: 1, lin: 0 }),
    typeRule: (ops, e, t) => (shapeCheck(ops, e, t, o.name, o.operands, 0) ? { nl: [o.type(ops, t.nl)], lin: [] } : { nl: [REAL], lin: [] }),
    impl: (ops, _e, v) => ({ nl: [o.run(v.nl, ops.charge)], lin: [] }),
    jvp: o.jvp,
    ...nonLinearOnly(o.name),
    ...(o.cheap ? { cheap: true } : {}),
    ...(o.fresh ? { fresh: true } : {}),
  };
}

export const len = nonLinearRule({
  name: 'len',
  cheap: true,
  operands: 1,
  type: (ops, [a]) => {
    if (a.tag !== 'array') ops.error(`len needs an array, got ${printType(a)}`);
    return REAL;
  },
  run: ([a]) => (a as Value[]).length,
  jvp: (ops, e, results) => {
    ops.b.bind([...results], [], e);
    return [null];
  },
});

function element(a: Value, i: Value, op: string): Value {
  const arr = a as Value[];
  if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= arr.length) throw new IrError(`${op}: index ${String(i)} outside an array of ${arr.length}`);
  return arr[i];
}

export const index = nonLinearRule({
  name: 'index',
  cheap: true,
  operands: 2,
  type: (ops, [a, i]) => {
    expectReal(ops, 'index', 'index', i);
    if (a.tag !== 'array') {
      ops.error(`index needs an array, got ${printType(a)}`);
      return REAL;
    }
    return a.elem;
  },
  run: ([a, i], charge) => {
    charge(1);
    return element(a, i, 'index');
  },
  // Linear in a, piecewise constant in i; a is the witness of the dense cotangent's length.
  jvp: (ops, e, results) => {
    const [a, i] = e.nl;
    ops.b.bind([...results], [], e);
    const aDot = ops.tangentOf(a);
    if (aDot === null || zeroDimensional(resultType(results[0]))) return [null];
    if (resultType(results[0]).tag !== 'real') throw new IrError(`the tangent of index is implemented for arrays of reals only, not of ${printType(resultType(results[0]))}`);
    return [tangentBy(ops, 'lindex', [i, a], aDot, results[0])];
  },
});

const fillOp = nonLinearRule({
  name: 'fill',
  fresh: true,
  operands: 2,
  type: (ops, [n, x]) => {
    expectReal(ops, 'fill', 'length', n);
    return arrayType(x);
  },
  run: ([n, x], charge) => {
    const m = count(n, 'fill', 'length');
    charge(m);
    return Array.from({ length: m }, () => x);
  },
  // Linear in x.
  jvp: (ops, e, results) => {
    const [n, x] = e.nl;
    ops.b.bind([...results], [], e);
    const xDot = ops.tangentOf(x);
    if (xDot === null || zeroDimensional(ops.typeOf(x))) return [null];
    if (ops.typeOf(x).tag !== 'real') throw new IrError(`the tangent of fill is implemented for reals only, not ${printType(ops.typeOf(x))}`);
    return [tangentBy(ops, 'lfill', [n], xDot, results[0])];
  },
});

// n copies of +0, or none (an empty array reads 0 everywhere as a cotangent).
export const fill: ConstructRule = { ...fillOp, zeros: (e, isZero) => isZero(e.nl[0]) || isZero(e.nl[1]) };

const sumOf = (a: readonly Value[]): number => a.reduce<number>((s, x) => s + ((x as number | undefined) ?? 0), 0);

export const sum = nonLinearRule({
  name: 'sum',
  operands: 1,
  type: (ops, [a]) => {
    expectRealArray(ops, 'sum', a);
    return REAL;
  },
  run: ([a], charge) => {
    charge((a as Value[]).length);
    return sumOf(a as Value[]);
  },
  // sum(a) is linear in a: ṡ = lsum(len a ; ȧ).
  jvp: (ops, e, results) => {
    const [a] = e.nl;
    const aDot = ops.tangentOf(a);
    if (aDot === null) {
      ops.b.bind([...results], [], e);
      return [null];
    }
    const n = binder(ops.b.fresh('n'), REAL);
    ops.b.stmt(letS([n], [], construct('len', [a], [], [])));
    ops.b.bind([...results], [], e);
    return [tangentBy(ops, 'lsum', [n.name], aDot, results[0])];
  },
});

// ---- the linear operations ----

/** A linear form has a linear operand; its erasure has none (E moves it to the non-linear side). */
export const isLinear = (e: ConstructExpr): boolean => e.lin.length > 0;
/** How many operands are linear in the linear form: the last ones of the erased form. */
export const linearOperands = <T>(e: ConstructExpr, v: Sides<T>, count: number): readonly T[] => (isLinear(e) ? v.lin : v.nl.slice(v.nl.length - count));
/** The coefficients: the non-linear operands before the linear ones. */
export const coefficients = <T>(e: ConstructExpr, v: Sides<T>, count: number): readonly T[] => (isLinear(e) ? v.nl : v.nl.slice(0, v.nl.length - count));
const result = <T>(e: ConstructExpr, x: T): Sides<T> => (isLinear(e) ? { nl: [], lin: [x] } : { nl: [x], lin: [] });

interface LinearOp {
  readonly name: string;
  /** The linear operand's type and the result's. */
  readonly from: Type;
  readonly to: Type;
  /** What the coefficient is (for messages). */
  readonly coefficient: string;
  /**
   * Whether a second coefficient may follow: a *witness*, the primal array whose length a dense
   * cotangent takes (`lindex(i, a ; ȧ)`, `lonehot(i, a ; ẏ)`); its elements are never read.
   */
  readonly witness?: boolean;
  readonly run: (k: number, x: Value, charge: (n: number) => void) => Value;
  /** The transpose: its op (same coefficients). */
  readonly transposeOp: string;
  /** `ladd(; other, this)` as one construct (ConstructRule.fuseAdd). */
  readonly fuseAdd?: ConstructRule['fuseAdd'];
  /** The read that also hands its operand on (ConstructRule.peek). */
  readonly peek?: ConstructRule['peek'];
}

function linearRule(o: LinearOp): ConstructRule {
  const arityOk = (n: number) => n === 1 || (o.witness === true && n === 2);
  return {
    name: o.name,
    arity: (e) => (isLinear(e) ? { nl: 0, lin: 1 } : { nl: 1, lin: 0 }),
    typeRule: (ops, e, t) => {
      if (e.bodies.length !== 0) ops.error(`${o.name} takes no bodies`);
      const ok = isLinear(e) ? arityOk(t.nl.length) && t.lin.length === 1 : arityOk(t.nl.length - 1) && t.lin.length === 0;
      const form = o.witness ? `${o.name}(k ; x) or ${o.name}(k, witness ; x)` : `${o.name}(k ; x)`;
      if (!ok) {
        ops.error(
          `${o.name} takes ${o.coefficient}${o.witness ? ', optionally a witness array,' : ''} and one operand, linear (${form}) or, erased, non-linear; got ${t.nl.length} non-linear and ${t.lin.length} linear`,
        );
        return result(e, o.to);
      }
      const [k, w] = coefficients(e, t, 1);
      expectReal(ops, o.name, o.coefficient, k);
      if (w !== undefined && w.tag !== 'array' && w.tag !== 'real') ops.error(`the witness of ${o.name} must be an array or a length (the cotangent's), got ${printType(w)}`);
      const [x] = linearOperands(e, t, 1);
      if (printType(x) !== printType(o.from)) ops.error(`${o.name} needs ${o.from.tag === 'real' ? 'a real' : `an ${printType(o.from)}`}, got ${printType(x)}`);
      return result(e, o.to);
    },
    impl: (ops, e, v) => result(e, o.run(count(coefficients(e, v, 1)[0], o.name, o.coefficient), linearOperands(e, v, 1)[0], ops.charge)),
    jvp: (ops, e, results) => {
      if (isLinear(e)) throw new InternalError(`jvp: ${o.name} with linear operands in a non-linear program (J applies to non-linear code; erase first)`);
      const cs = coefficients(e, e, 1);
      const [x] = linearOperands(e, e, 1);
      ops.b.bind([...results], [], e);
      const xDot = ops.tangentOf(x);
      return [xDot === null ? null : tangentBy(ops, o.name, cs, xDot, results[0])];
    },
    // Linear through and through: the linear half is the operation itself, its coefficients residuals.
    unzip: (_ops, e) => e,
    transpose: (ops, e, [ct]) => {
      if (ct === null) return [null];
      const bar = binder(ops.b.fresh(barName(e.lin[0])), ops.typeOf(e.lin[0]));
      ops.b.bind([], [bar], construct(o.transposeOp, e.nl, [ct], []));
      return [bar.name];
    },
    pruneResults: () => undefined,
    ...(o.fuseAdd ? { fuseAdd: o.fuseAdd } : {}),
    ...(o.peek ? { peek: o.peek } : {}),
    ...(o.witness ? { lengthOnly: [1] } : {}),
  };
}

export const lindex = linearRule({
  name: 'lindex',
  from: REAL_ARRAY,
  to: REAL,
  coefficient: 'index',
  witness: true,
  run: (i, a, charge) => {
    charge(1);
    return ((a as Value[])[i] as number | undefined) ?? 0;
  },
  transposeOp: 'lonehot',
  // With a witness (J always gives one): lpeek(i, w ; ȧ) is (ȧ, this read), ȧ still one holder's.
  peek: (e, a) => (e.lin.length === 1 && e.nl.length === 2 ? construct('lpeek', e.nl, [a], []) : undefined),
});

export const lonehot = linearRule({
  name: 'lonehot',
  from: REAL,
  to: REAL_ARRAY,
  coefficient: 'index',
  witness: true,
  run: (i, y, charge) => {
    charge(1);
    const r: Value[] = new Array<Value>(i + 1).fill(0);
    r[i] = y;
    return r;
  },
  transposeOp: 'lindex',
  // ā + e_i·ẏ is one in-place accumulation when the one-hot knows the dense length (a witness).
  fuseAdd: (_ops, e, other) => (e.lin.length === 1 && e.nl.length === 2 ? construct('laccum', e.nl, [other, e.lin[0]], []) : undefined),
});

export const lsum = linearRule({
  name: 'lsum',
  from: REAL_ARRAY,
  to: REAL,
  coefficient: 'length',
  run: (n, a, charge) => {
    charge(n);
    return sumOf(a as Value[]);
  },
  transposeOp: 'lfill',
});

export const lfill = linearRule({
  name: 'lfill',
  from: REAL,
  to: REAL_ARRAY,
  coefficient: 'length',
  run: (n, y, charge) => {
    charge(n);
    return Array.from({ length: n }, () => y);
  },
  transposeOp: 'lsum',
});
