// Loops under gpu(...) on the software adapter, against tsad's CPU path: a loop the backend cannot
// run in parallel runs sequentially inside one invocation (backend/wgsl/sequential.ts), with its
// residual stacks in the device's heap; calls of other marked functions are inlined first. The
// GradBench llsq and gmm are bench/src/tsad's source text as it is. Kernels compute in f32; the
// tolerances are stated per test. Without an adapter every GPU test is skipped, loudly.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { compile } from '../plugin/harness';
import { close, data, gpuSuite, maxAbs } from './gpuSuite';
import { HOST_FNS } from '../../runtime/webgpu/plan';
import { PRIMS } from '../../transformer/prims/registry';

const bench = (name: string) => fs.readFileSync(path.resolve(__dirname, '../../bench/src/tsad', name), 'utf8');

const source = `
import { grad, valueAndGrad, hvp } from 'tsad';
import { gpu } from 'tsad/webgpu';
${bench('llsq.ts')}
${bench('gmm.ts')}

/** Halves x until it is below 1: a trip count that depends on the data. */
/** @differentiable */
export function halvings(x: number, w: Float32Array): number {
  let v = x;
  let k = 0;
  while (v > 1) {
    v = v / 2 + w[k % w.length] * 0.01;
    k++;
  }
  return v * k;
}

/** A nested loop writing a local array, then reading it. */
/** @differentiable */
export function smooth(x: Float32Array): number {
  const n = x.length;
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = Math.max(0, i - 2); j <= Math.min(n - 1, i + 2); j++) s += x[j] * Math.exp(-(i - j) * (i - j));
    y[i] = Math.sin(s);
  }
  let total = 0;
  for (let i = 0; i < n; i++) total += y[i] * y[i];
  return total;
}

/** @differentiable */
export function squash(v: number): number {
  return v / (1 + Math.abs(v));
}

/** Calls another marked function inside a loop. */
/** @differentiable */
export function squashed(x: Float32Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += squash(x[i] * 2) * x[i];
  return s;
}

/** One long loop: 10⁵ trips forward and as many backward. */
/** @differentiable */
export function halfSquares(x: Float32Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * x[i] * 0.5;
  return s;
}

/** A reduce with a tuple accumulator: a linear recurrence on two accumulators, lowered to a loop. */
/** @differentiable */
export function pairRecurrence(x: Float32Array): number {
  const [p, q] = x.reduce(([p, q], v) => [p * v + q, q * 0.5 + v], [1, 0]);
  return p + 2 * q;
}

/** A loop whose Hessian-vector product needs its tangent stacks (lpush, lat). */
/** @differentiable */
export function sinLoop(x: Float32Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.sin(x[i]) * x[i] + s * 0.01;
  return s;
}

export const gpuHvpSinLoop = gpu(hvp(sinLoop));
export const cpuHvpSinLoop = hvp(sinLoop);
export const gpuHvpLlsq = gpu(hvp(llsq));
export const cpuHvpLlsq = hvp(llsq);
export const gpuPairRecurrence = gpu(valueAndGrad(pairRecurrence));
export const cpuPairRecurrence = valueAndGrad(pairRecurrence);
export const gpuHalfSquares = gpu(grad(halfSquares));
export const cpuHalfSquares = grad(halfSquares);
export const gpuLlsq = gpu(grad(llsq));
export const cpuLlsq = grad(llsq);
export const gpuLlsqValue = gpu(valueAndGrad(llsq));
export const cpuLlsqValue = valueAndGrad(llsq);
export const gpuGmm = gpu(grad(gmmObjective));
export const cpuGmm = grad(gmmObjective);
export const gpuGmmValue = gpu(valueAndGrad(gmmObjective));
export const cpuGmmValue = valueAndGrad(gmmObjective);
export const gpuHalvings = gpu(valueAndGrad(halvings));
export const cpuHalvings = valueAndGrad(halvings);
export const gpuSmooth = gpu(grad(smooth));
export const cpuSmooth = grad(smooth);
export const gpuSquashed = gpu(valueAndGrad(squashed));
export const cpuSquashed = valueAndGrad(squashed);
export { gpu };
`;

