// Whole-program helpers shared by the passes: lookup by name and call-graph order.
import { Block, FnDef, IrError, Program } from './syntax';
import { calleesOf, visitBlock } from './traverse';

export { calleesOf };

const callSites = new WeakMap<Block, ReadonlyMap<string, number>>();
const callees = new WeakMap<Block, readonly string[]>();

/**
 * How many calls of each function a def's body holds (in its nested bodies too), in order of
 * first call. Blocks are never mutated, so this is remembered per body: the checker and the
 * inliner ask for every def of a program after every pass.
 */
export function callSitesOfDef(d: FnDef): ReadonlyMap<string, number> {
  let known = callSites.get(d.body);
  if (known === undefined) {
    const counts = new Map<string, number>();
    visitBlock(d.body, {
      expr: (e) => {
        if (e.tag === 'call') counts.set(e.fn, (counts.get(e.fn) ?? 0) + 1);
      },
    });
    callSites.set(d.body, (known = counts));
  }
  return known;
}

/** The functions a def's body calls directly, in order of first call (remembered per body). */
export function calleesOfDef(d: FnDef): readonly string[] {
  let known = callees.get(d.body);
  if (known === undefined) callees.set(d.body, (known = [...callSitesOfDef(d).keys()]));
  return known;
}

export function defMap(p: Program): Map<string, FnDef> {
  return new Map(p.defs.map((d) => [d.name, d]));
}

/** The named functions and everything they call, each after its callees. */
export function calleesFirst(p: Program, fns: readonly string[]): string[] {
  const defs = defMap(p);
  const order: string[] = [];
  const seen = new Set<string>();
  // Depth-first with an explicit stack: call chains can be thousands of functions long.
  const stack: { name: string; callees?: string[] }[] = [];
  for (const root of fns) {
    if (seen.has(root)) continue;
    seen.add(root);
    stack.push({ name: root });
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (!top.callees) {
        const d = defs.get(top.name);
        if (!d) throw new IrError(`no function named ${top.name}`);
        top.callees = [...calleesOfDef(d)].reverse();
      }
      const next = top.callees.pop();
      if (next === undefined) {
        stack.pop();
        order.push(top.name);
      } else if (!seen.has(next)) {
        seen.add(next);
        stack.push({ name: next });
      }
    }
  }
  return order;
}

export function findDef(p: Program, name: string): FnDef {
  const d = p.defs.find((x) => x.name === name);
  if (!d) throw new IrError(`no function named ${name}`);
  return d;
}
