// JavaScript's arrays are shared objects, tsad's are values (docs/frontend.md, "Aliasing"):
// small programs where a second name for an array exists, each checked against the same source
// run as plain JavaScript (the primal) and central finite differences (the gradient).
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { compile, load, expectClose, workDir } from './harness';

let plainCounter = 0;

/** The source as plain TypeScript compiles it: the doc markers are comments. */
export function plainModule(source: string): Record<string, any> {
  const js = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true } }).outputText;
  const file = path.join(workDir(), `aliasing-plain-${plainCounter++}.js`);
  fs.writeFileSync(file, js);
  return require(file);
}

type Arg = number | number[] | number[][] | Float64Array;
const copy = (a: Arg): Arg => (typeof a === 'number' ? a : a instanceof Float64Array ? a.slice() : (a as any[]).map((r) => (Array.isArray(r) ? r.slice() : r)));
const flat = (a: Arg): number[] => (typeof a === 'number' ? [a] : Array.from(a as ArrayLike<any>).flatMap((r) => (typeof r === 'number' ? [r] : Array.from(r as ArrayLike<number>))));

/**
 * Compiles `source` with `valueAndGrad(fn)` over every argument: no diagnostics, the primal
 * equals plain JavaScript bit for bit, the gradient matches central differences of plain JS.
 */
export function agrees(source: string, fn: string, args: Arg[]): void {
  const wrt = args.map((_, i) => i);
  const { exports: m, result } = load(`${source}\nimport { valueAndGrad as vgAliasing } from 'tsad';\nexport const vgOf = vgAliasing(${fn}, { wrt: [${wrt.join(', ')}] });\n`);
  expect(result.messages).toEqual([]);
  const plain = plainModule(source)[fn] as (...a: Arg[]) => number;
  const expected = plain(...args.map(copy));
  const [value, grads] = m.vgOf(...args.map(copy));
  expect(value).toBe(expected);
  const g = args.length === 1 ? [grads] : grads;
  args.forEach((a, i) => expectClose(flat(g[i]), centralDifferences(plain, args, i), 1e-5));
}

/** ∂f/∂(each leaf of argument i) by central differences, on copies of the arguments. */
function centralDifferences(f: (...a: Arg[]) => number, args: Arg[], i: number): number[] {
  const h = 1e-6;
  return flat(args[i]).map((_, k) => {
    const at = (s: number): number => f(...args.map((a, j) => (j === i ? shift(a, k, s) : copy(a))));
    return (at(h) - at(-h)) / (2 * h);
  });
}

/** A copy of a with its leaf k moved by s. */
function shift(a: Arg, k: number, s: number): Arg {
  if (typeof a === 'number') return a + s;
  const c = copy(a);
  if (c instanceof Float64Array || typeof (c as number[])[0] === 'number') (c as number[])[k] += s;
  else {
    const cols = (c as number[][])[0].length;
    (c as number[][])[Math.floor(k / cols)][k % cols] += s;
  }
  return c;
}

/** The TSAD codes a source gets. */
export function codes(source: string): string[] {
  return compile(source, { throwOnError: false }).messages.map((msg) => /TSAD\d+/.exec(msg)?.[0] ?? msg);
}

const GRADIENT_OF = `
/** @differentiable */
function gradientOf(p: Float64Array, x: number): Float64Array {
  const g = new Float64Array(p.length);
  for (let j = 0; j < p.length; j++) g[j] = 2 * p[j] * x + Math.sin(p[j]);
  return g;
}`;

