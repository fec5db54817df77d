// Writing one element (docs/linear-a.md, "Arrays", "Writes"): `a[i] = v` in the source.
//
//   let a' = update(a, i, v) []             a with element i replaced by v       cost len a + 1 (a copy)
//   let a' = write(a, i, v) []              the same, in place: a is dead         cost 1
//   let (; ȧ') = lupdate(i, w ; ȧ, v̇) []    ȧ with element i replaced by v̇       cost 1 (in place when owned)
//   let (; ā, v̄) = ltake(i, w ; c̄) []       (c̄ with element i zeroed, c̄_i)       cost 1 (in place when owned)
//
// The IR has value semantics: update returns a new array and leaves a as it was, so every version
// of a local array the source overwrites is a value of its own, and J, U and T need no notion of
// memory. Running each update as a copy would make a loop filling an n-array cost n², so
// opt/inplace.ts turns an update into `write` where it proves nobody can see the difference (a is
// unique, allocated in the def, and never read again): the `inPlace` facet below.
//
// J:  update(a, i, v) ↦ lupdate(i, a ; ȧ, v̇): linear in (ȧ, v̇), piecewise constant in i; a is the
// witness of the dense length, as for reads (a zero tangent becomes a dense array once, then is
// updated in place). U: the linear forms are their own linear halves. T: the adjoint identity
//   ⟨lupdate(i, w ; ȧ, v̇), c̄⟩ = Σ_{k≠i} ȧ_k c̄_k + v̇ c̄_i = ⟨ȧ, c̄ with c̄_i = 0⟩ + v̇·c̄_i
// makes T(lupdate) = ltake and T(ltake) = lupdate. Tangent arrays are sparse at the end (an
// element past the end reads 0): lupdate past the end extends to w's length, ltake past the end
// returns c̄ itself and a zero. Both run in place on arrays the running call owns, as laccum does
// (accum.ts), so a transposed loop of writes zeroes one element per iteration, not a copy.
import { binder, construct, tangentType, InternalError, IrError, arrayType, REAL } from '../../ir/syntax';
import type { Type } from '../../ir/syntax';
import type { Builder } from '../../ir/build';
import type { Tangent } from '../../prims/types';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { CheckOps, ConstructExpr, ConstructRule, Sides } from '../types';
import { barName, dotName } from '../../ir/names';
import { ownedDense, provedOwned, witnessLength } from './accum';
import { nonLinearOnly } from '../shared/nonLinear';

const REAL_ARRAY = arrayType(REAL);

function checkIndex(i: Value, n: number, op: string): number {
  if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= n) throw new IrError(`${op}: index ${String(i)} outside an array of ${n}`);
  return i;
}

function shape(ops: CheckOps, e: ConstructExpr, t: Sides<Type>, name: string, nl: number, lin: number): boolean {
  if (e.bodies.length !== 0) ops.error(`${name} takes no bodies`);
  if (t.nl.length !== nl || t.lin.length !== lin) {
    ops.error(`${name} takes ${nl} non-linear and ${lin} linear operand(s), got ${t.nl.length} and ${t.lin.length}`);
    return false;
  }
  return true;
}

// ---- the non-linear pair ----

function updateType(name: string) {
  return (ops: CheckOps, e: ConstructExpr, t: Sides<Type>): Sides<Type> => {
    if (!shape(ops, e, t, name, 3, 0)) return { nl: [REAL_ARRAY], lin: [] };
    const [a, i, v] = t.nl;
    if (i.tag !== 'real') ops.error(`the index of ${name} must be real, got ${printType(i)}`);
    if (a.tag !== 'array' || a.elem.tag !== 'real') ops.error(`${name} writes into an array<real>, got ${printType(a)}`);
    if (v.tag !== 'real') ops.error(`${name} writes a real, got ${printType(v)}`);
    return { nl: [REAL_ARRAY], lin: [] };
  };
}

/**
 * Binds `name` (fresh) to lupdate(i, w ; ȧ, v̇), a zero tangent materialised where the other is
 * not: J of update, append and lupdate, and T of ltake.
 */
function bindLupdate(b: Builder, name: string, type: Type, [i, w]: readonly [string, string], aDot: Tangent, vDot: Tangent): string {
  const r = binder(b.fresh(name), type);
  b.bind([], [r], construct('lupdate', [i, w], [aDot ?? b.zero(REAL_ARRAY), vDot ?? b.zero(REAL)], []));
  return r.name;
}

/** J of update and write: lupdate(i, a ; ȧ, v̇). */
const updateJvp: ConstructRule['jvp'] = (ops, e, results) => {
  const [a, i, v] = e.nl;
  ops.b.bind([...results], [], e);
  const aDot = ops.tangentOf(a);
  const vDot = ops.tangentOf(v);
  if (aDot === null && vDot === null) return [null];
  return [bindLupdate(ops.b, dotName(results[0].name), tangentType(REAL_ARRAY), [i, a], aDot, vDot)];
};

