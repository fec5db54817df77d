// Values, seeded inputs and finite differences for the corpus. Unlike the plugin harness's
// helpers these keep typed arrays typed (a Float64Array's leaves in index order, copies of the
// same class), since the corpus passes Float64Arrays, records and tensors as they come.
import { seeded } from '../gen/seeded';

export { seeded };

export type Value = number | Float64Array | Float32Array | Int32Array | readonly Value[] | { readonly [k: string]: Value } | boolean | string | undefined;

export interface Rng {
  /** Uniform in [lo, hi). */
  uniform(lo?: number, hi?: number): number;
  int(n: number): number;
  vec(n: number, lo?: number, hi?: number): number[];
  f64(n: number, lo?: number, hi?: number): Float64Array;
  mat(r: number, c: number, lo?: number, hi?: number): number[][];
  tensor(a: number, b: number, c: number, lo?: number, hi?: number): number[][][];
  /** A symmetric positive definite n×n matrix (B Bᵀ + n I). */
  spd(n: number): number[][];
}

export function rng(seed: number): Rng {
  const next = seeded(seed);
  const uniform = (lo = -1, hi = 1) => lo + (hi - lo) * next();
  const vec = (n: number, lo?: number, hi?: number) => Array.from({ length: n }, () => uniform(lo, hi));
  const mat = (r: number, c: number, lo?: number, hi?: number) => Array.from({ length: r }, () => vec(c, lo, hi));
  return {
    uniform,
    int: (n) => Math.floor(next() * n),
    vec,
    f64: (n, lo, hi) => Float64Array.from(vec(n, lo, hi)),
    mat,
    tensor: (a, b, c, lo, hi) => Array.from({ length: a }, () => mat(b, c, lo, hi)),
    spd: (n) => {
      const b = mat(n, n);
      return b.map((row, i) => b.map((other, j) => row.reduce((s, x, k) => s + x * other[k], 0) + (i === j ? n : 0)));
    },
  };
}

function isTyped(v: unknown): v is Float64Array | Float32Array | Int32Array {
  return ArrayBuffer.isView(v);
}

/** The numeric leaves of a value in a fixed order (arrays by index, object fields by name). */
export function leaves(v: Value): number[] {
  if (typeof v === 'number') return [v];
  if (v === undefined || typeof v === 'boolean' || typeof v === 'string') return [];
  if (isTyped(v)) return Array.from(v);
  if (Array.isArray(v)) return v.flatMap((x: Value) => leaves(x));
  const o = v as { [k: string]: Value };
  return Object.keys(o)
    .sort()
    .flatMap((k) => leaves(o[k]));
}

/** A copy of v with f applied to each numeric leaf (given its index); integer arrays stay. */
export function mapLeaves(v: Value, f: (x: number, i: number) => number, at = { i: 0 }): Value {
  if (typeof v === 'number') return f(v, at.i++);
  if (v === undefined || typeof v === 'boolean' || typeof v === 'string') return v;
  if (v instanceof Int32Array) return v.slice();
  if (isTyped(v)) return v.map((x) => f(x, at.i++));
  if (Array.isArray(v)) return v.map((x: Value) => mapLeaves(x, f, at));
  const o = v as { [k: string]: Value };
  const out: { [k: string]: Value } = {};
  for (const k of Object.keys(o).sort()) out[k] = mapLeaves(o[k], f, at);
  // Keep the caller's field order (a record's order is part of what a program may print).
  return Object.fromEntries(Object.keys(o).map((k) => [k, out[k]]));
}

export const copy = (v: Value): Value => mapLeaves(v, (x) => x);

/** A description of v's shape: kinds, lengths and field names, no numbers. */
export function shape(v: Value): string {
  if (typeof v === 'number') return 'n';
  if (v === undefined || typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v ?? null);
  if (isTyped(v)) return `${v.constructor.name}(${v.length})`;
  if (Array.isArray(v)) return `[${v.map((x: Value) => shape(x)).join(',')}]`;
  const o = v as { [k: string]: Value };
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${k}:${shape(o[k])}`)
    .join(',')}}`;
}

/** Same shape and the same numbers bit for bit (NaN equals NaN, 0 differs from -0). */
export function sameBits(a: Value, b: Value): string | undefined {
  if (shape(a) !== shape(b)) return `shapes differ: ${shape(a)} vs ${shape(b)}`;
  const la = leaves(a);
  const lb = leaves(b);
  const i = la.findIndex((x, k) => !Object.is(x, lb[k]));
  return i < 0 ? undefined : `leaf ${i}: ${la[i]} vs ${lb[i]}`;
}

/** Same shape and numbers equal up to `rel` relative to the larger magnitude (and 1). */
export function closeTo(a: Value, b: Value, rel: number): string | undefined {
  if (shape(a) !== shape(b)) return `shapes differ: ${shape(a)} vs ${shape(b)}`;
  const la = leaves(a);
  const lb = leaves(b);
  const i = la.findIndex((x, k) => !(Object.is(x, lb[k]) || Math.abs(x - lb[k]) <= rel * Math.max(1, Math.abs(x), Math.abs(lb[k]))));
  return i < 0 ? undefined : `leaf ${i}: ${la[i]} vs ${lb[i]}`;
}

const EPS = 2.220446049250313e-16;

/**
 * Checks ∂f/∂(leaf k of argument `arg`) against central differences at two steps, h and h/2,
 * relative to the leaf's magnitude. The difference of the two estimates measures their own
 * error (truncation, or a kink within the step), rounding adds about eps·|f|/h: the gradient
 * must agree with the finer estimate within 1e-6 relative plus both error terms.
 */
export function checkPartial(f: (...a: Value[]) => number, at: Value[], arg: number, k: number, g: number): string | undefined {
  const x = leaves(at[arg])[k];
  const h = 1e-4 * Math.max(1, Math.abs(x));
  const value = (s: number) => f(...at.map((a, j) => (j === arg ? mapLeaves(a, (y, i) => (i === k ? y + s : y)) : copy(a))));
  const fd = (step: number) => (value(step) - value(-step)) / (2 * step);
  const coarse = fd(h);
  const fine = fd(h / 2);
  const scale = Math.max(Math.abs(value(0)), Math.abs(value(h)), Math.abs(value(-h)));
  const tol = 1e-6 * Math.max(1, Math.abs(fine)) + 2 * Math.abs(coarse - fine) + (200 * EPS * scale) / (h / 2);
  if (Number.isNaN(g) && Number.isNaN(fine)) return undefined;
  if (Math.abs(g - fine) <= tol) return undefined;
  return `∂/∂(argument ${arg}, leaf ${k}): gradient ${g}, central differences ${fine} (step ${h / 2}), ${coarse} (step ${h}), tolerance ${tol}`;
}
