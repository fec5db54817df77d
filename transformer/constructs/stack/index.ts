// Run-time sized stacks of residuals, for loops (docs/linear-a.md, "Stacks"). Four non-linear
// body-less constructs on the `stack<τ>` type:
//
//   let s = stack(x) []         an empty stack of values of x's type (x gives only the type)
//   let s = stack(x, n) []      the same, expecting about n pushes (a counted loop's trip count:
//                               the emitted stack of reals is allocated once at that size)
//   let s' = push(s, x) []      s with x on top
//   let s' = put(s, x, i) []    s with x as its i-th value, in room stack(x, n) reserved (put.ts)
//   let x = at(s, i) []         the i-th value pushed (from 0)
//   let k = size(s) []          how many values s holds
//
// and two linear ones on its tangent space (linear.ts): `lpush(k ; ṡ, ẋ)` and
// `lat(i ; ṡ) [|| { zero(τ) }]`, the tangents of push and at (jvp.ts).
//
// U of a loop creates the stacks before the non-linear loop, pushes each iteration's residuals
// in it and reads them by index in the linear loop (and T's reversed loop). They cost nothing in
// the work model, like building and unpacking a tuple: W(f.fwd) + W(f.lin) stays W(f.jvp).
// A stack is used once after each push (the loop carries it), so the interpreter and the emitted
// JavaScript push in place: O(1) per push, a plain growing JS array.
//
// J of f.fwd and of f.bwd.E (forward over reverse: hvp and hessian through a loop) differentiates
// them: the tangent of a stack<τ> is a stack<tangent τ> (ir/syntax.ts, tangentType).
import { stackType, REAL, typeEquals } from '../../ir/syntax';
import { InternalError } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { ConstructRule } from '../types';
import { atJvp, pushJvp, constantJvp } from './jvp';
import { nonLinearOnly } from '../shared/nonLinear';
import { flatIndex } from './position';

export { lpush, lat } from './linear';
export { put } from './put';
export { extend } from './extend';
export { presize } from './presize';

function rule(name: string, operands: number | readonly [number, number], typeRule: ConstructRule['typeRule'], impl: (v: readonly Value[]) => Value, jvp: ConstructRule['jvp']): ConstructRule {
  return {
    name,
    arity: () => ({ nl: 1, lin: 0 }),
    typeRule: (ops, e, t) => {
      if (e.bodies.length !== 0) ops.error(`${name} takes no bodies`);
      const [least, most] = typeof operands === 'number' ? [operands, operands] : operands;
      if (t.nl.length < least || t.nl.length > most || t.lin.length !== 0) {
        ops.error(`${name} takes ${least === most ? least : `${least} or ${most}`} non-linear operand(s), got ${t.nl.length} and ${t.lin.length} linear`);
        return { nl: [stackType({ tag: 'real' })], lin: [] };
      }
      return typeRule(ops, e, t);
    },
    impl: (_ops, _e, v) => ({ nl: [impl(v.nl)], lin: [] }),
    jvp,
    // One result: unused, the whole statement goes (pruneResults says nothing).
    ...nonLinearOnly(name),
  };
}

/** `stack(x)`, `stack(x, n)` (room for n pushes), `stack(x, n, stride)` (n records of stride values). */
export const stack = rule(
  'stack',
  [1, 3],
  (ops, _e, t) => {
    for (const c of t.nl.slice(1)) if (c.tag !== 'real') ops.error(`the capacity of stack must be real, got ${printType(c)}`);
    return { nl: [stackType(t.nl[0])], lin: [] };
  },
  () => [],
  constantJvp,
);

export const push = rule(
  'push',
  2,
  (ops, _e, t) => {
    const [s, x] = t.nl;
    if (s.tag !== 'stack') ops.error(`push needs a stack, got ${printType(s)}`);
    else if (!typeEquals(s.elem, x)) ops.error(`push of a ${printType(x)} onto a ${printType(s)}`);
    return { nl: [s.tag === 'stack' ? s : stackType(x)], lin: [] };
  },
  ([s, x]) => {
    (s as Value[]).push(x);
    return s;
  },
  pushJvp,
);

/**
 * `at(s, i)`: the i-th value pushed; `at(s, i, stride, field)`: field `field` of the i-th record of
 * `stride` values (element i·stride + field), how a loop reads the numbers it stored as one record
 * per iteration (loop/unzip.ts); a last operand after i or after the field is a base added to the
 * position (an inner loop's run in a flat stack, loop/flatten.ts).
 */
export const at = rule(
  'at',
  [2, 5],
  (ops, _e, t) => {
    const [s, ...indices] = t.nl;
    for (const i of indices) if (i.tag !== 'real') ops.error(`the index of at must be real, got ${printType(i)}`);
    if (s.tag !== 'stack') {
      ops.error(`at needs a stack, got ${printType(s)}`);
      return { nl: [s], lin: [] };
    }
    return { nl: [s.elem], lin: [] };
  },
  ([s, ...indices]) => {
    const st = s as Value[];
    const i = flatIndex(indices);
    if (!(i >= 0 && i < st.length)) throw new InternalError(`at: index ${String(i)} outside a stack of ${st.length}`);
    return st[i];
  },
  atJvp,
);

/** The position the next push fills: J of push reads it before pushing, for its tangent (jvp.ts). */
export const size = rule(
  'size',
  1,
  (ops, _e, t) => {
    if (t.nl[0].tag !== 'stack') ops.error(`size needs a stack, got ${printType(t.nl[0])}`);
    return { nl: [REAL], lin: [] };
  },
  ([s]) => (s as Value[]).length,
  constantJvp,
);
