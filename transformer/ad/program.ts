// Whole-program helpers shared by the passes: lookup by name and call-graph order.
import { FnDef, IrError, Program } from '../ir/syntax';
import { calleesOf } from '../ir/callees';

export { calleesOf };

export function defMap(p: Program): Map<string, FnDef> {
  return new Map(p.defs.map((d) => [d.name, d]));
}

/** The named functions and everything they call, each after its callees. */
export function calleesFirst(p: Program, fns: readonly string[]): string[] {
  const defs = defMap(p);
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    const d = defs.get(name);
    if (!d) throw new IrError(`no function named ${name}`);
    seen.add(name);
    for (const c of calleesOf(d.body)) visit(c);
    order.push(name);
  };
  fns.forEach(visit);
  return order;
}

export function findDef(p: Program, name: string): FnDef {
  const d = p.defs.find((x) => x.name === name);
  if (!d) throw new IrError(`no function named ${name}`);
  return d;
}
