// Arrays as whole operations in taped mode (issue 24, item 1): `.map` and `.reduce` with an
// arithmetic callback, and tsad's sum, dot and prod, record ONE tape entry each, whatever the
// array's length; the backward pass applies it as one loop. Derivatives are checked against
// central finite differences (reverse, forward and second order), the cost against the tape's
// entry counter.
import { load, partial, directional, expectClose } from './harness';

const tsad = require('tsad') as { tsad$tape: { stats(): { nodes: number; edges: number }; entries(): number } };

const H = 1e-4;

/** The gradient of `f` with respect to its first argument's numbers, by central differences. */
const gradientFd = (f: (...a: any[]) => number, at: any[], size: number) => Array.from({ length: size }, (_, k) => partial(f, at, 0, k)[0]);

describe('a recursion over a Float64Array with map and reduce', () => {
  const { exports: m, result } = load(`import { grad, jvp, hvp, jacobian, linearize } from 'tsad';
/** @differentiable */
export function smooth(xs: Float64Array, w: number, depth: number): number {
  if (depth === 0) return xs.reduce((s, x) => s + x * x, 0);
  return smooth(xs.map((x) => Math.sin(x) * w + 0.1 * x), w, depth - 1);
}
/** @differentiable */
export function layers(xs: Float64Array, depth: number): number[] {
  if (depth === 0) return Array.from(xs);
  return layers(xs.map((x, i) => Math.tanh(x + 0.1 * i)), depth - 1);
}
export const dSmooth = grad(smooth, { wrt: [0, 1] });
export const pushSmooth = (xs: Float64Array, w: number, depth: number, dxs: Float64Array, dw: number) => jvp(smooth, [xs, w, depth], [dxs, dw, 0]);
export const hvSmooth = hvp(smooth);
export const jLayers = jacobian(layers);
export const linLayers = (xs: Float64Array, depth: number) => linearize(layers, xs, depth);
`);
  const at = (n: number) => Float64Array.from({ length: n }, (_, k) => Math.sin(1.3 * k + 0.4));

  test('builds, running taped', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
  });

  test('grad (with respect to the array and a captured weight) agrees with central differences', () => {
    for (const [n, depth] of [
      [0, 2],
      [1, 0],
      [5, 1],
      [7, 4],
    ]) {
      const xs = at(n);
      const [gx, gw] = m.dSmooth(xs, 0.8, depth);
      expect(gx).toBeInstanceOf(Float64Array);
      const plain = (a: number[], w: number) => m.smooth(Float64Array.from(a), w, depth);
      expectClose(Array.from(gx), gradientFd(plain, [Array.from(xs), 0.8], n));
      expectClose([gw], partial(plain, [Array.from(xs), 0.8], 1, 0));
    }
  });

  test('each level records ONE entry for its map and the base ONE for its reduce: entries n + depth + 2 for any n', () => {
    for (const n of [10, 100, 1000]) {
      for (const depth of [1, 5, 20]) {
        m.dSmooth(at(n), 0.8, depth);
        // n + 1 inputs (the array and w), one map per level, one reduce.
        expect(tsad.tsad$tape.entries()).toBe(n + 1 + depth + 1);
        // Each map's n nodes (an ID range) with two partials each (element, w); the reduce one node of n partials.
        expect(tsad.tsad$tape.stats()).toEqual({ nodes: n + 1 + depth * n + 1, edges: depth * 2 * n + n });
      }
    }
  });

  test('jvp (dual numbers) and hvp (forward over reverse) agree with central differences', () => {
    const n = 6;
    const xs = at(n);
    const dxs = Float64Array.from({ length: n }, (_, k) => Math.cos(k));
    const [v, t] = m.pushSmooth(xs, 0.8, 3, dxs, 0.5);
    expect(v).toBe(m.smooth(xs, 0.8, 3));
    const plain = (a: number[], w: number) => m.smooth(Float64Array.from(a), w, 3);
    expectClose([t], directional(plain, [Array.from(xs), 0.8], [Array.from(dxs), 0.5]));
    const hv = m.hvSmooth(xs, 0.8, 3, dxs);
    const gradAlong = (s: number) =>
      Array.from(
        m.dSmooth(
          Float64Array.from(xs, (x, k) => x + s * dxs[k]),
          0.8,
          3,
        )[0] as Float64Array,
      );
    const [up, down] = [gradAlong(H), gradAlong(-H)];
    expectClose(
      Array.from(hv as Float64Array),
      up.map((u, k) => (u - down[k]) / (2 * H)),
      1e-5,
    );
  });

  test('jacobian (backward passes) and linearize (a forward sweep) over map entries', () => {
    const n = 4;
    const xs = at(n);
    const J = m.jLayers(xs, 3);
    const plain = (a: number[]) => m.layers(Float64Array.from(a), 3);
    const columns = Array.from({ length: n }, (_, k) => partial(plain, [Array.from(xs)], 0, k));
    expectClose(J.flat(), Array.from({ length: n }, (_, r) => columns.map((c) => c[r])).flat());
    const [y, tangent] = m.linLayers(xs, 3);
    expect(y).toEqual(m.layers(xs, 3));
    const dxs = Float64Array.from({ length: n }, (_, k) => 1 - 0.3 * k);
    expectClose(tangent(dxs, 0), directional(plain, [Array.from(xs)], [Array.from(dxs)]));
  });
});

