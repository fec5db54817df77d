// More stress for s11's rules: writes the same element from an inner loop (distinct per inner
// run, repeated across the outer), a read of an element the loop itself writes (must not leave
// the loop), two loops adding into one fresh array, strided and conditional writes, tuples
// swapped and reassigned, and a gradient of an array function taken inside a loop of another
// (the slab pool re-entered). Each against central differences at sizes 0 to 7.
import { load, partial, expectClose } from './harness';

const functions = `
/** @differentiable */
export function rowSums(x: Float64Array): number {
  const n = x.length;
  const g = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) g[j] += x[i] * Math.sin(x[j] + i);
  }
  let s = 0;
  for (let j = 0; j < n; j++) s += g[j] * g[j];
  return s;
}

/** @differentiable */
export function selfRead(x: Float64Array): number {
  const n = x.length;
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] = x[i] + 1;
  for (let i = 0; i < n; i++) y[i] = y[0] * x[i] + y[i];
  let s = 0;
  for (let i = 0; i < n; i++) s += y[i] * (i + 1);
  return s;
}

/** @differentiable */
export function selfReadLast(x: Float64Array): number {
  const n = x.length;
  const y = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    y[i + 1] = y[i] * 0.5 + x[i] * y[n];
    y[n] += x[i];
  }
  let s = 0;
  for (let i = 0; i <= n; i++) s += Math.sin(y[i]);
  return s;
}

/** @differentiable */
export function twoLoopsOneArray(x: Float64Array): number {
  const n = x.length;
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] += x[i] * x[i];
  for (let i = 0; i < n; i++) y[i] += Math.exp(x[n - 1 - i]);
  let s = 0;
  for (let i = 0; i < n; i++) s += y[i] * y[i];
  return s;
}

/** @differentiable */
export function strided(x: Float64Array): number {
  const n = x.length;
  const y = new Float64Array(n);
  for (let i = 0; i < n; i += 2) y[i] += x[i] * 3;
  for (let i = 1; i < n; i += 2) y[i] += x[i] * x[i - 1];
  for (let i = 0; i < n; i++) if (x[i] > 0) y[i] += x[i];
  let s = 0;
  for (let i = 0; i < n; i++) s += y[i] * y[i] + y[i];
  return s;
}

/** @differentiable */
export function breaks(x: Float64Array): number {
  const n = x.length;
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (i > 4) break;
    if (x[i] < -0.5) continue;
    y[i] += x[i] * x[i];
  }
  let s = 0;
  for (let i = n - 1; i >= 0; i--) s = s * 0.9 + y[i];
  return s;
}

/** @differentiable */
export function swaps(x: Float64Array): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < x.length; i++) {
    [a, b] = [b + x[i] * a, a];
    if (x[i] > 0.3) [a, b] = [b, a];
  }
  const p: [number, number] = [a, b];
  const q = p;
  return q[0] * q[1] + a;
}

/** @differentiable */
export function sameIndex(x: Float64Array): number {
  const n = x.length;
  const y = new Float64Array(n + 2);
  for (let i = 0; i < n; i++) y[1] += x[i] * x[i];
  for (let i = 0; i < n; i++) y[i - i + n] += Math.sin(x[i]);
  let s = 0;
  for (let i = 0; i < n + 2; i++) s += y[i] * y[i];
  return s;
}

/** @differentiable */
export function sameRead(x: Float64Array): number {
  let s = 0.5;
  for (let i = 0; i + 1 < x.length; i++) s = Math.sin(s * x[i - i + 1]) + i * 0.25;
  return s;
}

/** @differentiable */
export function inner(v: Float64Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i] * v[i];
  return s;
}

/** @differentiable */
export function outer(x: Float64Array): number {
  const n = x.length;
  const v = new Float64Array(n);
  for (let i = 0; i < n; i++) v[i] = Math.sin(x[i]);
  let s = 0;
  for (let k = 0; k < n; k++) s += inner(v) * x[k];
  return s;
}

/** @differentiable */
export function whileSlots(x: Float64Array, c: number): number {
  let i = 0;
  let s = c;
  let up = true;
  let big = false;
  while (i < x.length) {
    if (up) {
      s = s + x[i] * c;
      big = s > 1;
    } else if (big) {
      s = s * x[i];
      big = false;
    } else {
      s = s - x[i] * x[i];
    }
    up = !up;
    i++;
  }
  return big ? s * c : s + c;
}
`;

