// Taped reverse mode (docs/frontend.md, "Taped mode"): recursion, which compiled code cannot
// unroll, runs a taped copy of the function; each derivative is checked against central finite
// differences, the cost against the tape's own operation counter.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { compile, load, partial, expectClose, workDir } from './harness';

// The runtime as the generated modules load it (jest maps 'tsad' to its sources).
const tsad = require('tsad') as { tsad$tape: { stats(): { nodes: number; edges: number } } };

const fd = (fn: (...a: any[]) => any, at: any[], i: number, k = 0) => partial(fn, at, i, k);

describe('scalar recursion', () => {
  const source = `import { grad, valueAndGrad, vjp, jvp } from 'tsad';
/** @differentiable */
export function f(x: number, n: number): number {
  if (n === 0) return x;
  return Math.sin(f(x, n - 1)) * x + 0.5 * x;
}
export const df = grad(f);
export const vf = valueAndGrad(f);
export const pf = (x: number, n: number) => vjp(f, x, n);
export const jf = (x: number, n: number, dx: number) => jvp(f, [x, n], [dx, 0]);
`;
  const { exports: m, result } = load(source);

  test('grad, valueAndGrad, vjp and jvp (dual numbers) agree with central differences', () => {
    for (const [x, n] of [
      [0.7, 0],
      [0.7, 3],
      [1.3, 10],
    ]) {
      const ref = fd(m.f, [x, n], 0);
      expectClose([m.df(x, n)], ref);
      const [v, g] = m.vf(x, n);
      expect(v).toBe(m.f(x, n));
      expectClose([g], ref);
      const [v2, pullback] = m.pf(x, n);
      expect(v2).toBe(m.f(x, n));
      const [cx, cn] = pullback(2);
      expectClose([cx], [2 * ref[0]]);
      expect(cn).toBe(0);
      const [v3, tangent] = m.jf(x, n, 0.5);
      expect(v3).toBe(m.f(x, n));
      expectClose([tangent], [0.5 * ref[0]]);
    }
  });

  test('the build says the function runs taped, as a note that fails nothing', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
    const notes = result.messages.filter((s) => /TSAD2001/.test(s));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/:3:17 - note TSAD2001: 'f' runs taped: 'f' \(line 3\) calls itself directly/);
  });
});

describe('mutual recursion', () => {
  const { exports: m, result } = load(`import { grad } from 'tsad';
/** @differentiable */
export function even(x: number): number {
  return x < 10 ? odd(0.6 * x) + 1 : odd(0.1 * x) * x + 2;
}
/** @differentiable */
export function odd(x: number): number {
  return x < 1 ? x * x : 0.9 * even(x - 1) + Math.sin(x);
}
export const de = grad(even);
export const dd = grad(odd);
`);

  test('both functions run taped and agree with central differences', () => {
    for (const x of [0.4, 3.3, 5.3, 23.7, 61.2]) {
      expectClose([m.de(x)], fd(m.even, [x], 0));
      expectClose([m.dd(x)], fd(m.odd, [x], 0));
    }
    expect(result.messages.filter((s) => /note TSAD2001/.test(s))).toHaveLength(2);
  });
});

