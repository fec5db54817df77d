// More Int32Array state (minors22c), one module per function: an Int32Array passed to a marked
// helper that copies it, a ranged .fill with a negative real, a let reassigned to a copy per round,
// for...of and .reduce over an Int32Array, a subarray written through (it aliases its array in
// JavaScript), an Int32Array inside a record parameter read as indices, and a copy into reals
// chosen by a branch, and values past 2³¹ behind an array result (jvp, vjp). Values bit for bit
// against plain JavaScript, gradients against central differences.
import { compile, expectClose, load, loadOutput, partial, runPlain } from './harness';

const SOURCE = `
/** @differentiable */
function countBelow(s: Int32Array, k: number): number {
  let c = 0;
  for (let i = 0; i < s.length; i++) if (s[i] < k) c++;
  return c;
}
/** @differentiable */
function bump(s: Int32Array, i: number, v: number): number {
  const c = s.slice();
  c[i] = c[i] + v;
  return c[i] + s[i];
}
/** @differentiable */
export function helper(x: Float64Array): number {
  const s = new Int32Array(x.length);
  for (let i = 0; i < x.length; i++) s[i] = x[i] * 4;
  let t = 0;
  for (let i = 0; i < x.length; i++) t += stopGradient(countBelow(s, i)) * x[i] + bump(s, i, x[i] * 1.5) * x[i];
  return t;
}
/** @differentiable */
export function fillRange(x: Float64Array): number {
  const s = new Int32Array(x.length);
  s.fill(-x[0] * 3.3, 1, 3);
  let t = 0;
  for (let i = 0; i < s.length; i++) t += s[i] * x[i];
  return t;
}
/** @differentiable */
export function letReassign(x: Float64Array): number {
  let s = new Int32Array(x.length);
  for (let i = 0; i < x.length; i++) s[i] = x[i] * 2;
  let t = 0;
  for (let r = 0; r < 3; r++) {
    const c = s.slice();
    for (let i = 0; i < x.length; i++) c[i] = c[i] + x[i] * (r + 0.5);
    s = c;
    t += s[r % x.length] * x[r % x.length];
  }
  return t;
}
/** @differentiable */
export function forOf(x: Float64Array): number {
  const s = new Int32Array(x.length);
  for (let i = 0; i < x.length; i++) s[i] = x[i] * 5;
  let t = 0;
  let k = 0;
  for (const v of s) {
    t += v * x[k] + v / 3;
    k++;
  }
  return t;
}
/** @differentiable */
export function reduceInt(x: Float64Array): number {
  const s = new Int32Array(x.length);
  for (let i = 0; i < x.length; i++) s[i] = x[i] * 5;
  return s.reduce((a, v) => a + v * 0.5, 0) * x[0] + x[1];
}
/** @differentiable */
export function subarr(x: Float64Array): number {
  const s = new Int32Array(x.length);
  for (let i = 0; i < x.length; i++) s[i] = x[i] * 5;
  const u = s.subarray(1, 3);
  u[0] = x[0] * 2.5;
  return s[1] * x[1] + u[1] * x[2];
}
/** @differentiable */
export function recordInt(w: Float64Array, p: { idx: Int32Array; k: number }): number {
  const c = p.idx.slice();
  let t = 0;
  for (let i = 0; i < c.length; i++) {
    c[i] = (c[i] + p.k * 1.5) % w.length;
    t += w[Math.abs(c[i])] * w[i] + p.idx[i] * w[i] * p.k;
  }
  return t;
}
/** @differentiable */
export function condCopy(x: Float64Array, y: number): number {
  const s = new Int32Array(x.length);
  for (let i = 0; i < x.length; i++) s[i] = x[i] * 3;
  const f = (y > 0 ? new Float64Array(s) : new Float64Array(x)).slice();
  f[0] = f[0] + x[0] * 0.5;
  let t = 0;
  for (let i = 0; i < x.length; i++) t += f[i] * x[i];
  return t;
}
`;
const vec = (n: number, seed: number) => Array.from({ length: n }, (_, k) => Math.sin(k * 1.3 + seed) * 1.7 + 0.05);
const F = (a: number[]) => Float64Array.from(a);
const CASES: Record<string, unknown[][]> = {
  helper: [[vec(5, 1)]],
  fillRange: [[vec(5, 4)]],
  letReassign: [[vec(4, 5)]],
  forOf: [[vec(4, 6)]],
  reduceInt: [[vec(4, 7)]],
  subarr: [[vec(4, 8)]],
  recordInt: [[vec(4, 9), { idx: [2, 0, -3, 1], k: 1.3 }]],
  condCopy: [
    [vec(4, 10), 1],
    [vec(4, 10), -1],
  ],
};
const typed = (args: unknown[]): unknown[] => args.map((a) => (Array.isArray(a) ? F(a) : a && typeof a === 'object' ? { ...a, idx: Int32Array.from((a as any).idx) } : a));
const flat = (g: unknown): number[] => (typeof g === 'number' ? [g] : Array.from(g as ArrayLike<number>));
describe('Int32Array stress 2', () => {
  const plain = runPlain(SOURCE.replace(/stopGradient/g, ''));
  const chunks = SOURCE.split('/** @differentiable */');
  const own = (fn: string) => {
    const i = chunks.findIndex((c) => c.includes(`export function ${fn}(`));
    const helpers = chunks.filter((c) => !c.includes('export function'));
    return [...helpers, chunks[i]].map((c) => `/** @differentiable */${c}`).join('');
  };
  test.each(Object.keys(CASES))('%s', (fn) => {
    const result = compile(`import { valueAndGrad, stopGradient } from 'tsad';\n${own(fn)}\nexport const vg = valueAndGrad(${fn});\n`, { throwOnError: false });
    const diags = (result.diagnostics ?? []).map((d) => String(d.messageText));
    expect(diags).toEqual([]);
    const m = loadOutput(result);
    for (const args of CASES[fn]) {
      const ref = plain[fn](...typed(args));
      const [value, g] = m.vg(...typed(args));
      expect(value).toBe(ref);
      const n = (args[0] as number[]).length;
      const fd = Array.from({ length: n }, (_, k) => partial((...xs: any[]) => plain[fn](...typed(xs)), args as never, 0, k)[0]);
      expectClose(flat(g), fd, 1e-6);
    }
  });
});