const suite = gpuSuite('test/webgpu/loops.test.ts', source);
const run = suite.run;
let m: Record<string, any>;
beforeAll(() => {
  m = suite.exports();
});

async function dispatches(f: () => Promise<unknown>): Promise<number> {
  const runtime = require(path.resolve(__dirname, '../../dist/runtime/webgpu/run.js'));
  const before = runtime.dispatchCount();
  await f();
  return runtime.dispatchCount() - before;
}

describe('GradBench llsq (nested counted loops, scalar carried values, residual stacks)', () => {
  // Sums of n·|x| terms of powers of t ∈ [−1, 1] in f32, in the loop's order (one thread): the
  // error grows with n; 1e-4 relative against 1e-3 of the largest entry covers n ≤ 200.
  // n = 1 is left out: t = −1 + 0/0 is NaN there, and WGSL does not promise NaN from 0/0.
  run('grad against the CPU gradient, 0 and 1 trips of the inner loop included', async () => {
    for (const [len, n] of [
      [0, 0],
      [1, 0],
      [0, 3],
      [1, 2],
      [3, 2],
      [8, 37],
      [16, 200],
    ]) {
      const x = data(len, 1 + n, -1, 1);
      const cpu = m.cpuLlsq(x, n);
      close(await m.gpuLlsq(x, n), cpu, 1e-4, 1e-3 * maxAbs(cpu), `grad llsq len=${len} n=${n}`);
      const [value] = await m.gpuLlsqValue(x, n);
      const [cpuValue] = m.cpuLlsqValue(x, n);
      expect(Math.abs(value - cpuValue)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(cpuValue)));
    }
  });
});

describe('GradBench gmm (an object parameter, local arrays written in loops, conds and nested stacks)', () => {
  // Sums over n points and k components of exps of f32 quadratic forms: 1e-4 relative against
  // 1e-3 of the largest entry (the f32 log-sum-exp of each point is stable: shifted by its max).
  run('grad against the CPU gradient, 0 and 1 points and components included', async () => {
    for (const [d, k, n] of [
      [1, 1, 0],
      [1, 1, 1],
      [2, 1, 1],
      [2, 3, 4],
      [3, 2, 10],
    ]) {
      const lsz = (d * (d - 1)) / 2;
      const p = { alpha: data(k, 10 + d, -1, 1), mu: data(k * d, 20 + k), q: data(k * d, 30 + n, -0.5, 0.5), l: data(k * lsz, 40 + d) };
      const x = data(n * d, 50 + n);
      const wishart = 2;
      const gamma = 1.5;
      const args = [p, x, d, k, n, wishart, gamma, m.logMultiGamma(0.5 * (d + wishart + 1), d)] as const;
      const cpu = m.cpuGmm(...args);
      const gpu = await m.gpuGmm(...args);
      for (const f of ['alpha', 'mu', 'q', 'l']) close(gpu[f], cpu[f], 1e-4, 1e-3 * Math.max(1, maxAbs(cpu[f])), `grad gmm ${f} d=${d} k=${k} n=${n}`);
      const [value] = await m.gpuGmmValue(...args);
      const [cpuValue] = m.cpuGmmValue(...args);
      expect(Math.abs(value - cpuValue)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(cpuValue)));
    }
  });
});

