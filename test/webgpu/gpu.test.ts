// gpu(...) on the software adapter (Dawn's OpenGL ES backend on llvmpipe, docs: webgpu-without-
// a-gpu) against tsad's CPU path: each kernel family, and gradients, at lengths around the
// workgroup sizes (64 for maps, 256 for reductions), past one reduction pass (65537) and past a
// million (2^20 + 3). Kernels compute in f32; the tolerances are stated per test. Without an
// adapter every GPU test is skipped, and the suite says how many and why.
import * as path from 'path';
import { compile } from '../plugin/harness';
import { close, data, gpuSuite, maxAbs } from './gpuSuite';
import type { GpuFunction } from '../../runtime/webgpu';

// The types a user sees (checked by the typecheck of the tests): arrays of numbers in any of
// the three forms, numbers as numbers, the result on the GPU as Float32Array.
declare function typedLoss(x: Float32Array, c: number): number;
declare function typedMap(x: Float64Array): Float64Array;
export const typedArgs: Parameters<GpuFunction<typeof typedLoss>>[] = [
  [new Float32Array(1), 1],
  [new Float64Array(1), 1],
  [[1, 2], 1],
];
export const typedResult: (r: Awaited<ReturnType<GpuFunction<typeof typedMap>>>) => Float32Array = (r) => r;
// @ts-expect-error a string is not an array of numbers
export const typedWrong: Parameters<GpuFunction<typeof typedLoss>> = ['x', 1];

const SIZES = [0, 1, 2, 127, 128, 129, 1000, 65537, 2 ** 20 + 3];
// 2^20 + 3 (several reduction passes, a grid past one block of passes) for the sum only: the
// other families and the gradients stop at 65537, which keeps the suite's time (the software
// adapter runs on the CPU) near a minute; the map at 2^20 + 3 alone took ~25 s there.
const GRAD_SIZES = SIZES.slice(0, -1);
const SMALL_SIZES = SIZES.slice(0, -2);
// Before map fusion: lse 11, logsumexp 25, weighted 8, scanLoss 15; before reductions fused with
// the work around them (backend/wgsl/fusedReduce.ts) and maps over other lengths or guards joined
// (fusedMaps.ts): lse 10, logsumexp 24, weighted 5,
// scanLoss 14. test/webgpu/fusion.test.ts checks each fusion rule.
const EXPECTED_DISPATCHES = { lse: 5, logsumexp: 9, weighted: 3, scanLoss: 12 };

