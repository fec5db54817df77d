// Second order of taped code (issue 24, item 2): hvp and hessian of functions that run taped
// (recursion, functions as values) are forward over the taped reverse mode. Each Hessian is
// checked against second central differences of the function run as it is, each hvp against
// the Hessian times v, and the cost against the tape's operation counter.
import { compile, load, loadOutput, expectClose } from './harness';

const tsad = require('tsad') as { tsad$tape: { stats(): { nodes: number; edges: number } } };

const H = 1e-4;

/** ∂²f/∂xᵢ∂xⱼ by central differences over the flat numbers `x` (`f` takes them flat). */
function hessianFd(f: (x: number[]) => number, x: readonly number[]): number[][] {
  const at = (di: number, si: number, dj: number, sj: number) => {
    const y = x.slice();
    y[di] += si * H;
    y[dj] += sj * H;
    return f(y);
  };
  return x.map((_, i) => x.map((_, j) => (at(i, 1, j, 1) - at(i, 1, j, -1) - at(i, -1, j, 1) + at(i, -1, j, -1)) / (4 * H * H)));
}

const flat = (m: readonly (readonly number[])[]) => m.flatMap((r) => [...r]);

describe('scalar recursion', () => {
  const { exports: m, result } = load(`import { hvp, hessian } from 'tsad';
/** @differentiable */
export function f(x: number, n: number): number {
  if (n === 0) return x;
  return Math.sin(f(x, n - 1)) * x + 0.5 * x * x;
}
export const hf = hessian(f);
export const hvf = hvp(f);
`);

  test('hessian and hvp agree with second central differences', () => {
    for (const [x, n] of [
      [0.7, 0],
      [0.7, 3],
      [1.3, 8],
    ]) {
      const ref = hessianFd(([y]) => m.f(y, n), [x]);
      expectClose(flat(m.hf(x, n)), flat(ref), 1e-5);
      expectClose([m.hvf(x, n, 0.25)], [0.25 * ref[0][0]], 1e-5);
    }
  });

  test('the build notes the taped function and reports no error', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
    expect(result.messages.filter((s) => /note TSAD2001/.test(s))).toHaveLength(1);
  });
});

describe('several parameters, mutual recursion', () => {
  const { exports: m } = load(`import { hvp, hessian } from 'tsad';
/** @differentiable */
export function even(x: number, y: number, n: number): number {
  return n === 0 ? x * y * y : odd(y + 0.1 * x, Math.exp(-x), n - 1) * x;
}
/** @differentiable */
export function odd(x: number, y: number, n: number): number {
  return n === 0 ? Math.log(1 + x * x) + y : even(Math.cos(x), y * x, n - 1) + x * y;
}
export const blocks = hessian(even, { wrt: [0, 1] });
export const hy = hessian(even, { wrt: [1] });
export const hv = hvp(even, { wrt: [0, 1] });
`);

  test('the blocks H[a][b] for wrt [0, 1], a single wrt, and hvp as a tuple', () => {
    for (const [x, y, n] of [
      [0.4, 0.9, 0],
      [0.4, 0.9, 3],
      [1.1, -0.6, 5],
    ]) {
      const ref = hessianFd(([a, b]) => m.even(a, b, n), [x, y]);
      const b = m.blocks(x, y, n);
      expectClose([b[0][0][0][0], b[0][1][0][0], b[1][0][0][0], b[1][1][0][0]], flat(ref), 1e-5);
      expectClose(flat(m.hy(x, y, n)), [ref[1][1]], 1e-5);
      const [hx, hyv] = m.hv(x, y, n, [2, -1]);
      expectClose([hx, hyv], [2 * ref[0][0] - ref[0][1], 2 * ref[1][0] - ref[1][1]], 1e-5);
    }
  });
});

