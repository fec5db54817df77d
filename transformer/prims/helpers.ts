// Rule-shape helpers: most primitives state their partial derivatives once and get a JVP rule
// (Σᵢ ∂ᵢf · ẋᵢ) from `elementwise`; transposition needs nothing from them because the JVP is
// built only from linear primitives, which carry their own transpose rules.
import type { Builder } from '../ir/build';
import { REAL, Type, lvar } from '../ir/syntax';
import type { Guarded, JvpContext, JvpRule, Tangent, PrimTestSpec, Arity } from './types';

/** ∂f/∂xᵢ as non-linear code; `args` are the primal arguments and `y` the primal result. */
export type Partial = (b: Builder, args: readonly string[], y: string) => string;

/** A rule's result as a linear variable: a Guarded tangent becomes its mask (`lmask`/`lmaskn`). */
export function unguard(b: Builder, t: Tangent | Guarded, base: string): Tangent {
  if (t === null || typeof t === 'string') return t;
  return b.lprim(t.keep ? 'lmask' : 'lmaskn', [t.test], [t.tangent], base, REAL);
}

/** Sums tangents with `ladd`; symbolic zeros vanish. */
export function sumTangents(b: Builder, terms: readonly Tangent[], base: string): Tangent {
  let acc: Tangent = null;
  for (const t of terms) {
    if (t === null) continue;
    acc = acc === null ? t : b.lprim('ladd', [], [acc, t], base);
  }
  return acc;
}

/** `ẏ = Σᵢ partialᵢ · ẋᵢ`, computing a partial only where the tangent is not a symbolic zero. */
export function elementwise(partialFor: (i: number, arity: number) => Partial): JvpRule {
  return ({ b, args, tangents, y }: JvpContext) => {
    const terms = tangents.map((t, i) => {
      if (t === null) return null;
      const p = partialFor(i, args.length)(b, args, y);
      return b.lprim('scale', [p], [t], `${y}_dot`);
    });
    return sumTangents(b, terms, `${y}_dot`);
  };
}

/** Drops every tangent: for piecewise-constant and boolean-valued primitives. */
export const nonDifferentiable: JvpRule = ({ b, tangents }) => {
  for (const t of tangents) if (t !== null) b.drop(lvar(t));
  return null;
};

/** The real-valued type rule shared by arithmetic: every argument real, result real. */
export function realOp(name: string) {
  return (argTypes: readonly Type[]): Type | string => {
    const bad = argTypes.findIndex((t) => t.tag !== 'real');
    return bad < 0 ? REAL : `${name} expects real arguments; argument ${bad + 1} is ${argTypes[bad].tag}`;
  };
}

export const unary: Arity = { min: 1, max: 1 };
export const binary: Arity = { min: 2, max: 2 };
export const variadic = (min: number): Arity => ({ min, max: Infinity });

export const anywhere: PrimTestSpec = { domain: [[-3, 3]] };
export const positive: PrimTestSpec = { domain: [[0.1, 3]] };
export const unitInterval: PrimTestSpec = { domain: [[-0.9, 0.9]] };

/** The cost of a k-ary reduction (max, min, hypot): k − 1 binary steps, at least 1. */
export const reductionCost = (k: number): number => Math.max(1, k - 1);
