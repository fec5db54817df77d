// What array lowering and the function being lowered give each other, and the names they share.
import type * as ts from 'typescript';
import type { Builder } from '../ir/build';
import { REAL, arrayType } from '../ir/syntax';
import type { Binder, Block } from '../ir/syntax';
import { NUMBER, describeShape } from './shapes';
import type { Shape } from './shapes';
import type { Value } from './values';

/** What array lowering needs from the function being lowered. */
export interface ArraySite {
  readonly t: typeof ts;
  readonly checker: ts.TypeChecker;
  /** The builder of the current scope. */
  b(): Builder;
  expr(e: ts.Expression, hint?: string): Value;
  /** Lowers `f` in a scope of its own (`bind` binds a symbol there); `f` gives the block's results. */
  scope(f: (bind: (sym: ts.Symbol, v: Value) => void) => Value[]): { block: Block; results: Value[]; inner: Builder };
  /** The value of a callback's body: its expression, or its statements ending in a return. */
  callbackBody(fn: ts.ArrowFunction | ts.FunctionExpression, hint?: string): Value;
  /** A call of a function passed by name as a callback (`xs.map(softplus)`): a marked function's call, a local function inlined. */
  callBy(callee: ts.Expression, args: readonly Value[], node: ts.Node, hint?: string): Value;
  /** The shape of a value of the enclosing scopes, by IR name, when it is one. */
  shapeOfName(name: string): Shape | undefined;
  /** Records the shape of a value built here (not by `expr`), so a callback that reads it, hoisted out, still knows it is an array. */
  noteShape(v: Value): void;
  conform(node: ts.Node, v: Value, expected: Shape, what: string): void;
  /** The function's name, for run-time messages. */
  readonly functionName: string;
  /** The parts of a tuple, object, or array of records (its columns), unpacked once per scope. */
  parts(v: Value): Value[];
  /** The parts of a matrix value (frontend/matrices.ts), unpacked once per scope. */
  matrixParts(m: Value): MatrixParts;
}

/** A matrix value's parts (frontend/matrices.ts). */
export interface MatrixParts {
  /** The elements, row-major: an array of numbers. */
  readonly data: Value;
  /** The dimensions, through stop_gradient. */
  readonly rows: Value;
  readonly cols: Value;
  /** Every dimension, outermost first (rows and cols of a matrix; a tensor has more). */
  readonly dims: readonly Value[];
}

/** What matrices.ts builds on: arrays.ts's ArrayLowering, as a matrix's flat data is an array. */
export interface ArrayOps {
  length(v: Value, hint?: string): Value;
  append(a: Value, v: Value, node: ts.Node): Value;
  read(a: Value, i: Value, hint?: string, node?: ts.Node): Value;
  update(a: Value, i: Value, v: Value, node: ts.Node): Value;
  zero(shape: Extract<Shape, { kind: 'array' }>): Value;
  literalOf(e: ts.ArrayLiteralExpression, elements: readonly ts.Expression[], shape: Shape, hint?: string): Value;
  asArray(node: ts.Node, v: Value): Value;
  stop(a: Value, hint?: string): Value;
  span(len: Value, start: Value | undefined, end: Value | undefined): { from: Value; count: Value };
  gatherRange(a: Value, from: Value, count: Value, hint: string): Value;
  rangeIndex(from: Value, count: Value, hint: string): Value;
  atMost(n: Value, limit: Value, what: string): Value;
  /** lo, checked (with hi) as whole indices of the elements `limit` has, else a RangeError naming the access (`what`). */
  within(lo: Value, hi: Value, limit: Value, what: string, runs?: string): Value;
  /** A check that `i` is an index below `limit()` (readChecks.ts). */
  checkIndex(i: Value, limit: (source: string) => Value, source: string, what: string, verb?: 'writes', dim?: number): void;
  sameNumber(n: Value, m: Value, what: string): Value;
  close(body: Block, own: ReadonlySet<string>, node: ts.Node, op: 'map' | 'loop'): { operands: string[]; params: Binder[]; body: Block };
}

/** A user's name for an IR variable (`a_2` is a version of `a`). */
export const userName = (irName: string): string => irName.replace(/(_\d+)+$/, '');

export const REAL_ARRAY: Shape = { kind: 'array', container: 'Float64Array', elem: NUMBER };
export const REAL_ARRAY_TYPE = arrayType(REAL);
/** An Int32Array's shape: integers (indices, flags), a constant. */
export const INT32_ARRAY: Shape = { kind: 'array', container: 'Int32Array', elem: NUMBER, constant: true };

/** A node's source on one line, shortened, for run-time messages. */
export function sourceSnippet(node: ts.Node): string {
  const t = node.getText().replace(/\s+/g, ' ');
  return t.length > 40 ? `${t.slice(0, 37)}...` : t;
}

export function elemShape(s: Shape): Shape {
  if (s.kind !== 'array') throw new Error(`not an array: ${describeShape(s)}`);
  return s.elem;
}

/**
 * What an array of this shape holds after `a[i] = v`: into an Int32Array, v as a 32-bit integer
 * (ToInt32, prims/bits toint32: truncated, wrapped past ±2³¹, NaN and ±∞ to 0), as JavaScript's store does,
 * so that the IR's value is the one read back and the backend may hold the array as an
 * Int32Array (ir/types.ts, `store`); into another integer array (a constant), v truncated. Either
 * carries no derivative; other arrays hold v.
 */
export function storedValue(b: Builder, shape: Shape, v: string, hint: string): string {
  if (shape.kind !== 'array' || !shape.constant) return v;
  const whole = b.prim(shape.container === 'Int32Array' ? 'toint32' : 'trunc', [v], hint);
  return b.prim('stop_gradient', [whole], hint);
}