describe("tsad's sum, dot and prod, other arrays at the same index, and callbacks that stay per element", () => {
  const { exports: m, result } = load(`import { grad, sum, dot, prod } from 'tsad';
/** @differentiable */
export function energy(xs: number[], depth: number): number {
  if (depth === 0) return sum(xs) + 0.5 * dot(xs, xs) + prod(xs.map((x) => 1 + x * x));
  return energy(xs.map((x, i) => x + 0.01 * Math.cos(x) * i), depth - 1);
}
/** @differentiable */
export function horner(cs: number[], t: number, ys: number[]): number {
  if (cs.length === 0) return 0;
  const shifted = cs.map((c, i) => c * t - ys[i]);
  return shifted.reduce((acc, c) => acc * t + c) + horner(cs.slice(1), t, ys.slice(1));
}
/** @differentiable */
export function clipped(xs: number[], depth: number): number {
  if (depth === 0) return xs.reduce((s, x) => s + x);
  return clipped(xs.map((x) => (x > 0.5 ? 0.5 : x * 2)), depth - 1);
}
export const dEnergy = grad(energy);
export const dHorner = grad(horner, { wrt: [0, 1, 2] });
export const dClipped = grad(clipped);
`);
  const at = (n: number) => Array.from({ length: n }, (_, k) => 0.3 * Math.sin(1.3 * k + 0.4));

  test('builds: sum, dot and prod run taped (they were refused in taped code)', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
  });

  test('sum, dot and prod: gradient against central differences, one entry each', () => {
    for (const n of [1, 4, 9]) {
      const xs = at(n);
      const g = m.dEnergy(xs, 2);
      expectClose(g, gradientFd(m.energy, [xs, 2], n));
      // n inputs; two maps; at the base sum, dot, 0.5 · dot, the map inside prod, prod and two additions.
      expect(tsad.tsad$tape.entries()).toBe(n + 9);
    }
  });

  test('a fold with a captured number and a map reading another array at its index', () => {
    const cs = [0.5, -1.2, 2, 0.3];
    const ys = [0.1, 0.2, -0.3, 0.4];
    const [gc, gt, gy] = m.dHorner(cs, 0.7, ys);
    expectClose(gc, gradientFd(m.horner, [cs, 0.7, ys], 4));
    expectClose([gt], partial(m.horner, [cs, 0.7, ys], 1, 0));
    expectClose(
      gy,
      ys.map((_, k) => partial(m.horner, [cs, 0.7, ys], 2, k)[0]),
    );
  });

  test('a callback with a condition stays per element, and right', () => {
    const xs = [0.1, 0.4, 0.2, -0.3];
    expectClose(m.dClipped(xs, 2), gradientFd(m.clipped, [xs, 2], 4));
  });

  test('dot of arrays of different lengths is the RangeError of tsad’s dot', () => {
    const { exports: d } = load(`import { grad, dot } from 'tsad';
/** @differentiable */
export function f(a: number[], b: number[], n: number): number {
  return n === 0 ? dot(a, b) : f(a, b, n - 1);
}
export const df = grad(f);
`);
    expect(() => d.df([1, 2], [3], 1)).toThrow(RangeError);
  });
});

describe('dual numbers bind the runtime once', () => {
  test('a jvp of taped code evaluated while its module loads works (the binding precedes the module’s code)', () => {
    const { exports: m, result } = load(`import { jvp } from 'tsad';
/** @differentiable */
export function chain(x: number, n: number): number {
  return n === 0 ? x : Math.sin(chain(x, n - 1)) * x;
}
export const atLoad = jvp(chain, [0.7, 3], [1, 0]);
`);
    expect(result.outputText).toMatch(/const tsad\$Forward = tsad\$rt\.tsad\$tape\.Forward/);
    expect(m.atLoad[0]).toBe(m.chain(0.7, 3));
    expectClose([m.atLoad[1]], partial(m.chain, [0.7, 3], 0, 0));
  });
});
