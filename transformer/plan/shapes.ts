// The shape algebra of a TypeScript value as tsad sees it (the front end reads shapes off the
// checker's types in frontend/shapes.ts; the planners marshal by them): numbers are reals,
// booleans are booleans, tuples and plain objects are IR tuples (object fields in name order, so
// two object types with the same fields share one layout). Arrays of numbers (number[],
// Float64Array, Float32Array, and integer typed arrays, which are constants) and arrays of such
// arrays are IR arrays.
import { BOOL, REAL, STR, Type, arrayType, storedArrayType, tupleType } from '../ir/syntax';

export type Shape =
  | { readonly kind: 'number' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'string' }
  /** `ragged`: this tuple is the IR's column of that array leaf in an array of records (raggedColumn). */
  | { readonly kind: 'tuple'; readonly elems: readonly Shape[]; readonly ragged?: Extract<Shape, { kind: 'array' }> }
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
      if (isRecords(s)) return tupleType(recordColumns(s).map(irType));
      // An Int32Array's elements are 32-bit integers (every write into it is a ToInt32): the
      // backend may hold it as one (ir/types.ts, `store`).
      return isMatrix(s) ? tensorType(tensorRank(s)) : storedArrayType(irType(s.elem), s.container === 'Int32Array' ? 'int32' : undefined);
  }
}

const TENSOR_TYPES: Type[] = [];

/** A rank-k tensor's IR type `(data, d0, …, dk−1)` (one type object per rank). */
function tensorType(rank: number): Type {
  return (TENSOR_TYPES[rank] ??= tupleType([arrayType(REAL), ...Array.from({ length: rank }, () => REAL)]));
}

/**
 * How many array levels a shape has: 1 for number[], 2 for a matrix, 3 for number[][][]. A
 * matrix and every deeper array of numbers is a rectangular tensor, stored flat with its
 * dimensions (docs/frontend.md, "Tensors").
 */
export function tensorRank(s: Shape): number {
  return s.kind === 'array' ? 1 + tensorRank(s.elem) : 0;
}

/** The innermost array of a tensor's shape (numbers in the innermost container): the shape of its flat data. */
export function flatShape(s: Extract<Shape, { kind: 'array' }>): Extract<Shape, { kind: 'array' }> {
  return s.elem.kind === 'array' ? flatShape(s.elem) : s;
}

/** `number[][]`: where a matrix's type says nothing else. */
export const NUMBER_MATRIX: Extract<Shape, { kind: 'array' }> = { kind: 'array', container: 'Array', elem: { kind: 'array', container: 'Array', elem: NUMBER } };

/**
 * `number[][]`, `Float64Array[]`: a rectangular matrix (rows × cols), in the IR `(data, rows,
 * cols)`; also every deeper array of numbers (`number[][][]`), a tensor `(data, d0, …, dk−1)`.
 */
export function isMatrix(s: Shape): s is Extract<Shape, { kind: 'array' }> & { readonly elem: Extract<Shape, { kind: 'array' }> } {
  return s.kind === 'array' && s.elem.kind === 'array';
}

/**
 * An array of records or tuples (`{ x: number; y: number }[]`, `[number, number][]`), stored as
 * a record of arrays (docs/frontend.md, "Arrays of records"): one column per leaf of the
 * element, in the element's order (object fields by name), a number leaf an array of numbers and
 * an array leaf a matrix whose row k is element k's array. So every array rule applies to a
 * column unchanged.
 */
export function isRecords(s: Shape): s is Extract<Shape, { kind: 'array' }> & { readonly elem: Extract<Shape, { kind: 'tuple' | 'object' }> } {
  return s.kind === 'array' && (s.elem.kind === 'tuple' || s.elem.kind === 'object');
}

/** A leaf of a record: where it is (field names and tuple positions) and its shape (a number, or an array of numbers). */
export interface RecordLeaf {
  readonly path: readonly (string | number)[];
  readonly shape: Shape;
}

/** The leaves of a record's shape, in IR order (depth first; object fields by name). */
export function recordLeaves(s: Shape, path: readonly (string | number)[] = []): RecordLeaf[] {
  if (s.kind === 'tuple') return s.elems.flatMap((c, i) => recordLeaves(c, [...path, i]));
  if (s.kind === 'object') return s.fields.flatMap(([k, c]) => recordLeaves(c, [...path, k]));
  return [{ path, shape: s }];
}

const recordColumnsCache = new WeakMap<Shape, readonly Shape[]>();

/** The shapes of the columns of an array of records: a Float64Array per number leaf, a ragged column per array leaf. */
export function recordColumns(s: Extract<Shape, { kind: 'array' }>): readonly Shape[] {
  let cols = recordColumnsCache.get(s);
  if (!cols) {
    cols = recordLeaves(s.elem).map((l) => (l.shape.kind === 'array' ? raggedColumn(l.shape) : COLUMN));
    recordColumnsCache.set(s, cols);
  }
  return cols;
}

const COLUMN: Shape = { kind: 'array', container: 'Float64Array', elem: NUMBER };
/** Integers stored in an array: a ragged column's starts and dimensions (constants, never differentiated). */
const COUNTS: Shape = { kind: 'array', container: 'Float64Array', elem: NUMBER, constant: true };

/**
 * The column of an array leaf (`{ w: number[] }[]`, `{ W: number[][]; b: number[] }[]`), whose
 * arrays may differ in size from element to element (a network's layers): the tuple
 * `(data, starts, dims)`, every element's numbers one after the other in `data` (row-major),
 * element k's from `starts[k]`, its dimensions `dims[k·rank …]`. `leaf` is the leaf's shape.
 */
export function raggedColumn(leaf: Extract<Shape, { kind: 'array' }>): Extract<Shape, { kind: 'tuple' }> {
  let col = raggedColumns.get(leaf);
  if (!col) raggedColumns.set(leaf, (col = { kind: 'tuple', elems: [flatShape(leaf), COUNTS, COUNTS], ragged: leaf }));
  return col;
}

const raggedColumns = new WeakMap<Shape, Extract<Shape, { kind: 'tuple' }>>();

/** The leaf's shape of a ragged column (raggedColumn), if `s` is one. */
export function raggedLeaf(s: Shape): Extract<Shape, { kind: 'array' }> | undefined {
  return s.kind === 'tuple' ? s.ragged : undefined;
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