const source = `
import { grad, valueAndGrad, hvp, sum, scan, gather, reduceByIndex, matmul, stopGradient } from 'tsad';
import { gpu } from 'tsad/webgpu';

/** @differentiable */
export function wave(x: Float32Array, y: Float32Array): Float32Array {
  return x.map((v, i) => Math.sin(v) * y[i] + Math.exp(-v * v) / (1 + Math.abs(y[i])));
}
/** @differentiable */
export function total(x: Float32Array): number {
  return sum(x);
}
/** @differentiable */
export function lowest(x: Float32Array): number {
  return x.reduce((a, b) => Math.min(a, b), Infinity);
}
/** @differentiable */
export function highest(x: Float32Array): number {
  return x.reduce((a, b) => Math.max(a, b), -Infinity);
}
/** @differentiable */
export function weighted(x: Float32Array, y: Float32Array, c: number): number {
  return sum(x.map((v, i) => Math.sin(v) * y[i] * c));
}
/** @differentiable */
export function spread(x: Float32Array, c: number): number {
  return x.reduce((a, b) => Math.min(a, b), Infinity) * c + sum(x.map((v) => v * v)) * 0.5;
}
/** @differentiable */
export function logsumexp(x: Float32Array): number {
  const m = x.reduce((a, b) => Math.max(a, b), -Infinity);
  return m + Math.log(sum(x.map((v) => Math.exp(v - m))));
}
/** GradBench's lse with array methods: the shift is a constant, as there. */
/** @differentiable */
export function lse(x: Float32Array): number {
  const a = stopGradient(x.reduce((m, v) => Math.max(m, v), -Infinity));
  return a + Math.log(sum(x.map((v) => Math.exp(v - a))));
}

/** @differentiable */
export function scalars(a: number, b: number): number {
  return Math.sin(a) * b + Math.max(a, b) / (1 + a * a);
}

export const gpuWave = gpu(wave);
export const gpuWeightedC = gpu(grad(weighted, { wrt: ['c'] }));
export const cpuWeightedC = grad(weighted, { wrt: ['c'] });
export const gpuScalars = gpu(valueAndGrad(scalars, { wrt: [1] }));
export const cpuScalars = valueAndGrad(scalars, { wrt: [1] });
export const gpuTotal = gpu(total);
export const gpuLowest = gpu(lowest);
export const gpuHighest = gpu(highest);
export const gpuWeighted = gpu(grad(weighted));
export const gpuWeightedY = gpu(valueAndGrad(weighted, { wrt: ['y'] }));
export const gpuSpread = gpu(valueAndGrad(spread));
export const gpuLogsumexp = gpu(valueAndGrad(logsumexp));
export const gpuLse = gpu(grad(lse));
export const cpuWeighted = grad(weighted);
export const cpuWeightedY = valueAndGrad(weighted, { wrt: ['y'] });
export const cpuSpread = valueAndGrad(spread);
export const cpuLogsumexp = valueAndGrad(logsumexp);
export const cpuLse = grad(lse);
/** @differentiable */
export function cumsum(x: Float32Array): Float64Array {
  return scan(x, '+');
}
/** @differentiable */
export function cummax(x: Float32Array): Float64Array {
  return scan(x, 'max');
}
/** A log-sum-exp scan (associative): a user lambda. */
/** @differentiable */
export function cumlse(x: Float32Array): Float64Array {
  return scan(x, (a, b) => Math.max(a, b) + Math.log(1 + Math.exp(-Math.abs(a - b))), -Infinity);
}
/** @differentiable */
export function scanLoss(x: Float32Array): number {
  return sum(scan(x, (a, b) => Math.max(a, b) + Math.log(1 + Math.exp(-Math.abs(a - b))), -30).map((v) => Math.sin(v)));
}
/** @differentiable */
export function prodLoss(x: Float32Array): number {
  return sum(scan(x, '*').map((v, i) => v * x[i]));
}
/** A general reduction (a product, as a lambda): its adjoint reads the prefix before each element. */
/** @differentiable */
export function product(x: Float32Array): number {
  return x.reduce((a, b) => a * b, 1);
}
export const gpuProduct = gpu(valueAndGrad(product));
export const cpuProduct = valueAndGrad(product);
export const gpuCumsum = gpu(cumsum);
export const gpuCummax = gpu(cummax);
export const gpuCumlse = gpu(cumlse);
export const gpuScanLoss = gpu(valueAndGrad(scanLoss));
export const cpuScanLoss = valueAndGrad(scanLoss);
export const gpuProdLoss = gpu(grad(prodLoss));
export const cpuProdLoss = grad(prodLoss);
/** @differentiable */
export function picked(w: Float32Array, idx: Float32Array): number {
  return sum(gather(w, idx).map((v) => v * v * 0.5 + Math.sin(v)));
}
/** @differentiable */
export function histSum(d: Float32Array, idx: Float32Array, v: Float32Array): Float64Array {
  return reduceByIndex(d, idx, v, '+');
}
/** @differentiable */
export function histProd(d: Float32Array, idx: Float32Array, v: Float32Array): Float64Array {
  return reduceByIndex(d, idx, v, '*');
}
/** @differentiable */
export function histMin(d: Float32Array, idx: Float32Array, v: Float32Array): Float64Array {
  return reduceByIndex(d, idx, v, 'min');
}
/** @differentiable */
export function histMax(d: Float32Array, idx: Float32Array, v: Float32Array): Float64Array {
  return reduceByIndex(d, idx, v, (a, b) => Math.max(a, b));
}
export const gpuPicked = gpu(grad(picked));
export const cpuPicked = grad(picked);
export const gpuHistSum = gpu(histSum);
export const gpuHistProd = gpu(histProd);
export const gpuHistMin = gpu(histMin);
export const gpuHistMax = gpu(histMax);
/** @differentiable */
export function product2(a: number[][], b: number[][]): number[][] {
  return matmul(a, b);
}
/** A two-layer network's loss on flat activations: tanh between the products. */
/** @differentiable */
export function mmLoss(a: number[][], b: number[][]): number {
  return sum(matmul(a, b).flat().map((v) => Math.tanh(v) * v));
}
export const gpuProduct2 = gpu(product2);
export const gpuMmLossA = gpu(grad(mmLoss, { wrt: [0] }));
export const gpuMmLossB = gpu(valueAndGrad(mmLoss, { wrt: [1] }));
export const cpuMmLossA = grad(mmLoss, { wrt: [0] });
export const cpuMmLossB = valueAndGrad(mmLoss, { wrt: [1] });
export const gpuHvpWeighted = gpu(hvp(weighted));
export const cpuHvpWeighted = hvp(weighted);
export const gpuHvpLogsumexp = gpu(hvp(logsumexp));
export const cpuHvpLogsumexp = hvp(logsumexp);
export { gpu };
`;

