// Accumulations into a loop-carried cotangent array (issue 22): `x̄[j] += y` in a backward loop
// runs in place only on an array the call owns, densely (constructs/array/accum.ts). A loop that
// threads its carried cotangent only through accumulations makes it owned once, before the loop
// (opt/ownedChains.ts), and its body then updates it with a plain `x̄[j] += y`: no ownership check
// per iteration. These tests count the checks left inside loops of the emitted gradient, and check
// the cases a wrong ownership proof would break (a caller's cotangent buffer, loops run zero times,
// nested loops, second order, two loops feeding one cotangent) against central differences, the
// same source run as plain JavaScript, and the dot-product test ⟨J ẋ, ȳ⟩ = ⟨ẋ, Jᵀ ȳ⟩.
import * as ts from 'typescript';
import { load, partial, expectClose, runPlain } from './harness';
import { countInLoops } from './emittedLoops';

const functions = `
/** @differentiable */
export function llsq(x: Float64Array, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const t = -1 + (i * 2) / (n - 1);
    let r = Math.sign(t);
    let p = 1;
    for (let j = 0; j < x.length; j++) {
      r -= x[j] * p;
      p *= t;
    }
    sum += r * r;
  }
  return sum / 2;
}

export interface Mixture {
  alpha: Float64Array;
  mu: Float64Array;
  q: Float64Array;
  l: Float64Array;
}

/** @differentiable */
export function mixture(p: Mixture, x: Float64Array, d: number, k: number, n: number): number {
  const lsz = (d * (d - 1)) / 2;
  const beta = new Float64Array(k);
  const z = new Float64Array(d);
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < k; c++) {
      let sumq = 0;
      for (let r = 0; r < d; r++) {
        sumq += p.q[c * d + r];
        z[r] = Math.exp(p.q[c * d + r]) * (x[i * d + r] - p.mu[c * d + r]);
      }
      let li = c * lsz;
      for (let col = 0; col < d; col++) {
        for (let r = col + 1; r < d; r++) {
          z[r] += p.l[li] * (x[i * d + col] - p.mu[c * d + col]);
          li++;
        }
      }
      let sq = 0;
      for (let r = 0; r < d; r++) sq += z[r] * z[r];
      beta[c] = p.alpha[c] + sumq - 0.5 * sq;
    }
    let bmax = -Infinity;
    for (let c = 0; c < k; c++) bmax = Math.max(bmax, beta[c]);
    let bsum = 0;
    for (let c = 0; c < k; c++) bsum += Math.exp(beta[c] - bmax);
    total += bmax + Math.log(bsum);
  }
  let frob = 0;
  for (let j = 0; j < k * d; j++) frob += Math.exp(2 * p.q[j]);
  for (let j = 0; j < k * lsz; j++) frob += p.l[j] * p.l[j];
  return total - 0.5 * frob;
}

/** @differentiable */
export function triangle(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = 0; j < i; j++) s += x[j] * Math.sin(x[i - j - 1]);
  }
  return s;
}

/** @differentiable */
export function twoLoops(x: Float64Array, w: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += w[i] * x[i];
  let t = 0;
  for (let i = 0; i < x.length; i++) t += x[i] * x[i] * w[i];
  return s * t + (x.length > 0 ? x[0] : 0);
}

/** @differentiable */
export function prefix(x: Float64Array): Float64Array {
  const y = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) y[i] = x[i];
  for (let i = 1; i < y.length; i++) y[i] += 2 * y[i - 1];
  return y;
}

/** @differentiable */
export function spread(x: Float64Array, m: number): Float64Array {
  const y = new Float64Array(m);
  for (let i = 0; i < x.length; i++) {
    for (let j = 0; j < m; j++) y[j] += x[i] * (j + 1) * x[(i + j) % x.length];
  }
  return y;
}
`;

const source = `
import { grad, vjp, jvp, hvp } from 'tsad';
${functions}
export const gLlsq = grad(llsq);
export const gMixture = grad(mixture);
export const gTriangle = grad(triangle);
export const gTwoLoops = grad(twoLoops, { wrt: [0, 1] });
export const hvpLlsq = hvp(llsq);
export const hvpTriangle = hvp(triangle);
export const vjpPrefix = (x: Float64Array) => vjp(prefix, x);
export const jvpPrefix = (x: Float64Array, dx: Float64Array) => jvp(prefix, [x], [dx]);
export const vjpSpread = (x: Float64Array, m: number) => vjp(spread, x, m);
export const jvpSpread = (x: Float64Array, m: number, dx: Float64Array) => jvp(spread, [x, m], [dx, 0]);
`;

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 0.9;
const vec = (n: number, seed: number) => Float64Array.from({ length: n }, (_, i) => rand(seed + 7 * i));

/** `$own.has` calls (the ownership check of an in-place update) inside a loop of the named emitted function. */
function checksInLoops(outputText: string, fn: string): number {
  return countInLoops(outputText, fn, (node, file) => ts.isCallExpression(node) && node.expression.getText(file) === '$own.has');
}

/** Central differences of a scalar function of one array. */
const fdGrad = (f: (x: number[]) => number, x: Float64Array): number[] => Array.from(x, (_, k) => partial((v: number[]) => f(v), [Array.from(x)], 0, k)[0]);

