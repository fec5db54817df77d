// Linear A abstract syntax (Radul et al., "You Only Linearize Once", §3), in A-normal form.
//
// Two sorts of variables share one namespace: non-linear (primal values, residuals) and linear
// (tangents, cotangents). Every node that mentions variables says which sort each position takes,
// so passes never need to re-infer sorts. The only construct that mixes sorts is the multi-value
// return `(v̄ ; v̇̄)` and the multi-value let that binds it.
//
// Extension points (see docs/linear-a.md): new value types go into `Type`; new scalar or array
// operations go into the primitive registry (transformer/prims) as `prim` (non-linear) or `lprim`
// (linear) nodes, never as new Expr tags; higher-order constructs (map, scan, cond, loops) will be
// new Expr tags carrying sub-functions, each with its own unzip/transpose rule in prims/control.

import { structureId } from './typeIds';

export type Type =
  | { readonly tag: 'real' }
  | { readonly tag: 'bool' }
  /** Strings: constants that flow through code and are compared, never differentiated. */
  | { readonly tag: 'str' }
  /** `name` is only a display alias (a tape type such as `f.tape`); equality is structural. */
  | { readonly tag: 'tuple'; readonly elems: readonly Type[]; readonly name?: string };

export const REAL: Type = { tag: 'real' };
export const BOOL: Type = { tag: 'bool' };
export const STR: Type = { tag: 'str' };
export const tupleType = (elems: readonly Type[], name?: string): Type =>
  name === undefined ? { tag: 'tuple', elems } : { tag: 'tuple', elems, name };
export const UNIT: Type = tupleType([]);

export interface Binder {
  readonly name: string;
  /** Filled by the parser from annotations or by `annotateTypes` (ir/check.ts). */
  type?: Type;
}

export type Expr =
  /** `(v̄ ; v̇̄)` multi-value return: (n, m). */
  | { readonly tag: 'ret'; readonly nl: readonly string[]; readonly lin: readonly string[] }
  /** `let (v̄ ; v̇̄) = rhs in body`. */
  | {
      readonly tag: 'let';
      readonly nl: readonly Binder[];
      readonly lin: readonly Binder[];
      readonly rhs: Expr;
      readonly body: Expr;
    }
  /** `let <w̄> = v in body`: unpack a tuple of one sort; a linear unpack consumes `v`. */
  | {
      readonly tag: 'unpack';
      readonly linear: boolean;
      readonly names: readonly Binder[];
      readonly tuple: string;
      readonly body: Expr;
    }
  /** `f(v̄ ; v̇̄)`: call of an earlier definition. */
  | { readonly tag: 'call'; readonly fn: string; readonly nl: readonly string[]; readonly lin: readonly string[] }
  /** A variable as an expression: (1,0) when non-linear, (0,1) when linear. */
  | { readonly tag: 'var'; readonly linear: boolean; readonly name: string }
  /** A non-linear literal (there are no linear literals besides zero). */
  | { readonly tag: 'lit'; readonly value: number | boolean | string }
  /** `<v̄>`: tuple constructor; all elements of one sort. */
  | { readonly tag: 'tuple'; readonly linear: boolean; readonly elems: readonly string[] }
  /** Non-linear primitive application `op(v̄)`: (1,0). */
  | { readonly tag: 'prim'; readonly op: string; readonly args: readonly string[] }
  /** Linear primitive `op(ū ; v̇̄)`: linear in v̇̄, non-linear coefficients ū. (0,1). */
  | { readonly tag: 'lprim'; readonly op: string; readonly nl: readonly string[]; readonly lin: readonly string[] }
  /** `zero(τ)`: the linear zero of a type. (0,1). */
  | { readonly tag: 'zero'; readonly type: Type }
  /** `dup(v̇)`: explicit fan-out of a linear value. (0,2). */
  | { readonly tag: 'dup'; readonly name: string }
  /** `drop(e)`: discard every result of `e`. (0,0). */
  | { readonly tag: 'drop'; readonly expr: Expr };

