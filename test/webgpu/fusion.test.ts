// Reductions fused with the work around them (transformer/backend/wgsl/fusedReduce.ts), on the
// software adapter: per rule, the dispatches the runtime counts and the results against tsad's
// CPU path at lengths around the workgroup sizes, one reduction pass's reach (4096 = 256 · 16)
// and past it. Kernels compute in f32: a tree sum of n terms is held to
// 1e-6 · (log2 n + 1) · Σ|terms| (+ 1e-5 relative for the transcendentals around it).
import * as path from 'path';
import { data, gpuSuite } from './gpuSuite';

const SIZES = [0, 1, 2, 127, 128, 129, 1000, 4096, 4097, 65537, 2 ** 20 + 3];
/** One reduction pass reaches this far: up to it a reduction is one dispatch. */
const REACH = 256 * 16;

const source = `
import { grad, valueAndGrad, sum } from 'tsad';
import { gpu } from 'tsad/webgpu';

/** @differentiable */
export function energy(x: Float32Array): number {
  return sum(x.map((v) => Math.sin(v) * v));
}
/** @differentiable */
export function plain(x: Float32Array): number {
  return sum(x);
}
/** @differentiable */
export function scaledLog(x: Float32Array, c: number): number {
  const s = sum(x.map((v) => v * v));
  return Math.log(1 + s) * c + Math.sqrt(s);
}
/** @differentiable */
export function plusFirst(x: Float32Array): number {
  return sum(x.map((v) => v * v)) + (x.length > 0 ? x[0] : 0);
}
/** @differentiable */
export function lse(x: Float32Array): number {
  const m = x.reduce((a, b) => Math.max(a, b), -Infinity);
  return m + Math.log(sum(x.map((v) => Math.exp(v - m))));
}
/** @differentiable */
export function wave(x: Float32Array, y: Float32Array): Float32Array {
  return x.map((v, i) => Math.sin(v) * y[i] + Math.exp(-v * v));
}
export const gpuEnergy = gpu(energy);
export const gpuWave = gpu(wave);
export const gpuPlain = gpu(plain);
export const gpuScaledLog = gpu(scaledLog);
export const gpuPlusFirst = gpu(plusFirst);
export const gpuLse = gpu(valueAndGrad(lse));
export const cpuLse = valueAndGrad(lse);
export const gpuGradScaledLog = gpu(grad(scaledLog));
export const cpuGradScaledLog = grad(scaledLog);
export { gpu };
`;

const suite = gpuSuite('test/webgpu/fusion.test.ts', source);
const run = suite.run;
let m: Record<string, any>;
beforeAll(() => {
  m = suite.exports();
});

/** The dispatches of one call, and its result. */
async function counted(f: () => Promise<any>): Promise<[number, any]> {
  const runtime = require(path.resolve(__dirname, '../../dist/runtime/webgpu/run.js'));
  const before = runtime.dispatchCount();
  const r = await f();
  return [runtime.dispatchCount() - before, r];
}

/** Passes of a reduction over n elements: one while a pass reaches, then one per level of partials. */
const passes = (n: number) => {
  let p = 1;
  for (let g = Math.ceil(n / REACH); g > 1; g = Math.ceil(g / REACH)) p++;
  return p;
};

/** |gpu − cpu| within the tree sum's bound over terms of magnitude `mass`. */
function near(gpu: number, cpu: number, mass: number, n: number, what: string): void {
  const bound = 1e-6 * (Math.log2(n + 1) + 1) * mass + 1e-5 * Math.abs(cpu) + 1e-6;
  if (!(Math.abs(gpu - cpu) <= bound)) throw new Error(`${what}: GPU ${gpu}, CPU ${cpu} (bound ${bound})`);
}
const massOf = (x: Float32Array, f: (v: number) => number) => x.reduce((a, v) => a + Math.abs(f(v)), 0);

