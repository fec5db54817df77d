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
//
// A loop T made (its trip count's ceiling m an operand, its body starting from i = m − j − 1) runs
// B at i = ⌈n⌉ − 1, …, 0; its transpose runs Bᵀ at i = 0, …, ⌈n⌉ − 1: a loop whose counter is i
// itself, with no index arithmetic, so T∘T of a loop does the loop's work and no more.
import { InternalError, binder, construct, drop, lambda, letS, lit, lprim, lvar, prim, ret } from '../../ir/syntax';
import type { Binder, Expr, Lambda, Stmt, Type } from '../../ir/syntax';
import { forEachOperand } from '../../ir/traverse';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, TransposeOps } from '../types';
import { barName } from '../../ir/names';

export function loopTranspose(ops: TransposeOps, e: ConstructExpr, cotangents: readonly Tangent[], resultTypes: readonly Type[]): readonly Tangent[] {
  const { b } = ops;
  if (cotangents.every((c) => c === null)) return e.lin.map(() => null);
  const body = e.bodies[0];
  const nInv = e.lin.length - resultTypes.length;
  if (nInv < 0) throw new InternalError('loop: a linear loop with non-linear results');
  const cts = cotangents.map((c, i) => c ?? b.zero(resultTypes[i], 'zero'));
  const forward = reversedBody((n) => ops.definition(n), e);
  const zeroBars: boolean[] = [];
  const tb = ops.transposeBody(forward?.body ?? body, resultTypes, zeroBars);
  // An invariant whose cotangent is a symbolic zero in every iteration (the body never reads it:
  // a reduce's element it ignores) gets no accumulator and stays a symbolic zero: summed as zeros
  // it would meet the infinite partials of the code computing it (√ at 0) as 0·∞.
  const live = e.lin.slice(0, nInv).map((_, k) => !zeroBars[k]);
  const invTypes = e.lin.slice(0, nInv).map((x) => ops.typeOf(x));
  const liveTypes = invTypes.filter((_, k) => live[k]);
  const acc0 = liveTypes.map((t) => b.zero(t, 'acc'));
  // The new body: its own counter j and the trip count m, then T B's non-linear parameters but its counter.
  const j = binder(b.fresh('j'), { tag: 'real' });
  const m = binder(b.fresh('m'), { tag: 'real' });
  const [i, ...vs] = tb.nlParams;
  const accs = liveTypes.map((t) => binder(b.fresh('acc'), t));
  const one = binder(b.fresh('one'), { tag: 'real' });
  const rest = binder(b.fresh('left'), { tag: 'real' });
  const uBars = invTypes.map((t) => binder(b.fresh('u_bar'), t));
  const cBars = resultTypes.map((t) => binder(b.fresh('c_bar'), t));
  const accNext = liveTypes.map((t) => binder(b.fresh('acc'), t));
  const bars = e.lin.filter((_, k) => k >= nInv || live[k]).map((x) => binder(b.fresh(barName(x)), ops.typeOf(x)));
  const liveBars = uBars.filter((_, k) => live[k]);
  const tail: Stmt[] = [
    ...tb.body.stmts,
    letS([], [...uBars, ...cBars], tb.body.result),
    ...uBars.filter((_, k) => !live[k]).map((u) => letS([], [], drop(lvar(u.name)))),
    ...accs.map((a, k) => letS([], [accNext[k]], lprim('ladd', [], [a.name, liveBars[k].name]))),
  ];
  /** One cotangent per linear operand: null for an invariant the body never reads. */
  const withZeros = (xs: readonly Binder[]): Tangent[] => {
    let k = 0;
    return e.lin.map((_, i) => (i < nInv && !live[i] ? null : xs[k++].name));
  };
  const results = ret(
    [],
    [...accNext, ...cBars].map((x) => x.name),
  );
  if (forward) {
    // Bᵀ at i = 0, 1, …: the counter is i, the operands are the reversed loop's own.
    b.bind([], bars, construct(e.op, forward.operands, [...acc0, ...cts], [lambda(tb.nlParams, [...accs, ...tb.linParams], { stmts: tail, result: results })]));
    return withZeros(bars);
  }
  const stmts: Stmt[] = [letS([one], [], lit(1)), letS([rest], [], prim('sub', [m.name, j.name])), letS([i], [], prim('sub', [rest.name, one.name])), ...tail];
  const tBody = lambda([j, m, ...vs], [...accs, ...tb.linParams], { stmts, result: results });
  // The forward loop ran ⌈n⌉ iterations (a fractional n runs its last one too): count down from there.
  const count = binder(b.fresh('count'), { tag: 'real' });
  b.bind([count], [], prim('ceil', [e.nl[0]]));
  b.bind([], bars, construct(e.op, [e.nl[0], count.name, ...e.nl.slice(1)], [...acc0, ...cts], [tBody]));
  return withZeros(bars);
}