export type ExprTag = Expr['tag'];
export type ExprOf<T extends ExprTag> = Extract<Expr, { tag: T }>;

export interface FnDef {
  readonly name: string;
  readonly nlParams: readonly Binder[];
  readonly linParams: readonly Binder[];
  readonly nlResults: readonly Type[];
  readonly linResults: readonly Type[];
  readonly body: Expr;
}

/** Definitions in order; a function is in scope only after its own definition (no recursion). */
export interface Program {
  readonly defs: readonly FnDef[];
}

// ---- constructors (keep pass code short and uniform) ----

export const ret = (nl: readonly string[], lin: readonly string[] = []): Expr => ({ tag: 'ret', nl, lin });
export const letE = (nl: readonly Binder[], lin: readonly Binder[], rhs: Expr, body: Expr): Expr => ({
  tag: 'let',
  nl,
  lin,
  rhs,
  body,
});
export const unpack = (linear: boolean, names: readonly Binder[], tuple: string, body: Expr): Expr => ({
  tag: 'unpack',
  linear,
  names,
  tuple,
  body,
});
export const call = (fn: string, nl: readonly string[], lin: readonly string[] = []): Expr => ({ tag: 'call', fn, nl, lin });
export const nvar = (name: string): Expr => ({ tag: 'var', linear: false, name });
export const lvar = (name: string): Expr => ({ tag: 'var', linear: true, name });
export function literalType(v: number | boolean | string): Type {
  return typeof v === 'number' ? REAL : typeof v === 'boolean' ? BOOL : STR;
}

export const lit = (value: number | boolean | string): Expr => ({ tag: 'lit', value });
export const tuple = (linear: boolean, elems: readonly string[]): Expr => ({ tag: 'tuple', linear, elems });
export const prim = (op: string, args: readonly string[]): Expr => ({ tag: 'prim', op, args });
export const lprim = (op: string, nl: readonly string[], lin: readonly string[]): Expr => ({ tag: 'lprim', op, nl, lin });
export const zero = (type: Type): Expr => ({ tag: 'zero', type });
export const dup = (name: string): Expr => ({ tag: 'dup', name });
export const drop = (expr: Expr): Expr => ({ tag: 'drop', expr });
export const binder = (name: string, type?: Type): Binder => (type ? { name, type } : { name });

// ---- type helpers ----

export function typeEquals(a: Type, b: Type): boolean {
  if (a === b) return true;
  if (a.tag !== b.tag) return false;
  return a.tag !== 'tuple' || structureId(a) === structureId(b);
}

/** The tangent (and cotangent) space of a type: booleans and strings have the zero-dimensional space `<>`. */
export function tangentType(t: Type): Type {
  switch (t.tag) {
    case 'real':
      return REAL;
    case 'bool':
    case 'str':
      return UNIT;
    case 'tuple':
      return tupleType(t.elems.map(tangentType));
  }
}

/** Number of real scalars in a value of this type (the unit of the cost model). */
export function scalarCount(t: Type): number {
  switch (t.tag) {
    case 'real':
      return 1;
    case 'bool':
    case 'str':
      return 1;
    case 'tuple':
      return t.elems.reduce((n, e) => n + scalarCount(e), 0);
  }
}

/** Scalars of a type that live in a vector space (booleans do not). */
export function realCount(t: Type): number {
  switch (t.tag) {
    case 'real':
      return 1;
    case 'bool':
    case 'str':
      return 0;
    case 'tuple':
      return t.elems.reduce((n, e) => n + realCount(e), 0);
  }
}

/** A bug in tsad itself, never a user error. */
export class InternalError extends Error {
  constructor(message: string) {
    super(`internal: ${message}`);
    this.name = 'InternalError';
  }
}

/** A user-facing error about an IR program (type errors, bad CLI input). */
export class IrError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IrError';
  }
}