describe('a reduction fused with the work around it', () => {
  // Rule 3: a reduction over at most one pass's reach is one dispatch (the pass folds the neutral
  // element in); past it, a pass per level. Before: pass + finishing kernel (+ a pass per level).
  run('a small reduction is one dispatch', async () => {
    for (const n of SIZES) {
      const x = data(n, 1);
      const [d, got] = await counted(() => m.gpuPlain(x));
      expect([n, d]).toEqual([n, passes(n)]);
      near(got, m.plain(x), massOf(x, Math.abs), n, `sum n=${n}`);
    }
  });

  // Rule 1: the map whose result the sum reads runs in the sum's first pass. Before: 1 more.
  run('a map before a reduction runs in its first pass', async () => {
    for (const n of SIZES) {
      const x = data(n, 2);
      const [d, got] = await counted(() => m.gpuEnergy(x));
      expect([n, d]).toEqual([n, passes(n)]);
      near(
        got,
        m.energy(x),
        massOf(x, (v) => Math.sin(v) * v),
        n,
        `energy n=${n}`,
      );
    }
  });

  // Rule 2: the scalar code after a reduction (log, sqrt, products) runs in its last pass.
  run('scalar code after a reduction runs in its last pass', async () => {
    for (const n of SIZES) {
      const x = data(n, 3);
      const [d, got] = await counted(() => m.gpuScaledLog(x, 0.75));
      expect([n, d]).toEqual([n, passes(n)]);
      const s = massOf(x, (v) => v * v);
      near(got, m.scaledLog(x, 0.75), s * (1 + 1 / Math.sqrt(s + 1e-30)), n, `scaledLog n=${n}`);
    }
  });

  // Scalar code reading an array the first pass binds stays a kernel of its own (one buffer is
  // never bound twice in a kernel); the numbers are the same.
  run('scalar code reading the reduced array', async () => {
    for (const n of SIZES) {
      const x = data(n, 4);
      const [d, got] = await counted(() => m.gpuPlusFirst(x));
      expect([n, d]).toEqual([n, passes(n) + 1]);
      near(got, m.plusFirst(x), massOf(x, (v) => v * v) + 2, n, `plusFirst n=${n}`);
    }
  });

  // Maps over lengths the host computes differently, under a cond's guards (the front end's test
  // that y is long enough for y[i], and the copy of each branch's result): one kernel, each body
  // under its own count and guards (fusedMaps.ts; at n = 0 too: it runs over the longest count, y's).
  // Before: 4 dispatches. Elementwise f32: 1e-6
  // relative against 1e-6.
  run('maps over other lengths or guards join into one kernel', async () => {
    for (const n of SIZES) {
      const x = data(n, 6);
      const y = data(n + 3, 7);
      const [d, got] = await counted(() => m.gpuWave(x, y));
      expect([n, d]).toEqual([n, 1]);
      const cpu = m.wave(x, y);
      expect(got.length).toBe(n);
      for (let i = 0; i < n; i++) if (!(Math.abs(got[i] - cpu[i]) <= 1e-6 * Math.max(Math.abs(cpu[i]), 1))) throw new Error(`wave n=${n} [${i}]: ${got[i]} vs ${cpu[i]}`);
    }
  });

  // Whole gradients. valueAndGrad(lse): four reductions (max, the argmax's index, the sum with
  // its exp fused in, the sum of the adjoint), the scalar code after each and the branches of
  // the cond on the argmax in their last passes, and one kernel joining the four maps around the
  // cond's branches (over lengths the host computes differently, and under their guards).
  // Before: 24 at 5000 elements (gpu.test.ts), now 9, as jax-js's 9 at 2^16.
  run('gradients', async () => {
    for (const n of SIZES.filter((n) => n > 0 && n <= 65537)) {
      const x = data(n, 5);
      const [d, [value, g]] = await counted(() => m.gpuLse(x));
      expect([n, d]).toEqual([n, 4 * passes(n) + 1]);
      const [cpuValue, cpuG] = m.cpuLse(x);
      near(value, cpuValue, n, n, `lse n=${n}`);
      for (let i = 0; i < n; i++) if (!(Math.abs(g[i] - cpuG[i]) <= 1e-5 * (Math.log2(n + 1) + 1) * Math.max(cpuG[i], 1 / n))) throw new Error(`lse' n=${n} [${i}]: ${g[i]} vs ${cpuG[i]}`);
      const [dg, gs] = await counted(() => m.gpuGradScaledLog(x, 0.75));
      const cpuGs = m.cpuGradScaledLog(x, 0.75);
      for (let i = 0; i < n; i++)
        if (!(Math.abs(gs[i] - cpuGs[i]) <= 1e-5 * (Math.log2(n + 1) + 1) * (Math.abs(cpuGs[i]) + 1e-3))) throw new Error(`scaledLog' n=${n} [${i}]: ${gs[i]} vs ${cpuGs[i]}`);
      expect(dg).toBeLessThanOrEqual(passes(n) + 1);
    }
  });
});