/** What the non-linear records here share: one result, a newly allocated array (or the buffer it took over); U and T never meet them. */
const freshArray = (name: string) => ({ name, arity: () => ({ nl: 1, lin: 0 }), ...nonLinearOnly(name), fresh: true }) as const;

/** J of a form only the backend sees (opt/inplace.ts puts it in after differentiation). */
const backendOnly = (why: string) => (): never => {
  throw new InternalError(why);
};

export const update: ConstructRule = {
  ...freshArray('update'),
  typeRule: updateType('update'),
  impl: (ops, _e, v) => {
    const [a, i, x] = v.nl as [Value[], Value, Value];
    checkIndex(i, a.length, 'update');
    ops.charge(a.length + 1);
    const copy = a.slice();
    copy[i as number] = x;
    return { nl: [copy], lin: [] };
  },
  jvp: updateJvp,
  overwrites: () => [0],
  keepsLength: () => [0],
  inPlace: { operand: 0, op: 'write' },
};

/** update where opt/inplace.ts proved the array unique and dead after it: only ever emitted, never differentiated. */
export const write: ConstructRule = {
  ...freshArray('write'),
  typeRule: updateType('write'),
  impl: (ops, _e, v) => {
    const [a, i, x] = v.nl as [Value[], Value, Value];
    checkIndex(i, a.length, 'write');
    ops.charge(1);
    a[i as number] = x;
    return { nl: [a], lin: [] };
  },
  jvp: backendOnly('write is the in-place form of update that only the backend sees (opt/inplace.ts); differentiate the program before marking writes'),
  overwrites: () => [0],
  keepsLength: () => [0],
};

// ---- the linear pair ----

export const isLinear = (e: ConstructExpr): boolean => e.lin.length > 0;

/** lupdate's (i, w) and (ȧ, v̇), from the linear form or the erased one (all four non-linear). */
export const updateParts = <T>(e: ConstructExpr, v: Sides<T>): { i: T; w: T; a: T; x: T } =>
  isLinear(e) ? { i: v.nl[0], w: v.nl[1], a: v.lin[0], x: v.lin[1] } : { i: v.nl[0], w: v.nl[1], a: v.nl[2], x: v.nl[3] };

/** ltake's (i, w) and c̄. */
export const takeParts = <T>(e: ConstructExpr, v: Sides<T>): { i: T; w: T; c: T } => (isLinear(e) ? { i: v.nl[0], w: v.nl[1], c: v.lin[0] } : { i: v.nl[0], w: v.nl[1], c: v.nl[2] });

const sides = <T>(linear: boolean, xs: T[]): Sides<T> => (linear ? { nl: [], lin: xs } : { nl: xs, lin: [] });

function checkWitness(ops: CheckOps, op: string, i: Type, w: Type): void {
  if (i.tag !== 'real') ops.error(`the index of ${op} must be real, got ${printType(i)}`);
  if (w.tag !== 'array' && w.tag !== 'real') ops.error(`the witness of ${op} must be an array or a length (the dense tangent's), got ${printType(w)}`);
}

