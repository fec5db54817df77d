// Int32Array state as users write it (minors22c: Int32Arrays travel through the IR as arrays of
// 32-bit integers, every store is ToInt32): a real .fill, new Int32Array(reals), % 2 of negative
// values, sums and products of stored integers past 2³¹ (reads are numbers: no wrap), compares
// against reals that are not integers, compound assignments (/=, %=, -=, *=, --), -0 stored as 0,
// the edges of wrapping, Int32Arrays as indices and parameters, copies between kinds, .map, and
// an explicit stack in a while loop. Each value must be plain JavaScript's (TypeScript's own
// output), bit for bit, and each gradient must agree with central differences (or a hand
// derivation where they lose the digits); forward mode and the Hessian are checked against the
// gradient. On main before minors22c, 9 of these values were wrong (fromReal, negZero, wrapEdges,
// toFloatAndBack, paramInt, mapFrac, arrayFromInt; inc and loopInc, increments that wrap past 2³¹).
import { compile, expectClose, loadOutput, partial, runPlain } from './harness';

const SOURCE = `
/** @differentiable */
export function fillReal(x: Float64Array): number {
  const s = new Int32Array(x.length);
  s.fill(x[0] * 2.5);
  let t = 0;
  for (let i = 0; i < s.length; i++) t += s[i] * x[i];
  return t;
}
/** @differentiable */
export function fromReal(x: Float64Array): number {
  const s = new Int32Array(x);
  let t = 0;
  for (let i = 0; i < s.length; i++) t += s[i] * x[i] + s[i] / 2;
  return t;
}
/** @differentiable */
export function negMod(x: Float64Array): number {
  const s = new Int32Array(x.length);
  let t = 0;
  for (let i = 0; i < x.length; i++) {
    s[i] = x[i] * 3;
    const r = s[i] % 2;
    t += r === -1 ? x[i] * x[i] : r === 1 ? -x[i] : 2 * x[i];
    t += s[i] / 2;
  }
  return t;
}
/** @differentiable */
export function bigSums(x: number): number {
  const s = new Int32Array(3);
  s[0] = 2147483647;
  s[1] = 2147483647;
  s[2] = -2147483648;
  const sum = s[0] + s[1];
  const prod = s[0] * s[1];
  const diff = s[2] - s[0];
  return (sum * 1e-9 + prod * 1e-18 + diff * 1e-9) * x;
}
/** @differentiable */
export function realCompare(x: Float64Array, y: number): number {
  const s = new Int32Array(x.length);
  let t = 0;
  for (let i = 0; i < x.length; i++) {
    s[i] = i;
    t += s[i] < y ? x[i] : x[i] * x[i];
    t += s[i] === y ? 100 * x[i] : 0;
  }
  return t;
}
/** @differentiable */
export function compound(x: number): number {
  const s = new Int32Array(6);
  s[0] = 7;
  s[0] /= 2;
  s[1] = 9;
  s[1] -= x;
  s[2] = 5;
  s[2] %= x;
  s[3] = -7;
  s[3] /= 2;
  s[4] = 3;
  s[4]--;
  s[4] -= 0.5;
  s[5] = 1;
  s[5] *= -x;
  return s[0] * x + s[1] * x + s[2] * x + s[3] * x + s[4] * x + s[5] * x * x;
}
/** @differentiable */
export function negZero(x: number): number {
  const s = new Int32Array(2);
  s[0] = -0.5 * x;
  s[1] = -x * 0;
  return Math.atan2(s[0], -1) * x + (1 / s[1] > 0 ? x : -x);
}
/** @differentiable */
export function wrapEdges(x: number): number {
  const s = new Int32Array(4);
  s[0] = 2147483648;
  s[1] = 4294967296.5;
  s[2] = -2147483649;
  s[3] = 2147483647.9;
  return (s[0] * 1e-9 + s[1] + s[2] * 1e-9 + s[3] * 1e-9) * x;
}
/** @differentiable */
export function indexByState(x: Float64Array): number {
  const n = x.length;
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = (i * 3 + 1) % n;
  let t = 0;
  for (let i = 0; i < n; i++) t += x[perm[i]] * x[i] + Math.sin(x[perm[perm[i]]]);
  return t;
}
/** @differentiable */
export function toFloatAndBack(x: Float64Array): number {
  const n = x.length;
  const s = new Int32Array(n);
  const f = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    f[i] = x[i] * 1.5;
    s[i] = f[i];
    f[i] = s[i] + x[i] * 0.25;
  }
  const back = new Int32Array(f);
  let t = 0;
  for (let i = 0; i < n; i++) t += back[i] * x[i] + f[i] * f[i] + s[i];
  return t;
}
/** @differentiable */
export function paramInt(x: Float64Array, idx: Int32Array): number {
  const c = idx.slice();
  let t = 0;
  for (let i = 0; i < c.length; i++) {
    c[i] = c[i] + x[i] * 2.5;
    t += c[i] * x[i] + idx[i] * x[i] * x[i];
  }
  return t;
}
/** @differentiable */
export function mapFrac(x: Float64Array): number {
  const s = new Int32Array(x.length);
  for (let i = 0; i < x.length; i++) s[i] = 3 * i - 4;
  const m = s.map((v) => v / 3 + x[0]);
  let t = 0;
  for (let i = 0; i < m.length; i++) t += m[i] * x[i];
  return t;
}
/** @differentiable */
export function arrayFromInt(x: Float64Array): number {
  const s = new Int32Array(x.length);
  for (let i = 0; i < x.length; i++) s[i] = i - 1;
  const a = Array.from(s);
  a[0] = x[0] * 0.5;
  let t = 0;
  for (let i = 0; i < a.length; i++) t += a[i] * x[i];
  return t;
}
/** @differentiable */
export function whileStack(x: Float64Array): number {
  const n = x.length;
  const stack = new Int32Array(n + 1);
  const val = new Float64Array(n + 1);
  let top = 0;
  stack[0] = n - 1;
  val[0] = 1;
  top = 1;
  let t = 0;
  while (top > 0) {
    top--;
    const k = stack[top];
    const v = val[top];
    if (k < 0) {
      t += v;
    } else {
      stack[top] = k - 1;
      val[top] = v * x[k];
      top++;
      if (k % 2 === 0 && k > 0) {
        stack[top] = k - 2;
        val[top] = v + x[k];
        top++;
      }
    }
  }
  return t;
}
/** @differentiable */
export function inc(x: number, big: number): number {
  const s = new Int32Array(4);
  s[0] = big;
  s[0]++;
  s[1] = big;
  s[1] += 1;
  s[2] = -big;
  s[2] -= 2;
  s[3] = big;
  s[3] *= 2;
  let t = 0;
  for (let i = 0; i < 4; i++) t += (s[i] % 2 === -1 ? 1 : 2) * x + s[i] * 1e-9 * x;
  return t;
}
/** @differentiable */
export function loopInc(x: number, n: number): number {
  const s = new Int32Array(1);
  s[0] = 2147483640;
  let t = 0;
  for (let i = 0; i < n; i++) {
    s[0] += 3;
    t += s[0] < 0 ? x : x * x;
  }
  return t + s[0] * 1e-9;
}
`;

