// `throw new Error(message)` in a marked function: `raise(kind, part…) []` binds nothing and
// throws `new kind(part₀ + part₁ + …)`, each part a str literal or a real (formatted as
// JavaScript's String does, the way a template literal formats it). The front end places it
// where the source throws, under the conds that lead there, so it runs on the same path.
//
// It is the one construct run for its effect (`effect: true`, docs/linear-a.md "Effects"): it
// has no result to keep it alive, so passes ask `hasEffect` before they drop, hoist or move a
// statement. Its tangent is nothing (J keeps it as it is), U leaves it in the non-linear half,
// which runs first, and T never sees it: a derivative throws before any of its linear code runs.
import { IrError } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { ConstructRule } from '../types';
import { keptWithZeroTangents, nonLinearOnly } from '../shared/nonLinear';

/**
 * A wrapper that checks lengths puts the transform's name on the RangeErrors of those checks
 * (backend/typescript.ts); a RangeError the source throws carries this mark (a symbol-keyed,
 * non-enumerable property) so that it reaches the caller exactly as the source threw it.
 */
export const THROWN_BY_SOURCE = 'tsad.thrownBySource';

/** The built-in error classes a `throw new …(…)` may name (each is a global of JavaScript). */
export const ERROR_CLASSES: ReadonlySet<string> = new Set(['Error', 'RangeError', 'TypeError', 'EvalError', 'ReferenceError', 'SyntaxError', 'URIError']);

export const raise: ConstructRule = {
  name: 'raise',
  effect: true,
  arity: () => ({ nl: 0, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (e.bodies.length !== 0) ops.error('raise takes no bodies');
    if (t.lin.length !== 0 || t.nl.length < 1) ops.error(`raise takes non-linear operands (kind, parts…), got ${t.nl.length} and ${t.lin.length} linear`);
    else if (t.nl[0].tag !== 'str') ops.error(`raise's first operand is the error class, a str, got ${printType(t.nl[0])}`);
    else if (t.nl.some((x) => x.tag !== 'str' && x.tag !== 'real')) ops.error(`raise's message parts are str or real, got (${t.nl.map((x) => printType(x)).join(', ')})`);
    return { nl: [], lin: [] };
  },
  impl: (_ops, _e, v) => {
    const [kind, ...parts] = v.nl as Value[];
    if (!ERROR_CLASSES.has(String(kind))) throw new IrError(`raise: ${String(kind)} is not a built-in error class`);
    const Kind = (globalThis as unknown as Record<string, new (message?: string) => Error>)[String(kind)];
    throw parts.length === 0 ? new Kind() : new Kind(parts.map(String).join(''));
  },
  jvp: keptWithZeroTangents,
  ...nonLinearOnly('raise'),
};
