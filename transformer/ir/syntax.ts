// Linear A abstract syntax (Radul et al., "You Only Linearize Once", §3), in A-normal form.
//
// Two sorts of variables share one namespace: non-linear (primal values, residuals) and linear
// (tangents, cotangents). Every node that mentions variables says which sort each position takes,
// so passes never need to re-infer sorts. The only construct that mixes sorts is the multi-value
// return `(v̄ ; v̇̄)` and the multi-value let that binds it.
//
// A function body is a block: a list of statements and a result expression (Dex's `Block`, a
// jaxpr's equations). Only `block` and `construct` expressions hold bodies, and only
// ir/traverse.ts knows which fields hold variables and which hold bodies.
//
// Extension points (see docs/linear-a.md): new value types go into `Type`; new scalar or array
// operations go into the primitive registry (transformer/prims) as `prim` (non-linear) or `lprim`
// (linear) nodes; higher-order constructs (cond, loops, map, scan) are `construct` nodes whose
// rules live in the construct registry (transformer/constructs), never new Expr tags.

import { BOOL, REAL, STR, Type } from './types';

export * from './types';
export { typeEquals } from './typeIds';

export interface Binder {
  readonly name: string;
  /** Filled by the parser from annotations or by `annotateTypes` (language/check.ts). */
  type?: Type;
}

/**
 * A statement of a block. `let (v̄ ; v̇̄) = rhs` binds the results of `rhs`; `let <w̄> = v` unpacks a
 * tuple of one sort (a linear unpack consumes `v`). Bindings scope over the rest of the block.
 */
export type Stmt =
  | { readonly tag: 'let'; readonly nl: readonly Binder[]; readonly lin: readonly Binder[]; readonly rhs: Expr }
  | { readonly tag: 'unpack'; readonly linear: boolean; readonly names: readonly Binder[]; readonly tuple: string };

/** A block: statements in order, then the expression whose results are the block's. */
export interface Block {
  readonly stmts: readonly Stmt[];
  readonly result: Expr;
}

/**
 * A body a construct carries: parameters of both sorts and a block. A nested block has none; a
 * loop or map body binds its iteration variables here.
 */
export interface Lambda {
  readonly nlParams: readonly Binder[];
  readonly linParams: readonly Binder[];
  readonly body: Block;
}

export type Expr =
  /** `(v̄ ; v̇̄)` multi-value return: (n, m). */
  | { readonly tag: 'ret'; readonly nl: readonly string[]; readonly lin: readonly string[] }
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
  | { readonly tag: 'drop'; readonly expr: Expr }
  /** `{ s̄; e }`: a nested block; its bindings end with it. */
  | { readonly tag: 'block'; readonly block: Block }
  /**
   * A higher-order construct `op[λ̄](v̄ ; v̇̄)` (conditionals, loops, maps, scans): operands of
   * both sorts and the bodies it runs. Its rules live in the construct registry
   * (transformer/constructs), never in the passes.
   */
  | {
      readonly tag: 'construct';
      readonly op: string;
      readonly nl: readonly string[];
      readonly lin: readonly string[];
      readonly bodies: readonly Lambda[];
    };

export type ExprTag = Expr['tag'];
export type ExprOf<T extends ExprTag> = Extract<Expr, { tag: T }>;

export interface FnDef {
  readonly name: string;
  readonly nlParams: readonly Binder[];
  readonly linParams: readonly Binder[];
  readonly nlResults: readonly Type[];
  readonly linResults: readonly Type[];
  readonly body: Block;
  /** What the definition is, when a pass derived it from another (names are for display only). */
  readonly role?: Role;
}

/**
 * The role of a derived definition: which transformation of which source function it is. Passes
 * and drivers read roles, never name suffixes (generated names come from ir/names.ts).
 */
export interface Role {
  readonly kind: RoleKind;
  /** The definition it was derived from. */
  readonly of: string;
  /** A JVP along some parameters only (ad/jvp.ts' mask): their indices. Never unzipped. */
  readonly mask?: readonly number[];
}

export const ROLE_KINDS = ['jvp', 'fwd', 'lin', 'bwd', 'transpose', 'grad', 'vg', 'jac', 'hvp', 'erased', 'rule', 'pullback'] as const;
export type RoleKind = (typeof ROLE_KINDS)[number];

/** Definitions in order; a function is in scope only after its own definition (no recursion). */
export interface Program {
  readonly defs: readonly FnDef[];
}

// ---- constructors (keep pass code short and uniform) ----

export const ret = (nl: readonly string[], lin: readonly string[] = []): Expr => ({ tag: 'ret', nl, lin });
export const letS = (nl: readonly Binder[], lin: readonly Binder[], rhs: Expr): Stmt => ({ tag: 'let', nl, lin, rhs });
export const unpackS = (linear: boolean, names: readonly Binder[], tuple: string): Stmt => ({
  tag: 'unpack',
  linear,
  names,
  tuple,
});
export const block = (stmts: readonly Stmt[], result: Expr): Block => ({ stmts, result });
export const blockE = (b: Block): Expr => ({ tag: 'block', block: b });
export const lambda = (nlParams: readonly Binder[], linParams: readonly Binder[], body: Block): Lambda => ({
  nlParams,
  linParams,
  body,
});
export const construct = (op: string, nl: readonly string[], lin: readonly string[], bodies: readonly Lambda[]): Expr => ({
  tag: 'construct',
  op,
  nl,
  lin,
  bodies,
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
