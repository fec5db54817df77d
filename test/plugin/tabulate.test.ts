// What every run of an outer loop recomputes, computed once into a table before it
// (transformer/opt/tabulate.ts): GradBench gmm's `Math.exp(q[c·d + r])` inside the loop over the
// points. Programs where the rule fires and where it must not (an array written in the outer
// loop, an inner trip count that depends on the outer counter), at zero-trip outer and inner
// loops; values against the same source run as plain JavaScript, gradients against central
// differences. The work counter's side is test/opt/tabulate.test.ts.
import { expectClose, leaves, load, partial, runPlain } from './harness';

const SOURCE = `
export interface P { q: number[]; mu: number[] }

/** gmm's shape: exp(q) and Σ q depend on (c, r) only, the same for every point i. */
/** @differentiable */
export function mixture(p: P, x: number[], n: number, k: number, d: number): number {
  const z: number[] = [];
  for (let r = 0; r < d; r++) z.push(0);
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < k; c++) {
      let sumq = 0;
      for (let r = 0; r < d; r++) {
        sumq += p.q[c * d + r];
        z[r] = Math.exp(p.q[c * d + r]) * (x[i * d + r] - p.mu[c * d + r]);
      }
      let sq = 0;
      for (let r = 0; r < d; r++) sq += z[r] * z[r];
      total += Math.log(1 + sq) - sumq;
    }
  }
  return total;
}

/** A reduction from a start that is not 0: with no coordinate to run, each entry is the start. */
/** @differentiable */
export function products(p: P, x: number[], n: number, k: number, d: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < k; c++) {
      let s = 0.5 + p.mu[c];
      for (let r = 0; r < d; r++) s = s * (1 + p.q[c * d + r]);
      total += s * x[i];
    }
  }
  return total;
}

/** log(q) where q may hold a 0: with no point to run for, the gradient is 0, not 0·∞. */
/** @differentiable */
export function logs(p: P, n: number, k: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < k; c++) total += Math.log(p.q[c]) * p.mu[c] * (i + 1);
  }
  return total;
}

/** log(v) feeds a side of a select: it stays next to it, where T guards its backward code. */
/** @differentiable */
export function guarded(p: P, n: number, k: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < k; c++) {
      const v = p.q[c];
      const lg = Math.log(v);
      total += (v > 0 ? lg : 0) * p.mu[c] * (i + 1);
    }
  }
  return total;
}

/** The array the costly expression reads is written in the outer loop: no table. */
/** @differentiable */
export function written(p: P, n: number, k: number): number {
  const w = p.q.slice();
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < k; c++) total += Math.sin(w[c]) * p.mu[c];
    w[i % k] = w[i % k] * 0.5 + p.mu[i % k];
  }
  return total;
}

/** The inner trip count depends on the outer counter: the nest is not rectangular. */
/** @differentiable */
export function triangle(p: P, n: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < i; c++) total += Math.exp(p.q[c]) * p.mu[i];
  }
  return total;
}
`;

type P = { q: number[]; mu: number[] };
const seq = (len: number, f: (i: number) => number) => Array.from({ length: len }, (_, i) => f(i));

