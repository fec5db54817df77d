// `presize`: after a loop's first iteration, room in its flat stack for all its iterations.
//
//   let s' = presize(s, i, n) []   s, with room for ⌈n⌉ times what it holds once iteration i = 0 is done
//
// The flat stack of a loop nest (loop/flatten.ts) starts empty and grows as the inner loops'
// runs extend it; grown by doubling it would be copied about once over. A loop whose iterations
// store about as much as its first reserves that much once, at the end of iteration 0 (a
// rectangular nest then never grows its stack again; a triangular one grows by doubling from
// there). Only the room changes: the values and the size stay, so the interpreter and J treat it
// as the identity (its tangent is ṡ).
import { REAL, stackType } from '../../ir/syntax';
import { printType } from '../../ir/printType';
import type { ConstructRule } from '../types';
import { nonLinearOnly } from '../shared/nonLinear';
import { roomOnlyJvp } from './jvp';

export const presize: ConstructRule = {
  name: 'presize',
  arity: () => ({ nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (e.bodies.length !== 0) ops.error('presize takes no bodies');
    if (t.nl.length !== 3 || t.lin.length !== 0) {
      ops.error(`presize takes 3 non-linear operands, got ${t.nl.length} and ${t.lin.length} linear`);
      return { nl: [stackType(REAL)], lin: [] };
    }
    const [s, ...counts] = t.nl;
    for (const c of counts) if (c.tag !== 'real') ops.error(`the counter and trip count of presize must be real, got ${printType(c)}`);
    if (s.tag !== 'stack') ops.error(`presize needs a stack, got ${printType(s)}`);
    return { nl: [s.tag === 'stack' ? s : stackType(REAL)], lin: [] };
  },
  impl: (_ops, _e, v) => ({ nl: [v.nl[0]], lin: [] }),
  jvp: roomOnlyJvp,
  ...nonLinearOnly('presize'),
};
