// What a call site compiles to, as data: the IR program with the defs the call site calls, and
// a wrapper that converts between the user's values (numbers, arrays, objects) and the IR's
// around those calls, written in a small language of its own. Planners build it without seeing
// a TypeScript node; a backend (backend/backend.ts) turns it into code.
import type { Program } from '../ir/syntax';

/** An expression of the wrapper. */
export type PlanExpr =
  /** A parameter or local of the wrapper. */
  | { readonly tag: 'name'; readonly name: string }
  /** The module-level variable behind the state parameter `param`, read when the wrapper runs (the backend knows how). */
  | { readonly tag: 'state'; readonly param: string }
  | { readonly tag: 'number'; readonly value: number }
  /** The tangent or cotangent of a constant (a boolean or string). */
  | { readonly tag: 'undefined' }
  /** `of[index]` */
  | { readonly tag: 'index'; readonly of: PlanExpr; readonly index: number }
  /** `of.key` */
  | { readonly tag: 'field'; readonly of: PlanExpr; readonly key: string }
  | { readonly tag: 'array'; readonly elems: readonly PlanExpr[] }
  | { readonly tag: 'object'; readonly fields: readonly (readonly [string, PlanExpr])[] }
  /** A call of an IR def of the plan's program: several results come back as an array. */
  | { readonly tag: 'call'; readonly def: string; readonly args: readonly PlanExpr[] }
  /** A function value (a pullback, a linear map) that checks its own arguments. */
  | { readonly tag: 'function'; readonly params: readonly string[]; readonly body: readonly PlanStatement[] }
  /**
   * An IR array as the user's kind of array (`container`, nested for arrays of arrays): as long
   * as `template` (a tangent array of the IR may be shorter: its missing elements are zeros), or
   * as long as the value itself without one. An array of the right class and length goes through
   * uncopied unless `fresh`: the value may be the caller's own array (a function returning its
   * parameter) or one a pullback still reads, and the caller must get an array of its own.
   */
  | { readonly tag: 'fit'; readonly value: PlanExpr; readonly template?: PlanExpr; readonly containers: readonly string[]; readonly fresh?: boolean }
  /**
   * A copy of the caller's array (`matrix`: of each of its rows) that a closure returned to the
   * caller keeps: writes into the caller's array afterwards do not reach it.
   */
  | { readonly tag: 'copy'; readonly of: PlanExpr; readonly matrix?: boolean }
  /** The IR's zero array (empty: its elements read as zeros). */
  | { readonly tag: 'emptyArray' }
  /** `of.length` */
  | { readonly tag: 'length'; readonly of: PlanExpr }
  /** `of[index]` with an index computed at run time. */
  | { readonly tag: 'at'; readonly of: PlanExpr; readonly index: PlanExpr }
  /** The IR array e_i (one-hot at a run-time index; sparse: i + 1 long). */
  | { readonly tag: 'oneHot'; readonly index: PlanExpr }
  /**
   * A user's matrix (number[][], Float64Array[]) as the IR's `[data, rows, cols]`, rows checked
   * equally long; `path` names it in the RangeError. With `rank` (3 or more), a tensor
   * (backend/tensors.ts) as `[data, d0, …]`. A tangent (`tangent`) comes in with
   * dimensions 0 (they are integers), and as large as `like` when given.
   */
  | { readonly tag: 'packMatrix'; readonly value: PlanExpr; readonly path: string; readonly tangent?: boolean; readonly like?: PlanExpr; readonly rank?: number }
  /**
   * The IR's flat data of a matrix as the user's rows (`row` is their class), with the dimensions
   * of `like`: the user's matrix or the IR's `[data, rows, cols]` (a tangent's data may be short:
   * its missing elements are zeros).
   */
  | { readonly tag: 'unpackMatrix'; readonly data: PlanExpr; readonly like: PlanExpr; readonly row: string; readonly rank?: number }
  /**
   * A user's array of records as the IR's record of arrays (plan/records.ts): one column per
   * leaf of the element, checked as it is read; `path` names it in the errors. A tangent
   * (`tangent`) has its matrix columns' dimensions 0, and as many elements as `like` when given.
   */
  | { readonly tag: 'splitRecords'; readonly value: PlanExpr; readonly path: string; readonly layout: string; readonly tangent?: boolean; readonly like?: PlanExpr; readonly likeIR?: boolean }
  /**
   * The IR's record of arrays as the user's array of records, as long as `like` when given (a
   * tangent's columns may be short): the user's array, or with `likeIR` the IR's columns of one.
   */
  | { readonly tag: 'joinRecords'; readonly columns: PlanExpr; readonly layout: string; readonly like?: PlanExpr; readonly likeIR?: boolean }
  /**
   * `Array.from({ length: count }, (_, index) => body)`: rows and columns of a run-time size.
   * `ifNone`: evaluated, its value dropped, where count is 0 (then `[]`): a call that makes the
   * checks no body runs.
   */
  | { readonly tag: 'rows'; readonly count: PlanExpr; readonly index: string; readonly body: PlanExpr; readonly ifNone?: PlanExpr }
  /**
   * What the module's wrapper `wrapper` (same parameters) returns for this wrapper's arguments,
   * its checks counting this wrapper's arguments and its messages naming `where`: a grad runs its
   * valueAndGrad's body instead of a copy of it (the backend emits that body once, taking the name).
   */
  | { readonly tag: 'runAs'; readonly wrapper: string; readonly where: string };

