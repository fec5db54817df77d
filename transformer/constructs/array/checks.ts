// A run-time check of array lengths, placed by the front end once per map or per loop (never per
// element): `let m = atmost(n, limit, what) []` is n, and an error when n > limit (the message
// `what` is a str operand naming the function and the arrays). A zip of two arrays checks their
// lengths are equal with two of them; a counted loop reading a[i] at its counter checks its trip
// count against a's length. It is non-linear with a zero tangent (like len): J keeps it, U leaves
// it in the non-linear half, T never sees it. It is there for the error as much as for its result:
// dead-code removal keeps it unread (keptUnread), and a loop left holding nothing but checks of
// what is the same in every run is replaced by them, run once under its trip guard.
import { IrError, REAL } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { ConstructRule } from '../types';
import { keptWithZeroTangents, nonLinearOnly } from '../shared/nonLinear';

export const atmost: ConstructRule = {
  checks: true,
  keptUnread: true,
  name: 'atmost',
  passesOn: 0,
  arity: () => ({ nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (e.bodies.length !== 0) ops.error('atmost takes no bodies');
    if (t.nl.length !== 3 || t.lin.length !== 0) ops.error(`atmost takes three non-linear operands (n, limit, message), got ${t.nl.length} and ${t.lin.length} linear`);
    else if (t.nl[0].tag !== 'real' || t.nl[1].tag !== 'real' || t.nl[2].tag !== 'str') ops.error(`atmost takes (real, real, str), got (${t.nl.map((x) => printType(x)).join(', ')})`);
    return { nl: [REAL], lin: [] };
  },
  impl: (_ops, _e, v) => {
    const [n, limit, what] = v.nl as [Value, Value, Value];
    if (!((n as number) <= (limit as number))) throw new IrError(`${String(what)} (${String(n)} > ${String(limit)})`);
    return { nl: [n], lin: [] };
  },
  jvp: keptWithZeroTangents,
  ...nonLinearOnly('atmost'),
};