describe('accumulations into a loop-carried cotangent: owned once before the loop', () => {
  const { exports: m, result } = load(source);
  const plain = runPlain(functions);

  test('llsq: no ownership check inside the loops of the gradient', () => {
    expect(checksInLoops(result.outputText, 'llsq$grad')).toBe(0);
  });

  test('a Gaussian-mixture objective: no ownership check inside the loops of the gradient', () => {
    expect(checksInLoops(result.outputText, 'mixture$grad')).toBe(0);
  });

  test.each([
    [5, 4],
    [0, 3],
    [3, 0],
    [1, 1],
    [2, 1],
  ])('llsq at n = %i, x of length %i: central differences', (n, len) => {
    const x = vec(len, 1);
    expectClose(
      Array.from(m.gLlsq(x, n) as Float64Array),
      fdGrad((v) => plain.llsq(Float64Array.from(v), n), x),
    );
  });

  test.each([
    [3, 2, 4],
    [1, 1, 1],
    [2, 3, 0],
    [0, 2, 3],
    [2, 0, 3],
  ])('mixture at d = %i, k = %i, n = %i: central differences in every parameter', (d, k, n) => {
    const lsz = (d * (d - 1)) / 2;
    const p = { alpha: vec(k, 2), mu: vec(k * d, 3), q: vec(k * d, 4), l: vec(k * lsz, 5) };
    const x = vec(n * d, 6);
    const g = m.gMixture(p, x, d, k, n);
    for (const key of ['alpha', 'mu', 'q', 'l'] as const) {
      expectClose(
        Array.from(g[key] as Float64Array),
        fdGrad((v) => plain.mixture({ ...p, [key]: Float64Array.from(v) }, x, d, k, n), p[key]),
      );
    }
  });

  test.each([0, 1, 2, 6])('nested loops whose inner loop runs zero times on the first pass, size %i', (len) => {
    const x = vec(len, 8);
    expectClose(
      Array.from(m.gTriangle(x) as Float64Array),
      fdGrad((v) => plain.triangle(Float64Array.from(v)), x),
    );
  });

  test.each([0, 1, 5])('two loops accumulating into one cotangent, size %i', (len) => {
    const x = vec(len, 9);
    const w = vec(len, 10);
    const [gx, gw] = m.gTwoLoops(x, w);
    expectClose(
      Array.from(gx as Float64Array),
      fdGrad((v) => plain.twoLoops(Float64Array.from(v), w), x),
    );
    expectClose(
      Array.from(gw as Float64Array),
      fdGrad((v) => plain.twoLoops(x, Float64Array.from(v)), w),
    );
  });

  test.each([
    ['llsq', 4],
    ['triangle', 5],
  ])('second order: hvp(%s) is central differences of the gradient (size %i)', (name, len) => {
    const x = vec(len, 11);
    const v = vec(len, 12);
    const g = name === 'llsq' ? (y: Float64Array) => m.gLlsq(y, 6) : (y: Float64Array) => m.gTriangle(y);
    const hv = name === 'llsq' ? m.hvpLlsq(x, 6, v) : m.hvpTriangle(x, v);
    const h = 1e-5;
    const up = g(Float64Array.from(x, (xi, i) => xi + h * v[i]));
    const down = g(Float64Array.from(x, (xi, i) => xi - h * v[i]));
    expectClose(
      Array.from(hv as Float64Array),
      Array.from(up as Float64Array, (u, i) => (u - (down as Float64Array)[i]) / (2 * h)),
      1e-5,
    );
  });

  test.each([0, 1, 2, 5])("a pullback leaves the caller's cotangent buffer as it was (prefix, size %i), and passes the dot-product test", (len) => {
    const x = vec(len, 13);
    const ct = vec(len, 14);
    const before = Array.from(ct);
    const [value, pull] = m.vjpPrefix(x);
    expect(Array.from(value as Float64Array)).toEqual(Array.from(plain.prefix(x) as Float64Array));
    const [xBar1] = pull(ct);
    expect(Array.from(ct)).toEqual(before);
    const [xBar2] = pull(ct);
    expect(Array.from(xBar2 as Float64Array)).toEqual(Array.from(xBar1 as Float64Array));
    expect(Array.from(ct)).toEqual(before);
    // ⟨J ẋ, ȳ⟩ = ⟨ẋ, Jᵀ ȳ⟩
    const dx = vec(len, 15);
    const [, yDot] = m.jvpPrefix(x, dx);
    const left = Array.from(yDot as Float64Array).reduce((s, y, i) => s + y * ct[i], 0);
    const right = Array.from(xBar1 as Float64Array).reduce((s, b, i) => s + b * dx[i], 0);
    expectClose([left], [right], 1e-12);
  });

  test.each([
    [3, 4],
    [1, 2],
    [0, 3],
    [4, 0],
  ])("a nested accumulation into a result's cotangent: the caller's buffer stays, dot-product test (x of %i, m = %i)", (len, size) => {
    const x = vec(len, 16);
    const ct = vec(size, 17);
    const before = Array.from(ct);
    const [, pull] = m.vjpSpread(x, size);
    const [xBar] = pull(ct);
    expect(Array.from(ct)).toEqual(before);
    const dx = vec(len, 18);
    const [, yDot] = m.jvpSpread(x, size, dx);
    const left = Array.from(yDot as Float64Array).reduce((s, y, i) => s + y * ct[i], 0);
    const right = Array.from(xBar as Float64Array).reduce((s, b, i) => s + b * dx[i], 0);
    expectClose([left], [right], 1e-12);
    expectClose(
      Array.from(xBar as Float64Array),
      Array.from(x, (_, k) => {
        const up = plain.spread(
          Float64Array.from(x, (v: number, i: number) => (i === k ? v + 1e-5 : v)),
          size,
        ) as Float64Array;
        const down = plain.spread(
          Float64Array.from(x, (v: number, i: number) => (i === k ? v - 1e-5 : v)),
          size,
        ) as Float64Array;
        return Array.from(up).reduce((s, u, i) => s + ((u - down[i]) / 2e-5) * ct[i], 0);
      }),
    );
  });
});
