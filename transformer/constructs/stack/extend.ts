// `extend`: room reserved at the top of a flat stack, for one run of an inner loop (loop/flatten.ts).
//
//   let s' = extend(s, n) []           s with ⌈n⌉ more values (n ≤ 0 or NaN: none)
//   let s' = extend(s, n, stride) []   s with ⌈n⌉ more records of `stride` values
//
// All runs of an inner loop share one stack: a run reads `size(s)` as its offset, extends the
// stack by its trip count, and its iteration i puts record i at that offset (put.ts, the base
// operand); the linear half reads it back with `at` at the same offset. So a run costs a number on
// the outer loop's tape instead of a stack object of its own. The new values are holes until put
// fills them.
//
//   J(let s' = extend(s, n…) []) = let s' = extend(s, n…) []   ṡ' = ṡ
//
// A tangent stack is sparse (linear.ts): the room is zeros already. Costs nothing in the work
// model, like push.
import { REAL, stackType } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { ConstructRule } from '../types';
import { nonLinearOnly } from '../shared/nonLinear';
import { roomOnlyJvp } from './jvp';

/** The number of values `extend(s, n[, stride])` adds: ⌈n⌉·stride, 0 for n ≤ 0 or NaN. */
export function room(n: number, stride = 1): number {
  return n > 0 ? Math.ceil(n) * stride : 0;
}

export const extend: ConstructRule = {
  name: 'extend',
  arity: () => ({ nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (e.bodies.length !== 0) ops.error('extend takes no bodies');
    if (t.nl.length < 2 || t.nl.length > 3 || t.lin.length !== 0) {
      ops.error(`extend takes 2 or 3 non-linear operands, got ${t.nl.length} and ${t.lin.length} linear`);
      return { nl: [stackType(REAL)], lin: [] };
    }
    const [s, ...sizes] = t.nl;
    for (const c of sizes) if (c.tag !== 'real') ops.error(`the room of extend must be real, got ${printType(c)}`);
    if (s.tag !== 'stack') ops.error(`extend needs a stack, got ${printType(s)}`);
    return { nl: [s.tag === 'stack' ? s : stackType(REAL)], lin: [] };
  },
  impl: (_ops, _e, v) => {
    const [s, n, stride] = v.nl as [Value[], number, number | undefined];
    // In place, as push: the stack is used once after it.
    s.length += room(n, stride);
    return { nl: [s], lin: [] };
  },
  jvp: roomOnlyJvp,
  ...nonLinearOnly('extend'),
};
