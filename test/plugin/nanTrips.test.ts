// A counted loop `for (let r = 0; r < d; r++)` runs no iteration in JavaScript when d is NaN (the
// test `r < NaN` is false at once), but the check of its trip count against the length of an
// array it reads at r, `atmost(d, x.length)`, fails on NaN, so every transform threw
// `RangeError … past its end (NaN > 2)` (fuzz13-findings P4). The check now holds only where the
// loop runs (frontend/loops.ts checkedTrips, as readChecks.ts places its own): the derivative is
// that of what follows the loop, checked against central differences of the plain source; a count
// past the end (a number, or ∞) still throws.
import { expectClose, load, partial, runPlain } from './harness';

const source = `import { grad, valueAndGrad, hessian, hvp, vjp, jvp } from 'tsad';
/** @differentiable */
export function f(w: Float64Array, d: number): number {
  let s = 0;
  for (let r = 0; r < d; r++) s += w[r] * w[r];
  return s + w[0] * w[1] * w[1];
}
/** @differentiable */
export function two(w: Float64Array, v: Float64Array, d: number): number {
  let s = w[0];
  for (let r = 0; r < d; r++) s = s * v[r] + w[r];
  return s * w[1];
}
/** @differentiable */
export function rows(m: number[][], w: Float64Array, d: number): number {
  let s = 0;
  for (let i = 0; i < d; i++) s += m[i][1] * w[0];
  return s + w[0] * w[1];
}
/** @differentiable */
export function nested(w: Float64Array, n: number, d: number): number {
  let s = 0;
  for (let k = 0; k < n; k++) {
    s += w[k] * 0.5;
    for (let r = 0; r < d; r++) s += w[r] * w[k];
  }
  return s + w[1] * w[1];
}
export const fg = grad(f);
export const fvg = valueAndGrad(f, { wrt: [0, 1] });
export const fh = hessian(f);
export const fhvp = hvp(f);
export const fvjp = (w: Float64Array, d: number) => vjp(f, w, d)[1](1);
export const fjvp = (w: Float64Array, d: number, dw: Float64Array) => jvp(f, [w, d], [dw, 0]);
export const twog = grad(two, { wrt: [0, 1] });
export const twoh = hessian(two);
export const rowsg = grad(rows, { wrt: [1] });
export const nestedg = grad(nested);
export const nestedh = hessian(nested);
`;

const f64 = (xs: number[]) => Float64Array.from(xs);
const flat = (v: unknown): number[] => (typeof v === 'number' ? [v] : Array.from(v as ArrayLike<unknown>).flatMap(flat));

const m = load(source).exports;
const plain = runPlain(source.replace(/^import .*$/m, 'const id = (f) => f, grad = id, valueAndGrad = id, hessian = id, hvp = id, vjp = id, jvp = id;'));

/** Central differences in each leaf of argument i (an array of numbers). */
const fd = (fn: (...a: any[]) => unknown, at: any[], i: number): number[] => at[i].flatMap((_: number, k: number) => partial(fn as never, at, i, k));

describe('a counted loop whose trip count is NaN runs no iteration, as in JavaScript', () => {
  const w = [0.5, 2];

  test('grad, valueAndGrad, hessian, hvp, vjp, jvp', () => {
    const at = [w, NaN];
    const expected = fd(plain.f, at, 0);
    expect(expected.every(Number.isFinite)).toBe(true);
    expectClose(flat(m.fg(f64(w), NaN)), expected);
    const [value, [wBar, dBar]] = m.fvg(f64(w), NaN);
    expect(value).toBe(plain.f(f64(w), NaN));
    expectClose(flat(wBar), expected);
    // d's derivative: the loop never runs, so nothing depends on d.
    expect(dBar).toBe(0);
    expectClose(flat(m.fvjp(f64(w), NaN)[0]), expected);
    // The Hessian: central differences of the gradient (the loop's part is gone).
    const hess = fd((x: number[]) => flat(m.fg(f64(x), NaN)), [w], 0);
    expectClose(flat(m.fh(f64(w), NaN)), hess, 1e-5);
    const v = [1, -0.5];
    expectClose(
      flat(m.fhvp(f64(w), NaN, f64(v))),
      [0, 1].map((r) => v.reduce((s, vk, k) => s + hess[k * 2 + r] * vk, 0)),
      1e-5,
    );
    const [y, tangent] = m.fjvp(f64(w), NaN, f64(v));
    expect(y).toBe(plain.f(f64(w), NaN));
    expectClose([tangent], [expected[0] * v[0] + expected[1] * v[1]]);
  });

  test('two arrays read at the counter', () => {
    const at = [w, [3, 4], NaN];
    expectClose(flat(m.twog(f64(w), f64([3, 4]), NaN)), [...fd(plain.two, at, 0), ...fd(plain.two, at, 1)]);
    const hess = fd((x: number[]) => flat(m.twog(f64(x), f64([3, 4]), NaN)).slice(0, 2), [w, [3, 4]], 0);
    expectClose(flat(m.twoh(f64(w), f64([3, 4]), NaN)), hess, 1e-5);
  });

  test("a matrix's rows read at the counter", () => {
    const mat = [
      [1, 2],
      [3, 4],
    ];
    expectClose(flat(m.rowsg(mat, f64(w), NaN)), fd(plain.rows, [mat, w, NaN], 1));
  });

  test('an inner loop with a NaN count in an outer loop that runs', () => {
    const at = [[0.5, 2, -1], 3, NaN];
    expectClose(flat(m.nestedg(f64(at[0] as number[]), 3, NaN)), fd(plain.nested, at, 0));
    const hess = fd((x: number[]) => flat(m.nestedg(f64(x), 3, NaN)), [at[0]], 0);
    expectClose(flat(m.nestedh(f64(at[0] as number[]), 3, NaN)), hess, 1e-5);
  });

  test('a count past the end still throws, a count at or below 0 runs none', () => {
    for (const d of [3, 2.5, Infinity]) {
      expect(() => m.fg(f64(w), d)).toThrow(RangeError);
      expect(() => m.fg(f64(w), d)).toThrow(`reads 'w[i]' past its end (${d} > 2)`);
      expect(() => m.nestedg(f64(w), 1, d)).toThrow(RangeError);
      expect(() => m.rowsg([[1, 2]], f64(w), d)).toThrow(RangeError);
    }
    for (const d of [0, -1, -Infinity, 2, 1.5]) expectClose(flat(m.fg(f64(w), d)), fd(plain.f, [w, d], 0));
  });
});