const suite = gpuSuite('test/webgpu/gpu.test.ts', source, 30_000);
const run = suite.run;
let m: Record<string, any>;
beforeAll(() => {
  m = suite.exports();
});

function sumAbs(a: ArrayLike<number>): number {
  let r = 0;
  for (let i = 0; i < a.length; i++) r += Math.abs(a[i]);
  return r;
}

describe('kernel families against the CPU path', () => {
  // A fused map with a free array and sin, exp, abs, a division: 1e-4 relative (f32, and the
  // software adapter's transcendentals), against at least 1e-3 of the largest value.
  run('map with a free array', async () => {
    for (const n of GRAD_SIZES) {
      const x = data(n, 1);
      const y = data(n, 2);
      const cpu = m.wave(x, y);
      close(await m.gpuWave(x, y), cpu, 1e-4, 1e-3 * maxAbs(cpu), `wave n=${n}`);
    }
  });

  // A tree sum in f32: error about log2(n) roundings of partial sums, so measured against the sum
  // of magnitudes: 1e-6 · (log2 n + 1) · Σ|x| (CPU: f64 over the same f32 inputs).
  run('sum', async () => {
    for (const n of SIZES) {
      const x = data(n, 3);
      const got = await m.gpuTotal(x);
      expect(Math.abs(got - m.total(x))).toBeLessThanOrEqual(1e-6 * (Math.log2(n + 1) + 1) * sumAbs(x) + 1e-12);
    }
  });

  // Selections are exact.
  run('min and max', async () => {
    for (const n of GRAD_SIZES) {
      const x = data(n, 4);
      expect(await m.gpuLowest(x)).toBe(m.lowest(x));
      expect(await m.gpuHighest(x)).toBe(m.highest(x));
    }
  });

  run('grids wider than one dimension (2-D dispatch) give the same numbers', async () => {
    const runtime = require(path.resolve(__dirname, '../../dist/runtime/webgpu/run.js'));
    runtime.limitGridWidthForTests(7);
    try {
      for (const n of [1000, 65537]) {
        const x = data(n, 5);
        const y = data(n, 6);
        const cpu = m.wave(x, y);
        close(await m.gpuWave(x, y), cpu, 1e-4, 1e-3 * maxAbs(cpu), `wave n=${n}, 7 workgroups a row`);
        expect(await m.gpuHighest(x)).toBe(m.highest(x));
        expect(Math.abs((await m.gpuTotal(x)) - m.total(x))).toBeLessThanOrEqual(1e-6 * 18 * sumAbs(x));
      }
    } finally {
      runtime.limitGridWidthForTests(Infinity);
    }
  });
});

