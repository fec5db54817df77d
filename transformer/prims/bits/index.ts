// JavaScript's integer operators on numbers: << >> >>> & | ^ ~ and Math.imul, Math.clz32. Each
// converts its operands to 32-bit integers (ToInt32, ToUint32) and gives a whole number, so the
// result is piecewise constant in its operands: zero derivative, as for floor and trunc. What
// they compute in a differentiable function is indices, hashes and seeded generators' states.
import { nonDifferentiable, realOp, unary, binary } from '../helpers';
import type { PrimDef, PrimTestSpec } from '../types';

const num = (v: unknown) => v as number;
/** Operands past 2³² show the wrapping; shift counts past 31 their masking. */
const wide: PrimTestSpec = { domain: [[-5e9, 5e9]], zeroDerivative: true };
const shifts: PrimTestSpec = {
  domain: [
    [-5e9, 5e9],
    [-40, 40],
  ],
  zeroDerivative: true,
};

function bitOp(name: string, impl: (a: number, b: number) => number, test: PrimTestSpec): PrimDef {
  return {
    name,
    cheap: true,
    arity: binary,
    typeRule: realOp(name),
    impl: (a, b) => impl(num(a), num(b)),
    jvp: nonDifferentiable,
    test,
  };
}

export const shl = bitOp('shl', (a, b) => a << b, shifts);
export const shr = bitOp('shr', (a, b) => a >> b, shifts);
export const ushr = bitOp('ushr', (a, b) => a >>> b, shifts);
export const bitand = bitOp('bitand', (a, b) => a & b, wide);
export const bitor = bitOp('bitor', (a, b) => a | b, wide);
export const bitxor = bitOp('bitxor', (a, b) => a ^ b, wide);

export const bitnot: PrimDef = {
  name: 'bitnot',
  cheap: true,
  arity: unary,
  typeRule: realOp('bitnot'),
  impl: (a) => ~num(a),
  jvp: nonDifferentiable,
  test: wide,
};

export const imul: PrimDef = {
  name: 'imul',
  cheap: true,
  arity: binary,
  typeRule: realOp('imul'),
  impl: (a, b) => Math.imul(num(a), num(b)),
  jvp: nonDifferentiable,
  test: wide,
};

/**
 * ToInt32: what an Int32Array stores when a number is written into it (truncated toward zero,
 * wrapped modulo 2³² into [−2³¹, 2³¹), NaN and ±∞ to 0). The front end makes every write into an
 * Int32Array one (frontend/arraySite.ts, storedValue), so that the IR's value is what JavaScript
 * reads back and a backend may hold the array as an Int32Array (ir/types.ts, `store`).
 */
export const toint32: PrimDef = {
  name: 'toint32',
  cheap: true,
  arity: unary,
  typeRule: realOp('toint32'),
  impl: (a) => num(a) | 0,
  jvp: nonDifferentiable,
  test: wide,
};

export const clz32: PrimDef = {
  name: 'clz32',
  cheap: true,
  arity: unary,
  typeRule: realOp('clz32'),
  impl: (a) => Math.clz32(num(a)),
  jvp: nonDifferentiable,
  test: wide,
};
