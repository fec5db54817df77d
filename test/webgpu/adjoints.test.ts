// The adjoints of the array IR on the GPU against the CPU gradients (issue 21): reduceByIndex
// (its linear recurrences lhist/lrhist) with + * min max and a lambda, scatter and its pair
// lscatter/lunscatter, and the whole-program gradients of the list that gpu.test.ts
// lacks (softmax cross-entropy, two products in a row). Software adapter (Dawn on llvmpipe) as
// in gpu.test.ts; without an adapter every GPU test is skipped, loudly. Tolerances (f32) are
// stated per test.
import { close, data, gpuSuite, maxAbs } from './gpuSuite';

const SIZES = [0, 1, 2, 127, 128, 129, 1000, 65537];

const source = `
import { grad, valueAndGrad, hvp, sum, reduceByIndex, scatter, matmul } from 'tsad';
import { gpu } from 'tsad/webgpu';

/** @differentiable */
export function histAdd(d: Float32Array, idx: Float32Array, v: Float32Array): number {
  return sum(reduceByIndex(d, idx, v, '+').map((h) => Math.sin(h) * h));
}
/** @differentiable */
export function histMul(d: Float32Array, idx: Float32Array, v: Float32Array): number {
  return sum(reduceByIndex(d, idx, v, '*').map((h) => Math.sin(h) * h));
}
/** @differentiable */
export function histMin(d: Float32Array, idx: Float32Array, v: Float32Array): number {
  return sum(reduceByIndex(d, idx, v, 'min').map((h) => Math.sin(h) * h));
}
/** @differentiable */
export function histMax(d: Float32Array, idx: Float32Array, v: Float32Array): number {
  return sum(reduceByIndex(d, idx, v, 'max').map((h) => Math.sin(h) * h));
}
/** A lambda that is neither commutative nor associative: the result depends on the order. */
/** @differentiable */
export function histLeaky(d: Float32Array, idx: Float32Array, v: Float32Array): Float64Array {
  return reduceByIndex(d, idx, v, (h, x) => h * 0.75 + Math.sin(x));
}
/** @differentiable */
export function histLeakyLoss(d: Float32Array, idx: Float32Array, v: Float32Array): number {
  return sum(reduceByIndex(d, idx, v, (h, x) => h * 0.75 + Math.sin(x)).map((h) => h * h));
}
/** @differentiable */
export function put(d: Float32Array, idx: Float32Array, v: Float32Array): Float64Array {
  return scatter(d, idx, v);
}
/** @differentiable */
export function putLoss(d: Float32Array, idx: Float32Array, v: Float32Array): number {
  return sum(scatter(d, idx, v).map((y) => y * y * 0.5 + Math.sin(y)));
}
/** Softmax cross-entropy of logits against a probability vector (the shift is differentiated through). */
/** @differentiable */
export function xent(logits: Float32Array, target: Float32Array): number {
  const m = logits.reduce((a, b) => Math.max(a, b), -Infinity);
  const z = m + Math.log(sum(logits.map((v) => Math.exp(v - m))));
  return sum(logits.map((v, i) => target[i] * (z - v)));
}
/** Two products in a row (x·W1·W2) and a nonlinear loss on the output. */
/** @differentiable */
export function twoLayer(w1: number[][], w2: number[][], x: number[][]): number {
  return sum(matmul(matmul(x, w1), w2).flat().map((v) => Math.tanh(v) * v));
}

export const gpuHist = {
  add: [gpu(grad(histAdd, { wrt: [2] })), gpu(grad(histAdd, { wrt: [0] }))],
  mul: [gpu(grad(histMul, { wrt: [2] })), gpu(grad(histMul, { wrt: [0] }))],
  min: [gpu(grad(histMin, { wrt: [2] })), gpu(grad(histMin, { wrt: [0] }))],
  max: [gpu(grad(histMax, { wrt: [2] })), gpu(grad(histMax, { wrt: [0] }))],
  leaky: [gpu(grad(histLeakyLoss, { wrt: [2] })), gpu(grad(histLeakyLoss, { wrt: [0] }))],
};
export const cpuHist = {
  add: [grad(histAdd, { wrt: [2] }), grad(histAdd, { wrt: [0] })],
  mul: [grad(histMul, { wrt: [2] }), grad(histMul, { wrt: [0] })],
  min: [grad(histMin, { wrt: [2] }), grad(histMin, { wrt: [0] })],
  max: [grad(histMax, { wrt: [2] }), grad(histMax, { wrt: [0] })],
  leaky: [grad(histLeakyLoss, { wrt: [2] }), grad(histLeakyLoss, { wrt: [0] })],
};
export const gpuHistLeaky = gpu(histLeaky);
export const gpuPut = gpu(put);
export const gpuPutV = gpu(valueAndGrad(putLoss, { wrt: [2] }));
export const gpuPutD = gpu(grad(putLoss, { wrt: [0] }));
export const cpuPutV = valueAndGrad(putLoss, { wrt: [2] });
export const cpuPutD = grad(putLoss, { wrt: [0] });
export const gpuXent = gpu(valueAndGrad(xent));
export const cpuXent = valueAndGrad(xent);
export const gpuTwoLayer = [gpu(grad(twoLayer, { wrt: [0] })), gpu(grad(twoLayer, { wrt: [1] }))];
export const cpuTwoLayer = [grad(twoLayer, { wrt: [0] }), grad(twoLayer, { wrt: [1] })];
export const gpuHvp = { min: gpu(hvp(histMin, { wrt: [2] })), mul: gpu(hvp(histMul, { wrt: [2] })), put: gpu(hvp(putLoss, { wrt: [2] })) };
export const cpuHvp = { min: hvp(histMin, { wrt: [2] }), mul: hvp(histMul, { wrt: [2] }), put: hvp(putLoss, { wrt: [2] }) };
export { gpu };
`;

