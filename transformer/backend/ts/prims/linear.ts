// The linear primitives on one leaf in JavaScript (prims/linear): coefficients, then linear arguments.
import { conditional, strongZeroProduct } from './emit';
import type { LinPrimTsRule } from '../types';

export const linearTs = {
  ladd: (_, [a, b], f) => f.createAdd(a, b),
  lneg: (_, [a], f) => f.createPrefixMinus(a),
  scale: ([u], [v], f) => f.createMultiply(u, v),
  scale0: ([u], [v], f) => strongZeroProduct(u, v, f),
  lselect: ([c], [a, b], f) => conditional(f, c, a, b),
  lmask: ([c], [v], f) => conditional(f, c, v, f.createNumericLiteral(0)),
  lmaskn: ([c], [v], f) => conditional(f, c, f.createNumericLiteral(0), v),
} as const satisfies Record<string, LinPrimTsRule>;
