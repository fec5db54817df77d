// How big a type is written out, for the rules that keep a program's size linear in its nesting
// depth (a loop's stacks of inner loops' stacks, a cond's packed slots): memoised per type object,
// since nested residual types share their parts.
import type { Type } from '../../ir/syntax';

const spelled = new WeakMap<Type, number>();
const printed = new WeakMap<Type, number>();

/** Nodes of the type's tree through every tuple: the size of a value built from literals for it. */
export function spelledSize(t: Type): number {
  if (t.tag === 'real' || t.tag === 'bool' || t.tag === 'str') return 1;
  let n = spelled.get(t);
  if (n === undefined) spelled.set(t, (n = 1 + (t.tag === 'tuple' ? t.elems.reduce((m, e) => m + spelledSize(e), 0) : spelledSize(t.elem))));
  return n;
}

/** Nodes of the type as the printer writes it: a named tuple is its alias, one word. */
export function printedSize(t: Type): number {
  if (t.tag === 'real' || t.tag === 'bool' || t.tag === 'str') return 1;
  if (t.tag === 'tuple' && t.name !== undefined) return 1;
  let n = printed.get(t);
  if (n === undefined) printed.set(t, (n = 1 + (t.tag === 'tuple' ? t.elems.reduce((m, e) => m + printedSize(e), 0) : printedSize(t.elem))));
  return n;
}
