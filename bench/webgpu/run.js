// WebGPU benchmark (a script, not a test): per kernel family and per whole gradient, the time of
// a gpu(...) call, its dispatches, and the CPU path's time on the same inputs, with the largest
// relative difference of the results, on whatever adapter Dawn finds (TSAD_WEBGPU=software for
// the software adapter). On the software adapter the times only describe llvmpipe: read the
// dispatch counts and the differences.
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
import { grad, valueAndGrad, sum, scan, matmul, stopGradient } from 'tsad';
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

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsad-webgpu-'));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(root, path.join(dir, 'node_modules', 'tsad'), 'dir');
  const r = transform(source, { fileName: path.join(dir, 'cases.ts') });
  fs.writeFileSync(path.join(dir, 'cases.js'), r.outputText);
  const m = require(path.join(dir, 'cases.js'));
  const why = await m.gpu.unavailableReason();
  if (why) {
    console.log(`no adapter: ${why}`);
    return;
  }
  const device = (await require(path.join(root, 'dist/runtime/webgpu/device')).acquire()).description;
  console.log(`device: ${device}; median of 3 calls after one warm-up (pipelines compiled)`);
  console.log('| case | n | dispatches | GPU ms | CPU ms | max rel. difference |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const n of sizes) {
    const x = data(n, 1);
    const y = data(n, 2);
    for (const [name, [onGpu, onCpu, arity]] of Object.entries(m.cases)) {
      const args = arity === 'layer' ? layerArgs(n) : arity === 'llsq' ? [data(16, 5).map((v) => v / 4), Math.min(n, 1000)] : arity === 2 ? [x, y] : [x];
      await onGpu(...args);
      const before = dispatchCount();
      const got = await onGpu(...args);
      const dispatches = dispatchCount() - before;
      const want = onCpu(...args);
      const gpuMs = await median(() => onGpu(...args), 3);
      const cpuMs = await median(async () => onCpu(...args), 3);
      console.log(`| ${name} | ${n} | ${dispatches} | ${gpuMs.toFixed(1)} | ${cpuMs.toFixed(1)} | ${relDiff(got, want).toExponential(1)} |`);
    }
  }
  await m.gpu.release();
})();