const source = `
import { grad, hvp, jvp } from 'tsad';
${functions}
export const g: Record<string, (x: Float64Array) => Float64Array> = {
  rowSums: grad(rowSums),
  selfRead: grad(selfRead),
  selfReadLast: grad(selfReadLast),
  twoLoopsOneArray: grad(twoLoopsOneArray),
  strided: grad(strided),
  breaks: grad(breaks),
  swaps: grad(swaps),
  outer: grad(outer),
  sameIndex: grad(sameIndex),
  sameRead: grad(sameRead),
};
const gInner = grad(inner);
/** @differentiable */
export function nestedGrad(x: Float64Array): number {
  let s = 0;
  for (let k = 0; k < x.length; k++) {
    const d = gInner(x);
    s += d[k] * x[k];
  }
  return s;
}
export const jNested = (x: Float64Array, v: Float64Array) => jvp(nestedGrad, [x], [v]);
export const gWhile = grad(whileSlots, { wrt: [0, 1] });
export const f: Record<string, (...a: any[]) => number> = { rowSums, selfRead, selfReadLast, twoLoopsOneArray, strided, breaks, swaps, outer, nestedGrad, whileSlots, sameIndex, sameRead };
export const hv = { rowSums: hvp(rowSums), selfRead: hvp(selfRead), strided: hvp(strided), selfReadLast: hvp(selfReadLast) };
`;

const { exports: m } = load(source);
const rand = (k: number) => Math.sin(12.9898 * k + 1) * 0.9;
const vec = (n: number, seed: number) => Float64Array.from({ length: n }, (_, i) => rand(seed + 7 * i));
const asF =
  (fn: (...a: any[]) => any) =>
  (...a: any[]) =>
    fn(...a.map((v) => (Array.isArray(v) ? Float64Array.from(v) : v)));
const fdGrad = (fn: (...a: any[]) => number, x: Float64Array): number[] => Array.from(x, (_, k) => partial(asF(fn), [Array.from(x)], 0, k)[0]);

describe('more loop gradients against central differences', () => {
  for (const name of Object.keys(m.g)) {
    test(name, () => {
      const gr = m.g[name];
      for (let n = 0; n <= 7; n++) {
        for (const seed of [1, 5, 9]) {
          const x = vec(n, seed * 13 + n);
          expectClose(Array.from(gr(x) as Float64Array), fdGrad(m.f[name], x), 1e-5);
        }
      }
    });
  }
  test('a while loop whose flags share number slots', () => {
    for (let n = 0; n <= 7; n++) {
      for (const c of [0.9, -0.6, 1.7]) {
        const x = vec(n, 3 * n + 1);
        const [gx, gc] = m.gWhile(x, c);
        const F = asF(m.f.whileSlots);
        expectClose(
          Array.from(gx as Float64Array),
          Array.from(x, (_, k) => partial(F, [Array.from(x), c], 0, k)[0]),
          1e-5,
        );
        expectClose([gc], partial(F, [Array.from(x), c], 1, 0), 1e-5);
      }
    }
  });
  test('jvp of a function that calls a gradient in its loop (the pool re-entered)', () => {
    for (let n = 0; n <= 6; n++) {
      const x = vec(n, 5 + n);
      const v = vec(n, 50 + n);
      const [y, t] = m.jNested(x, v);
      expectClose([y], [Array.from(x).reduce((a, xi) => a + 3 * xi * xi * xi, 0)], 1e-12);
      expectClose([t], [Array.from(x).reduce((a, xi, i) => a + 9 * xi * xi * v[i], 0)], 1e-9);
    }
  });
  test('hvp against differences of the gradient', () => {
    const h = 1e-6;
    for (const name of Object.keys(m.hv)) {
      for (const n of [0, 1, 2, 5]) {
        const x = vec(n, 40 + n);
        const v = vec(n, 90 + n);
        const up: Float64Array = m.g[name](Float64Array.from(x, (xi, i) => xi + h * v[i]));
        const down: Float64Array = m.g[name](Float64Array.from(x, (xi, i) => xi - h * v[i]));
        expectClose(
          Array.from(m.hv[name](x, v) as Float64Array),
          Array.from(up, (u, i) => (u - down[i]) / (2 * h)),
          1e-5,
        );
      }
    }
  });
});