describe('gradients on the GPU against the CPU gradients', () => {
  // Per element: 1e-4 relative, against at least 1e-3 of the largest entry (the value of a long
  // sum: 1e-6 · (log2 n + 1) · Σ|terms|, as for sum).
  run('grad of a map with a free array and a free scalar', async () => {
    for (const n of GRAD_SIZES) {
      const x = data(n, 7);
      const y = data(n, 8);
      const cpu = m.cpuWeighted(x, y, 1.5);
      close(await m.gpuWeighted(x, y, 1.5), cpu, 1e-4, 1e-3 * maxAbs(cpu), `grad weighted n=${n}`);
      const [value, dy] = await m.gpuWeightedY(x, y, 1.5);
      const [cpuValue, cpuDy] = m.cpuWeightedY(x, y, 1.5);
      expect(Math.abs(value - cpuValue)).toBeLessThanOrEqual(1e-6 * (Math.log2(n + 1) + 1) * 1.5 * sumAbs(y) + 1e-12);
      close(dy, cpuDy, 1e-4, 1e-3 * maxAbs(cpuDy), `grad weighted wrt y n=${n}`);
    }
  });

  // The minimum's cotangent goes to the first index holding it (a one-hot), as on the CPU.
  run('valueAndGrad of a reduce with min', async () => {
    for (const n of GRAD_SIZES) {
      const x = data(n, 9);
      if (n > 10) x[n - 3] = x[5] = -3; // a tie: the lower index wins
      const [value, dx] = await m.gpuSpread(x, 2);
      const [cpuValue, cpuDx] = m.cpuSpread(x, 2);
      if (n === 0)
        expect(value).toBe(cpuValue); // min of nothing: Infinity
      else expect(Math.abs(value - cpuValue)).toBeLessThanOrEqual(1e-6 * (Math.log2(n + 1) + 1) * sumAbs(x.map((v) => v * v)) + 1e-6 * Math.abs(cpuValue));
      close(dx, cpuDx, 1e-5, 1, `grad spread n=${n}`);
    }
  });

  run('valueAndGrad of a softmax-style logsumexp', async () => {
    for (const n of GRAD_SIZES) {
      const x = data(n, 10);
      const [value, dx] = await m.gpuLogsumexp(x);
      const [cpuValue, cpuDx] = m.cpuLogsumexp(x);
      if (n === 0) expect(value).toBe(cpuValue);
      else expect(Math.abs(value - cpuValue)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(cpuValue)));
      // The maximum's element also gets 1 − Σ softmax, a cancellation whose f32 error is that of
      // the long sum: 1e-6 · (log2 n + 1) absolute on top of the relative tolerance.
      close(dx, cpuDx, 1e-4, 1e-3 * maxAbs(cpuDx), `grad logsumexp n=${n}`, 1e-6 * (Math.log2(n + 1) + 1));
    }
  });

  run('grad of a GradBench-like lse', async () => {
    for (const n of GRAD_SIZES) {
      const x = data(n, 11, -5, 5);
      const cpu = m.cpuLse(x);
      close(await m.gpuLse(x), cpu, 1e-4, 1e-3 * maxAbs(cpu), `grad lse n=${n}`);
    }
  });
});