describe('Int32Array state behind array results', () => {
  // Values stored past 2³¹ (they wrap) feed an array result: jvp's primal must be JavaScript's,
  // bit for bit; the stored integers carry no tangent (hand derivation: f_i' = 2 x_i d_i, and the
  // number's s_0 d_0), and vjp is the transpose.
  const source = `import { jvp, vjp } from 'tsad';
/** @differentiable */
export function both(x: Float64Array): [Float64Array, number] {
  const s = new Int32Array(x.length);
  for (let i = 0; i < x.length; i++) s[i] = x[i] * 3e9;
  const f = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) f[i] = s[i] * 1e-9 + x[i] * x[i];
  return [f, s[0] * x[0]];
}
export const j = (x: Float64Array, d: Float64Array) => jvp(both, [x], [d]);
export const v = (x: Float64Array, w: Float64Array, u: number) => vjp(both, x)[1]([w, u]);
`;
  test('jvp and vjp', () => {
    const { exports: m } = load(source);
    const plain = runPlain(source.replace(/^import .*$/m, '').replace(/^export const [jv] = .*$/gm, ''));
    const x = Float64Array.from([0.7, -0.9, 0.3]);
    const d = Float64Array.from([1, 0.5, -2]);
    const [[fp, np], [ft, nt]] = m.j(x, d);
    const [f, n] = plain.both(x);
    expect(Array.from(fp)).toEqual(Array.from(f));
    expect(np).toBe(n);
    const s0 = (x[0] * 3e9) | 0;
    expectClose(
      Array.from(ft),
      Array.from(x, (xi, i) => 2 * xi * d[i]),
      1e-12,
    );
    expectClose([nt], [s0 * d[0]], 1e-12);
    const w = Float64Array.from([0.25, -1, 2]);
    const [ct] = m.v(x, w, 1.5);
    expectClose(
      Array.from(ct),
      Array.from(x, (xi, i) => 2 * xi * w[i] + (i === 0 ? 1.5 * s0 : 0)),
      1e-12,
    );
  });
});
