// Comparisons, boolean logic and select. Booleans have the zero-dimensional tangent space, so
// comparisons and logic drop their tangents; `select` routes the tangent of the chosen branch.
import { BOOL, REAL, Type } from '../../ir/syntax';
import { nonDifferentiable, binary, unary } from '../helpers';
import type { PrimDef, Scalar } from '../types';

const predicate = { domain: [[-3, 3]] as [number, number][], predicate: true };

/** Equality compares two values of one scalar type; ordering compares two reals or two strings. */
function comparison(name: string, impl: (a: number, b: number) => boolean, equality = false): PrimDef {
  const allowed = equality ? ['real', 'bool', 'str'] : ['real', 'str'];
  return {
    name,
    arity: binary,
    typeRule: ([a, b]) => (a.tag === b.tag && allowed.includes(a.tag) ? BOOL : `${name} compares two ${equality ? 'reals, booleans or strings' : 'reals or two strings'}, got ${a.tag} and ${b.tag}`),
    impl: (a, b) => impl(a as number, b as number),
    jvp: nonDifferentiable,
    // One instruction on reals: recomputing a loop's trip test is cheaper than a flag on its tape.
    cheap: true,
    test: predicate,
  };
}

export const lt = comparison('lt', (a, b) => a < b);
export const le = comparison('le', (a, b) => a <= b);
export const gt = comparison('gt', (a, b) => a > b);
export const ge = comparison('ge', (a, b) => a >= b);
export const eq = comparison('eq', (a, b) => a === b, true);
export const ne = comparison('ne', (a, b) => a !== b, true);

const boolOp = (name: string) => (ts: readonly Type[]) => (ts.every((t) => t.tag === 'bool') ? BOOL : `${name} expects booleans`);

export const not: PrimDef = {
  name: 'not',
  arity: unary,
  typeRule: boolOp('not'),
  impl: (a) => !a,
  jvp: nonDifferentiable,
  test: predicate,
};
export const and: PrimDef = {
  name: 'and',
  arity: binary,
  typeRule: boolOp('and'),
  impl: (a, b) => Boolean(a) && Boolean(b),
  jvp: nonDifferentiable,
  fold: ([a, b]) => (a === true ? { arg: 1 } : b === true ? { arg: 0 } : a === false || b === false ? { literal: false } : undefined),
  test: predicate,
};
export const or: PrimDef = {
  name: 'or',
  arity: binary,
  typeRule: boolOp('or'),
  impl: (a, b) => Boolean(a) || Boolean(b),
  jvp: nonDifferentiable,
  fold: ([a, b]) => (a === false ? { arg: 1 } : b === false ? { arg: 0 } : a === true || b === true ? { literal: true } : undefined),
  test: predicate,
};

// select(c, a, b) = c ? a : b; its tangent is lselect(c ; ȧ, ḃ), or a mask of one (Guarded) for a
// constant branch.
export const select: PrimDef = {
  name: 'select',
  arity: { min: 3, max: 3 },
  typeRule: ([c, a, b]) => (c.tag === 'bool' && a.tag === b.tag && a.tag !== 'tuple' ? a : 'select expects a boolean and two values of one scalar type'),
  impl: (c: Scalar, a: Scalar, b: Scalar) => (c ? a : b),
  jvp: ({ b, args: [c], tangents: [, da, db], y }) => {
    if (da === null && db === null) return null;
    if (db === null) return { test: c, keep: true, tangent: da! };
    if (da === null) return { test: c, keep: false, tangent: db };
    return b.lprim('lselect', [c], [da, db], `${y}_dot`, REAL);
  },
  sides: [1, 2],
  fold: ([c]) => (c === true ? { arg: 1 } : c === false ? { arg: 2 } : undefined),
  test: { domain: [[-3, 3]] },
};

// mask(c, v) = c ? v : 0 and maskn(c, v) = c ? 0 : v: what erasure makes of lmask and lmaskn
// (the transposed arms of a select). Linear in v, so the tangent is the same mask of v̇.
function masking(name: 'mask' | 'maskn', keepWhen: boolean): PrimDef {
  return {
    name,
    arity: binary,
    typeRule: ([c, v]) => (c.tag === 'bool' && v.tag === 'real' ? REAL : `${name} expects a boolean and a real`),
    impl: (c: Scalar, v: Scalar) => (Boolean(c) === keepWhen ? v : 0),
    jvp: ({ args: [c], tangents: [, dv] }) => (dv === null ? null : { test: c, keep: keepWhen, tangent: dv }),
    sides: [1],
    test: { domain: [[-3, 3]] },
  };
}
export const mask = masking('mask', true);
export const maskn = masking('maskn', false);
