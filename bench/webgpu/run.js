// WebGPU benchmark (a script, not a test): per kernel family and per whole gradient, the time of
// a gpu(...) call, its dispatches, and the CPU path's time on the same inputs, with the largest
// relative difference of the results, on whatever adapter Dawn finds (TSAD_WEBGPU=software for
// the software adapter). On the software adapter the times only describe llvmpipe: read the
// dispatch counts and the differences.
//
// jax-js's WebGPU backend (@jax-js/jax, bench's devDependency: node bench/peers/install.js) runs
// the cases it can express (jit of the same maths, f32), on the same Dawn: in Node jax-js reads
// `navigator.gpu`, which this script sets to a Dawn instance (on the software adapter one that
// asks for compatibility mode, the only mode of Dawn's OpenGL ES backend; tsad's runtime then
// takes its device from the same navigator.gpu). Dispatches are counted for both by wrapping
// GPUComputePassEncoder's dispatch methods; tsad's own count (dispatchCount) must agree.
//
//   npm run build && EGL_PLATFORM=surfaceless node bench/webgpu/run.js [log2 sizes, e.g. 16,20]
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '../..');
const { transform } = require(path.join(root, 'dist/transformer/plugin/transform'));
const { dispatchCount } = require(path.join(root, 'dist/runtime/webgpu/run'));
const sizes = (process.argv[2] ?? '16').split(',').map((k) => 2 ** Number(k));

const source = `
import { grad, valueAndGrad, sum, scan, matmul, stopGradient, reduceByIndex, scatter } from 'tsad';
import { gpu } from 'tsad/webgpu';
/** @differentiable */
export function wave(x: Float32Array, y: Float32Array): Float32Array {
  return x.map((v, i) => Math.sin(v) * y[i] + Math.exp(-v * v));
}
/** @differentiable */
export function total(x: Float32Array): number { return sum(x); }
/** @differentiable */
export function highest(x: Float32Array): number { return x.reduce((a, b) => Math.max(a, b), -Infinity); }
/** @differentiable */
export function cumsum(x: Float32Array): Float64Array { return scan(x, '+'); }
/** @differentiable */
export function lse(x: Float32Array): number {
  const a = stopGradient(x.reduce((m, v) => Math.max(m, v), -Infinity));
  return a + Math.log(sum(x.map((v) => Math.exp(v - a))));
}
/** @differentiable */
export function logsumexp(x: Float32Array): number {
  const m = x.reduce((a, b) => Math.max(a, b), -Infinity);
  return m + Math.log(sum(x.map((v) => Math.exp(v - m))));
}
/** @differentiable */
export function scanLoss(x: Float32Array): number {
  return sum(scan(x, (a, b) => Math.max(a, b) + Math.log(1 + Math.exp(-Math.abs(a - b))), -30).map((v) => Math.sin(v)));
}
/** One layer (a tanh after a matrix product): the weights' gradient. */
/** @differentiable */
export function layer(w: number[][], x: number[][]): number {
  return sum(matmul(x, w).flat().map((v) => Math.tanh(v) * v));
}
/** Two products in a row and a tanh loss: the first weights' gradient. */
/** @differentiable */
export function twoLayer(w1: number[][], w2: number[][], x: number[][]): number {
  return sum(matmul(matmul(x, w1), w2).flat().map((v) => Math.tanh(v) * v));
}
/** @differentiable */
export function histAdd(d: Float32Array, idx: Float32Array, v: Float32Array): number {
  return sum(reduceByIndex(d, idx, v, '+').map((h) => Math.sin(h) * h));
}
/** @differentiable */
export function histMin(d: Float32Array, idx: Float32Array, v: Float32Array): number {
  return sum(reduceByIndex(d, idx, v, 'min').map((h) => Math.sin(h) * h));
}
/** @differentiable */
export function putLoss(d: Float32Array, idx: Float32Array, v: Float32Array): number {
  return sum(scatter(d, idx, v).map((y) => y * y * 0.5 + Math.sin(y)));
}
${fs.readFileSync(path.join(root, 'bench/src/tsad/llsq.ts'), 'utf8')}
export const cases = {
  'map (wave)': [gpu(wave), wave, 2],
  'sum': [gpu(total), total, 1],
  'max': [gpu(highest), highest, 1],
  'scan +': [gpu(cumsum), cumsum, 1],
  'grad lse': [gpu(grad(lse)), grad(lse), 1],
  'valueAndGrad logsumexp': [gpu(valueAndGrad(logsumexp)), valueAndGrad(logsumexp), 1],
  'grad of a scan with a lambda': [gpu(grad(scanLoss)), grad(scanLoss), 1],
  'grad of a tanh layer (matmul), n×64 by 64×64': [gpu(grad(layer)), grad(layer), 'layer'],
  'grad of two layers (x·W1·W2), n×64, 64×64, 64×16': [gpu(grad(twoLayer)), grad(twoLayer), 'twoLayer'],
  'grad of reduceByIndex + (wrt values), n/4 bins': [gpu(grad(histAdd, { wrt: [2] })), grad(histAdd, { wrt: [2] }), 'hist'],
  'grad of reduceByIndex min (wrt values), n/4 bins': [gpu(grad(histMin, { wrt: [2] })), grad(histMin, { wrt: [2] }), 'hist'],
  'grad of scatter (wrt values), n of 2n slots': [gpu(grad(putLoss, { wrt: [2] })), grad(putLoss, { wrt: [2] }), 'scatter'],
  // A loop: sequential, on one GPU thread (docs/backends.md): x of 16, min(n, 1000) points
  // (llvmpipe ends a loop after 65535 iterations; such a call rejects).
  'grad llsq (a loop, one thread), 16 coefficients, ≤ 1000 points': [gpu(grad(llsq)), grad(llsq), 'llsq'],
};
export { gpu };
`;