describe('tabulating what every run of an outer loop recomputes', () => {
  const { exports: m, result } = load(`${SOURCE}
import { valueAndGrad, hvp } from 'tsad';
export const hvpMixture = hvp(mixture);
export const vgMixture = valueAndGrad(mixture);
export const vgLogs = valueAndGrad(logs);
export const vgProducts = valueAndGrad(products);
export const vgGuarded = valueAndGrad(guarded);
export const vgWritten = valueAndGrad(written);
export const vgTriangle = valueAndGrad(triangle);`);
  const plain = runPlain(SOURCE);

  test('builds', () => expect(result.messages).toEqual([]));

  /** Value against plain JavaScript, gradient against central differences (and never NaN). */
  const check = (name: string, vg: (...a: any[]) => [number, P], args: () => [P, ...unknown[]]) => {
    const [value, g] = vg(...args());
    expect(value).toBeCloseTo(plain[name](...args()), 10);
    const f = (...a: any[]) => plain[name](...a) as number;
    const at = args();
    const fd = leaves(at[0]).map((_x, k) => partial(f, at as any, 0, k)[0]);
    const got = leaves(g as any);
    for (const v of got) expect(Number.isNaN(v)).toBe(false);
    expectClose(got, fd, 1e-5);
  };

  const point = (k: number, d: number): P => ({ q: seq(k * d, (i) => 0.3 * Math.sin(i + 1)), mu: seq(k * d, (i) => 0.2 * Math.cos(2 * i)) });
  const xs = (n: number, d: number) => seq(n * d, (i) => Math.sin(0.7 * i));

  test.each([
    [5, 3, 2],
    [1, 3, 2],
    [0, 3, 2],
    [4, 0, 2],
    [4, 3, 0],
  ])('mixture (the rule fires) at n=%p k=%p d=%p', (n, k, d) => {
    check('mixture', m.vgMixture, () => [point(k, d), xs(n, d), n, k, d]);
  });

  test('hvp through the tables equals central differences of the gradient', () => {
    const [n, k, d] = [4, 3, 2];
    const p0 = point(k, d);
    const v: P = { q: seq(k * d, (i) => 0.5 - 0.1 * i), mu: seq(k * d, (i) => 0.3 * Math.sin(i)) };
    const at = (s: number): P => ({ q: p0.q.map((x, i) => x + s * v.q[i]), mu: p0.mu.map((x, i) => x + s * v.mu[i]) });
    const h = 1e-5;
    const up = leaves(m.vgMixture(at(h), xs(n, d), n, k, d)[1]);
    const down = leaves(m.vgMixture(at(-h), xs(n, d), n, k, d)[1]);
    expectClose(
      leaves(m.hvpMixture(p0, xs(n, d), n, k, d, v)),
      up.map((u, i) => (u - down[i]) / (2 * h)),
      1e-5,
    );
  });

  test.each([
    [4, 3, 2],
    [4, 3, 0],
    [0, 3, 2],
  ])('products (a reduction from 0.5 + μ_c) at n=%p k=%p d=%p', (n, k, d) => {
    check('products', m.vgProducts, () => [{ q: seq(k * d, (i) => 0.2 * Math.cos(i)), mu: seq(Math.max(k, k * d), (i) => 0.1 * i) }, xs(n, 1), n, k, d]);
  });

  test.each([
    [3, 2],
    [0, 2],
    [3, 0],
  ])('logs at n=%p k=%p, with a zero in q where no point runs it', (n, k) => {
    const at = (): [P, number, number] => [{ q: seq(k, (i) => 0.5 + i), mu: seq(k, (i) => 1 - 0.25 * i) }, n, k];
    check('logs', m.vgLogs, at);
    if (n === 0) {
      // ∂/∂q of log at 0 is infinite: the table must not be built when no point runs.
      const [, g] = m.vgLogs({ q: [0, 1], mu: [1, 2] }, 0, 2);
      expect(leaves(g as any)).toEqual([0, 0, 0, 0]);
    }
  });

  test('guarded: a costly value feeding a side of a select is not tabulated (no 0·∞ at log 0)', () => {
    const n = 3;
    const [value, g] = m.vgGuarded({ q: [0, 2], mu: [1.5, 0.5] }, n, 2);
    expect(value).toBeCloseTo(plain.guarded({ q: [0, 2], mu: [1.5, 0.5] }, n, 2), 12);
    // Σ_i (i + 1) = 6: ∂/∂q = [0, 6·0.5/2], ∂/∂μ = [0, 6·log 2] (leaves sorted: mu, q).
    expectClose(leaves(g as any), [0, 6 * Math.log(2), 0, 1.5], 1e-12);
  });

  test.each([
    [5, 3],
    [0, 3],
  ])('written (an array written in the loop: no table) at n=%p k=%p', (n, k) => {
    check('written', m.vgWritten, () => [{ q: seq(k, (i) => 0.4 + 0.3 * i), mu: seq(k, (i) => 0.1 * i - 0.2) }, n, k]);
  });

  test.each([[5], [0], [1]])('triangle (an inner trip count that depends on i) at n=%p', (n) => {
    check('triangle', m.vgTriangle, () => [{ q: seq(Math.max(n, 1), (i) => 0.1 * i), mu: seq(Math.max(n, 1), (i) => 0.5 - 0.2 * i) }, n]);
  });
});
