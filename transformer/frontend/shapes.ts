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
  if (type.flags & F.Object && !checker.isArrayType(type) && type.getCallSignatures().length === 0) {
    const props = checker.getPropertiesOfType(type);
    const fields = props
      .map((p) => [p.name, shapeOfType(tsApi, checker, checker.getTypeOfSymbolAtLocation(p, node), node)] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return { kind: 'object', fields };
  }
  return fail(1105, node, `cannot differentiate a value of type '${checker.typeToString(type)}'`);
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