export const lupdate: ConstructRule = {
  name: 'lupdate',
  arity: (e) => (isLinear(e) ? { nl: 0, lin: 1 } : { nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    const linear = isLinear(e);
    if (!shape(ops, e, t, 'lupdate', linear ? 2 : 4, linear ? 2 : 0)) return sides(linear, [REAL_ARRAY]);
    const { i, w, a, x } = updateParts(e, t);
    checkWitness(ops, 'lupdate', i, w);
    if (a.tag !== 'array' || a.elem.tag !== 'real') ops.error(`lupdate writes into an array<real>, got ${printType(a)}`);
    if (x.tag !== 'real') ops.error(`lupdate writes a real, got ${printType(x)}`);
    return sides(linear, [REAL_ARRAY]);
  },
  impl: (ops, e, v) => {
    const { i, w, a, x } = updateParts(e, v);
    const n = witnessLength(w);
    const k = checkIndex(i, n, 'lupdate');
    ops.charge(1);
    const r = ownedDense(ops, a as Value[], n);
    r[k] = x;
    return sides(isLinear(e), [r]);
  },
  // Linear in (ȧ, v̇): J of the erased form (second order) is the form on the tangents.
  jvp: (ops, e, results) => {
    if (isLinear(e)) throw new InternalError('jvp: lupdate with linear operands in a non-linear program (J applies to non-linear code; erase first)');
    const { i, w, a, x } = updateParts(e, e);
    ops.b.bind([...results], [], e);
    const aDot = ops.tangentOf(a);
    const xDot = ops.tangentOf(x);
    if (aDot === null && xDot === null) return [null];
    return [bindLupdate(ops.b, dotName(results[0].name), tangentType(REAL_ARRAY), [i, w], aDot, xDot)];
  },
  unzip: (_ops, e) => e,
  transpose: (ops, e, [ct]) => {
    if (ct === null) return [null, null];
    const aBar = binder(ops.b.fresh(barName(e.lin[0])), REAL_ARRAY);
    const xBar = binder(ops.b.fresh(barName(e.lin[1])), REAL);
    ops.b.bind([], [aBar, xBar], construct('ltake', e.nl, [ct], []));
    return [aBar.name, xBar.name];
  },
  pruneResults: () => undefined,
  updatesInPlace: true,
  threads: (e) => (isLinear(e) ? undefined : { array: 2, result: 0, dense: 1, owned: 'lupdatew' }),
  lengthOnly: [1],
};

export const ltake: ConstructRule = {
  name: 'ltake',
  arity: (e) => (isLinear(e) ? { nl: 0, lin: 2 } : { nl: 2, lin: 0 }),
  typeRule: (ops, e, t) => {
    const linear = isLinear(e);
    if (!shape(ops, e, t, 'ltake', linear ? 2 : 3, linear ? 1 : 0)) return sides(linear, [REAL_ARRAY, REAL]);
    const { i, w, c } = takeParts(e, t);
    checkWitness(ops, 'ltake', i, w);
    if (c.tag !== 'array' || c.elem.tag !== 'real') ops.error(`ltake takes an element of an array<real>, got ${printType(c)}`);
    return sides(linear, [REAL_ARRAY, REAL]);
  },
  impl: (ops, e, v) => {
    const { i, w, c } = takeParts(e, v);
    const k = checkIndex(i, witnessLength(w), 'ltake');
    ops.charge(1);
    const arr = c as Value[];
    // Past the end of a sparse cotangent the element is a zero and nothing changes.
    if (k >= arr.length) return sides(isLinear(e), [arr, 0]);
    const r = ownedDense(ops, arr, 0);
    const x = r[k];
    r[k] = 0;
    return sides(isLinear(e), [r, x]);
  },
  jvp: (ops, e, results) => {
    if (isLinear(e)) throw new InternalError('jvp: ltake with linear operands in a non-linear program (J applies to non-linear code; erase first)');
    const { i, w, c } = takeParts(e, e);
    ops.b.bind([...results], [], e);
    const cDot = ops.tangentOf(c);
    if (cDot === null) return [null, null];
    const dots = [binder(ops.b.fresh(dotName(results[0].name)), tangentType(REAL_ARRAY)), binder(ops.b.fresh(dotName(results[1].name)), REAL)];
    ops.b.bind([], dots, construct('ltake', [i, w], [cDot], []));
    return dots.map((d) => d.name);
  },
  unzip: (_ops, e) => e,
  transpose: (ops, e, [aCt, xCt]) => {
    if (aCt === null && xCt === null) return [null];
    return [bindLupdate(ops.b, barName(e.lin[0]), REAL_ARRAY, [e.nl[0], e.nl[1]], aCt, xCt)];
  },
  // T of `h[j] = h[j] + e` takes h̄_j and accumulates it back at j: h̄ ends as it was, so the pair
  // is one read that hands h̄ on (no zeroing, no second update).
  putBack: (take, back) => (isLinear(take) && back.op === 'laccum' && back.lin.length === 2 && back.nl[0] === take.nl[0] ? construct('lpeek', take.nl, take.lin, []) : undefined),
  pruneResults: () => undefined,
  updatesInPlace: true,
  // Past the end it hands the array on unchanged: it needs the array owned, not dense.
  threads: (e) => (isLinear(e) ? undefined : { array: 2, result: 0, owned: 'ltakew' }),
  lengthOnly: [1],
};

// lupdate and ltake on an array opt/ownedChains.ts proved owned (and dense, for lupdatew), as
// laccumw (accum.ts): only the backend sees them, and the interpreter checks the proof.

export const lupdatew: ConstructRule = {
  name: 'lupdatew',
  arity: () => ({ nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => lupdate.typeRule(ops, e, t) as Sides<Type>,
  impl: (ops, e, v) => {
    const { i, w, a, x } = updateParts(e, v);
    const n = witnessLength(w);
    const k = checkIndex(i, n, 'lupdatew');
    ops.charge(1);
    const r = provedOwned(ops, 'lupdatew', a, n);
    r[k] = x;
    return { nl: [r], lin: [] };
  },
  jvp: backendOnly('lupdatew is put in by the backend (opt/ownedChains.ts) after differentiation'),
  ...nonLinearOnly('lupdatew'),
  updatesInPlace: true,
  threads: () => ({ array: 2, result: 0, dense: 1 }),
  lengthOnly: [1],
};

export const ltakew: ConstructRule = {
  name: 'ltakew',
  arity: () => ({ nl: 2, lin: 0 }),
  typeRule: (ops, e, t) => ltake.typeRule(ops, e, t) as Sides<Type>,
  impl: (ops, e, v) => {
    const { i, w, c } = takeParts(e, v);
    const k = checkIndex(i, witnessLength(w), 'ltakew');
    ops.charge(1);
    const arr = c as Value[];
    if (k >= arr.length) return { nl: [arr, 0], lin: [] };
    const r = provedOwned(ops, 'ltakew', arr, 0);
    const x = r[k];
    r[k] = 0;
    return { nl: [r, x], lin: [] };
  },
  jvp: backendOnly('ltakew is put in by the backend (opt/ownedChains.ts) after differentiation'),
  ...nonLinearOnly('ltakew'),
  updatesInPlace: true,
  threads: () => ({ array: 2, result: 0 }),
  lengthOnly: [1],
};

/**
 * A copy of an array, which opt/inplace.ts puts before a loop whose body writes a carried array
 * that someone else still holds: one copy per loop instead of one per write. Only the backend
 * sees it.
 */
export const clone: ConstructRule = {
  ...freshArray('clone'),
  typeRule: (ops, e, t) => {
    if (!shape(ops, e, t, 'clone', 1, 0)) return { nl: [REAL_ARRAY], lin: [] };
    if (t.nl[0].tag !== 'array') ops.error(`clone copies an array, got ${printType(t.nl[0])}`);
    return { nl: [t.nl[0]], lin: [] };
  },
  impl: (ops, _e, v) => {
    const a = v.nl[0] as Value[];
    ops.charge(a.length);
    return { nl: [a.slice()], lin: [] };
  },
  jvp: backendOnly('clone is put in by the backend (opt/inplace.ts) after differentiation'),
};

// ---- appending ----
//
//   let a' = append(a, v) []     a with v added at the end                cost len a + 1 (a copy)
//   let a' = appendw(a, v) []    the same, into a's buffer: a is dead     cost 1 (amortised)
//
// append(a, v) is update at index len(a) of an array one longer, so its tangent needs no linear
// construct of its own: J gives lupdate(len a, len a + 1 ; ȧ, v̇) (the witness is the new length)
// and T of that is ltake. The in-place twin keeps room at the end of the array's buffer: the
// result is a view one element longer over the same buffer while it has room, else a buffer of
// twice the size.

/** J of append: lupdate at the old length, with the new length as the witness. */
export const appendJvp: ConstructRule['jvp'] = (ops, e, results) => {
  const [a, v] = e.nl;
  const aDot = ops.tangentOf(a);
  const vDot = ops.tangentOf(v);
  if (aDot === null && vDot === null) {
    ops.b.bind([...results], [], e);
    return [null];
  }
  // The length is read before the append, so that the append is a's last reader (in place).
  const n = ops.b.nl('n', construct('len', [a], [], []), REAL);
  const n1 = ops.b.prim('add', [n, ops.b.lit(1, 'one')], 'n1');
  ops.b.bind([...results], [], e);
  return [bindLupdate(ops.b, dotName(results[0].name), tangentType(REAL_ARRAY), [n, n1], aDot, vDot)];
};

function appendType(name: string) {
  return (ops: CheckOps, e: ConstructExpr, t: Sides<Type>): Sides<Type> => {
    if (!shape(ops, e, t, name, 2, 0)) return { nl: [REAL_ARRAY], lin: [] };
    const [a, v] = t.nl;
    if (a.tag !== 'array' || a.elem.tag !== 'real') ops.error(`${name} appends to an array<real>, got ${printType(a)}`);
    if (v.tag !== 'real') ops.error(`${name} appends a real, got ${printType(v)}`);
    return { nl: [REAL_ARRAY], lin: [] };
  };
}

export const append: ConstructRule = {
  ...freshArray('append'),
  typeRule: appendType('append'),
  impl: (ops, _e, v) => {
    const [a, x] = v.nl as [Value[], Value];
    ops.charge(a.length + 1);
    return { nl: [[...a, x]], lin: [] };
  },
  jvp: appendJvp,
  overwrites: () => [0],
  inPlace: { operand: 0, op: 'appendw' },
};

export const appendw: ConstructRule = {
  ...freshArray('appendw'),
  typeRule: appendType('appendw'),
  impl: (ops, _e, v) => {
    const [a, x] = v.nl as [Value[], Value];
    ops.charge(1);
    a.push(x);
    return { nl: [a], lin: [] };
  },
  jvp: backendOnly('appendw is the in-place form of append that only the backend sees (opt/inplace.ts)'),
  overwrites: () => [0],
};
