// JavaScript's integer operators (prims/bits).
import { mathCall } from './emit';
import type { PrimTsRule } from '../types';

export const bitsTs = {
  shl: ([a, b], f) => f.createLeftShift(a, b),
  shr: ([a, b], f) => f.createRightShift(a, b),
  ushr: ([a, b], f) => f.createUnsignedRightShift(a, b),
  bitand: ([a, b], f) => f.createBitwiseAnd(a, b),
  bitor: ([a, b], f) => f.createBitwiseOr(a, b),
  bitxor: ([a, b], f) => f.createBitwiseXor(a, b),
  bitnot: ([a], f) => f.createBitwiseNot(a),
  // `x | 0`: stored into an Int32Array the `| 0` is the store's own conversion, cheap where x is
  // an int32 already (V8 keeps it one), unlike Math.trunc's double.
  toint32: ([a], f) => f.createBitwiseOr(a, f.createNumericLiteral(0)),
  imul: mathCall('imul'),
  clz32: mathCall('clz32'),
} as const satisfies Record<string, PrimTsRule>;