describe('scans (hierarchical: every length) and their adjoints', () => {
  // Prefix sums in f32 (a tree inside blocks, block totals scanned again): each element's error
  // is about (log2 n + 2) roundings of its prefix of magnitudes; 1e-6 per rounding.
  // (To 65537, past one block of 4096: 2^20 + 3 (two levels) passed too, but takes too long on the
  // software adapter for the suite; the reduction families run there.)
  run('scan with +, max (exact) and a log-sum-exp lambda', async () => {
    for (const n of GRAD_SIZES) {
      const x = data(n, 19);
      const cpu = m.cumsum(x);
      const got = await m.gpuCumsum(x);
      expect(got.length).toBe(n);
      let prefix = 0;
      for (let i = 0; i < n; i++) {
        prefix += Math.abs(x[i]);
        if (!(Math.abs(got[i] - cpu[i]) <= 1e-6 * (Math.log2(n + 1) + 2) * prefix + 1e-12)) throw new Error(`cumsum n=${n}: element ${i}: GPU ${got[i]}, CPU ${cpu[i]}`);
      }
      expect(Array.from(await m.gpuCummax(x))).toEqual(Array.from(m.cummax(x)));
      // log-sum-exp values grow like log(i): 1e-5 relative (f32 log/exp of the adapter, regrouped).
      const lse = m.cumlse(x);
      close(await m.gpuCumlse(x), lse, 1e-5, 1, `cumlse n=${n}`);
    }
  });

  // The adjoint of a scan with a lambda is the affine-composition scan over the reversed index;
  // a product scan's and a product reduce's adjoints are exact with zeros (no division): zeros
  // are planted (products of n factors near 1: 1e-6 · (n + 1) relative). To 1000: each
  // cotangent is a suffix sum of products, whose f32 error grows with n as a long sum's does.
  run('gradients through a scan with a lambda, a product scan and a product reduce', async () => {
    for (const n of SMALL_SIZES) {
      const x = data(n, 20);
      const [value, dx] = await m.gpuScanLoss(x);
      const [cpuValue, cpuDx] = m.cpuScanLoss(x);
      expect(Math.abs(value - cpuValue)).toBeLessThanOrEqual(1e-5 * (Math.log2(n + 1) + 1) * Math.max(1, n));
      close(dx, cpuDx, 1e-4, 1e-3 * maxAbs(cpuDx), `grad scanLoss n=${n}`, 1e-5);
      const z = data(n, 29, 0.999, 1.001);
      if (n > 10) z[4] = 0; // one zero: the other elements' cotangents are 0, its own the rest's product
      const [pv, pd] = await m.gpuProduct(z);
      const [cpv, cpd] = m.cpuProduct(z);
      expect(Math.abs(pv - cpv)).toBeLessThanOrEqual(1e-6 * (n + 1) * Math.abs(cpv) + 1e-30);
      close(pd, cpd, 1e-6 * (n + 1), 1e-3 * maxAbs(cpd), `grad product n=${n}`, 1e-30);
      const y = data(n, 21, 0.5, 1.5);
      if (n > 10) y[3] = y[n - 2] = 0;
      const cpu = m.cpuProdLoss(y);
      close(await m.gpuProdLoss(y), cpu, 1e-4, 1e-3 * maxAbs(cpu), `grad prodLoss n=${n}`, 1e-6);
    }
  });
});

describe('scatter-add and reduce-by-index (atomics on f32 bits)', () => {
  // Indices in a quarter of the length: each bin gets about four elements, index 0 many more
  // (planted every 7th element: contention on one word). The atomics add in the device's order,
  // one after another: the recursive-summation bound, (count + 1) · 2^-24 · Σ|terms| (a gather's
  // bin adds the same term each time, so Σ|terms| is |the CPU's value|). Histogram sums and
  // products the same, stated loosely as 1e-6 · (n + 1) relative; min and max are exact.
  const bins = (n: number, m: number, seed: number) => data(n, seed, 0, m).map((v, i) => (i % 7 === 0 ? 0 : Math.floor(v)));
  run('the gradient of a gather (a scatter-add with repeated indices)', async () => {
    for (const n of GRAD_SIZES) {
      const w = data(Math.max(1, n >> 2), 23);
      const idx = bins(n, w.length, 24);
      const cpu = m.cpuPicked(w, idx);
      const counts = new Float64Array(w.length);
      idx.forEach((j: number) => counts[j]++);
      const got = await m.gpuPicked(w, idx);
      expect(got.length).toBe(cpu.length);
      for (let j = 0; j < cpu.length; j++) {
        if (!(Math.abs(got[j] - cpu[j]) <= (counts[j] + 1) * 2 ** -24 * Math.abs(cpu[j]) + 1e-6)) throw new Error(`grad picked n=${n}: element ${j}: GPU ${got[j]}, CPU ${cpu[j]}`);
      }
    }
  });

  // The CPU path rejects an index outside the array (or not an integer); the GPU too, after
  // the kernels ran (a flag slot the gather's kernel sets), never reading 0 in its place.
  run('a gather index outside the array rejects as on the CPU', async () => {
    const w = Float32Array.from([1, 2, 3, 4]);
    for (const bad of [4, -1, 1.5]) {
      const idx = Float32Array.from([0, bad, 2]);
      expect(() => m.cpuPicked(w, idx)).toThrow(RangeError);
      await expect(m.gpuPicked(w, idx)).rejects.toThrow(/gpu\(grad\(picked\)\): gather: an index is not an index of the array \(length 4\)/);
    }
    close(await m.gpuPicked(w, Float32Array.from([3, 0, 3])), m.cpuPicked(w, Float32Array.from([3, 0, 3])), 1e-6, 1, 'picked after a rejection');
  });

  run('reduceByIndex with + * min max', async () => {
    for (const n of GRAD_SIZES) {
      const M = Math.max(1, n >> 2);
      const d = data(M, 25);
      const idx = bins(n, M, 26);
      if (n > 2) idx[1] = -1; // outside: ignored
      const v = data(n, 27);
      const near = data(n, 28, 0.99, 1.01);
      close(await m.gpuHistSum(d, idx, v), m.histSum(d, idx, v), 1e-6 * (n + 1), 1, `histSum n=${n}`);
      close(await m.gpuHistProd(d, idx, near), m.histProd(d, idx, near), 1e-6 * (n + 1), 1e-3, `histProd n=${n}`);
      expect(Array.from(await m.gpuHistMin(d, idx, v))).toEqual(Array.from(m.histMin(d, idx, v)));
      expect(Array.from(await m.gpuHistMax(d, idx, v))).toEqual(Array.from(m.histMax(d, idx, v)));
    }
  });
});

