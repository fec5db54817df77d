// `put`: a push into room reserved ahead, for a counted loop's residual stacks (loop/unzip.ts).
//
//   let s' = put(s, x, i) []                  s with x as its i-th value
//   let s' = put(s, x, i, stride, field) []   x as field `field` of record i (element i·stride + field)
//   let s' = put(s, x, i[, stride, field], base) []   the same, `base` elements further on
//
// The base places an inner loop's records in one flat stack shared by all its runs (loop/flatten.ts):
// each run reserves its room with `extend` (extend.ts) and puts at its offset.
//
// A counted loop creates its stacks with room for its trip count, `stack(x, n[, stride])`, and its
// iteration i fills record i: the position is the loop's counter, known without asking the stack.
// So the emitted code writes `s.a[s.b + i] = x` and nothing else, where push checks the room and
// bumps the stack's size on every call: the bounds check and the record's field update leave the
// innermost loop. The capacity is ⌈n⌉·stride, which covers every counter 0 ≤ i < n. Only `at`
// reads such a stack (size is J's question before a push: put needs none, its tangent goes to
// position i by `lpush`).
//
//   J(let s' = put(s, x, i…) []) = let s' = put(s, x, i…) []
//                                  let (; ṡ') = lpush(i·stride + field ; ṡ, ẋ) []
//
// Costs nothing in the work model, like push.
import { InternalError, REAL, binder, construct, stackType, tangentType, typeEquals } from '../../ir/syntax';
import type { Binder } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, ConstructRule, JvpOps } from '../types';
import { dotName } from '../../ir/names';
import { constantJvp } from './jvp';
import { nonLinearOnly } from '../shared/nonLinear';
import { flatIndex, flatIndexIn } from './position';

function putJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[]): readonly Tangent[] {
  const [s, x, ...indices] = e.nl;
  const sDot = ops.tangentOf(s);
  const xDot = ops.tangentOf(x);
  if (sDot === null && xDot === null) return constantJvp(ops, e, results);
  ops.b.bind([...results], [], e);
  const k = flatIndexIn(ops.b, indices);
  const y = results[0];
  if (!y.type) throw new InternalError(`jvp: untyped result ${y.name} of put (annotate types first)`);
  const yDot = binder(ops.b.fresh(dotName(y.name)), tangentType(y.type));
  const orZero = (v: string, t: Tangent) => t ?? ops.b.zero(tangentType(ops.typeOf(v)), 'zero');
  ops.b.bind([], [yDot], construct('lpush', [k], [orZero(s, sDot), orZero(x, xDot)], []));
  return [yDot.name];
}

export const put: ConstructRule = {
  name: 'put',
  arity: () => ({ nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (e.bodies.length !== 0) ops.error('put takes no bodies');
    if (t.nl.length < 3 || t.nl.length > 6 || t.lin.length !== 0) {
      ops.error(`put takes 3 to 6 non-linear operands, got ${t.nl.length} and ${t.lin.length} linear`);
      return { nl: [stackType(REAL)], lin: [] };
    }
    const [s, x, ...indices] = t.nl;
    for (const i of indices) if (i.tag !== 'real') ops.error(`the position of put must be real, got ${printType(i)}`);
    if (s.tag !== 'stack') ops.error(`put needs a stack, got ${printType(s)}`);
    else if (!typeEquals(s.elem, x)) ops.error(`put of a ${printType(x)} into a ${printType(s)}`);
    return { nl: [s.tag === 'stack' ? s : stackType(x)], lin: [] };
  },
  impl: (_ops, _e, v) => {
    const [s, x, ...indices] = v.nl;
    const st = s as Value[];
    const i = flatIndex(indices);
    if (!Number.isInteger(i) || i < 0 || i > st.length) throw new InternalError(`put: position ${String(i)} is not the next of a stack of ${st.length} (records fill in order)`);
    // In place, as push: the stack is used once after it.
    st[i] = x;
    return { nl: [s], lin: [] };
  },
  jvp: putJvp,
  ...nonLinearOnly('put'),
};
