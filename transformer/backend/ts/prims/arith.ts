// + - * / % ** and unary minus in JavaScript (prims/arith).
import { mathCall, strongZeroProduct } from './emit';
import type { PrimTsRule } from '../types';

export const arithTs = {
  add: ([a, b], f) => f.createAdd(a, b),
  sub: ([a, b], f) => f.createSubtract(a, b),
  neg: ([a], f) => f.createPrefixMinus(a),
  mul: ([a, b], f) => f.createMultiply(a, b),
  mul0: ([u, v], f) => strongZeroProduct(u, v, f),
  div: ([a, b], f) => f.createDivide(a, b),
  mod: ([a, b], f) => f.createModulo(a, b),
  pow: mathCall('pow'),
} as const satisfies Record<string, PrimTsRule>;