const suite = gpuSuite('test/webgpu/adjoints.test.ts', source);
const run = suite.run;
let m: Record<string, any>;
beforeAll(() => {
  m = suite.exports();
});

const flat = (rows: ArrayLike<number>[]) => rows.flatMap((r) => Array.from(r));

/** Bins of a histogram of M: about four elements a bin, bin 0 every 7th element (a long run in one bin), one outside (ignored). */
function bins(n: number, M: number, seed: number): Float32Array {
  const idx = data(n, seed, 0, M).map((v, i) => (i % 7 === 0 ? 0 : Math.floor(v)));
  if (n > 2) idx[1] = -1;
  if (n > 3) idx[2] = M;
  return idx;
}

describe('the gradient of reduceByIndex (lhist/lrhist) on the GPU', () => {
  // Each cotangent is the loss's slope at a bin (sin h + h cos h, f32 transcendentals: 1e-5
  // relative) times a product of the per-element coefficients along the bin (0/1 for + min max,
  // exact; for * a product of up to n/7 factors near 1: 1e-6 per factor). The bins' values are
  // sums in the device's order (+) or the CPU's order (the walk): (count + 1) · 2^-24 relative.
  // So: 1e-6 · (n/7 + 10) relative, against at least 1e-3 of the largest entry.
  run('+ * min max, with respect to the values and to the destination', async () => {
    for (const n of SIZES) {
      const M = Math.max(1, n >> 2);
      const d = data(M, 40);
      const idx = bins(n, M, 41);
      const v = data(n, 42);
      const near = data(n, 43, 0.995, 1.005);
      if (n > 20) {
        near[10] = 0; // a zero in a product: the other elements of its bin before it get 0
        v[12] = v[19] = -5; // a tie below every destination: the lower index takes the cotangent
        idx[12] = idx[19] = 3;
      }
      for (const op of ['add', 'mul', 'min', 'max']) {
        const x = op === 'mul' ? near : v;
        const dd = op === 'mul' ? data(M, 44, 0.995, 1.005) : d;
        for (const wrt of [0, 1]) {
          const cpu = m.cpuHist[op][wrt](dd, idx, x);
          const got = await m.gpuHist[op][wrt](dd, idx, x);
          close(got, cpu, 1e-6 * (n / 7 + 10), 1e-3 * maxAbs(cpu), `grad ${op} wrt ${wrt ? 'd' : 'v'} n=${n}`, 1e-7);
        }
      }
    }
  });

  // A lambda whose result depends on the order (h · 0.75 + sin x): the walk runs the CPU's order.
  // Each bin is a geometric sum (factor 0.75) of terms of at most 2 (|sin| ≤ 1, |d| ≤ 2) that may
  // cancel: 1e-5 relative (sin in f32) plus 1e-6 absolute (a few f32 roundings of a sum whose
  // terms add up to at most 4 in magnitude).
  run('a lambda (order-dependent): the histogram and its gradient', async () => {
    for (const n of SIZES) {
      const M = Math.max(1, n >> 2);
      const d = data(M, 45);
      const idx = bins(n, M, 46);
      const v = data(n, 47);
      const h = m.histLeaky(d, idx, v);
      close(await m.gpuHistLeaky(d, idx, v), h, 1e-5, 1e-3 * maxAbs(h), `histLeaky n=${n}`, 1e-6);
      for (const wrt of [0, 1]) {
        const cpu = m.cpuHist.leaky[wrt](d, idx, v);
        close(await m.gpuHist.leaky[wrt](d, idx, v), cpu, 1e-5, 1e-3 * maxAbs(cpu), `grad leaky wrt ${wrt ? 'd' : 'v'} n=${n}`, 1e-6 * maxAbs(cpu));
      }
    }
  });

  run('a bin that is not an integer rejects as on the CPU', async () => {
    const d = Float32Array.from([1, 2, 3]);
    const idx = Float32Array.from([0, 1.5, 2]);
    const v = Float32Array.from([4, 5, 6]);
    expect(() => m.cpuHist.min[0](d, idx, v)).toThrow();
    await expect(m.gpuHist.min[0](d, idx, v)).rejects.toThrow(/reduceByIndex: an index is not an integer/);
    await expect(m.gpuHist.add[0](d, idx, v)).rejects.toThrow(/reduceByIndex: an index is not an integer/);
    await expect(m.gpuHistLeaky(d, idx, v)).rejects.toThrow(/reduceByIndex: an index is not an integer/);
  });
});