/**
 * The body of a loop T made, `loop(n, m, v̄ ; …)[|j, m, v̄ ; …| { i = m − j − 1; B }]` with m bound to
 * ceil(n), as a body B over its counter i (`|i, m, v̄ ; …| { B }`); undefined for any other loop.
 * The pattern is looked for wherever the simplifier left it in the body (1 may be shared); m and
 * the 1 go too where nothing else reads them. With the operands the body then takes.
 */
export function reversedBody(definition: (name: string) => Expr | undefined, e: ConstructExpr): { body: Lambda; operands: readonly string[] } | undefined {
  const body = e.bodies[0];
  const [j, m] = body.nlParams;
  const count = definition(e.nl[1] ?? '');
  if (!m || count?.tag !== 'prim' || count.op !== 'ceil' || count.args[0] !== e.nl[0]) return undefined;
  const stmts = body.body.stmts;
  const lit1 = new Set<string>();
  const reads = new Map<string, number>();
  const count1 = (n: string) => reads.set(n, (reads.get(n) ?? 0) + 1);
  for (const s of stmts) {
    if (s.tag === 'unpack') count1(s.tuple);
    else {
      forEachOperand(s.rhs.tag === 'drop' ? s.rhs.expr : s.rhs, count1);
      if (s.rhs.tag === 'lit' && s.rhs.value === 1 && s.nl.length === 1) lit1.add(s.nl[0].name);
    }
  }
  forEachOperand(body.body.result, count1);
  const isSub = (s: Stmt, a: (x: string) => boolean, c: (x: string) => boolean): s is Extract<Stmt, { tag: 'let' }> =>
    s.tag === 'let' && s.nl.length === 1 && s.lin.length === 0 && s.rhs.tag === 'prim' && s.rhs.op === 'sub' && a(s.rhs.args[0]) && c(s.rhs.args[1]);
  const k1 = stmts.findIndex((s) =>
    isSub(
      s,
      (x) => x === m.name,
      (x) => x === j.name,
    ),
  );
  if (k1 < 0 || reads.get(j.name) !== 1) return undefined;
  const left = (stmts[k1] as Extract<Stmt, { tag: 'let' }>).nl[0].name;
  const k2 = stmts.findIndex((s) =>
    isSub(
      s,
      (x) => x === left,
      (x) => lit1.has(x),
    ),
  );
  if (k2 < 0 || reads.get(left) !== 1) return undefined;
  const sub2 = stmts[k2] as Extract<Stmt, { tag: 'let' }>;
  const i: Binder = { ...sub2.nl[0], type: { tag: 'real' } };
  const one = sub2.rhs.tag === 'prim' ? sub2.rhs.args[1] : '';
  const k3 = reads.get(one) === 1 ? stmts.findIndex((s) => s.tag === 'let' && s.nl.length === 1 && s.nl[0].name === one) : -1;
  const keepM = reads.get(m.name) !== 1;
  return {
    body: { ...body, nlParams: [i, ...body.nlParams.slice(keepM ? 1 : 2)], body: { ...body.body, stmts: stmts.filter((_, k) => k !== k1 && k !== k2 && k !== k3) } },
    operands: keepM ? e.nl : [e.nl[0], ...e.nl.slice(2)],
  };
}