const vec = (n: number, seed: number) => Array.from({ length: n }, (_, k) => Math.sin(k * 1.3 + seed) * 1.7 + 0.05);
const F = (a: number[]) => Float64Array.from(a);
const CASES: Record<string, unknown[][]> = {
  // (x = []: s.fill(x[0] * 2.5) reads x[0] past the end, a RangeError since s14: readChecks.test.ts.)
  fillReal: [[vec(4, 1)], [vec(1, 2)]],
  fromReal: [[vec(5, 3)], [vec(3, 4)]],
  negMod: [[vec(6, 5)], [vec(7, 0.3)]],
  bigSums: [[1.3]],
  realCompare: [
    [vec(5, 1), 2.5],
    [vec(5, 1), 2],
    [vec(5, 1), -1],
  ],
  compound: [[1.3], [2.7], [-1.6]],
  negZero: [[0.7], [1.3]],
  wrapEdges: [[0.9]],
  indexByState: [[vec(5, 2)], [vec(1, 2)], [vec(7, 3)]],
  toFloatAndBack: [[vec(5, 6)], [vec(3, 7)]],
  paramInt: [[vec(4, 8), [3, -5, 2147483647, -2147483648]]],
  mapFrac: [[vec(5, 9)]],
  arrayFromInt: [[vec(4, 10)]],
  whileStack: [[vec(5, 11)], [vec(1, 12)], [vec(8, 13)]],
  inc: [
    [0.7, 2147483647],
    [1.3, -2147483648],
    [0.4, 1e10 + 0.5],
  ],
  loopInc: [
    [0.7, 6],
    [0.7, 1],
  ],
};
/** Hand derivatives where central differences lose the digits (values near 2³¹). */
const HAND: Record<string, (...args: any[]) => number[]> = {
  // d/dx_i of Σ ToInt32(idx_i + 2.5 x_i)·x_i + idx_i·x_i²: the stored integer (wrapped past 2³¹) plus 2·idx_i·x_i.
  paramInt: (x: number[], idx: number[]) => x.map((xi, i) => ((idx[i] + xi * 2.5) | 0) + 2 * idx[i] * xi),
};
const typed = (fn: string, args: unknown[]) => args.map((a, i) => (Array.isArray(a) ? (fn === 'paramInt' && i === 1 ? Int32Array.from(a) : F(a)) : a));
const flat = (g: unknown): number[] => (typeof g === 'number' ? [g] : Array.from(g as ArrayLike<number>));