describe('scatter and its adjoint on the GPU', () => {
  /** k distinct indices of an array of M, in a shuffled order. */
  const distinct = (k: number, M: number, seed: number) => {
    const all = Array.from({ length: M }, (_, i) => i);
    const r = data(M, seed, 0, 1);
    for (let i = M - 1; i > 0; i--) {
      const j = Math.floor(r[i] * (i + 1));
      [all[i], all[j]] = [all[j], all[i]];
    }
    return Float32Array.from(all.slice(0, k));
  };
  // A scatter is a copy: exact. Its gradients are elementwise, y + cos y (1e-5 relative: cos in
  // f32; plus 1e-6 absolute where they cancel, near y = −0.739); the value a sum (as gpu.test.ts's
  // sum: 1e-6 · (log2 n + 1) · Σ|terms|).
  run('primal and gradients with respect to the values and the destination', async () => {
    for (const n of SIZES) {
      const M = n + 3;
      const d = data(M, 50);
      const idx = distinct(n, M, 51);
      const v = data(n, 52);
      expect(Array.from(await m.gpuPut(d, idx, v))).toEqual(Array.from(Float32Array.from(m.put(d, idx, v))));
      const [value, gv] = await m.gpuPutV(d, idx, v);
      const [cpuValue, cpuGv] = m.cpuPutV(d, idx, v);
      expect(Math.abs(value - cpuValue)).toBeLessThanOrEqual(1e-6 * (Math.log2(M + 1) + 1) * 3 * M);
      close(gv, cpuGv, 1e-5, 1e-3 * maxAbs(cpuGv), `grad put wrt v n=${n}`, 1e-6);
      const cpuGd = m.cpuPutD(d, idx, v);
      close(await m.gpuPutD(d, idx, v), cpuGd, 1e-5, 1e-3 * maxAbs(cpuGd), `grad put wrt d n=${n}`, 1e-6);
    }
  });

  run('a repeated index, one outside the array, or lengths that differ reject as on the CPU', async () => {
    const d = Float32Array.from([1, 2, 3, 4]);
    const v = Float32Array.from([7, 8, 9]);
    const repeated = Float32Array.from([0, 2, 2]);
    expect(() => m.put(d, repeated, v)).toThrow(RangeError);
    await expect(m.gpuPut(d, repeated, v)).rejects.toThrow(/gpu\(put\): scatter: an index appears twice/);
    await expect(m.gpuPutV(d, repeated, v)).rejects.toThrow(/scatter: an index appears twice/);
    for (const bad of [4, -1, 0.5]) {
      const idx = Float32Array.from([0, bad, 2]);
      expect(() => m.put(d, idx, v)).toThrow(RangeError);
      await expect(m.gpuPut(d, idx, v)).rejects.toThrow(/scatter: an index is not an index of the array \(length 4\)/);
    }
    await expect(m.gpuPut(d, Float32Array.from([0, 1]), v)).rejects.toThrow(/scatter: indices and values have different lengths/);
    expect(Array.from(await m.gpuPut(d, Float32Array.from([3, 0, 1]), v))).toEqual([8, 9, 3, 7]);
  });
});

