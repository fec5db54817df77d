// The TypeScript backend's tables (backend/ts/prims, backend/ts/constructs): how each primitive
// and construct is written in JavaScript. The records in prims/ and constructs/ say what an
// operation means; these say how this target spells it, one entry per registry name, so the
// compiler rejects a table that lacks one (the pattern of JAX's per-platform lowerings).
import type * as ts from 'typescript';
import type { Lambda, Type } from '../../ir/syntax';
import type { ConstructExpr, Counts } from '../../constructs/types';

/** JavaScript for a primitive applied to already-evaluated argument expressions. */
export type PrimTsRule = (args: readonly ts.Expression[], factory: ts.NodeFactory) => ts.Expression;

/** JavaScript for a linear primitive on one leaf: its coefficients, then its linear arguments. */
export type LinPrimTsRule = (nl: readonly ts.Expression[], lin: readonly ts.Expression[], factory: ts.NodeFactory) => ts.Expression;

/** TypeScript statements computing the construct into the variables `into` (declared by the caller). */
export type ConstructTsRule = (ops: EmitTsOps, e: ConstructExpr, into: readonly string[]) => ts.Statement[];

/** What the TypeScript backend offers: statements for a body, results assigned to given names. */
export interface EmitTsOps {
  readonly factory: ts.NodeFactory;
  readonly ts: typeof ts;
  /** The JavaScript expression for a variable of the enclosing scope. */
  ref(name: string): ts.Expression;
  /**
   * Statements running `body` with its parameters bound to `args`, assigning its results to
   * `into`. An argument `{ alias: name }` binds no `const`: the parameter is another name for a
   * variable the body cannot change (a loop's invariant or counter, a branch's operand).
   * `released`: variables the construct released (`release`) before running the body, which
   * the body cannot change: a release of one of them inside is a no-op and is left out.
   */
  emitBody(body: Lambda, args: readonly (ts.Expression | BodyAlias)[], into: readonly string[], released?: readonly string[]): ts.Statement[];
  /** How many results of each sort a body returns (a loop's carried values). */
  arity(body: Lambda): Counts;
  /** A JavaScript variable name unused in the def (a loop counter). */
  fresh(hint: string): string;
  /** The types of the construct's results where its binders carry them (an array's element type decides its representation). */
  readonly resultTypes: readonly (Type | undefined)[];
  /** The type of a variable of the enclosing def, where its binder carries one. */
  typeOf(name: string): Type | undefined;
  /**
   * The set of arrays this call of the function allocated and may update in place (declared once
   * at the top of the function: `const $own = new Set()`); see InterpOps.owns.
   */
  owned(): ts.Identifier;
  /**
   * A slot of its own for one in-place update site: `slot` is the array the site last found owned
   * (or allocated) and `gen` the value of `now`, the function's release counter, at that time;
   * `r === slot && gen === now` proves r owned without a set lookup (a release since bumps `now`).
   * One slot per site: a loop accumulating into two arrays hits both.
   */
  hotSlot(): { readonly slot: ts.Identifier; readonly gen: ts.Identifier; readonly now: ts.Identifier };
  /**
   * Whether a variable holds the zero array this call made (`new Float64Array(0)`, bound by the
   * def): the owned set never holds it (only arrays made to be owned enter it), so a site that
   * must own an array it starts from allocates without asking.
   */
  freshZero(name: string): boolean;
  /**
   * `$slab = { chunk: Float64Array, top }`, one per call of the function (taken from the runtime's pool where it can be, runtime/emitted.ts): fixed-size
   * buffers (a counted inner loop's residual stacks, one per run) are cut from its chunk as views
   * instead of each allocating its own backing store.
   */
  slab(): ts.Identifier;
  /**
   * A function of tsad's runtime shared by every def (runtime/emitted.ts: cutting a counted loop's
   * stack from the slab, growing a stack, an inner loop's room on a flat stack, an empty stack),
   * where the backend binds one; undefined: write its statements inline.
   */
  moduleHelper?(name: StackHelperName | CheckHelperName): ts.Identifier | undefined;
  /**
   * The runtime function (runtime/emitted.ts) that allocates an owned zero array (`fresh`) or
   * claims an array for in-place updates (`claim`), where the backend binds runtime functions;
   * undefined: write the statements inline. A `fresh` call is rewritten to a plain allocation
   * where nothing in the function asks the owned set (emitTs.ts, withoutUnreadOwnership).
   */
  ownHelper(name: OwnHelperName): ts.Identifier | undefined;
  /** Statements that take an array out of the owned set (it now has two holders), where the function has one. */
  release(x: ts.Expression): ts.Statement[];
}

/** The owned-array helpers a module may share (runtime/emitted.ts, tsad$fresh and tsad$claim). */
export type OwnHelperName = 'fresh' | 'claim';

/** The failure paths of run-time checks a module may share (runtime/emitted.ts: tsad$exceeds, tsad$badRead). */
export type CheckHelperName = 'exceeds' | 'badRead';

/** The stack helpers a module may share (backend/ts/constructs/stackEmit.ts). */
export type StackHelperName = 'reserve' | 'grow' | 'take' | 'give' | 'extend' | 'empty' | 'cover' | 'lpush' | 'lat';

/** A body parameter that is another name for an enclosing variable (EmitTsOps.emitBody). */
export interface BodyAlias {
  readonly alias: string;
}
