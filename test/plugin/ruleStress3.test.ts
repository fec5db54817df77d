// The slab pool (runtime/emitted.ts) under calls that leave stale numbers in a reused chunk: a
// loop that breaks early after a call that ran it to the end, a while loop's tape grown past a
// reserved stack, a pullback kept while other derivatives reuse the pool, and a custom rule whose
// backward calls a gradient (a derivative inside another's evaluation). Against central
// differences or a fresh module's numbers.
import { load, partial, expectClose } from './harness';

const source = `
import { grad, vjp, derivative } from 'tsad';

/** @differentiable */
export function breaksLate(x: Float64Array, c: number): number {
  let s = c;
  for (let i = 0; i < x.length; i++) {
    s = Math.sin(s) * x[i] + s * s * 0.1;
    if (s > c) break;
  }
  return s;
}

/** @differentiable */
export function whileTape(x: Float64Array, c: number): number {
  const n = x.length;
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] = Math.cos(x[i] * c);
  let s = 0;
  let k = 0;
  while (k < n * 3) {
    const j = k % n;
    s = Math.tanh(s + y[j] * x[j]);
    k++;
  }
  let t = 0;
  for (let i = 0; i < n; i++) t += y[i] * s;
  return t + s;
}

/** @differentiable */
export function nested(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    let t = x[i];
    let k = 0;
    while (t < 2 && k < 40) {
      t = t * 1.3 + 0.2 + Math.sin(t) * 0.1;
      k++;
    }
    s += t * x[i];
  }
  return s;
}

export function cube(v: number): number { return v * v * v; }
/** @differentiable */
export function sumsq(v: Float64Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += Math.sin(v[i]) * v[i];
  return s;
}
export const gSumsq = grad(sumsq);
derivative.vjp(cube, (v) => {
  // The backward runs a gradient with a loop: a derivative inside another's evaluation.
  const w = Float64Array.of(v, v * 0.5, 1);
  const gw = gSumsq(w);
  const back = (ct: number) => [ct * 3 * v * v + 0 * gw[0]];
  return [v * v * v, back];
});

/** @differentiable */
export function useCube(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += cube(x[i]) * Math.cos(s);
  return s;
}

export const gBreaks = grad(breaksLate, { wrt: [0, 1] });
export const gWhile = grad(whileTape, { wrt: [0, 1] });
export const gNested = grad(nested);
export const gUseCube = grad(useCube);
export const vjpWhile = (x: Float64Array, c: number) => vjp(whileTape, x, c);
export const vjpNested = (x: Float64Array) => vjp(nested, x);
`;

const { exports: m } = load(source);
const rand = (k: number) => Math.sin(12.9898 * k + 1) * 0.9;
const vec = (n: number, seed: number) => Float64Array.from({ length: n }, (_, i) => rand(seed + 7 * i));
const asF =
  (fn: (...a: any[]) => any) =>
  (...a: any[]) =>
    fn(...a.map((v) => (Array.isArray(v) ? Float64Array.from(v) : v)));
function checkXC(g: (x: Float64Array, c: number) => [Float64Array, number], f: (x: Float64Array, c: number) => number, x: Float64Array, c: number): void {
  const [gx, gc] = g(x, c);
  const F = asF(f);
  expectClose(
    Array.from(gx),
    Array.from(x, (_, k) => partial(F, [Array.from(x), c], 0, k)[0]),
    1e-5,
  );
  expectClose([gc], partial(F, [Array.from(x), c], 1, 0), 1e-5);
}

test('a loop that breaks early, after calls that ran it to the end at larger sizes', () => {
  for (const [n, c] of [
    [40, 50],
    [7, 0.1],
    [30, 20],
    [3, 0.05],
    [12, 0.3],
  ] as const) {
    checkXC(m.gBreaks, m.breaksLate, vec(n, n), c);
  }
});

test('a while loop tape next to reserved stacks, sizes up and down', () => {
  for (const n of [2, 50, 1, 9, 300, 4]) checkXC(m.gWhile, m.whileTape, vec(n, n + 1), 0.7);
});

test('while loops nested in a counted loop', () => {
  // The inner while loop multiplies by about 1.3 up to 40 times, so central differences lose
  // digits to the third derivative: the reference is the derivative carried by hand (dual numbers).
  const hand = (x: Float64Array): number[] =>
    Array.from(x, (_, k) => {
      let ds = 0;
      for (let i = 0; i < x.length; i++) {
        let t = x[i];
        let dt = i === k ? 1 : 0;
        let n = 0;
        while (t < 2 && n < 40) {
          dt = dt * (1.3 + Math.cos(t) * 0.1);
          t = t * 1.3 + 0.2 + Math.sin(t) * 0.1;
          n++;
        }
        ds += dt * x[i] + t * (i === k ? 1 : 0);
      }
      return ds;
    });
  for (const n of [1, 30, 2, 8]) {
    const x = vec(n, n + 3);
    expectClose(Array.from(m.gNested(x) as Float64Array), hand(x), 1e-9);
  }
});

test('pullbacks kept while other derivatives reuse the pool', () => {
  const x1 = vec(20, 1);
  const [, back1] = m.vjpWhile(x1, 0.4);
  const x2 = vec(6, 2);
  const [, back2] = m.vjpNested(x2);
  for (const n of [100, 3, 60]) {
    m.gWhile(vec(n, n), 1.1);
    m.gNested(vec(n, n + 1));
    m.gBreaks(vec(n, n + 2), 5);
  }
  const fresh = load(source).exports;
  const [, f1] = fresh.vjpWhile(x1, 0.4);
  const [, f2] = fresh.vjpNested(x2);
  const b1 = back1(1.5);
  expect(JSON.stringify(b1, (_, v) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v))).toBe(
    JSON.stringify(f1(1.5), (_, v) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v)),
  );
  const b2 = back2(-0.5);
  expect(Array.from(b2[0] ?? b2)).toEqual(Array.from(f2(-0.5)[0] ?? f2(-0.5)));
  // and a pullback called twice gives the same numbers
  expect(Array.from(back2(-0.5)[0] ?? back2(-0.5))).toEqual(Array.from(b2[0] ?? b2));
});

test('a custom rule whose backward runs a gradient with a loop', () => {
  for (const n of [1, 4, 25]) {
    const x = vec(n, n + 5);
    expectClose(
      Array.from(m.gUseCube(x) as Float64Array),
      Array.from(x, (_, k) => partial(asF(m.useCube), [Array.from(x)], 0, k)[0]),
      1e-5,
    );
  }
});
