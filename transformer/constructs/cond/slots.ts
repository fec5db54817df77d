// Where each branch of a cond keeps its residuals: slots shared between the branches (cond/unzip.ts).
//
// A residual takes a free slot of its type (one the branch has not taken yet), or a new one. A
// flag with no free flag slot takes a free number slot as 1 or 0 where another branch keeps a
// number there, where the slots end as numbers of a record anyway (a while's flags are numbers of
// its record, while/unzip.ts; UnzipOps.flagsAsNumbers): the record holds one number where it held
// two (the tree walk's leaf keeps cos a where the inner node keeps whether it has a right child).
import type { Type } from '../../ir/syntax';
import { structureId } from '../../ir/typeIds';

export interface Slots {
  readonly types: Type[];
  /** Per branch, the slot of each of its residuals. */
  readonly of: number[][];
  /** Per branch, which of its residuals (flags) sit in a number slot as 1 or 0. */
  readonly asNumber: boolean[][];
}

const REAL_ID = structureId({ tag: 'real' });

/**
 * Each branch's residuals (their types) in slots, a slot used at most once per branch; with
 * `flagsAsNumbers` (UnzipOps: the slots end as numbers of a
 * record anyway) its flags come last and may take a number slot. Elsewhere the 1 or 0 would cost a select and a
 * comparison where a flag slot costs nothing.
 */
export function assignSlots(branches: readonly (readonly Type[])[], flagsAsNumbers: boolean): Slots {
  const types: Type[] = [];
  const asNumber = branches.map((residuals) => residuals.map(() => false));
  const of = branches.map((residuals, k) => {
    const free = new Map<number, number[]>();
    types.forEach((t, i) => {
      const id = structureId(t);
      free.set(id, [...(free.get(id) ?? []), i]);
    });
    const take = (t: Type): number => {
      const i = free.get(structureId(t))?.shift();
      if (i !== undefined) return i;
      types.push(t);
      return types.length - 1;
    };
    // Flags last where they may take a number slot a number of this branch does not need.
    const later = (t: Type) => flagsAsNumbers && t.tag === 'bool';
    const slot = residuals.map((t) => (later(t) ? -1 : take(t)));
    residuals.forEach((t, i) => {
      if (!later(t)) return;
      if (free.get(structureId(t))?.length) slot[i] = take(t);
      else {
        const number = free.get(REAL_ID)?.shift();
        if (number === undefined) slot[i] = take(t);
        else [slot[i], asNumber[k][i]] = [number, true];
      }
    });
    return slot;
  });
  return { types, of, asNumber };
}
