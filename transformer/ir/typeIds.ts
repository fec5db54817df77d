// Types named by small integers, interned by structure. Tape types nest (f's tape holds the
// tapes of f's callees), so comparing or printing them in full costs time proportional to the
// depth of the call graph, and doing so once per function makes a chain of calls quadratic (or
// worse: the blow-up named tape types exist to avoid, Theorem 8.1 of the paper). With ids, each
// type object is looked at once and every later comparison or cache key costs O(1).
import type { Type } from './types';

const byStructure = new WeakMap<Type, number>();
const byNamed = new WeakMap<Type, number>();
const keys = new Map<string, number>();

function intern(key: string): number {
  let id = keys.get(key);
  if (id === undefined) {
    id = keys.size + 3;
    keys.set(key, id);
  }
  return id;
}

/** How many type objects structureId has looked into (its work: each costs its own elements). */
let visits = 0;
export const structureVisits = (): number => visits;

/** Equal for structurally equal types (alias names ignored, as `typeEquals` does). */
export function structureId(t: Type): number {
  if (t.tag === 'real' || t.tag === 'bool' || t.tag === 'str') return t.tag === 'real' ? 0 : t.tag === 'bool' ? 1 : 2;
  const known = byStructure.get(t);
  if (known !== undefined) return known;
  visits++;
  const id = intern(t.tag === 'stack' ? `[${structureId(t.elem)}]` : t.tag === 'array' ? `{${structureId(t.elem)}}` : `<${t.elems.map(structureId).join(',')}>`);
  byStructure.set(t, id);
  return id;
}

/** Equal for types with the same structure, the same alias names and array stores (for cache keys). */
export function namedTypeId(t: Type): number {
  if (t.tag !== 'tuple' && t.tag !== 'stack' && t.tag !== 'array') return structureId(t);
  const known = byNamed.get(t);
  if (known !== undefined) return known;
  const id = intern(t.tag === 'stack' ? `[${namedTypeId(t.elem)}]` : t.tag === 'array' ? `{${namedTypeId(t.elem)}${t.store ?? ''}}` : `${t.name ?? ''}<${t.elems.map(namedTypeId).join(',')}>`);
  byNamed.set(t, id);
  return id;
}

/** Structural equality (alias names ignored): by id once a type is compound. */
export function typeEquals(a: Type, b: Type): boolean {
  if (a === b) return true;
  if (a.tag !== b.tag) return false;
  return (a.tag !== 'tuple' && a.tag !== 'stack' && a.tag !== 'array') || structureId(a) === structureId(b);
}