describe('matmul (tiled, workgroup memory) and its adjoints', () => {
  const matrix = (r: number, c: number, seed: number) => {
    const flat = data(r * c, seed, -1, 1);
    return Array.from({ length: r }, (_, i) => Array.from(flat.subarray(i * c, (i + 1) * c)));
  };
  // Shapes around the 16×16 tile (0, 1, 15, 16, 17, a long inner size). A dot product of length
  // k in f32, in tile order: 1e-6 · k · Σ|a_il b_lj| per element, stated as 1e-6 · (k + 1) of the
  // largest |entry| (entries of [−1, 1]).
  const SHAPES: [number, number, number][] = [
    [1, 3, 0],
    [1, 1, 1],
    [2, 0, 3],
    [15, 16, 17],
    [16, 33, 16],
    [17, 5, 40],
    [3, 1000, 2],
  ];
  run('products and gradients with respect to either factor', async () => {
    for (const [n, k, mm] of SHAPES) {
      const a = matrix(n, k, 30);
      const b = matrix(k, mm, 31);
      const tol = 1e-6 * (k + 1);
      const want = m.product2(a, b).flat();
      const got = await m.gpuProduct2(a, b);
      expect(got.length).toBe(n);
      close(
        got.flatMap((r: Float32Array) => Array.from(r)),
        want,
        tol,
        1,
        `matmul ${n}×${k}×${mm}`,
      );
      const da = await m.gpuMmLossA(a, b);
      close(
        da.flatMap((r: Float32Array) => Array.from(r)),
        m.cpuMmLossA(a, b).flat(),
        tol * mm,
        1,
        `d/da ${n}×${k}×${mm}`,
      );
      const [value, db] = await m.gpuMmLossB(a, b);
      const [cpuValue, cpuDb] = m.cpuMmLossB(a, b);
      expect(Math.abs(value - cpuValue)).toBeLessThanOrEqual(tol * (n * mm + 1));
      close(
        db.flatMap((r: Float32Array) => Array.from(r)),
        cpuDb.flat(),
        tol * n,
        1,
        `d/db ${n}×${k}×${mm}`,
      );
    }
  });
});

