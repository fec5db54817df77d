// A value of a type that nobody reads: what U puts in a residual slot whose code did not run (the
// untaken branch of a cond), in O(1) whatever the type holds.
//
//   let r = absent() [|v: τ ;| { (v ;) }]       r : τ
//
// The body is never run: its parameter only carries τ (by its alias when τ is named, so the text
// stays one line however deep τ nests), as lat's body carries the zero of its element type.
// Spelling the placeholder out from literals (constructs/placeholder.ts) costs the size of τ, and a
// packed cond's slots hold the slots of every cond inside it: O(depth) per level, O(depth²) in all.
//
// Work 0, like the literals it stands for (the interpreter still builds them, so a tape holding it
// conforms to its type and a drop of it costs its scalars). Its tangent is zero; it is non-linear,
// so U and T never see it. In JavaScript the slot is left `undefined`: it is only ever dropped.
import { binder, construct, lambda, ret } from '../../ir/syntax';
import type { Type } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import type { Builder } from '../../ir/build';
import type { ConstructRule } from '../types';
import { constantJvp } from '../stack/jvp';
import { nonLinearOnly } from '../shared/nonLinear';

/** The literals the slot stands for (placeholder.ts spells the same in IR). */
function literalsOf(t: Type): Value {
  switch (t.tag) {
    case 'real':
      return 0;
    case 'bool':
      return false;
    case 'str':
      return '';
    case 'tuple':
      return t.elems.map(literalsOf);
    case 'stack':
    case 'array':
      return [];
  }
}

function typeOfBody(e: { readonly bodies: readonly { readonly nlParams: readonly { readonly type?: Type }[] }[] }): Type | undefined {
  return e.bodies[0]?.nlParams[0]?.type;
}

export const absent: ConstructRule = {
  name: 'absent',
  arity: () => ({ nl: 1, lin: 0 }),
  *typeRule(ops, e, operands) {
    const t = typeOfBody(e);
    const l = e.bodies[0];
    if (operands.nl.length + operands.lin.length !== 0) ops.error('absent takes no operands');
    if (e.bodies.length !== 1 || l.nlParams.length !== 1 || l.linParams.length !== 0 || t === undefined) {
      ops.error('absent takes one body with one typed non-linear parameter, whose type it gives: absent() [|v: τ ;| { (v ;) }]');
      return { nl: [t ?? { tag: 'tuple', elems: [] }], lin: [] };
    }
    yield ops.typeBody(l, { nl: [t], lin: [] });
    return { nl: [t], lin: [] };
  },
  impl: (_ops, e) => ({ nl: [literalsOf(typeOfBody(e)!)], lin: [] }),
  jvp: constantJvp,
  ...nonLinearOnly('absent'),
};

/** `let v = absent() [|v: t ;| { (v ;) }]`, bound in b. */
export function absentValue(b: Builder, t: Type): string {
  const v = binder(b.fresh('unread'), t);
  return b.nl('absent', construct('absent', [], [], [lambda([v], [], { stmts: [], result: ret([v.name]) })]), t);
}