describe('1. the fresh result of a marked function may be written by the caller', () => {
  test('let g = gradientOf(p, x); g[j] = -g[j]', () => {
    agrees(`${GRADIENT_OF}
/** @differentiable */
export function descend(p: Float64Array, x: number): number {
  let g = gradientOf(p, x);
  for (let j = 0; j < g.length; j++) g[j] = -g[j];
  let s = 0;
  for (let j = 0; j < g.length; j++) s += g[j] * p[j];
  return s;
}`, 'descend', [new Float64Array([0.3, -1.2, 0.7]), 0.9]);
  });

  test('through a chain of marked functions returning what they built (a const arrow too)', () => {
    agrees(`${GRADIENT_OF}
import { differentiable } from 'tsad';
const scaled = differentiable((p: Float64Array, x: number): Float64Array => {
  const g = gradientOf(p, x);
  return g;
});
/** @differentiable */
function pick(p: Float64Array, x: number): Float64Array {
  return x > 0 ? scaled(p, x) : new Float64Array(p.length);
}
/** @differentiable */
export function twice(p: Float64Array, x: number): number {
  const g = pick(p, x);
  g[0] = g[0] * g[1];
  return g[0] + p[0] * g[2];
}`, 'twice', [new Float64Array([0.3, -1.2, 0.7]), 0.9]);
  });

  test('a function that returns its argument is not fresh: writing into its result is refused', () => {
    expect(codes(`
/** @differentiable */
function same(p: Float64Array): Float64Array {
  return p;
}
/** @differentiable */
export function f(x: Float64Array): number {
  const b = x.slice();
  const c = same(b);
  c[0] = 5;
  return b[0];
}`)).toEqual(['TSAD1122']);
  });
});

describe('2. a written array passed to a marked function that keeps no reference to it', () => {
  test('RK4 stage buffers', () => {
    agrees(`
/** @differentiable */
function rhs(y: Float64Array, k: number): Float64Array {
  const out = new Float64Array(y.length);
  for (let i = 0; i < y.length; i++) out[i] = -k * y[(i + 1) % y.length] + 0.1 * y[i];
  return out;
}
/** @differentiable */
export function step(y0: Float64Array, k: number): number {
  const n = y0.length;
  const dt = 0.1;
  const y1 = new Float64Array(n);
  const k1 = rhs(y0, k);
  for (let i = 0; i < n; i++) y1[i] = y0[i] + 0.5 * dt * k1[i];
  const k2 = rhs(y1, k);
  for (let i = 0; i < n; i++) y1[i] = y0[i] + dt * k2[i];
  const k3 = rhs(y1, k);
  let s = 0;
  for (let i = 0; i < n; i++) s += (k1[i] + 2 * k2[i] + k3[i]) * y1[i];
  return s;
}`, 'step', [new Float64Array([0.3, -1.2, 0.7]), 0.9]);
  });

  test('a marked function that returns its argument keeps it: passing a written array is refused', () => {
    expect(codes(`
/** @differentiable */
function same(p: Float64Array): Float64Array {
  return p;
}
/** @differentiable */
export function f(x: Float64Array): number {
  const b = x.slice();
  const c = same(b);
  b[0] = 5;
  return c[0];
}`)).toEqual(['TSAD1123']);
  });
});

