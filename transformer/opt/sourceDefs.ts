// The opt passes that rewrite only the user's own functions (defs without a role) and need the
// result counts of the functions those call.
import type { Counts } from '../constructs/types';
import { defMap } from '../ir/program';
import type { FnDef, Program } from '../ir/syntax';

/** The result counts of a def of the program by name (undefined: not a def of it). */
export type CalleeCounts = (fn: string) => Counts | undefined;

/** `p` with every def without a role rewritten by `rewrite`. */
export function mapSourceDefs(p: Program, rewrite: (d: FnDef, callee: CalleeCounts) => FnDef): Program {
  const defs = defMap(p);
  const callee: CalleeCounts = (fn) => {
    const d = defs.get(fn);
    return d && { nl: d.nlResults.length, lin: d.linResults.length };
  };
  return { ...p, defs: p.defs.map((d) => (d.role ? d : rewrite(d, callee))) };
}
