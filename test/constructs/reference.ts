// The independent references the construct suites compare with: relative error, dot products,
// basis vectors and central differences of a Linear A function run by the interpreter.
import { evalFn } from '../../transformer/language/interp';
import { findDef } from '../../transformer/ir/program';
import type { Program } from '../../transformer/ir/syntax';
import type { Value } from '../../transformer/language/interp';
import { linearizeOf } from '../gen/drivers';

export const rel = (a: number, b: number): number => Math.abs(a - b) / Math.max(1, Math.abs(a), Math.abs(b));
export const dot = (a: readonly number[], b: readonly number[]): number => a.reduce((s, v, i) => s + v * b[i], 0);
export const basis = (n: number, i: number): number[] => Array.from({ length: n }, (_, j) => (j === i ? 1 : 0));

/** Central differences of `fn` along `dir` (parameters moved by 0, such as a trip count, are held). */
export function centralDifference(p: Program, fn: string, x: number[], dir: number[], h = 1e-6): number[] {
  const at = (s: number) =>
    evalFn(
      p,
      fn,
      x.map((xi, i) => xi + s * h * dir[i]),
    ).nl as number[];
  const plus = at(1);
  const minus = at(-1);
  return plus.map((v, i) => (v - minus[i]) / (2 * h));
}

/**
 * The dot-product test <ȳ, J·ẋ> = <Jᵀ·ȳ, ẋ> on f.lin and f.bwd of a vjpOf result at x (scalar
 * parameters and results), for three fixed pairs of directions.
 */
export function expectDotProduct(v: { readonly program: Program; readonly fwd: string; readonly bwd: string }, fn: string, x: number[]): void {
  const m = findDef(v.program, fn).nlResults.length;
  const tape = evalFn(v.program, v.fwd, x).nl[m];
  for (let trial = 0; trial < 3; trial++) {
    const xd = x.map((_, i) => Math.sin(3 * trial + i + 1));
    const yb = Array.from({ length: m }, (_, j) => Math.cos(5 * trial + j + 2));
    const lx = evalFn(v.program, `${fn}.lin`, [tape], xd).lin as number[];
    const ty = evalFn(v.program, v.bwd, [tape], yb).lin as number[];
    expect(rel(dot(yb, lx), dot(ty, xd))).toBeLessThan(1e-12);
  }
}

/** A value with its Float64Arrays as plain arrays, for toEqual. */
export const plain = (v: unknown): unknown => (v instanceof Float64Array ? [...v] : Array.isArray(v) ? v.map(plain) : v);

/**
 * Unzipping splits the JVP exactly: f.lin on f.fwd's tape gives the JVP's tangents, and
 * W(fwd) + W(lin) = W(jvp).
 */
export function expectUnzipSplitsJvp(p: Program, fn: string, x: Value[], xd: Value[]): void {
  const lz = linearizeOf(p, fn);
  const f = evalFn(lz.program, lz.fwd, x);
  const l = evalFn(lz.program, lz.lin, [f.nl[findDef(p, fn).nlResults.length]], xd);
  const j = evalFn(lz.program, `${fn}.jvp`, x, xd);
  expect(plain(l.lin)).toEqual(plain(j.lin));
  expect(f.work + l.work).toBe(j.work);
}