describe('3. double buffering and swaps of whole arrays', () => {
  test('[a, b] = [b, a] of two written buffers', () => {
    agrees(`
/** @differentiable */
export function smooth(x: Float64Array, steps: number): number {
  let a = x.slice();
  let b = new Float64Array(x.length);
  for (let s = 0; s < 3; s++) {
    for (let i = 0; i < a.length; i++) b[i] = 0.5 * a[i] + 0.25 * (a[(i + 1) % a.length] + a[(i + a.length - 1) % a.length]) * a[i];
    [a, b] = [b, a];
  }
  return a[0] + 2 * a[1] + 3 * b[2];
}`, 'smooth', [new Float64Array([0.3, -1.2, 0.7, 0.4]), 3]);
  });

  test('[prev, u, next] = [u, next, prev]', () => {
    agrees(`
/** @differentiable */
export function wave(u0: Float64Array, c: number): number {
  let u = u0.slice();
  let prev = u0.slice();
  let next = new Float64Array(u0.length);
  for (let s = 0; s < 4; s++) {
    for (let i = 1; i < u.length - 1; i++) next[i] = 2 * u[i] - prev[i] + c * (u[i - 1] - 2 * u[i] + u[i + 1]);
    [prev, u, next] = [u, next, prev];
  }
  let e = 0;
  for (let i = 0; i < u.length; i++) e += u[i] * u[i] + prev[i] * next[i];
  return e;
}`, 'wave', [new Float64Array([0.3, -1.2, 0.7, 0.4, 0.1]), 0.3]);
  });

  test('u = next with next new in every trip (power iteration)', () => {
    agrees(`
/** @differentiable */
export function power(A: number[][]): number {
  const n = A.length;
  let v = new Array<number>(n).fill(1);
  for (let it = 0; it < 3; it++) {
    const w = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) w[i] += A[i][j] * v[j];
    let norm = 0;
    for (let i = 0; i < n; i++) norm += w[i] * w[i];
    for (let i = 0; i < n; i++) w[i] = w[i] / Math.sqrt(norm);
    v = w;
  }
  return v[0] + 2 * v[1];
}`, 'power', [[[2, 0.5], [0.5, 1]]]);
  });

  test('x = xPrime, then xPrime written again is refused (x would see the write)', () => {
    expect(codes(`
/** @differentiable */
export function f(x0: Float64Array): number {
  let x = x0.slice();
  const xPrime = new Float64Array(x0.length);
  for (let s = 0; s < 3; s++) {
    for (let i = 0; i < x.length; i++) xPrime[i] = x[i] * 0.5;
    x = xPrime;
  }
  return x[0];
}`)).toEqual(['TSAD1123']);
  });

  test('x = xPrime once, xPrime not used after', () => {
    agrees(`
/** @differentiable */
export function f(x0: Float64Array): number {
  let x = x0.slice();
  const xPrime = new Float64Array(x0.length);
  for (let i = 0; i < x.length; i++) xPrime[i] = x[i] * x[(i + 1) % x.length];
  x = xPrime;
  x[0] = x[0] * 3;
  return x[0] + x[1];
}`, 'f', [new Float64Array([0.3, -1.2, 0.7])]);
  });
});

describe('4. row swaps in a number[][] matrix', () => {
  test('const tmp = m[p]; m[p] = m[c]; m[c] = tmp', () => {
    agrees(`
/** @differentiable */
export function pivot(A: number[][]): number {
  const m = A.map((row) => row.slice());
  const n = m.length;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    if (p !== c) {
      const tmp = m[p];
      m[p] = m[c];
      m[c] = tmp;
    }
    for (let r = c + 1; r < n; r++) {
      const f = m[r][c] / m[c][c];
      for (let k = c; k < n; k++) m[r][k] -= f * m[c][k];
    }
  }
  let s = 0;
  for (let i = 0; i < n; i++) s += m[i][i] * (i + 1) + m[i][n - 1 - i];
  return s;
}`, 'pivot', [[[1, 2, 0.5], [3, -1, 2], [0.2, 4, 1]]]);
  });

  test('[M[p], M[c]] = [M[c], M[p]]', () => {
    agrees(`
/** @differentiable */
export function swapRows(A: number[][]): number {
  const M = A.map((row) => row.map((x) => x * 2));
  [M[0], M[2]] = [M[2], M[0]];
  M[0][1] += M[2][1];
  return M[0][0] * M[0][1] + M[1][1] - M[2][0];
}`, 'swapRows', [[[1, 2], [3, -1], [0.2, 4]]]);
  });
});

describe('5. two names for one array see each other\'s writes', () => {
  test('const c = b; b[0] = 1; return c[0]', () => {
    agrees(`
/** @differentiable */
export function f(x: Float64Array): number {
  const b = x.slice();
  const c = b;
  b[0] = x[1] * x[2];
  c[1] = c[0] + b[2];
  return c[0] * b[1] + c[2];
}`, 'f', [new Float64Array([0.3, -1.2, 0.7])]);
  });
});
