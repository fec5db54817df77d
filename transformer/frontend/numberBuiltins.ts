// `Number`'s predicates and constants in a marked function: `Number.isFinite(x)` in a validation
// line, `Number.EPSILON` in a tolerance. The predicates are piecewise constant (booleans have no
// tangent), so each is written with the comparisons it means and needs no rule of its own.
import type * as ts from 'typescript';
import type { Builder } from '../ir/build';
import { isBuiltIn } from './markers';

/** Binds the predicate of x, a real, and returns the variable of the boolean. */
type Predicate = (b: Builder, x: string) => string;

// |x| < ∞ is false for ±∞ and for NaN (every comparison with NaN is).
const finite: Predicate = (b, x) => b.test('lt', [b.prim('abs', [x]), b.lit(Infinity)], 'finite');
const integer: Predicate = (b, x) => b.test('and', [finite(b, x), b.test('eq', [b.prim('trunc', [x]), x])], 'integer');

/** By name: `Number.isFinite` and the global `isFinite` agree on numbers, which is all tsad passes. */
const PREDICATES: Readonly<Record<string, Predicate>> = {
  isFinite: finite,
  isNaN: (b, x) => b.test('ne', [x, x], 'nan'),
  isInteger: integer,
  isSafeInteger: (b, x) => b.test('and', [integer(b, x), b.test('le', [b.prim('abs', [x]), b.lit(Number.MAX_SAFE_INTEGER)])], 'safe'),
};
const GLOBAL_PREDICATES = new Set(['isFinite', 'isNaN']);

export const NUMBER_CONSTANTS: Readonly<Record<string, number>> = {
  EPSILON: Number.EPSILON,
  MAX_VALUE: Number.MAX_VALUE,
  MIN_VALUE: Number.MIN_VALUE,
  MAX_SAFE_INTEGER: Number.MAX_SAFE_INTEGER,
  MIN_SAFE_INTEGER: Number.MIN_SAFE_INTEGER,
  POSITIVE_INFINITY: Number.POSITIVE_INFINITY,
  NEGATIVE_INFINITY: Number.NEGATIVE_INFINITY,
  NaN: Number.NaN,
};

function fromLib(t: typeof ts, checker: ts.TypeChecker, e: ts.Identifier): boolean {
  const sym = checker.getSymbolAtLocation(e);
  return !!sym?.declarations?.length && sym.declarations.every(isBuiltIn) && !(sym.flags & t.SymbolFlags.Alias);
}

/** Is `e` the global `Number` (not a local of that name)? */
export function isGlobalNumber(t: typeof ts, checker: ts.TypeChecker, e: ts.Expression): boolean {
  return t.isIdentifier(e) && e.text === 'Number' && fromLib(t, checker, e);
}

/** The predicate a callee names (`Number.isFinite`, `isNaN`), or undefined. */
export function numberPredicate(t: typeof ts, checker: ts.TypeChecker, callee: ts.Expression): Predicate | undefined {
  if (t.isPropertyAccessExpression(callee) && isGlobalNumber(t, checker, callee.expression)) return Object.hasOwn(PREDICATES, callee.name.text) ? PREDICATES[callee.name.text] : undefined;
  if (t.isIdentifier(callee) && GLOBAL_PREDICATES.has(callee.text) && fromLib(t, checker, callee)) return PREDICATES[callee.text];
  return undefined;
}
