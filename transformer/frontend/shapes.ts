// How a TypeScript value maps to a Linear A value: numbers are reals, booleans are booleans,
// tuples and plain objects are IR tuples (object fields in name order, so two object types with
// the same fields share one layout).
import type * as ts from 'typescript';
import { BOOL, REAL, STR, Type, tupleType } from '../ir/syntax';
import { fail } from './diagnostics';

export type Shape =
  | { readonly kind: 'number' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'string' }
  | { readonly kind: 'tuple'; readonly elems: readonly Shape[] }
  | { readonly kind: 'object'; readonly fields: readonly (readonly [string, Shape])[] };

export const NUMBER: Shape = { kind: 'number' };
export const BOOLEAN: Shape = { kind: 'boolean' };
export const STRING: Shape = { kind: 'string' };

export function shapeOfType(tsApi: typeof ts, checker: ts.TypeChecker, type: ts.Type, node: ts.Node): Shape {
  const F = tsApi.TypeFlags;
  if (type.flags & (F.Number | F.NumberLiteral)) return NUMBER;
  if (type.flags & (F.Boolean | F.BooleanLiteral)) return BOOLEAN;
  if (type.flags & (F.String | F.StringLiteral) || (type.isUnion() && type.types.every((t) => t.flags & F.StringLiteral))) return STRING;
  if (checker.isTupleType(type)) {
    const elems = checker.getTypeArguments(type as ts.TypeReference);
    return { kind: 'tuple', elems: elems.map((t) => shapeOfType(tsApi, checker, t, node)) };
  }
  const unsupported = unsupportedConstruct(tsApi, checker, type);
  if (unsupported) return fail(1105, node, `cannot differentiate ${unsupported}`);
  if (type.flags & F.Object) {
    const props = checker.getPropertiesOfType(type);
    const fields = props
      .map((p) => [p.name, shapeOfType(tsApi, checker, checker.getTypeOfSymbolAtLocation(p, node), node)] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return { kind: 'object', fields };
  }
  const text = checker.typeToString(type);
  return fail(1105, node, `cannot differentiate a value of type '${text.length > 60 ? `${text.slice(0, 57)}...` : text}'`);
}

const TYPED_ARRAYS = new Set(['Float64Array', 'Float32Array', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array']);

/**
 * The construct a type stands for, when it is one tsad does not differentiate: one phrase that
 * names it (an array, a Promise, an instance of class Vec), never a printout of its members.
 */
function unsupportedConstruct(tsApi: typeof ts, checker: ts.TypeChecker, type: ts.Type): string | undefined {
  const F = tsApi.TypeFlags;
  if (type.flags & (F.Any | F.Unknown)) return `a value of type '${type.flags & F.Any ? 'any' : 'unknown'}': give it a type (number, a tuple or a plain object of numbers)`;
  if (type.flags & (F.Undefined | F.Null | F.Void)) return 'undefined or null';
  const sym = type.getSymbol() ?? type.aliasSymbol;
  const builtIn = !!sym?.declarations?.length && sym.declarations.every((d) => d.getSourceFile().hasNoDefaultLib);
  if (checker.isArrayType(type) || (builtIn && TYPED_ARRAYS.has(sym!.name))) {
    const name = checker.isArrayType(type) ? `${checker.typeToString(checker.getTypeArguments(type as ts.TypeReference)[0] ?? checker.getAnyType())}[]` : sym!.name;
    return `an array (${name}): arrays are not differentiable yet; pass a tuple ([number, number]) or separate numbers`;
  }
  if (!(type.flags & F.Object)) return undefined;
  if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) return 'a function value: differentiable values are numbers, tuples and plain objects';
  if (builtIn && sym!.name === 'Promise') return 'a Promise: differentiate a synchronous function and await the value before calling it';
  if (builtIn) return `a built-in ${sym!.name} object`;
  // A class whose instances only hold data is a plain object type here; methods are what rule it out.
  const method = checker.getPropertiesOfType(type).find((p) => p.flags & tsApi.SymbolFlags.Method);
  if (!method) return undefined;
  if (sym && sym.flags & tsApi.SymbolFlags.Class) {
    return `an instance of class '${sym.name}' (it has methods): pass its numbers as a plain object type ({ x: number; y: number }), a tuple, or separate parameters`;
  }
  return `an object with a method ('${method.name}'): differentiable objects hold only numbers, booleans, strings, tuples and plain objects`;
}

export function irType(s: Shape): Type {
  switch (s.kind) {
    case 'number':
      return REAL;
    case 'boolean':
      return BOOL;
    case 'string':
      return STR;
    case 'tuple':
      return tupleType(s.elems.map(irType));
    case 'object':
      return tupleType(s.fields.map(([, f]) => irType(f)));
  }
}

export function componentShapes(s: Shape): readonly Shape[] {
  return s.kind === 'tuple' ? s.elems : s.kind === 'object' ? s.fields.map(([, f]) => f) : [];
}

/** The shape as the user wrote its type, for diagnostics. */
export function describeShape(s: Shape): string {
  switch (s.kind) {
    case 'number':
    case 'boolean':
    case 'string':
      return s.kind;
    case 'tuple':
      return `[${s.elems.map(describeShape).join(', ')}]`;
    case 'object':
      return `{ ${s.fields.map(([k, f]) => `${k}: ${describeShape(f)}`).join('; ')} }`;
  }
}

/** Numbers, booleans and strings: the shapes a single IR scalar holds. */
export function isScalarShape(s: Shape): s is Extract<Shape, { kind: 'number' | 'boolean' | 'string' }> {
  return s.kind === 'number' || s.kind === 'boolean' || s.kind === 'string';
}
