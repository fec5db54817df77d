// Helpers for J rules that rewrite a construct into other constructs and differentiate those with
// their own rules (linearFoldJvp.ts, histogramJvp.ts): the names they bind need types and
// tangents that the pass does not know yet.
import type { Lambda, Type } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, JvpOps } from '../types';

/** JvpOps that also know the names bound by the rule (their types, and tangents: null for none). */
export function scoped(ops: JvpOps): { ops: JvpOps; know(name: string, type: Type, tangent?: Tangent): void } {
  const types = new Map<string, Type>();
  const tangents = new Map<string, Tangent>();
  return {
    ops: {
      b: ops.b,
      typeOf: (x) => types.get(x) ?? ops.typeOf(x),
      tangentOf: (x) => (tangents.has(x) ? tangents.get(x)! : ops.tangentOf(x)),
      jvpBody: (body, constants, symbolicZeros, zeroResults) => ops.jvpBody(body, constants, symbolicZeros, zeroResults),
    },
    know(name, type, tangent = null) {
      types.set(name, type);
      tangents.set(name, tangent);
    },
  };
}

/** A construct expression, typed as the rules take it. */
export const constructExpr = (op: string, nl: readonly string[], lin: readonly string[], bodies: readonly Lambda[]): ConstructExpr => ({ tag: 'construct', op, nl, lin, bodies });
