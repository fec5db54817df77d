// A map whose callback reads a neighbour under a bounds guard, `x.map((v, i) => (i + 1 < x.length ?
// v * x[i + 1] : v))`, never reads x[x.length] in JavaScript; every transform threw "gather:
// x_index[2] = 3 is not an index of x (length 3)" (fuzz24-findings G1): the map's gather of x at
// i + 1 runs, and is checked, for every i. The loop and reduce forms of the same sum work and are
// the reference here, with hand derivations: f = Σ_{i < n−1} x_i·x_{i+1} + x_{n−1}, so
// ∂f/∂x_i = x_{i+1}·[i < n−1] + x_{i−1}·[i > 0] + [i = n−1] and H = the off-diagonal ones.
// The map cases were test.failing on main; since s15 the gather reads leniently where the test
// fails and the read's own check stays in the callback under its test (so a test that lets the
// read go past the end still throws: wideGuard). A guard on a zipped array (otherArray) is open.
import { load } from './harness';

const { exports: m } = load(`
import { grad, valueAndGrad, hessian } from 'tsad';
/** @differentiable */
export function viaMap(x: Float64Array): number {
  const y = x.map((v, i) => (i + 1 < x.length ? v * x[i + 1] : v));
  let s = 0;
  for (let i = 0; i < y.length; i++) s += y[i];
  return s;
}
/** @differentiable */
export function viaLoop(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += i + 1 < x.length ? x[i] * x[i + 1] : x[i];
  return s;
}
/** @differentiable */
export function viaReduce(x: Float64Array): number {
  return x.reduce((s, v, i) => s + (i + 1 < x.length ? v * x[i + 1] : v), 0);
}
/** @differentiable */
export function otherArray(x: Float64Array, w: Float64Array): number {
  const y = x.map((v, i) => (i < w.length ? v * w[i] : v));
  let s = 0;
  for (let i = 0; i < y.length; i++) s += y[i];
  return s;
}
/** @differentiable */
export function wideGuard(x: Float64Array, k: number): number {
  const y = x.map((v, i) => (i < k ? v * x[i + 1] : v));
  let s = 0;
  for (let i = 0; i < y.length; i++) s += y[i];
  return s;
}
export const otherVg = valueAndGrad(otherArray, { wrt: [0, 1] });
export const wide = { vg: valueAndGrad(wideGuard), g: grad(wideGuard), h: hessian(wideGuard) };
export const T = {
  viaMap: { vg: valueAndGrad(viaMap), g: grad(viaMap), h: hessian(viaMap) },
  viaLoop: { vg: valueAndGrad(viaLoop), g: grad(viaLoop), h: hessian(viaLoop) },
  viaReduce: { vg: valueAndGrad(viaReduce), g: grad(viaReduce), h: hessian(viaReduce) },
};
`);

const x = () => Float64Array.from([1, 2, 3]);
const expected: Record<string, unknown> = {
  vg: [11, [2, 4, 3]],
  g: [2, 4, 3],
  h: [
    [0, 1, 0],
    [1, 0, 1],
    [0, 1, 0],
  ],
};
const norm = (o: unknown): unknown => (typeof o === 'number' ? Number(o.toPrecision(12)) : ArrayBuffer.isView(o) || Array.isArray(o) ? Array.from(o as ArrayLike<unknown>, norm) : o);

describe('a neighbour read under a bounds guard', () => {
  test('plain JavaScript reads no missing element', () => {
    const a = [1, 2, 3];
    expect(a.map((v, i) => (i + 1 < a.length ? v * a[i + 1] : v)).reduce((s, v) => s + v, 0)).toBe(11);
  });
  for (const form of ['viaLoop', 'viaReduce']) {
    test.each(Object.keys(expected))(`${form}: %s`, (k) => {
      expect(norm(m.T[form][k](x()))).toEqual(norm(expected[k]));
    });
  }
  // Another array under the guard: JS reads w[0] and w[1] only: f = 1·5 + 2·6 + 3 = 20,
  // ∂f/∂x = [5, 6, 1], ∂f/∂w = [1, 2].
  test.failing('a guard on another array: valueAndGrad (G1)', () => {
    expect(norm(m.otherVg(Float64Array.from([1, 2, 3]), Float64Array.from([5, 6])))).toEqual([
      20,
      [
        [5, 6, 1],
        [1, 2],
      ],
    ]);
  });
  test.each(Object.keys(expected))('viaMap: %s (G1)', (k) => {
    expect(norm(m.T.viaMap[k](x()))).toEqual(norm(expected[k]));
  });
  // A test that lets the read past the end (k = 3 on 3 elements: JavaScript reads x[3], NaN):
  // the check kept under the test throws; k = 2 reads x[1] and x[2] only, as viaMap.
  test.each(Object.keys(expected))('wideGuard: %s', (k) => {
    expect(norm(m.wide[k](x(), 2))).toEqual(norm(expected[k]));
    expect(Number.isNaN(m.wideGuard(x(), 3))).toBe(true);
    expect(() => m.wide[k](x(), 3)).toThrow(RangeError);
    expect(() => m.wide[k](x(), 3)).toThrow(/reads 'x\[i \+ 1\]' past its end/);
  });
});
