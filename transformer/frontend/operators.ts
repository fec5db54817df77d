// TypeScript's operators and Math's constants as the IR's primitives and numbers.
import type * as ts from 'typescript';

export const MATH_CONSTANTS: Record<string, number> = {
  PI: Math.PI,
  E: Math.E,
  LN2: Math.LN2,
  LN10: Math.LN10,
  LOG2E: Math.LOG2E,
  LOG10E: Math.LOG10E,
  SQRT2: Math.SQRT2,
  SQRT1_2: Math.SQRT1_2,
};

type OperatorTable = Partial<Record<ts.SyntaxKind, string>>;
const tables = new WeakMap<typeof ts, { arith: OperatorTable; compare: OperatorTable; logic: OperatorTable; compound: OperatorTable }>();
export function operatorTables(t: typeof ts) {
  let found = tables.get(t);
  if (!found) {
    const K = t.SyntaxKind;
    found = {
      arith: {
        [K.PlusToken]: 'add',
        [K.MinusToken]: 'sub',
        [K.AsteriskToken]: 'mul',
        [K.SlashToken]: 'div',
        [K.PercentToken]: 'mod',
        [K.AsteriskAsteriskToken]: 'pow',
        // Integer operators (prims/bits): whole numbers, zero derivative.
        [K.LessThanLessThanToken]: 'shl',
        [K.GreaterThanGreaterThanToken]: 'shr',
        [K.GreaterThanGreaterThanGreaterThanToken]: 'ushr',
        [K.AmpersandToken]: 'bitand',
        [K.BarToken]: 'bitor',
        [K.CaretToken]: 'bitxor',
      },
      compare: {
        [K.LessThanToken]: 'lt',
        [K.LessThanEqualsToken]: 'le',
        [K.GreaterThanToken]: 'gt',
        [K.GreaterThanEqualsToken]: 'ge',
        [K.EqualsEqualsEqualsToken]: 'eq',
        [K.EqualsEqualsToken]: 'eq',
        [K.ExclamationEqualsEqualsToken]: 'ne',
        [K.ExclamationEqualsToken]: 'ne',
      },
      logic: { [K.AmpersandAmpersandToken]: 'and', [K.BarBarToken]: 'or' },
      compound: {
        [K.PlusEqualsToken]: 'add',
        [K.MinusEqualsToken]: 'sub',
        [K.AsteriskEqualsToken]: 'mul',
        [K.SlashEqualsToken]: 'div',
        [K.PercentEqualsToken]: 'mod',
        [K.AsteriskAsteriskEqualsToken]: 'pow',
        [K.LessThanLessThanEqualsToken]: 'shl',
        [K.GreaterThanGreaterThanEqualsToken]: 'shr',
        [K.GreaterThanGreaterThanGreaterThanEqualsToken]: 'ushr',
        [K.AmpersandEqualsToken]: 'bitand',
        [K.BarEqualsToken]: 'bitor',
        [K.CaretEqualsToken]: 'bitxor',
      },
    };
    tables.set(t, found);
  }
  return found;
}
export const BINARY_ARITH = (t: typeof ts) => operatorTables(t).arith;
export const BINARY_COMPARE = (t: typeof ts) => operatorTables(t).compare;
export const BINARY_LOGIC = (t: typeof ts) => operatorTables(t).logic;
