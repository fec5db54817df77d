// Index arrays (gather, scatter, reduceByIndex): the checks that name the argument, in the
// interpreter (IrError); the emitted TypeScript's (RangeError) are in backend/ts/constructs/array/indices.ts.
import { IrError } from '../../ir/syntax';
import type { Value } from '../../ir/value';

/** idx[j] as a valid index of an array of n elements, or an error naming both arrays. */
export function indexAt(op: string, idxName: string, idx: readonly Value[], j: number, arrayName: string, n: number): number {
  const b = idx[j];
  if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b >= n) throw new IrError(`${op}: ${idxName}[${j}] = ${String(b)} is not an index of ${arrayName} (length ${n})`);
  return b;
}

/** A bin of idx[j]: an integer, or an error; out of range (−1 when outside 0 … m − 1) is ignored by the caller. */
export function binAt(op: string, idxName: string, idx: readonly Value[], j: number, m: number): number {
  const b = idx[j];
  if (typeof b !== 'number' || !Number.isInteger(b)) throw new IrError(`${op}: ${idxName}[${j}] = ${String(b)} is not an integer`);
  return b >= 0 && b < m ? b : -1;
}

export function sameLength(op: string, names: readonly string[], arrays: readonly Value[]): number {
  const n = (arrays[0] as Value[]).length;
  arrays.forEach((a, k) => {
    if ((a as Value[]).length !== n) throw new IrError(`${op}: ${names[k]} has ${(a as Value[]).length} elements, ${names[0]} has ${n}`);
  });
  return n;
}