function data(n, seed) {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = -2 + ((s >>> 8) / 2 ** 24) * 4;
  }
  return out;
}

/** A 64×64 weight matrix and n/64 rows of 64 inputs (n numbers in all). */
function layerArgs(n) {
  const rows = (flat, c) => Array.from({ length: flat.length / c }, (_, i) => Array.from(flat.subarray(i * c, (i + 1) * c)));
  return [
    rows(
      data(64 * 64, 3).map((v) => v / 16),
      64,
    ),
    rows(data(Math.max(64, n - (n % 64)), 4), 64),
  ];
}

/** Two layers: W1 64×64, W2 64×16, x n/64 × 64. */
function twoLayerArgs(n) {
  const [w1, x] = layerArgs(n);
  const rows = (flat, c) => Array.from({ length: flat.length / c }, (_, i) => Array.from(flat.subarray(i * c, (i + 1) * c)));
  return [
    w1,
    rows(
      data(64 * 16, 5).map((v) => v / 16),
      16,
    ),
    x,
  ];
}

/** A histogram of n values into n/4 bins (every 7th in bin 0); a scatter of n values into 2n slots (a permutation's first half). */
function histArgs(n) {
  const M = Math.max(1, n >> 2);
  const idx = data(n, 6).map((v, i) => (i % 7 === 0 ? 0 : Math.floor(((v + 2) / 4) * M)));
  return [data(M, 7), idx, data(n, 8)];
}
function scatterArgs(n) {
  const slots = Float32Array.from({ length: 2 * n }, (_, i) => (i * 7919) % (2 * n));
  const distinct = new Set(slots).size === 2 * n ? slots : Float32Array.from({ length: 2 * n }, (_, i) => i);
  return [data(2 * n, 9), distinct.subarray(0, n), data(n, 10)];
}
// llsq: x of 16 coefficients, min(n, 1000) points (llvmpipe ends a loop after 65535 trips; such a call rejects).
const llsqArgs = (n) => [data(16, 5).map((v) => v / 4), Math.min(n, 1000)];
const ARGS = { layer: layerArgs, twoLayer: twoLayerArgs, hist: histArgs, scatter: scatterArgs, llsq: llsqArgs };

