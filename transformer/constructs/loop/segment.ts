// Checkpointing a counted loop by strip-mining (ad/checkpoint.ts): the n iterations become ⌈n/k⌉
// segments of at most k, each a `remat` of an inner loop.
//
//   loop(n, ū, c̄)[|i, ū, c̄| { e }]
//     ↝ { let n = ceil(n); let k = length(n)                                 (a literal, or ⌈√n⌉ at run time)
//         let N = ceil(div(n, k))                             (⌈n/k⌉ segments)
//         loop(N, n, k, ū, c̄)[|j, n, k, ū, c̄| {
//           let n' = stop_gradient(n); let k' = stop_gradient(k)
//           let base = mul(j, k'); let left = sub(n', base); let m = min(k', left)
//           remat(m, base, ū, c̄)[|m, base, ū, c̄| {
//             loop(m, base, ū, c̄)[|i', base, ū, c̄| { let i = add(base, i') in e }] }] }] }
//
// The last segment runs n − (N−1)·k iterations, so ⌈n⌉ in all as before; n ≤ 0 or NaN gives N ≤ 0
// or NaN: no segment. U of the outer loop then stacks the remat's operands (the carried values at
// each segment's start: n/k snapshots) and U of the remat recomputes one segment's residuals at a
// time in the linear half (k residual sets live): O(n/k + k) values instead of O(n), for one more
// forward sweep. The counter costs one `add` per iteration and each segment five primitives.
// The trip count is locally constant; J knows a tangent is zero only within a body, so the
// segment bookkeeping says so with stop_gradient where it is computed: no tangent, nothing of
// it saved but the remat's operands.
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
  // ⌈n⌉ iterations run; whole counts keep every segment's trip count whole, as T's reversed
  // loops need (they index the stacks with m − j − 1).
  const count = b.prim('ceil', [n], 'count');
  const k = ops.length(b, count);
  // Whole: T's reversed loop counts down from its trip count (m − j − 1 must index the stacks).
  const segments = b.prim('ceil', [b.prim('div', [count, k], 'ratio')], 'segments');

  const [counter, ...rest] = body.nlParams;
  const fresh = (hint: string) => binder(b.fresh(hint), REAL);
  const copy = () => rest.map((p) => binder(b.fresh(p.name), p.type));

  // The innermost loop: the original body with its counter offset by the segment's start.
  const i1 = fresh('i');
  const base3 = fresh('base');
  const innerBody: Lambda = lambda([i1, base3, ...rest], [], {
    stmts: [letS([counter], [], prim('add', [base3.name, i1.name])), ...body.body.stmts],
    result: body.body.result,
  });
  const m2 = fresh('m');
  const base2 = fresh('base');
  const vals2 = copy();
  const segLoop = <ConstructExpr>construct('loop', [m2.name, base2.name, ...vals2.map((v) => v.name)], [], [innerBody]);
  const rematBody = lambda([m2, base2, ...vals2], [], { stmts: [], result: ops.inner(segLoop) });

  const j = fresh('j');
  const n1 = fresh('n');
  const k1 = fresh('k');
  const vals1 = copy();
  const base = fresh('base');
  const left = fresh('left');
  const m = fresh('m');
  const outs = vals1.slice(vals1.length - carried).map((v) => binder(b.fresh(v.name), v.type));
  const nc = fresh('n');
  const kc = fresh('k');
  const outerBody = lambda([j, n1, k1, ...vals1], [], {
    stmts: [
      letS([nc], [], prim('stop_gradient', [n1.name])),
      letS([kc], [], prim('stop_gradient', [k1.name])),
      letS([base], [], prim('mul', [j.name, kc.name])),
      letS([left], [], prim('sub', [nc.name, base.name])),
      letS([m], [], prim('min', [kc.name, left.name])),
      letS(outs, [], construct('remat', [m.name, base.name, ...vals1.map((v) => v.name)], [], [rematBody])),
    ],
    result: { tag: 'ret', nl: outs.map((o) => o.name), lin: [] },
  });
  return construct('loop', [segments, count, k, ...invariant.nl, ...init.nl], [], [outerBody]);
}
