// The shape of a primitive's record. What an operation means lives in one
// record: its type rule, its reference semantics and its derivative. How each backend writes it
// lives with that backend (backend/ts/prims, backend/wgsl/prims.ts), keyed by name.
// Passes look records up in PRIMS / LIN_PRIMS (registry.ts) and never branch on a name.
import type { Builder } from '../ir/build';
import type { Type } from '../ir/syntax';

export type Scalar = number | boolean | string;

/** A tangent is a linear variable, or null for a symbolic zero (never materialised). */
export type Tangent = string | null;

export interface JvpContext {
  readonly b: Builder;
  /** Primal argument names (non-linear). */
  readonly args: readonly string[];
  readonly argTypes: readonly Type[];
  /** One tangent per argument; distinct names (the pass dups repeated arguments first). */
  readonly tangents: readonly Tangent[];
  /** The primal result, already bound. */
  readonly y: string;
}

/**
 * `test === keep ? tangent : 0`: a tangent that vanishes where the test says so (a select with a
 * constant side). J keeps the mask symbolic and applies the rules after it to the unmasked
 * tangent, masking their result instead: where the mask is 0 the code after it may meet an
 * infinite partial (√ at 0), and ∞·0 would be NaN where the derivative is 0.
 */
export interface Guarded {
  readonly test: string;
  readonly keep: boolean;
  readonly tangent: string;
}

/** Must consume every non-null tangent exactly once; returns the result's tangent. */
export type JvpRule = (ctx: JvpContext) => Tangent | Guarded;

export interface Arity {
  readonly min: number;
  /** Infinity for variadic primitives such as `max` or `hypot`. */
  readonly max: number;
}

/** Non-linear primitive: `op(v̄)`, costs 1 in the work model unless its record says otherwise. */
export interface PrimDef {
  readonly name: string;
  readonly arity: Arity;
  /** Result type, or a message saying what is wrong with the arguments. */
  readonly typeRule: (argTypes: readonly Type[]) => Type | string;
  readonly impl: (...args: Scalar[]) => Scalar;
  readonly jvp: JvpRule;
  /**
   * Work of one application with k arguments (default 1). A variadic reduction is k − 1 binary
   * operations: charging it 1 would make its k-term derivative look k times too expensive.
   */
  readonly cost?: (arity: number) => number;
  /**
   * Cheaper to compute again than to store and load (one add, multiply or divide): under the `'cheap'`
   * checkpoint policy U recomputes it in the linear half when its inputs are there anyway, so a
   * loop stacks fewer residuals (an index computed from the counter, a difference of two reads).
   */
  readonly cheap?: boolean;
  /**
   * A library call many times dearer than a table read (exp, log, sin, pow): where an inner loop
   * nest computes it from values an outer loop does not change, it is computed once into a table
   * before the outer loop (opt/tabulate.ts).
   */
  readonly costly?: boolean;
  /**
   * Its result is Σ signs[k]·argument k (add: [1, 1], sub: [1, −1], neg: [−1]), exactly where the
   * arguments are integers below 2^53 (indices): an index computed so from a loop's counter and its
   * invariants takes a different value in every run (opt/firstWrites.ts).
   */
  readonly signs?: readonly (1 | -1)[];
  /** Its result is the sum of its arguments (add): a loop updating a carried value only so accumulates in any order (constructs/loop/fuseFill.ts). */
  readonly sums?: boolean;
  /**
   * It picks by its first argument, a bool, between these arguments (`select`, `mask`): the code
   * computing them stays next to it in a loop body (opt/licm.ts), where T can put their backward
   * code under the test (ad/guards.ts).
   */
  readonly sides?: readonly number[];
  /**
   * Exact algebraic identities for the simplifier, given the arguments that are literals
   * (undefined where not): a literal result, or the index of the argument the result equals.
   * Only identities that hold for every input, NaN and signed zeros included.
   */
  readonly fold?: (literals: readonly (Scalar | undefined)[]) => { readonly literal: Scalar } | { readonly arg: number } | undefined;
  /** Where finite-difference tests sample each argument, and what they skip. */
  readonly test: PrimTestSpec;
}

export interface PrimTestSpec {
  /** Sampling interval per argument (the last one repeats for variadic primitives). */
  readonly domain: readonly (readonly [number, number])[];
  /** Piecewise-constant primitives: the tangent is checked to be exactly zero instead. */
  readonly zeroDerivative?: boolean;
  /** A rounding whose derivative is taken as the identity's (fround): the tangent is checked to be the input's, exactly. */
  readonly straightThrough?: boolean;
  /** Not differentiable everywhere (abs, min, max, hypot): tests skip points next to a kink. */
  readonly kinks?: boolean;
  /** Result is boolean. */
  readonly predicate?: boolean;
}

export interface TransposeContext {
  readonly b: Builder;
  readonly nl: readonly string[];
  /** The cotangent of the result (never a symbolic zero: the shared wrapper handles that). */
  readonly ct: string;
  readonly resultType: Type;
  readonly linTypes: readonly Type[];
  /** Suggested names for the argument cotangents (x_bar for an argument x_dot). */
  readonly bars: readonly string[];
}

/**
 * Linear primitive `op(ū ; v̇̄)`: linear in v̇̄ given the non-linear coefficients ū. It acts
 * componentwise: every linear argument and the result share one type τ (real or a tuple of
 * them), and each coefficient is a scalar broadcast over τ's leaves.
 */
export interface LinPrimDef {
  readonly name: string;
  readonly nlArity: number;
  readonly linArity: number;
  /** Types of the coefficients (each broadcast over the leaves). */
  readonly nlTypes: readonly Type[];
  /** Value on one leaf: coefficients, then the linear arguments' leaf values. */
  readonly impl: (nl: readonly Scalar[], lin: readonly number[]) => number;
  /** One cotangent per linear argument, null for a symbolic zero; consumes ct exactly once. */
  readonly transpose: (ctx: TransposeContext) => Tangent[];
  /** The non-linear primitive computing `impl` on reals, used by linearity erasure. */
  readonly erase: string;
  /**
   * It picks by its first coefficient, a bool: `c ? (then) : (else)`, each side the linear argument
   * it returns (its index) or null for a zero. T computes what feeds a side only in that side's
   * branch (ad/guards.ts), so an untaken side's partials never meet its cotangent, 0.
   */
  readonly branches?: readonly [number | null, number | null];
}