describe('loops of other shapes', () => {
  // Mesa's llvmpipe ends a loop after 65535 iterations; the kernels check each loop reached its
  // count, so such a call rejects there (and is right on a device without the cap): never a short sum.
  run('a loop the device cuts short rejects, never a short sum', async () => {
    const x = data(16, 7, -1, 1);
    const cpu = m.cpuLlsq(x, 4096);
    try {
      close(await m.gpuLlsq(x, 4096), cpu, 1e-3, 1e-3 * maxAbs(cpu), 'grad llsq n=4096');
    } catch (e) {
      expect(String(e)).toMatch(/a loop stopped before its end on this device/);
    }
  });

  // Scalar code only: 1e-5 relative (a few dozen f32 roundings).
  run('a while loop with a data-dependent trip count', async () => {
    const w = data(5, 3);
    for (const x of [0.5, 1, 3, 1000, 2 ** 20]) {
      const [value, dw] = await m.gpuHalvings(x, w);
      const [cpuValue, cpuDw] = m.cpuHalvings(x, w);
      expect(Math.abs(value - cpuValue)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(cpuValue)));
      close(dw, cpuDw, 1e-4, 1e-3 * Math.max(1e-3, maxAbs(cpuDw)), `halvings x=${x}`);
    }
  });

  // Five-term sums per element, then a sum of n squares (one thread, in order): 1e-4 relative.
  run('a nested loop writing a local array', async () => {
    for (const n of [0, 1, 2, 7, 100]) {
      const x = data(n, 4);
      const cpu = m.cpuSmooth(x);
      close(await m.gpuSmooth(x), cpu, 1e-4, 1e-3 * maxAbs(cpu), `grad smooth n=${n}`);
    }
  });

  run('a call of another marked function inside a loop', async () => {
    for (const n of [0, 1, 50]) {
      const x = data(n, 5);
      const [value, dx] = await m.gpuSquashed(x);
      const [cpuValue, cpuDx] = m.cpuSquashed(x);
      expect(Math.abs(value - cpuValue)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(cpuValue)));
      close(dx, cpuDx, 1e-4, 1e-3 * maxAbs(cpuDx), `grad squashed n=${n}`);
    }
  });

  // The loop runs in one invocation: a handful of kernels whatever the trip count (the host's
  // numbers, the stacks, the forward and the reverse loops), and a second call needs no retry
  // for a larger heap.
  // llvmpipe ends an invocation's loops after 65535 trips in all and says nothing: the kernel
  // checks that each loop ended by its own test, so the call rejects there (before the check it
  // returned gradients of 0 past the cut); a device without that limit gives the CPU gradient.
  run(
    'a loop the device stops early rejects, never returns what the cut loop left',
    async () => {
      const x = data(100_000, 7);
      const cpu = m.cpuHalfSquares(x);
      let got: Float32Array | undefined;
      try {
        got = await m.gpuHalfSquares(x);
      } catch (e) {
        expect(e).toBeInstanceOf(RangeError);
        expect(String((e as Error).message)).toMatch(/^gpu\(grad\(halfSquares\)\): a loop stopped before its end on this device/);
      }
      if (got !== undefined) close(got, cpu, 1e-5, 1e-5, 'grad halfSquares n=100000');
      close(await m.gpuHalfSquares(x.subarray(0, 1000)), m.cpuHalfSquares(x.subarray(0, 1000)), 1e-5, 1e-5, 'grad halfSquares n=1000');
    },
    120_000,
  );

  // Its residuals are a stack of pairs (two numbers per element). Products of up to n factors
  // below 1 in size: 1e-5 relative against 1e-5 of the largest entry.
  run('a reduce with a tuple accumulator (two accumulators), 0, 1, 2, 7 and 100 elements', async () => {
    for (const n of [0, 1, 2, 7, 100]) {
      const x = data(n, 11 + n, -0.9, 0.9);
      const [cpuValue, cpu] = m.cpuPairRecurrence(x);
      const [value, got] = await m.gpuPairRecurrence(x);
      expect(Math.abs(value - cpuValue)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(cpuValue)));
      close(got, cpu, 1e-5, 1e-5 * Math.max(1, maxAbs(cpu)), `pair recurrence n=${n}`);
    }
  });

  // Forward over reverse through a loop: its tangent stacks are sparse (a zero stack is the
  // handle −1, holes read as zero). 1e-4 relative against 1e-4 of the largest entry.
  run('hvp through loops (tangent stacks), 0, 1, 2 and 50 elements; llsq', async () => {
    for (const n of [0, 1, 2, 50]) {
      const x = data(n, 21 + n, -1, 1);
      const v = data(n, 41 + n, -1, 1);
      const cpu = m.cpuHvpSinLoop(x, v);
      close(await m.gpuHvpSinLoop(x, v), cpu, 1e-4, 1e-4 * Math.max(1, maxAbs(cpu)), `hvp sinLoop n=${n}`);
    }
    const x = data(8, 5, -1, 1);
    const v = data(8, 6, -1, 1);
    const cpu = m.cpuHvpLlsq(x, 37, v);
    close(await m.gpuHvpLlsq(x, 37, v), cpu, 1e-4, 1e-3 * maxAbs(cpu), 'hvp llsq');
  });

  run('dispatches per gradient do not grow with the trip count', async () => {
    const x = data(8, 6, -1, 1);
    await m.gpuLlsq(x, 10);
    const small = await dispatches(() => m.gpuLlsq(x, 10));
    await m.gpuLlsq(x, 500);
    const large = await dispatches(() => m.gpuLlsq(x, 500));
    expect(large).toBe(small);
    // A loop that is a sum runs as a map and a reduction (sumLoops.test.ts): a kernel or two more
    // than one thread running it all, each on many threads.
    expect(small).toBeLessThanOrEqual(7);
  });
});

