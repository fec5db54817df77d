// Checkpointing a counted loop by strip-mining (ad/checkpoint.ts): the n iterations become ⌈n/k⌉
// segments of at most k, each a `remat` of an inner loop.
//
//   loop(n, ū, c̄)[|i, ū, c̄| { e }]
//     ↝ { let n' = ceil(n); let k = length(n')             (a literal, or ⌈√n'⌉ at run time)
//         let N = ceil(div(n', k))                         (⌈n/k⌉ segments)
//         loop(N, n', k, ū, c̄)[|j, n, k, ū, c̄| {
//           remat(j, n, k, ū, c̄)[|j, n, k, ū, c̄| {
//             let j' = stop_gradient(j); let n' = stop_gradient(n); let k' = stop_gradient(k)
//             let base = mul(j', k'); let left = sub(n', base); let m = min(k', left)
//             loop(m, base, ū, c̄)[|i', base, ū, c̄| { let i = add(base, i') in e }] }] }] }
//
// The last segment runs n' − (N−1)·k iterations, so ⌈n⌉ in all as before; n ≤ 0 or NaN gives
// N ≤ 0 or NaN: no segment. Whole trip counts everywhere: T's reversed loops index the stacks
// with m − j − 1.
//
// U of the outer loop saves the remat's operands: j is its counter and n, k are invariants, so
// only the carried values c̄ are stacked, one snapshot per segment; U of the remat recomputes
// one segment's residuals at a time in the linear half (k residual sets live): O(|c̄|·n/k + k)
// values instead of O(n), for one more forward sweep. The segment's bounds are computed inside
// the remat (twice, forward and again on the way back: six primitives per segment and sweep) so
// that nothing but the state is saved, and through stop_gradient: J knows a tangent is zero only
// within a body, and the trip count is locally constant. The counter costs one `add` per step.
//
// A snapshot of a carried array is a copy of the whole array (the segment then writes it in
// place), so a segment is made at least as long as the arrays it carries: k = max(k, Σ len(c))
// over the carried arrays at the loop's start. A snapshot then costs at most about one value per
// step it covers, and a loop writing into a carried n-array costs O(n) in work and tape whatever
// the policy, where segments of a fixed k cost n·⌈n/k⌉ (the values are the same: only the
// grouping of the iterations changes).
import { binder, construct, lambda, letS, prim, REAL } from '../../ir/syntax';
import type { Expr, Lambda } from '../../ir/syntax';
import type { ConstructExpr, SegmentOps } from '../types';
import { loopNames } from './operands';

export function loopSegment(ops: SegmentOps, e: ConstructExpr): Expr | undefined {
  const body = e.bodies[0];
  // Only a non-linear loop (J's input) with typed parameters; a linear one is U's or T's output.
  if (e.lin.length > 0 || body.linParams.length > 0 || body.nlParams.some((p) => p.type === undefined)) return undefined;
  const { b } = ops;
  const carried = ops.arity(body).nl;
  const { count: n, invariant, carried: init } = loopNames(e, { nl: carried, lin: 0 });
  const count = b.prim('ceil', [n], 'count');
  const carriedParams = body.nlParams.slice(body.nlParams.length - carried);
  const lengths = init.nl.flatMap((c, i) => (carriedParams[i]?.type?.tag === 'array' ? [b.nl('len', construct('len', [c], [], []), REAL)] : []));
  const k = lengths.length === 0 ? ops.length(b, count) : b.prim('max', [ops.length(b, count), lengths.reduce((x, y) => b.prim('add', [x, y], 'size'))], 'k');
  const segments = b.prim('ceil', [b.prim('div', [count, k], 'ratio')], 'segments');

  const [counter, ...rest] = body.nlParams;
  const fresh = (hint: string) => binder(b.fresh(hint), REAL);
  const copy = () => rest.map((p) => binder(b.fresh(p.name), p.type));

  // The innermost loop: the original body with its counter offset by the segment's start.
  const i1 = fresh('i');
  const base1 = fresh('base');
  const innerBody: Lambda = lambda([i1, base1, ...rest], [], {
    stmts: [letS([counter], [], prim('add', [base1.name, i1.name])), ...body.body.stmts],
    result: body.body.result,
  });

  // One segment: its bounds from the outer counter, then the inner loop (checkpointed again at the next level).
  const [j2, n2, k2] = [fresh('j'), fresh('n'), fresh('k')];
  const [js, ns, ks] = [fresh('j'), fresh('n'), fresh('k')];
  const [base, left, m] = [fresh('base'), fresh('left'), fresh('m')];
  const vals2 = copy();
  const segLoop = construct('loop', [m.name, base.name, ...vals2.map((v) => v.name)], [], [innerBody]) as ConstructExpr;
  const rematBody = lambda([j2, n2, k2, ...vals2], [], {
    stmts: [
      letS([js], [], prim('stop_gradient', [j2.name])),
      letS([ns], [], prim('stop_gradient', [n2.name])),
      letS([ks], [], prim('stop_gradient', [k2.name])),
      letS([base], [], prim('mul', [js.name, ks.name])),
      letS([left], [], prim('sub', [ns.name, base.name])),
      letS([m], [], prim('min', [ks.name, left.name])),
    ],
    result: ops.inner(segLoop),
  });

  const [j1, n1, k1] = [fresh('j'), fresh('n'), fresh('k')];
  const vals1 = copy();
  const outs = vals1.slice(vals1.length - carried).map((v) => binder(b.fresh(v.name), v.type));
  const outerBody = lambda([j1, n1, k1, ...vals1], [], {
    stmts: [letS(outs, [], construct('remat', [j1.name, n1.name, k1.name, ...vals1.map((v) => v.name)], [], [rematBody]))],
    result: { tag: 'ret', nl: outs.map((o) => o.name), lin: [] },
  });
  return construct('loop', [segments, count, k, ...invariant.nl, ...init.nl], [], [outerBody]);
}
