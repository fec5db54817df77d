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
import type { ConstructRule } from '../types';

export const loopFuseAdd: NonNullable<ConstructRule['fuseAdd']> = (ops, e, other, k) => {
  const body = e.bodies[0];
  const r = body.body.result;
  if (r.tag !== 'ret' || k >= r.lin.length) return undefined;
  const slot = e.lin.length - r.lin.length + k;
  if (!ops.isZero(e.lin[slot])) return undefined;
  const acc = body.linParams[slot].name;
  // The result must be a chain of sums reaching the carried parameter (ā → ā + d₁ → … → result).
  const sums = new Map<string, readonly string[]>();
  for (const st of body.body.stmts) if (st.tag === 'let' && st.nl.length === 0 && st.lin.length === 1) sums.set(st.lin[0].name, ops.addends(st.rhs));
  const reaches = (x: string, depth: number): boolean => x === acc || (depth > 0 && (sums.get(x) ?? []).some((y) => reaches(y, depth - 1)));
  if (!reaches(r.lin[k], body.body.stmts.length)) return undefined;
  return { ...e, lin: e.lin.map((x, j) => (j === slot ? other : x)) };
};
