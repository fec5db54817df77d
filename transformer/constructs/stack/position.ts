// Where put and at find an element: record r of `stride` values, field `field`, `base` elements
// into the stack (the operands after the stack, and after put's value: r; r, base; r, stride,
// field; r, stride, field, base: an even count ends with the base).
import type { Value } from '../../ir/value';
import type { JvpOps } from '../types';

export function position<T>(indices: readonly T[]): { r: T; stride?: T; field?: T; base?: T } {
  const [r, stride, field] = indices;
  const base = indices.length % 2 === 0 ? indices[indices.length - 1] : undefined;
  return indices.length >= 3 ? { r, stride, field, base } : { r, base };
}

/** The flat position, as numbers (the interpreter). */
export function flatIndex(indices: readonly Value[]): number {
  const { r, stride, field, base } = position(indices as readonly number[]);
  return (stride === undefined ? r : r * stride + (field as number)) + (base ?? 0);
}

/** The flat position bound in J's builder: r, or r·stride + field, plus the base. */
export function flatIndexIn(b: JvpOps['b'], indices: readonly string[]): string {
  const { r, stride, field, base } = position(indices);
  const k = stride === undefined ? r : b.prim('add', [b.prim('mul', [r, stride], 'base'), field as string], 'at');
  return base === undefined ? k : b.prim('add', [k, base], 'at');
}
