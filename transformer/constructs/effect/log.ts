// `console.log(a, b, …)` (and warn, error, info, debug, assert) inside a marked function:
// `log(method, layout, part…) []` binds nothing and calls `console[method](arg…)`. `layout` (a
// str literal) says how the parts make the arguments, one letter per argument, comma-separated:
// `v` is one part passed as it is (a number, boolean or string: console formats it itself, -0
// and NaN included), `sN` is the string of the next N parts concatenated (a template literal or
// a `+` of strings, each part formatted as String formats it).
//
// Run for its effect (docs/linear-a.md "Effects"), like `raise`: J keeps it as it is, U leaves it
// in the non-linear half, the primal sweep, and a recomputation (remat, checkpointed segments,
// the recompute policy) never runs it again, so it prints once per call of a derivative, with
// the primal values, never with tangents.
import { IrError } from '../../ir/syntax';
import { printType } from '../../ir/printType';
import type { ConstructRule } from '../types';
import { keptWithZeroTangents, nonLinearOnly } from '../shared/nonLinear';

/** The methods of `console` a marked function may call (each prints; none returns a value). */
export const CONSOLE_METHODS: ReadonlySet<string> = new Set(['log', 'info', 'debug', 'warn', 'error', 'assert']);

export const log: ConstructRule = {
  name: 'log',
  effect: true,
  arity: () => ({ nl: 0, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (e.bodies.length !== 0) ops.error('log takes no bodies');
    if (t.lin.length !== 0 || t.nl.length < 2) ops.error(`log takes non-linear operands (method, layout, part…), got ${t.nl.length} and ${t.lin.length} linear`);
    else if (t.nl[0].tag !== 'str' || t.nl[1].tag !== 'str') ops.error(`log's first operands are the console method and the layout, strs, got ${printType(t.nl[0])}, ${printType(t.nl[1])}`);
    else if (t.nl.some((x) => x.tag !== 'str' && x.tag !== 'real' && x.tag !== 'bool')) ops.error(`log prints str, real and bool values, got (${t.nl.map((x) => printType(x)).join(', ')})`);
    return { nl: [], lin: [] };
  },
  impl: (_ops, _e, v) => {
    const [method, layout, ...parts] = v.nl;
    if (!CONSOLE_METHODS.has(String(method))) throw new IrError(`log: console.${String(method)} is not a console method tsad calls`);
    const args = arrange(
      String(layout),
      parts,
      (x) => x,
      (xs) => xs.map(String).join(''),
    );
    (console as unknown as Record<string, (...a: unknown[]) => void>)[String(method)](...args);
    return { nl: [], lin: [] };
  },
  jvp: keptWithZeroTangents,
  ...nonLinearOnly('log'),
};

/** The arguments from the parts, as the layout groups them. */
export function arrange<T, A>(layout: string, parts: readonly T[], one: (x: T) => A, joined: (xs: readonly T[]) => A): A[] {
  const out: A[] = [];
  let k = 0;
  for (const item of layout === '' ? [] : layout.split(',')) {
    if (item === 'v') out.push(one(parts[k++]));
    else {
      const n = Number(item.slice(1));
      out.push(joined(parts.slice(k, k + n)));
      k += n;
    }
  }
  if (k !== parts.length) throw new IrError(`log: the layout ${layout} takes ${k} parts, got ${parts.length}`);
  return out;
}