describe('cost: linear in what runs', () => {
  const { exports: m, result: built } = load(`import { grad } from 'tsad';
/** The doubling chain: y_k = y_{k-1} + y_{k-1}; a backpropagator per use would run 2^n times. */
/** @differentiable */
export function doubling(x: number, n: number): number {
  if (n === 0) return x;
  const y = doubling(x, n - 1);
  return y + y;
}
/** @differentiable */
export function deep(x: number, n: number): number {
  return n === 0 ? x : Math.sin(deep(x, n - 1)) + 0.01 * x;
}
/** @differentiable */
export function squares(a: number[], lo: number, hi: number): number {
  if (hi - lo === 1) return a[lo] * a[lo];
  const mid = Math.floor((lo + hi) / 2);
  return squares(a, lo, mid) + squares(a, mid, hi);
}
export const dDoubling = grad(doubling);
export const dDeep = grad(deep);
export const dSquares = grad(squares);
`);

  test('the doubling chain: n + 1 nodes and 2n partials, gradient 2^n exactly', () => {
    for (const n of [1, 10, 20, 40, 1000]) {
      expect(m.dDoubling(0.3, n)).toBe(2 ** n);
      expect(tsad.tsad$tape.stats()).toEqual({ nodes: n + 1, edges: 2 * n });
    }
  });

  test('divide and conquer over an array of n: n inputs, n squares, n - 1 sums', () => {
    for (const n of [1, 7, 64, 1000]) {
      const a = Array.from({ length: n }, (_, i) => Math.cos(i));
      expect(m.dSquares(a, 0, n)).toEqual(a.map((x) => 2 * x));
      expect(tsad.tsad$tape.stats()).toEqual({ nodes: 3 * n - 1, edges: 4 * n - 2 });
    }
  });

  test('recursion 10 … 1,000 deep: 3 nodes per level', () => {
    for (const n of [10, 100, 1000]) {
      const g = m.dDeep(0.7, n);
      expect(tsad.tsad$tape.stats()).toEqual({ nodes: 3 * n + 1, edges: 4 * n });
      expectClose([g], fd(m.deep, [0.7, n], 0));
    }
  });

  test('10,000 deep: where the function itself runs, its gradient does (the backward pass is a loop)', () => {
    // The forward pass is the function's own recursion: at Node's default stack the plain
    // function overflows near 8,400 levels, so both run in a process with a larger stack.
    const dir = workDir();
    const file = path.join(dir, 'deep.js');
    fs.writeFileSync(file, built.outputText);
    const script = `const m = require(${JSON.stringify(file)}); const t = require('tsad');
const n = 10000, h = 1e-5;
const g = m.dDeep(0.7, n);
console.log(JSON.stringify({ g, stats: t.tsad$tape.stats(), fd: (m.deep(0.7 + h, n) - m.deep(0.7 - h, n)) / (2 * h) }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--stack-size=4000', '-e', script], { cwd: dir, encoding: 'utf8' }));
    expect(out.stats).toEqual({ nodes: 30001, edges: 40000 });
    expectClose([out.g], [out.fd]);
  });
});

describe('taped: false', () => {
  test('keeps recursion the error TSAD1109, with no note', () => {
    const r = compile(
      `import { grad } from 'tsad';
/** @differentiable({ taped: false }) */
export function f(x: number): number {
  return x > 1 ? f(x / 2) : x;
}
export const d = grad(f);
`,
      { throwOnError: false },
    );
    const ours = r.messages.filter((s) => s.includes('TSAD'));
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatch(/:4:18 - error TSAD1109: 'f' \(line 3\) calls itself directly/);
  });

  test('the plugin option taped: false keeps the error for the whole build', () => {
    const r = compile(
      `import { grad } from 'tsad';
/** @differentiable */
export function f(x: number): number {
  return x > 1 ? f(x / 2) : x;
}
export const d = grad(f);
`,
      { throwOnError: false, taped: false },
    );
    const ours = r.messages.filter((s) => s.includes('TSAD'));
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatch(/:4:18 - error TSAD1109: /);
  });

  test('keeps the error for every transform, jacobian too', () => {
    const r = compile(
      `import { jacobian } from 'tsad';
/** @differentiable({ taped: false }) */
export function f(x: number): number {
  return x > 1 ? f(x / 2) : x;
}
export const d = jacobian(f);
`,
      { throwOnError: false },
    );
    expect(r.messages.some((s) => / - error TSAD1109: /.test(s))).toBe(true);
  });
});

describe('recursion over arrays (recorded per element in this slice)', () => {
  const { exports: m } = load(`import { grad, valueAndGrad, vjp, jvp } from 'tsad';
/** The determinant by expansion along the first row (n! terms: for small matrices). */
/** @differentiable */
export function det(a: Float64Array, n: number): number {
  if (n === 1) return a[0];
  let s = 0;
  for (let j = 0; j < n; j++) {
    const minor = new Float64Array((n - 1) * (n - 1));
    for (let r = 1; r < n; r++) {
      let k = 0;
      for (let c = 0; c < n; c++) {
        if (c === j) continue;
        minor[(r - 1) * (n - 1) + k] = a[r * n + c];
        k++;
      }
    }
    const sign = j % 2 === 0 ? 1 : -1;
    s += sign * a[j] * det(minor, n - 1);
  }
  return s;
}
/** @differentiable */
export function detRows(m: number[][]): number {
  const n = m.length;
  if (n === 1) return m[0][0];
  let s = 0;
  for (let j = 0; j < n; j++) {
    const minor = m.slice(1).map((row) => row.filter((_, k) => k !== j));
    s += (j % 2 === 0 ? 1 : -1) * m[0][j] * detRows(minor);
  }
  return s;
}
export const dDet = grad(det);
export const vgDet = valueAndGrad(det);
export const dRows = grad(detRows);
export const pullRows = (m: number[][]) => vjp(detRows, m);
export const pushDet = (a: Float64Array, n: number, da: Float64Array) => jvp(det, [a, n], [da, 0]);
`);
  const matrix = (n: number) => Array.from({ length: n * n }, (_, i) => Math.sin(1.7 * i + 0.3) + (i % (n + 1) === 0 ? 2 : 0));

  test('the gradient of a determinant on Float64Array, ell = 1 … 6, is its cofactor matrix (central differences), and jvp its directional derivative', () => {
    for (let n = 1; n <= 6; n++) {
      const a = Float64Array.from(matrix(n));
      const g = m.dDet(a, n);
      expect(g).toBeInstanceOf(Float64Array);
      const ref = Array.from(a, (_, k) => fd((x: number[]) => m.det(Float64Array.from(x), n), [Array.from(a)], 0, k)[0]);
      expectClose(Array.from(g), ref, 1e-5);
      const [v, g2] = m.vgDet(a, n);
      expect(v).toBe(m.det(a, n));
      expect(Array.from(g2)).toEqual(Array.from(g));
      // Forward mode (dual numbers): the tangent along da is <grad, da>.
      const da = Float64Array.from(a, (_, k) => Math.cos(k));
      const [v3, t] = m.pushDet(a, n, da);
      expect(v3).toBe(v);
      expectClose([t], [ref.reduce((acc, r, k) => acc + r * da[k], 0)], 1e-5);
    }
  });

  test('on number[][] with slice, map and filter, grad and vjp agree with central differences', () => {
    for (let n = 1; n <= 5; n++) {
      const flat = matrix(n);
      const rows = Array.from({ length: n }, (_, r) => flat.slice(r * n, r * n + n));
      const g = m.dRows(rows);
      const ref = flat.map((_, k) => fd(m.detRows, [rows], 0, k)[0]);
      expectClose(g.flat(), ref, 1e-5);
      const [v, pullback] = m.pullRows(rows);
      expect(v).toBe(m.detRows(rows));
      expectClose(
        pullback(3)[0].flat(),
        ref.map((x: number) => 3 * x),
        1e-5,
      );
    }
  });
});

describe('functions as values', () => {
  const { exports: m, result } = load(`import { grad, jvp } from 'tsad';
/** @differentiable */
export function integrand(t: number, k: number): number {
  return Math.sin(k * t) * t;
}
/** The trapezoid rule with n panels, for any integrand. */
/** @differentiable */
export function integrate(f: (t: number, k: number) => number, k: number, a: number, b: number): number {
  const n = 50;
  const h = (b - a) / n;
  let s = 0.5 * (f(a, k) + f(b, k));
  for (let i = 1; i < n; i++) s += f(a + i * h, k);
  return s * h;
}
/** @differentiable */
const compose = (f: (x: number) => number, g: (x: number) => number) => (x: number) => f(g(x));
/** @differentiable */
export function model(k: number, b: number): number {
  const twice = compose(Math.exp, (x) => 2 * x);
  return integrate(integrand, k, 0, b) + integrate((t, kk) => kk * t * t, k, 0, 2) + twice(k / 4);
}
export const dModel = grad(model, { wrt: [0, 1] });
export const pushModel = (k: number, b: number, dk: number, db: number) => jvp(model, [k, b], [dk, db]);
`);

  test('a marked function and an arrow passed to integrate, and a closure from compose of Math.exp: grad and jvp', () => {
    for (const [k, b] of [
      [0.8, 1.5],
      [2.1, 0.7],
    ]) {
      const [gk, gb] = m.dModel(k, b);
      const ref = [fd(m.model, [k, b], 0)[0], fd(m.model, [k, b], 1)[0]];
      expectClose([gk, gb], ref);
      const [v, t] = m.pushModel(k, b, 0.3, -1.1);
      expect(v).toBe(m.model(k, b));
      expectClose([t], [0.3 * ref[0] - 1.1 * ref[1]]);
    }
  });

  test('the note names the function value', () => {
    const notes = result.messages.filter((s) => /note TSAD2001/.test(s));
    expect(notes.some((s) => /'model' runs taped: it uses a function as a value/.test(s))).toBe(true);
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
  });
});

describe('a recursive local function', () => {
  test('makes its function run taped, against central differences', () => {
    const { exports: m } = load(`import { grad } from 'tsad';
/** @differentiable */
export function f(x: number, n: number): number {
  function chain(y: number, k: number): number {
    return k === 0 ? y : chain(Math.log1p(y * y) + x / k, k - 1);
  }
  return chain(x, n);
}
export const df = grad(f);
`);
    for (const [x, n] of [
      [0.3, 1],
      [1.1, 6],
    ]) {
      expectClose([m.df(x, n)], fd(m.f, [x, n], 0));
    }
  });
});