describe('second order', () => {
  // hvp (forward over reverse): the walks run the JVPs of lrhist (histograms of several values,
  // five bindings whatever their number) and lscatter/lunscatter. Products along a bin as in the
  // gradients: 1e-6 · (n/7 + 10) relative, plus 1e-6 absolute where terms cancel.
  run('hvp through reduceByIndex (min, *) and scatter', async () => {
    for (const n of [0, 1, 2, 129, 1000]) {
      const M = Math.max(1, n >> 2);
      const idx = bins(n, M, 70);
      const t = data(n, 71);
      for (const op of ['min', 'mul']) {
        const d = op === 'mul' ? data(M, 72, 0.995, 1.005) : data(M, 72);
        const v = op === 'mul' ? data(n, 73, 0.995, 1.005) : data(n, 73);
        const cpu = m.cpuHvp[op](d, idx, v, t);
        close(await m.gpuHvp[op](d, idx, v, t), cpu, 1e-6 * (n / 7 + 10), 1e-3 * maxAbs(cpu), `hvp ${op} n=${n}`, 1e-6);
      }
      const slots = Float32Array.from({ length: n }, (_, i) => (i * 7) % (n + 3));
      const d = data(n + 3, 74);
      const v = data(n, 75);
      if (new Set(slots).size === n) {
        const cpu = m.cpuHvp.put(d, slots, v, t);
        close(await m.gpuHvp.put(d, slots, v, t), cpu, 1e-5, 1e-3 * maxAbs(cpu), `hvp put n=${n}`, 1e-6);
      }
    }
  });
});

describe('whole gradients of the issue list', () => {
  // The value: a long sum of f32 terms (1e-6 · (log2 n + 1) · Σ|terms|). The gradient
  // softmax − target: 1e-4 relative (exp in f32), plus the cancellation of 1 − Σ softmax at the
  // maximum (1e-6 · (log2 n + 1) absolute), as for logsumexp in gpu.test.ts.
  run('softmax cross-entropy', async () => {
    for (const n of SIZES) {
      const x = data(n, 60, -4, 4);
      const t = data(n, 61, 0, 1);
      const s = t.reduce((a, b) => a + b, 0);
      t.forEach((v, i) => (t[i] = v / s));
      const [value, g] = await m.gpuXent(x, t);
      const [cpuValue, cpuG] = m.cpuXent(x, t);
      if (n === 0) expect(value).toBe(cpuValue);
      else expect(Math.abs(value - cpuValue)).toBeLessThanOrEqual(1e-6 * (Math.log2(n + 1) + 1) * 10 + 1e-5 * Math.abs(cpuValue));
      close(g, cpuG, 1e-4, 1e-3 * maxAbs(cpuG), `grad xent n=${n}`, 1e-6 * (Math.log2(n + 1) + 1));
    }
  });

  // x·W1·W2 with x n×a, W1 a×h, W2 h×o, entries in [−1, 1]: each entry of a gradient is a dot
  // product of the other factors' products, f32 over sums of length a·h·o at most: stated as
  // 1e-6 · (a + h + o + 1) of the largest entry.
  run('a two-layer network (two products in a row)', async () => {
    const matrix = (r: number, c: number, seed: number) => {
      const f = data(r * c, seed, -1, 1);
      return Array.from({ length: r }, (_, i) => Array.from(f.subarray(i * c, (i + 1) * c)));
    };
    for (const [n, a, h, o] of [
      [1, 1, 1, 1],
      [17, 5, 16, 3],
      [64, 33, 17, 10],
      [200, 8, 40, 1],
    ]) {
      const x = matrix(n, a, 62);
      const w1 = matrix(a, h, 63);
      const w2 = matrix(h, o, 64);
      for (const wrt of [0, 1]) {
        const cpu = m.cpuTwoLayer[wrt](w1, w2, x).flat();
        const got = flat(await m.gpuTwoLayer[wrt](w1, w2, x));
        close(got, cpu, 1e-6 * (a + h + o + 1) * 10, maxAbs(cpu), `two-layer d/dW${wrt + 1} ${n}×${a}×${h}×${o}`);
      }
    }
  });
});