describe('second order and device-resident data', () => {
  // hvp: forward over reverse, inlined into one device program; 1e-4 relative per element as
  // for gradients (logsumexp's H·v also holds the cancellation of its gradient: the same extra
  // absolute term).
  // (To 1000: the families and the gradients run the same kernels further.)
  run('hvp of a map with a free array and of logsumexp', async () => {
    for (const n of SMALL_SIZES) {
      const x = data(n, 14);
      const y = data(n, 15);
      const v = data(n, 16);
      const cpu = m.cpuHvpWeighted(x, y, 1.5, v);
      close(await m.gpuHvpWeighted(x, y, 1.5, v), cpu, 1e-4, 1e-3 * maxAbs(cpu), `hvp weighted n=${n}`);
      const cpuL = m.cpuHvpLogsumexp(x, v);
      close(await m.gpuHvpLogsumexp(x, v), cpuL, 1e-4, 1e-3 * maxAbs(cpuL), `hvp logsumexp n=${n}`, 1e-6 * (Math.log2(n + 1) + 1) * maxAbs(v));
    }
  });

  run('gpu.upload: a handle is taken wherever an array is, across calls, and reads back', async () => {
    for (const n of [0, 1, 129, 1000]) {
      const x = data(n, 17);
      const y = data(n, 18);
      const hx = await m.gpu.upload(x);
      const hy = await m.gpu.upload(Float64Array.from(y));
      expect(hx.length).toBe(n);
      expect(Array.from(await hx.read())).toEqual(Array.from(x));
      const cpu = m.cpuWeighted(x, y, 1.5);
      // Twice with the same handles (nothing consumed), and a handle beside a host array.
      for (let k = 0; k < 2; k++) close(await m.gpuWeighted(hx, hy, 1.5), cpu, 1e-4, 1e-3 * maxAbs(cpu), `grad weighted on handles n=${n}`);
      close(await m.gpuWeighted(hx, y, 1.5), cpu, 1e-4, 1e-3 * maxAbs(cpu), `grad weighted, one handle n=${n}`);
      // One handle for two parameters: the second binding is a copy.
      const same = m.cpuWeighted(x, x, 1.5);
      close(await m.gpuWeighted(hx, hx, 1.5), same, 1e-4, 1e-3 * maxAbs(same), `grad weighted(x, x) n=${n}`);
      hx.destroy();
      await expect(m.gpuWeighted(hx, hy, 1.5)).rejects.toThrow(/argument 1 \('x'\) is a GPU array that was destroyed/);
      hy.destroy();
    }
  });

  run('a handle of a released device is refused, naming the argument', async () => {
    const h = await m.gpu.upload([1, 2, 3]);
    await m.gpu.release();
    await expect(m.gpuTotal(h)).rejects.toThrow(/argument 1 \('x'\) was uploaded to a device that is gone/);
    expect(await m.gpuTotal([1, 2, 3])).toBe(6);
  });
});

describe('dispatches', () => {
  // Consecutive elementwise maps of one length run as one kernel (lower.ts, fuseBodies): the
  // dispatches of whole gradients, counted by the runtime, at a length past one block.
  run('per gradient', async () => {
    const runtime = require(path.resolve(__dirname, '../../dist/runtime/webgpu/run.js'));
    const count = async (f: () => Promise<unknown>) => {
      const before = runtime.dispatchCount();
      await f();
      return runtime.dispatchCount() - before;
    };
    const x = data(5000, 22);
    const counts = {
      lse: await count(() => m.gpuLse(x)),
      logsumexp: await count(() => m.gpuLogsumexp(x)),
      weighted: await count(() =>
        m.gpuWeighted(
          x,
          x.map((v) => -v),
          2,
        ),
      ),
      scanLoss: await count(() => m.gpuScanLoss(x)),
    };
    expect(counts).toEqual(EXPECTED_DISPATCHES);
  });
});

describe('scalar gradients', () => {
  // A gradient that is a number (a long sum: as for sum), and a program of scalar code only.
  run('with respect to a number', async () => {
    for (const n of [0, 1, 1000]) {
      const x = data(n, 12);
      const y = data(n, 13);
      const got = await m.gpuWeightedC(x, y, 0.5);
      expect(typeof got).toBe('number');
      expect(Math.abs(got - m.cpuWeightedC(x, y, 0.5))).toBeLessThanOrEqual(1e-6 * (Math.log2(n + 1) + 1) * sumAbs(y) + 1e-12);
    }
    const [value, db] = await m.gpuScalars(0.7, -1.25);
    const [cpuValue, cpuDb] = m.cpuScalars(0.7, -1.25);
    expect(Math.abs(value - cpuValue)).toBeLessThanOrEqual(1e-6 * Math.abs(cpuValue));
    expect(Math.abs(db - cpuDb)).toBeLessThanOrEqual(1e-6 * Math.abs(cpuDb));
  });
});

