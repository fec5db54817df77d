// How a TypeScript value maps to a Linear A value: numbers are reals, booleans are booleans,
// tuples and plain objects are IR tuples (object fields in name order, so two object types with
// the same fields share one layout). Arrays of numbers (number[], Float64Array, Float32Array,
// and integer typed arrays, which are constants) and arrays of such arrays are IR arrays.
import type * as ts from 'typescript';
import { BOOL, REAL, STR, Type, arrayType, tupleType } from '../ir/syntax';
import { fail } from './diagnostics';

export type Shape =
  | { readonly kind: 'number' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'string' }
  | { readonly kind: 'tuple'; readonly elems: readonly Shape[] }
  | { readonly kind: 'object'; readonly fields: readonly (readonly [string, Shape])[] }
  /**
   * An array of run-time length: `container` is the user's class (`Array` for number[]), so a
   * gradient comes back as the kind of array that went in. Integer typed arrays (Int32Array, ...)
   * are `constant`: sizes and indices, never differentiated.
   */
  | { readonly kind: 'array'; readonly container: ArrayContainer; readonly elem: Shape; readonly constant?: boolean };

export type ArrayContainer = 'Array' | 'Float64Array' | 'Float32Array' | 'Int8Array' | 'Uint8Array' | 'Uint8ClampedArray' | 'Int16Array' | 'Uint16Array' | 'Int32Array' | 'Uint32Array';

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
  const array = arrayShape(tsApi, checker, type, node);
  if (array) return array;
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

/** The typed array class a type is (from the default library, not a user class of that name), if any. */
export function typedArrayName(tsApi: typeof ts, type: ts.Type): string | undefined {
  const sym = type.getSymbol() ?? type.aliasSymbol;
  // Declared by the default library; @types/node adds declarations of its own to the same interfaces.
  const builtIn = !!sym?.declarations?.some((d) => d.getSourceFile().hasNoDefaultLib);
  return builtIn && TYPED_ARRAYS.has(sym!.name) ? sym!.name : undefined;
}

/**
 * `number[]`, `readonly number[]`, a typed array, or an array of arrays of these; a diagnostic
 * for an array of anything else (tsad arrays hold numbers, or arrays of numbers).
 */
function arrayShape(tsApi: typeof ts, checker: ts.TypeChecker, type: ts.Type, node: ts.Node): Shape | undefined {
  const typed = typedArrayName(tsApi, type);
  if (typed) {
    if (typed.startsWith('Big')) return fail(1105, node, `cannot differentiate a ${typed}: arrays of bigints are not numbers; use Float64Array, or Int32Array for indices`);
    const float = typed === 'Float64Array' || typed === 'Float32Array';
    return { kind: 'array', container: typed as ArrayContainer, elem: NUMBER, ...(float ? {} : { constant: true }) };
  }
  if (!checker.isArrayType(type)) {
    // ArrayLike<number> (tsad's NumberArray) and other types indexed by numbers: an array whose
    // class is known only at run time; a gradient comes back as a Float64Array.
    const indexed = !checker.isTupleType(type) && type.flags & tsApi.TypeFlags.Object ? checker.getIndexInfoOfType(type, tsApi.IndexKind.Number) : undefined;
    if (!indexed) return undefined;
    const elem = shapeOfType(tsApi, checker, indexed.type, node);
    if (elem.kind !== 'number') return fail(1120, node, `cannot differentiate a value indexed by numbers that holds ${describeShape(elem)}: tsad arrays hold numbers`);
    return { kind: 'array', container: 'Float64Array', elem };
  }
  const elemType = checker.getTypeArguments(type as ts.TypeReference)[0] ?? checker.getAnyType();
  const elem = shapeOfType(tsApi, checker, elemType, node);
  if (elem.kind === 'array' && elem.elem.kind !== 'number') {
    return fail(1120, node, `cannot differentiate ${describeShape({ kind: 'array', container: 'Array', elem })}: tsad differentiates arrays of numbers and matrices (number[][]); store higher dimensions flat in a Float64Array`);
  }
  if (elem.kind === 'array' && elem.constant) return fail(1120, node, `cannot differentiate an array of ${elem.container}s: integer arrays are constants; use an Int32Array with the rows stored flat`);
  if (elem.kind !== 'number' && elem.kind !== 'array') {
    return fail(1120, node, `cannot differentiate an array of ${describeShape(elem)}: tsad arrays hold numbers (number[], Float64Array) or arrays of numbers (number[][]); keep a tuple or object of arrays instead`);
  }
  return { kind: 'array', container: 'Array', elem };
}

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
  // One type object per shape object: the checker then compares a destructured part's type with
  // the part of its whole's by identity (typeIds.ts), not by walking a fresh copy (tuples nested
  // N deep would cost N² there).
  let t = irTypes.get(s);
  if (t === undefined) irTypes.set(s, (t = irTypeOf(s)));
  return t;
}

const irTypes = new WeakMap<Shape, Type>();

function irTypeOf(s: Shape): Type {
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
    case 'array':
      // A matrix is stored flat, row-major, with its dimensions (docs/frontend.md, "Matrices"):
      // every array construct, the O(1) read adjoint and in-place writes apply to it as they are.
      return isMatrix(s) ? MATRIX_TYPE : arrayType(irType(s.elem));
  }
}

const MATRIX_TYPE = tupleType([arrayType(REAL), REAL, REAL]);

/** `number[][]`: where a matrix's type says nothing else. */
export const NUMBER_MATRIX: Extract<Shape, { kind: 'array' }> = { kind: 'array', container: 'Array', elem: { kind: 'array', container: 'Array', elem: NUMBER } };

/** `number[][]`, `Float64Array[]`: a rectangular matrix (rows × cols), in the IR `(data, rows, cols)`. */
export function isMatrix(s: Shape): s is Extract<Shape, { kind: 'array' }> & { readonly elem: Extract<Shape, { kind: 'array' }> } {
  return s.kind === 'array' && s.elem.kind === 'array';
}

/** The shape of a matrix's row (and of its flat data): an array of numbers in the row's container. */
export function rowShape(s: Extract<Shape, { kind: 'array' }>): Extract<Shape, { kind: 'array' }> {
  return s.elem as Extract<Shape, { kind: 'array' }>;
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
    case 'array':
      return s.container === 'Array' ? `${describeShape(s.elem)}[]` : s.container;
  }
}

/**
 * The shape up to what the IR cannot tell apart: every array of numbers is one layout (a
 * number[] literal may be stored in a Float64Array variable). Values conform when their layouts
 * are equal.
 */
export function layoutOf(s: Shape): string {
  switch (s.kind) {
    case 'tuple':
      return `[${s.elems.map(layoutOf).join(', ')}]`;
    case 'object':
      return `{ ${s.fields.map(([k, f]) => `${k}: ${layoutOf(f)}`).join('; ')} }`;
    case 'array':
      return `array<${layoutOf(s.elem)}>`;
    default:
      return s.kind;
  }
}

/** An array of numbers (the IR's array<real>). */
export function isNumberArray(s: Shape): s is Extract<Shape, { kind: 'array' }> {
  return s.kind === 'array' && s.elem.kind === 'number';
}

/** Does a value of this shape hold an array anywhere (its size then is known only at run time)? */
export function hasArray(s: Shape): boolean {
  return s.kind === 'array' || componentShapes(s).some(hasArray);
}

/** Numbers, booleans and strings: the shapes a single IR scalar holds. */
export function isScalarShape(s: Shape): s is Extract<Shape, { kind: 'number' | 'boolean' | 'string' }> {
  return s.kind === 'number' || s.kind === 'boolean' || s.kind === 'string';
}