describe('the host program', () => {
  // A length's primitives run on the host (new Float64Array(n) truncates n and checks it): each
  // entry of HOST_FNS names a primitive and agrees with its impl, booleans as 0 and 1.
  test('HOST_FNS agree with the primitives', () => {
    const values = [-2.5, -1, -0, 0, 0.5, 1, 3, Infinity, Number.NaN];
    for (const [name, fn] of Object.entries(HOST_FNS)) {
      const def = PRIMS[name];
      expect(def).toBeDefined();
      const arity = (fn as (...a: number[]) => number).length;
      const tuples =
        arity === 1
          ? values.map((a) => [a])
          : arity === 2
            ? values.flatMap((a) => values.map((b) => [a, b]))
            : values.flatMap((a) => [
                [0, a, 1],
                [1, a, 2],
              ]);
      for (const args of tuples) {
        const ref = Number(def.impl(...(name === 'select' ? [args[0] !== 0, args[1], args[2]] : args)));
        expect(Object.is((fn as (...a: number[]) => number)(...args), ref) || (Number.isNaN(ref) && Number.isNaN((fn as (...a: number[]) => number)(...args)))).toBe(true);
      }
    }
  });
});

describe('the build', () => {
  test('tsad inspect --stage wgsl prints the loop kernels', () => {
    const out = execFileSync(process.execPath, [path.resolve(__dirname, '../../bin/tsad.js'), 'inspect', path.resolve(__dirname, '../../bench/src/tsad/llsq.ts'), '--stage', 'wgsl'], {
      encoding: 'utf8',
    });
    expect(out).toMatch(/^\/\/ gpu\(grad\(llsq\)\): \d+ kernels/);
    expect(out).toMatch(/the heap of sequential code/);
    expect(out).toMatch(/for \(; k\d+ < q\d+; k\d+ = k\d+ \+ 1\.0\) \{[\s\S]*for \(; k\d+ < /);
  });

  test('a construct with no lowering inside a loop is TSAD1011 naming it', () => {
    const found = (
      compile(
        `
      import { grad, scan } from 'tsad';
      import { gpu } from 'tsad/webgpu';
      /** @differentiable */
      export function f(x: Float64Array): number {
        let s = 0;
        for (let i = 0; i < 3; i++) s += scan(x, (a, b) => a * b + 1, 0)[0];
        return s;
      }
      export const g = gpu(grad(f));
    `,
        { throwOnError: false },
      ).diagnostics ?? []
    ).map((d) => String(d.messageText));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/TSAD1011: gpu\(grad\(f\)\) is not on the GPU yet: it uses the construct '\w+' inside a loop/);
  });
});