describe('arguments and errors', () => {
  run('a Float64Array or number[] argument is converted to f32; the result is a Float32Array', async () => {
    const x = [0.5, -1, 2];
    const got = await m.gpuTotal(Float64Array.from(x));
    expect(got).toBeCloseTo(1.5, 6);
    const w = await m.gpuWave(x, [1, 2, 3]);
    expect(w).toBeInstanceOf(Float32Array);
  });

  run('a wrong argument rejects with a TypeError naming it', async () => {
    await expect(m.gpuTotal('abc')).rejects.toThrow(/gpu\(total\): argument 1 \('x'\) must be a Float32Array/);
    await expect(m.gpuWeighted(new Float32Array(2), new Float32Array(2), 'c')).rejects.toThrow(TypeError);
  });

  run("an array read at i shorter than the mapped one rejects with the CPU path's message", async () => {
    await expect(m.gpuWave(new Float32Array(3), new Float32Array(2))).rejects.toThrow(/must be at least as long as 'x' \(3 > 2\)/);
  });

  run('a longer one is read at its first n elements, as on the CPU, and its gradient is as long as it', async () => {
    const x = Float32Array.from([0.5, -1, 2]);
    const y = Float32Array.from([3, 0.25, -2, 7, 9]);
    close(await m.gpuWave(x, y), m.wave(x, y), 1e-4, 1e-5, 'wave with a longer y');
    const [v5, gy5] = await m.gpuWeightedY(x, y, 1.5);
    const [cv5, cgy5] = m.cpuWeightedY(x, y, 1.5);
    expect(v5).toBeCloseTo(cv5, 4);
    close(gy5, cgy5, 1e-5, 1, 'gradient of the longer y');
    const [value, gy] = await m.gpuWeightedY(x, y.subarray(0, 3), 1.5);
    expect(gy.length).toBe(3);
    expect(value).toBeCloseTo(m.weighted(x, y.subarray(0, 3), 1.5), 4);
  });
});

describe('the build', () => {
  const codes = (src: string) => (compile(src, { throwOnError: false }).diagnostics ?? []).map((d) => `${d.code - 900000}: ${String(d.messageText)}`);

  test('a program outside the GPU slice is TSAD1011, naming what is not on the GPU', () => {
    const found = codes(`
      import { grad } from 'tsad';
      import { gpu } from 'tsad/webgpu';
      /** @differentiable */
      export function scaled(x: Float64Array, unit: string): number {
        return unit === 'cm' ? x[0] / 100 : x[0];
      }
      export const g = gpu(grad(scaled));
    `);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^1011: TSAD1011: gpu\(grad\(scaled\)\) is not on the GPU yet: it uses the parameter 'unit'/);
  });

  test('gpu of another transform is TSAD1011', () => {
    const found = codes(`
      import { hessian } from 'tsad';
      import { gpu } from 'tsad/webgpu';
      /** @differentiable */
      export function f(x: number): number { return x * x; }
      export const g = gpu(hessian(f));
    `);
    expect(found.map((c) => c.slice(0, 4))).toEqual(['1011']);
    expect(found[0]).toMatch(/the transform hessian/);
    const vjpFound = codes(`
      import { vjp } from 'tsad';
      import { gpu } from 'tsad/webgpu';
      /** @differentiable */
      export function f(x: number): number { return x * x; }
      export const g = gpu(vjp(f, 2));
    `);
    expect(vjpFound.map((c) => c.slice(0, 4))).toEqual(['1011']);
    expect(vjpFound[0]).toMatch(/the transform vjp \(vjp\(f, \.\.\.args\) runs at once and returns a host pullback/);
  });

  // Checked where there is no adapter (the no-adapter run of this suite: EGL_PLATFORM=x11 with no
  // display); with one, the device cannot be taken away in-process.
  test('with no adapter, a call rejects naming the problem and the call site', async () => {
    if (suite.unavailable() === undefined) return;
    await expect(m.gpuTotal(new Float32Array(1))).rejects.toThrow(/no WebGPU adapter: .*\(needed by gpu\(total\)\)/);
    expect(await m.gpu.available()).toBe(false);
  });

  test('without the plugin, a gpu function rejects saying how to turn it on', async () => {
    const { gpu } = require('../../runtime/webgpu');
    await expect(gpu((x: number) => x)(1)).rejects.toThrow(/was not compiled/);
  });
});
