// The shape of a construct's record: a higher-order construct (a conditional, a loop, a map) is a
// `construct` expression carrying bodies, and everything tsad knows about it lives in one record,
// beside the primitive records. A rule never imports a pass: each pass hands the rule a record
// of the operations it needs to recurse into bodies (the pattern of Futhark's `VjpOps`), so the
// passes stay generic and the construct modules stay leaves of the import graph.
import type * as ts from 'typescript';
import type { Builder } from '../ir/build';
import type { Binder, Expr, Lambda, Type } from '../ir/syntax';
import type { Value } from '../ir/interp';
import type { Tangent } from '../prims/types';

export type ConstructExpr = Extract<Expr, { tag: 'construct' }>;

/** Something of each sort: operands, parameters, results. */
export interface Sides<T> {
  readonly nl: readonly T[];
  readonly lin: readonly T[];
}

/** What the checker offers a type rule. */
export interface CheckOps {
  /** Checks a body whose parameters have these types (linearity included); its result types. */
  typeBody(body: Lambda, params: Sides<Type>): Sides<Type>;
  /** Reports a type error at the construct. */
  fail(message: string): never;
}

/** What the interpreter offers: running a body charges its work to the program's counter. */
export interface InterpOps {
  runBody(body: Lambda, args: Sides<Value>): Sides<Value>;
}

/** What J offers: the builder of the enclosing block, the tangents so far, and J of a body. */
export interface JvpOps {
  readonly b: Builder;
  typeOf(name: string): Type;
  tangentOf(name: string): Tangent;
  /** J of a non-linear body `(p̄ ;) -> (r̄ ;)`: `(p̄ ; ṗ̄) -> (r̄ ; ṙ̄)`, every tangent materialised. */
  jvpBody(body: Lambda): Lambda;
}

/** What U offers: the split of a mixed body into its non-linear and linear halves. */
export interface UnzipOps {
  readonly b: Builder;
  typeOf(name: string): Type;
  /**
   * U of a body `(p̄ ; ṗ̄) -> (r̄ ; ṙ̄)`: `primal (p̄ ;) -> (r̄, residuals ;)` and
   * `tangent (residuals ; ṗ̄) -> (; ṙ̄)`.
   */
  unzipBody(body: Lambda): { readonly primal: Lambda; readonly tangent: Lambda; readonly residuals: readonly Type[] };
}

/** What T offers: the transpose of a linear body. */
export interface TransposeOps {
  readonly b: Builder;
  typeOf(name: string): Type;
  /** T of a linear body `(ū ; v̇̄) -> (; ẇ̄)`: `(ū ; w̄_bar) -> (; v̄_bar)`. */
  transposeBody(body: Lambda): Lambda;
}

/** What the TypeScript backend offers: statements for a body, results assigned to given names. */
export interface EmitTsOps {
  readonly factory: ts.NodeFactory;
  readonly ts: typeof ts;
  /** The JavaScript expression for a variable of the enclosing scope. */
  ref(name: string): ts.Expression;
  /** Statements running `body` with its parameters bound to `args`, assigning its results to `into`. */
  emitBody(body: Lambda, args: readonly ts.Expression[], into: readonly string[]): ts.Statement[];
}

/** Everything about one construct; the registry's record type makes the compiler list what is missing. */
export interface ConstructRule {
  readonly name: string;
  /** Result types from the operand types (bodies typed through `ops`). */
  readonly typeRule: (ops: CheckOps, e: ConstructExpr, operands: Sides<Type>) => Sides<Type>;
  /** Reference semantics for the interpreter (the cost model counts the bodies it runs). */
  readonly impl: (ops: InterpOps, e: ConstructExpr, operands: Sides<Value>) => Sides<Value>;
  /** Emits J of the construct bound to `results`; returns their tangents. */
  readonly jvp: (ops: JvpOps, e: ConstructExpr, results: readonly Binder[]) => readonly Tangent[];
  /** Emits the non-linear half into `ops.b`; returns the linear half as an expression over its residuals. */
  readonly unzip: (ops: UnzipOps, e: ConstructExpr, results: Sides<Binder>) => Expr;
  /** Emits the transpose of a linear construct given its results' cotangents; returns the operands' cotangents. */
  readonly transpose: (ops: TransposeOps, e: ConstructExpr, cotangents: readonly string[]) => readonly Tangent[];
  /** TypeScript statements computing the construct into the variables `into`. */
  readonly emitTs: (ops: EmitTsOps, e: ConstructExpr, into: readonly string[]) => ts.Statement[];
}
