// A loop that only accumulates into a carried value starting at zero can start from any value:
//
//   let (; c̄) = loop(n, v̄ ; u̇̄, zero, ċ̄)[|… ; …, ā, …| { …; let ā' = ladd(; ā, d) …; (; …, ā', …) }]
//   ladd(; x, c_k)   ↝   loop(n, v̄ ; u̇̄, x, ċ̄)[same body]
//
// since the body adds to ā and never reads it otherwise (ā is linear: this is its one use), the
// result is the initial value plus what the iterations add. T of nested loops produces exactly
// this: the inner transposed loop accumulates an invariant array's cotangent from zero, and the
// outer one adds the result to its own accumulator. Fused, the inner loop accumulates into the
// outer accumulator in place, instead of building an array per outer iteration.
//
// A loop that starts from another accumulation's result takes the addition on to that one:
//
//   let (; c̄₁) = loop(…; zero)[…];  let (; c̄₂) = loop(…; c̄₁)[…];  ladd(; x, c̄₂)
//     ↝ let (; c̄₁) = loop(…; x)[…];  let (; c̄₂) = loop(…; c̄₁)[…]
//
// (x + (c₁ + d₂) = (x + c₁) + d₂). T of a loop body with several inner loops reading one array is
// the case: the first accumulates the array's cotangent from zero, the next ones onto it, and the
// outer loop adds the last one's result to its accumulator; fused, the whole chain accumulates
// into the outer accumulator, with no array per outer iteration. Only where the start is itself
// such a result (otherwise the addition would only move in front of the loop).
import type { ConstructExpr, ConstructRule, FuseOps } from '../types';

export const loopFuseAdd: NonNullable<ConstructRule['fuseAdd']> = (ops, e, other, k) => {
  const slot = loopAccumulates(ops, e, k);
  if (slot === undefined) return undefined;
  const start = e.lin[slot];
  const type = e.bodies[0].linParams[slot].type;
  const sum = ops.isZero(start) ? other : type && ops.fusible(start) ? ops.add(other, start, type) : undefined;
  return sum === undefined ? undefined : { ...e, lin: e.lin.map((x, j) => (j === slot ? sum : x)) };
};

/**
 * The carried linear operand that the loop's linear result k only adds to, if it does: the body's
 * result must be a chain of sums reaching the carried parameter (ā → ā + d₁ → … → result), where a
 * sum may be another construct's accumulation (a nested loop that adds to what it carries, as T of
 * three nested loops gives).
 */
export function loopAccumulates(ops: FuseOps, e: ConstructExpr, k: number): number | undefined {
  const body = e.bodies[0];
  const r = body?.body.result;
  if (r?.tag !== 'ret' || k >= r.lin.length) return undefined;
  const slot = e.lin.length - r.lin.length + k;
  const acc = body.linParams[slot]?.name;
  if (acc === undefined) return undefined;
  const sums = new Map<string, readonly string[]>();
  for (const st of body.body.stmts) {
    if (st.tag !== 'let' || st.nl.length !== 0) continue;
    st.lin.forEach((b, j) => sums.set(b.name, ops.addends(st.rhs, j)));
  }
  const reaches = (x: string, depth: number): boolean => x === acc || (depth > 0 && (sums.get(x) ?? []).some((y) => reaches(y, depth - 1)));
  return reaches(r.lin[k], body.body.stmts.length) ? slot : undefined;
}
