// The part of a program a derivative needs: what its entry points call, and the custom rules
// of those functions, which no call names.
import type { Program } from '../ir/syntax';
import { calleesFirst } from '../ir/program';
import { visitDef } from '../ir/traverse';
import { CONSTRUCTS, isConstruct } from '../constructs/registry';

/** The defs `entries` reach (themselves included), in the program's order. */
export function reachable(p: Program, entries: readonly string[]): Program {
  const keep = new Set(calleesFirst(p, entries));
  return { defs: p.defs.filter((d) => keep.has(d.name)) };
}

/**
 * The defs a derivative of `fn` can reach: its callees and, for each of them, the defs lowered
 * from its custom rule (`g.jvp` and what that calls), which no call names but J uses instead of g.
 */
export function closureOf(p: Program, fn: string): Program {
  let roots = [fn];
  for (;;) {
    const found = new Set(calleesFirst(p, roots));
    const rules = p.defs.filter((d) => !found.has(d.name) && d.role !== undefined && found.has(d.role.of)).map((d) => d.name);
    if (rules.length === 0) return { defs: p.defs.filter((d) => found.has(d.name)) };
    roots = [...roots, ...rules];
  }
}

/** The first def of a program that runs a loop (the IR cannot differentiate a loop's tape yet), and the loop's kind. */
export function loopIn(program: Program): { fn: string; op: string } | undefined {
  for (const d of program.defs) {
    let op: string | undefined;
    visitDef(d, {
      expr: (e) => {
        if (!op && e.tag === 'construct' && isConstruct(e.op) && CONSTRUCTS[e.op].loop) op = e.op;
      },
    });
    if (op) return { fn: d.name, op };
  }
  return undefined;
}