describe('Int32Array stress', () => {
  const exportsText = Object.keys(CASES)
    .map((fn) => `export const vg_${fn} = valueAndGrad(${fn});\n`)
    .join('');
  const result = compile(`import { valueAndGrad } from 'tsad';\n${SOURCE}\n${exportsText}`, { throwOnError: false });
  const plain = runPlain(SOURCE);
  test('compiles', () => expect(result.diagnostics?.map((d) => String(d.messageText))).toEqual([]));
  const m = result.diagnostics?.length ? ({} as Record<string, any>) : loadOutput(result);
  test.each(Object.keys(CASES))('%s', (fn) => {
    for (const args of CASES[fn]) {
      const ref = plain[fn](...typed(fn, args));
      expect(m[fn](...typed(fn, args))).toBe(ref);
      const [value, g] = m[`vg_${fn}`](...typed(fn, args));
      expect(value).toBe(ref);
      const n = typeof args[0] === 'number' ? 1 : (args[0] as number[]).length;
      const fd = HAND[fn] ? HAND[fn](...args) : Array.from({ length: n }, (_, k) => partial((...xs: any[]) => plain[fn](...typed(fn, xs)), args as never, 0, k)[0]);
      expectClose(flat(g), fd, 1e-6);
    }
  });
});

describe('Int32Array stress: forward mode and second order', () => {
  // Functions of one Float64Array (or one number): jvp against the gradient's dot product, and the Hessian against differences of the gradient.
  const ONE = Object.keys(CASES).filter((fn) => !['paramInt', 'realCompare', 'inc', 'loopInc'].includes(fn));
  const exportsText = ONE.map((fn) => `export const g_${fn} = grad(${fn});\nexport const h_${fn} = hessian(${fn});\nexport const j_${fn} = (x: any, dx: any) => jvp(${fn}, [x], [dx]);\n`).join('');
  const result = compile(`import { grad, hessian, jvp } from 'tsad';\n${SOURCE}\n${exportsText}`, { throwOnError: false });
  test('compiles', () => expect(result.diagnostics?.map((d) => String(d.messageText))).toEqual([]));
  const m = result.diagnostics?.length ? ({} as Record<string, any>) : loadOutput(result);
  test.each(ONE)('%s', (fn) => {
    for (const args of CASES[fn]) {
      const x = typed(fn, args)[0] as number | Float64Array;
      const n = typeof x === 'number' ? 1 : x.length;
      const dx = typeof x === 'number' ? 0.7 : Float64Array.from({ length: n }, (_, i) => Math.cos(i + 0.3));
      const g = flat(m[`g_${fn}`](x));
      const [value, tangent] = m[`j_${fn}`](x, dx);
      expect(value).toBe(m[fn](x));
      expectClose([tangent], [g.reduce((a, gi, i) => a + gi * flat(dx)[i], 0)], 1e-9);
      const H = m[`h_${fn}`](x);
      const rows: number[][] = typeof H === 'number' ? [[H]] : (H as ArrayLike<number>[]).map((r) => Array.from(r));
      const gradAt = (...xs: any[]) => flat(m[`g_${fn}`](...typed(fn, xs)));
      for (let i = 0; i < n; i++)
        expectClose(
          rows.map((r) => r[i]),
          partial(gradAt as never, args as never, 0, i),
          1e-5,
        );
    }
  });
});