export type PlanStatement =
  /** `const name = init`, or `const [a, b] = init` for several names. */
  | { readonly tag: 'const'; readonly names: readonly string[]; readonly init: PlanExpr }
  | { readonly tag: 'return'; readonly value: PlanExpr }
  /** `name = value`: a parameter of the wrapper replaced by the wrapper's own copy (Marshal.owned). */
  | { readonly tag: 'assign'; readonly name: string; readonly value: PlanExpr }
  /**
   * `def(args…)` writing its results, all numbers, into the array `into` (result k at index
   * `at` + k) instead of returning them: the backend emits the def in a form that takes that array
   * and that index as two more arguments (CallSitePlan.writers), so a call builds no array of its
   * results.
   */
  | { readonly tag: 'callInto'; readonly def: string; readonly args: readonly PlanExpr[]; readonly into: string; readonly at: string }
  /** `name[at + index] = value`: an entry of the array `output` gave, from its offset `at`. */
  | { readonly tag: 'store'; readonly name: string; readonly at: string; readonly index: number; readonly value: PlanExpr }
  /**
   * The optional trailing arguments `name`, the Float64Array a result is written into, and
   * `offset`, where in it the result starts (0 when not passed). Without `name` a new
   * Float64Array of `offset + length`. A TypeError naming `where` for an array that is not a
   * Float64Array or an offset that is not a non-negative integer, a RangeError for an array
   * shorter than `offset + length` (`what`: `2 rows × 15 columns`).
   */
  | { readonly tag: 'output'; readonly name: string; readonly offset: string; readonly length: number; readonly where: string; readonly what: string }
  /**
   * Throws a TypeError naming `where` and the first argument that does not fit. `optional`: that
   * many more arguments may follow the checked ones (checked by statements of their own).
   */
  | { readonly tag: 'check'; readonly where: string; readonly checks: readonly ArgumentCheck[]; readonly optional?: number }
  /** Throws a RangeError naming `where` and `what` when the arrays `a` and `b` differ in length (a tangent and its primal). */
  | { readonly tag: 'sameLength'; readonly where: string; readonly what: string; readonly against: string; readonly a: PlanExpr; readonly b: PlanExpr };

/**
 * What a run-time argument check expects of a value: the kind of a leaf, a container of such
 * expectations, or '' for a value that is not read (the tangent of a boolean).
 */
export type Spec =
  | ''
  | 'number'
  | 'boolean'
  | 'string'
  /**
   * An array of numbers (number[], a typed array) or a matrix (an array of such rows): checked
   * up to its first number, which costs one read (all of them would cost a pass over them).
   */
  | 'array'
  | 'matrix'
  /**
   * An Int32Array, as its type says: the derivative holds it as 32-bit integers (every copy and
   * write a ToInt32), so a number[] or a Float64Array in its place would run another function.
   */
  | 'int32array'
  /** A container; the runtime's message describes it from its items (`an object with number fields a, b`). */
  | { readonly tag: 'tuple' | 'object' | 'arguments'; readonly items: readonly (readonly [string | number, Spec])[] };

export interface ArgumentCheck {
  /** `argument 2` */
  readonly label: string;
  /** The name a message uses for the value: the parameter's. */
  readonly path: string;
  /** The variable holding the value. */
  readonly value: string;
  readonly spec: Spec;
}

/** One call site: the defs to emit (those `entries` reach) and the wrapper around them. */
export interface CallSitePlan {
  readonly program: Program;
  readonly entries: readonly string[];
  /**
   * The defs the wrapper calls through `callInto`: emitted in the form that writes its results
   * into an array, beside `entries` (whose form returns them). Their callees are emitted as usual.
   */
  readonly writers?: readonly string[];
  readonly params: readonly string[];
  /** Starts with the check of the wrapper's arguments. */
  readonly body: readonly PlanStatement[];
}

export const name = (n: string): PlanExpr => ({ tag: 'name', name: n });
export const index = (of: PlanExpr, i: number): PlanExpr => ({ tag: 'index', of, index: i });
export const array = (elems: readonly PlanExpr[]): PlanExpr => ({ tag: 'array', elems });
export const callDef = (def: string, args: readonly PlanExpr[]): PlanExpr => ({ tag: 'call', def, args });
export const fn = (params: readonly string[], body: readonly PlanStatement[]): PlanExpr => ({ tag: 'function', params, body });
export const ret = (value: PlanExpr): PlanStatement => ({ tag: 'return', value });
