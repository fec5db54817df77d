// T of a linear counted loop: a loop running the other way, carrying the cotangents.
//
//   T(let (; ċ̄') = loop(n, v̄ ; u̇̄, ċ̄)[B]) with cotangents c̄'_bar, T B = |i, v̄ ; ċ̄'_bar| -> (; ū_bar, c̄_bar)
//     ↝ let m = ceil(n)
//       let (; ū_bar, c̄_bar) = loop(n, m, v̄ ; zero(τ̄), c̄'_bar)[|j, m, v̄ ; ā, b̄| {
//            let i = m - j - 1
//            let (; ū_bar_i, b̄') = (T B)(i, v̄ ; b̄)
//            (; ladd(ā, ū_bar_i), b̄') }]
//
// Adjoint identity: the loop is L = B_{n−1} ∘ … ∘ B_0 in the carried values, each B_i also adding
// the invariant's contribution; Lᵀ = B_0ᵀ ∘ … ∘ B_{n−1}ᵀ, so the transposed loop visits i from
// n − 1 down to 0, and the invariants' cotangents are the sum over the iterations (the ladd of
// the accumulators ā, which start at zero: the transpose of using u̇ once per iteration). The
// non-linear operands v̄ (a loop from U: the stacks and invariant residuals) are read as they
// are. A linear loop has no non-linear results (Linear B), so every non-linear operand is an
// invariant. No loop at all when every cotangent is zero.
import { InternalError, binder, construct, lambda, letS, lit, lprim, prim, ret } from '../../ir/syntax';
import type { Stmt, Type } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, TransposeOps } from '../types';
import { barName } from '../../ad/names';

export function loopTranspose(ops: TransposeOps, e: ConstructExpr, cotangents: readonly Tangent[], resultTypes: readonly Type[]): readonly Tangent[] {
  const { b } = ops;
  if (cotangents.every((c) => c === null)) return e.lin.map(() => null);
  const body = e.bodies[0];
  const nInv = e.lin.length - resultTypes.length;
  if (nInv < 0) throw new InternalError('loop: a linear loop with non-linear results');
  const cts = cotangents.map((c, i) => c ?? b.zero(resultTypes[i], 'zero'));
  const invTypes = e.lin.slice(0, nInv).map((x) => ops.typeOf(x));
  const acc0 = invTypes.map((t) => b.zero(t, 'acc'));
  const tb = ops.transposeBody(body, resultTypes);
  // The new body: its own counter j and the trip count m, then T B's non-linear parameters but its counter.
  const j = binder(b.fresh('j'), { tag: 'real' });
  const m = binder(b.fresh('m'), { tag: 'real' });
  const [i, ...vs] = tb.nlParams;
  const accs = invTypes.map((t) => binder(b.fresh('acc'), t));
  const one = binder(b.fresh('one'), { tag: 'real' });
  const rest = binder(b.fresh('left'), { tag: 'real' });
  const uBars = invTypes.map((t) => binder(b.fresh('u_bar'), t));
  const cBars = resultTypes.map((t) => binder(b.fresh('c_bar'), t));
  const accNext = invTypes.map((t) => binder(b.fresh('acc'), t));
  const stmts: Stmt[] = [
    letS([one], [], lit(1)),
    letS([rest], [], prim('sub', [m.name, j.name])),
    letS([i], [], prim('sub', [rest.name, one.name])),
    ...tb.body.stmts,
    letS([], [...uBars, ...cBars], tb.body.result),
    ...accs.map((a, k) => letS([], [accNext[k]], lprim('ladd', [], [a.name, uBars[k].name]))),
  ];
  const tBody = lambda([j, m, ...vs], [...accs, ...tb.linParams], { stmts, result: ret([], [...accNext, ...cBars].map((x) => x.name)) });
  const bars = e.lin.map((x) => binder(b.fresh(barName(x)), ops.typeOf(x)));
  // The forward loop ran ⌈n⌉ iterations (a fractional n runs its last one too): count down from there.
  const count = binder(b.fresh('count'), { tag: 'real' });
  b.bind([count], [], prim('ceil', [e.nl[0]]));
  b.bind([], bars, construct(e.op, [e.nl[0], count.name, ...e.nl.slice(1)], [...acc0, ...cts], [tBody]));
  return bars.map((x) => x.name);
}
