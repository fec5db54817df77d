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
// The words of the message, the same as emitted code's (its failure path calls the runtime's).
import { tsad$readProblem } from '../../../runtime/emitted';

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

/**
 * The reads of elements lo … hi of an array of `limit` elements (one read: lo = hi = its index),
 * checked in one: `let i = within(lo, hi, limit, what) []` is lo, and an error unless lo is a
 * whole number ≥ 0 and hi + 1 ≤ limit, which is where JavaScript reads an element and not
 * `undefined` (past the end, before 0, between two elements, NaN). One test and one message
 * where an `atmost` of each end took two of each: the front end places one per element read it
 * cannot move out of a loop (frontend/readChecks.ts). An optional fifth operand, a bool, says
 * whether the reads happen at all (a loop that runs, a `?:` side taken): the check holds where it
 * is false. The same facets as atmost.
 */
export const within: ConstructRule = {
  checks: true,
  keptUnread: true,
  name: 'within',
  passesOn: 0,
  arity: () => ({ nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (e.bodies.length !== 0) ops.error('within takes no bodies');
    const n = t.nl.length;
    if ((n !== 4 && n !== 5) || t.lin.length !== 0) ops.error(`within takes four or five non-linear operands (lo, hi, limit, message[, runs]), got ${n} and ${t.lin.length} linear`);
    else if (t.nl.slice(0, 3).some((x) => x.tag !== 'real') || t.nl[3].tag !== 'str' || (n === 5 && t.nl[4].tag !== 'bool'))
      ops.error(`within takes (real, real, real, str[, bool]), got (${t.nl.map((x) => printType(x)).join(', ')})`);
    return { nl: [REAL], lin: [] };
  },
  impl: (_ops, _e, v) => {
    const [lo, hi, limit, what, runs] = v.nl as [number, number, number, Value, boolean | undefined];
    const message = runs === false ? undefined : tsad$readProblem(lo, hi, limit);
    if (message !== undefined) throw new IrError(`${String(what)} ${message}`);
    return { nl: [lo], lin: [] };
  },
  jvp: keptWithZeroTangents,
  ...nonLinearOnly('within'),
};