const flat = (r) => (typeof r === 'number' ? [r] : Array.isArray(r) ? r.flatMap(flat) : Array.from(r));
function relDiff(a, b) {
  const x = flat(a);
  const y = flat(b);
  let scale = 0;
  for (const v of y) scale = Math.max(scale, Math.abs(v));
  let d = 0;
  for (let i = 0; i < y.length; i++) d = Math.max(d, Math.abs(x[i] - y[i]));
  return x.length === y.length ? d / Math.max(scale, 1e-30) : Infinity;
}

async function median(f, runs) {
  const times = [];
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    await f();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** jax-js's columns: dispatches of one call (after a warm-up that compiles), median ms of 3, difference from the CPU path. */
async function timeJax(jax, call, want) {
  try {
    await call();
    const before = jax.dispatchTotal();
    const got = await call();
    const dispatches = jax.dispatchTotal() - before;
    const ms = await median(call, 3);
    return `${dispatches} | ${ms.toFixed(1)} | ${relDiff(got, want).toExponential(1)}`;
  } catch (e) {
    return `failed: ${String(e.message).split('\n')[0].slice(0, 80)} | — | —`;
  }
}

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsad-webgpu-'));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(root, path.join(dir, 'node_modules', 'tsad'), 'dir');
  const r = transform(source, { fileName: path.join(dir, 'cases.ts') });
  fs.writeFileSync(path.join(dir, 'cases.js'), r.outputText);
  const m = require(path.join(dir, 'cases.js'));
  // jax-js first: it sets navigator.gpu, where tsad's runtime then takes its device too.
  const jax = process.env.TSAD_BENCH_NO_JAX ? { error: 'TSAD_BENCH_NO_JAX is set' } : await import('./jax.mjs').then((j) => j.setup().then((r) => ({ ...r, dispatchTotal: j.dispatchTotal })));
  if (jax.error) console.log(`jax-js: not run: ${jax.error}`);
  const why = await m.gpu.unavailableReason();
  if (why) {
    console.log(`no adapter: ${why}`);
    return;
  }
  const device = (await require(path.join(root, 'dist/runtime/webgpu/device')).acquire()).description;
  const via = device === 'navigator.gpu' ? ` (set by bench/webgpu/jax.mjs: Dawn${process.env.TSAD_WEBGPU === 'software' ? ', OpenGL ES on the software adapter, compatibility mode' : ''})` : '';
  console.log(`device: ${device}${via}; median of 3 calls after one warm-up (pipelines compiled)`);
  console.log('| case | n | dispatches | GPU ms | CPU ms | max rel. difference | jax-js dispatches | jax-js ms | jax-js rel. difference |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const n of sizes) {
    const x = data(n, 1);
    const y = data(n, 2);
    for (const [name, [onGpu, onCpu, arity]] of Object.entries(m.cases)) {
      const args = ARGS[arity] ? ARGS[arity](n) : arity === 2 ? [x, y] : [x];
      await onGpu(...args);
      const before = dispatchCount();
      const got = await onGpu(...args);
      const dispatches = dispatchCount() - before;
      const want = onCpu(...args);
      const gpuMs = await median(() => onGpu(...args), 3);
      const cpuMs = await median(async () => onCpu(...args), 3);
      const peer = jax.cases?.[name] ? await timeJax(jax, jax.cases[name](args), want) : '— | — | —';
      console.log(`| ${name} | ${n} | ${dispatches} | ${gpuMs.toFixed(1)} | ${cpuMs.toFixed(1)} | ${relDiff(got, want).toExponential(1)} | ${peer} |`);
    }
  }
  await m.gpu.release();
})();
