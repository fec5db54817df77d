// The variables a leaf expression reads, visited or renamed: the one place that knows which fields
// of each leaf hold variable names. Blocks (let, unpack) and drop are left to the caller, which has its
// own scoping to apply; literals and zeros read nothing.
import { Expr } from './syntax';

export function renameOperands(e: Expr, rename: (name: string) => string): Expr {
  switch (e.tag) {
    case 'ret':
    case 'call':
    case 'lprim':
      return { ...e, nl: e.nl.map(rename), lin: e.lin.map(rename) };
    case 'var':
    case 'dup':
      return { ...e, name: rename(e.name) };
    case 'tuple':
      return { ...e, elems: e.elems.map(rename) };
    case 'prim':
      return { ...e, args: e.args.map(rename) };
    default:
      return e;
  }
}

/** Calls `f` on every variable a leaf reads, in field order (the same leaves as renameOperands). */
export function forEachOperand(e: Expr, f: (name: string) => void): void {
  switch (e.tag) {
    case 'ret':
    case 'call':
    case 'lprim':
      e.nl.forEach(f);
      e.lin.forEach(f);
      return;
    case 'var':
    case 'dup':
      f(e.name);
      return;
    case 'tuple':
      e.elems.forEach(f);
      return;
    case 'prim':
      e.args.forEach(f);
      return;
    default:
      return;
  }
}