describe('recursion over arrays: the determinant by minors', () => {
  const { exports: m } = load(`import { hvp, hessian } from 'tsad';
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
    s += (j % 2 === 0 ? 1 : -1) * a[j] * det(minor, n - 1);
  }
  return s;
}
/** log(1 + det²): not multilinear, so the Hessian's diagonal is not zero. */
/** @differentiable */
export function logDet(a: Float64Array, n: number): number {
  const d = det(a, n);
  return Math.log(1 + d * d);
}
export const hDet = hessian(det);
export const hLog = hessian(logDet);
export const hvLog = hvp(logDet);
`);
  const matrix = (n: number) => Float64Array.from({ length: n * n }, (_, i) => Math.sin(1.7 * i + 0.3) + (i % (n + 1) === 0 ? 2 : 0));

  test('hessian of det and of log(1 + det²), ell = 1 … 4, against second central differences; hvp is H·v with a Float64Array', () => {
    for (let n = 1; n <= 4; n++) {
      const a = matrix(n);
      const refDet = hessianFd((x) => m.det(Float64Array.from(x), n), Array.from(a));
      expectClose(flat(m.hDet(a, n)), flat(refDet), 1e-5);
      const refLog = hessianFd((x) => m.logDet(Float64Array.from(x), n), Array.from(a));
      const h = m.hLog(a, n);
      expect(h).toHaveLength(n * n);
      expectClose(flat(h), flat(refLog), 1e-5);
      const v = Float64Array.from({ length: n * n }, (_, i) => Math.cos(i));
      const hv = m.hvLog(a, n, v);
      expect(hv).toBeInstanceOf(Float64Array);
      expectClose(
        Array.from(hv),
        h.map((row: number[]) => row.reduce((s, hij, j) => s + hij * v[j], 0)),
        1e-9,
      );
    }
  });
});

describe('functions as values', () => {
  const { exports: m } = load(`import { hessian, hvp } from 'tsad';
/** The trapezoid rule: f is a value. */
/** @differentiable */
export function integrate(f: (t: number) => number, a: number, b: number): number {
  const n = 16;
  const h = (b - a) / n;
  let s = 0.5 * (f(a) + f(b));
  for (let i = 1; i < n; i++) s += f(a + i * h);
  return s * h;
}
/** @differentiable */
export function area(a: number, b: number): number {
  return integrate((t) => Math.exp(-a * t * t), 0, b);
}
export const h = hessian(area, { wrt: [0, 1] });
export const hv = hvp(area, { wrt: [0, 1] });
`);

  test('hessian and hvp of a function passing an arrow that captures a parameter', () => {
    for (const [a, b] of [
      [0.5, 1],
      [1.7, 2.2],
    ]) {
      const ref = hessianFd(([x, y]) => m.area(x, y), [a, b]);
      const blocks = m.h(a, b);
      expectClose([blocks[0][0][0][0], blocks[0][1][0][0], blocks[1][0][0][0], blocks[1][1][0][0]], flat(ref), 1e-5);
      expectClose(m.hv(a, b, [1, 3]), [ref[0][0] + 3 * ref[0][1], ref[1][0] + 3 * ref[1][1]], 1e-5);
    }
  });
});

describe('cost', () => {
  const { exports: m } = load(`import { hvp } from 'tsad';
/** @differentiable */
export function deep(x: number, n: number): number {
  return n === 0 ? x : Math.sin(deep(x, n - 1)) + 0.5 * x;
}
export const hvDeep = hvp(deep);
`);

  test('hvp of recursion n deep records 3 nodes per level: linear, as grad', () => {
    for (const n of [10, 100, 1000]) {
      const hv = m.hvDeep(0.7, n, 1);
      expect(tsad.tsad$tape.stats()).toEqual({ nodes: 3 * n + 1, edges: 4 * n });
      const ref = hessianFd(([y]) => m.deep(y, n), [0.7]);
      expectClose([hv], [ref[0][0]], 1e-4);
    }
  });
});

test('linearize of a recursive function runs taped too (a forward sweep over the tape), with the note and no error', () => {
  const r = compile(
    `import { linearize } from 'tsad';
/** @differentiable */
export function f(x: number): number {
  return x > 1 ? Math.sin(f(x / 2)) * x : x * x;
}
export const d = (x: number) => linearize(f, x);
`,
    { throwOnError: false },
  );
  expect(r.messages.filter((s) => / - error /.test(s))).toEqual([]);
  const m = loadOutput(r);
  const [y, lin] = m.d(3.3);
  expect(y).toBe(m.f(3.3));
  expect(lin(2)).toBeCloseTo((m.f(3.3 + 1e-6) - m.f(3.3 - 1e-6)) * 1e6, 5);
});
