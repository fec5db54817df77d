// Comparisons, boolean logic and select in JavaScript (prims/compare).
import { conditional } from './emit';
import type { PrimTsRule } from '../types';

export const compareTs = {
  lt: ([a, b], f) => f.createLessThan(a, b),
  le: ([a, b], f) => f.createLessThanEquals(a, b),
  gt: ([a, b], f) => f.createGreaterThan(a, b),
  ge: ([a, b], f) => f.createGreaterThanEquals(a, b),
  eq: ([a, b], f) => f.createStrictEquality(a, b),
  ne: ([a, b], f) => f.createStrictInequality(a, b),
  not: ([a], f) => f.createLogicalNot(a),
  and: ([a, b], f) => f.createLogicalAnd(a, b),
  or: ([a, b], f) => f.createLogicalOr(a, b),
  select: ([c, a, b], f) => conditional(f, c, a, b),
  mask: ([c, v], f) => conditional(f, c, v, f.createNumericLiteral(0)),
  maskn: ([c, v], f) => conditional(f, c, f.createNumericLiteral(0), v),
} as const satisfies Record<string, PrimTsRule>;
