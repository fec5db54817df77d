// WebGPU benchmark (a script, not a test): per kernel family and per whole gradient, a gpu(...)
// call's time, dispatches and bandwidth, the CPU path's time on the same inputs with the largest
// relative difference of the results, and jax-js's WebGPU backend on the cases it can express,
// on whatever adapter Dawn finds (TSAD_WEBGPU=software for the software adapter), beside the
// device's measured copy bandwidth.
//
//   npm run build && node bench/webgpu/run.js [log2 sizes: 16,18,20,22,24] [options]
//     --quick        sizes 16 only and every case at its software cap (the default on the software adapter)
//     --max=K        no size above 2^K
//     --only=REGEX   the cases whose names match
//     --no-jax       without jax-js (also TSAD_BENCH_NO_JAX=1)
//     --emit=FILE    only compile the cases (the plugin, TypeScript) into FILE and exit
//     --cases=FILE   run cases compiled before by --emit (no TypeScript needed)
//   bench/webgpu/device.sh runs it on a GPU machine without network (see there).
//
// What the columns mean:
// - call ms: the median wall time of a gpu(...) call (after a warm-up that compiles the
//   pipelines), its array arguments already on the device (gpu.upload handles; matrices and
//   objects are uploaded by each call), its results read back. kernel ms: the GPU's own time of
//   the call's compute passes from timestamp queries (dawn.js), where the adapter has them.
// - GB/s = ideal bytes ÷ time, where the ideal bytes are those an ideal program moves: it reads
//   each input number once and writes each output number once, 4 bytes each (f32): 4 × (numbers
//   in the arguments + numbers in the result). The time is kernel ms where there are timestamps,
//   else call ms (then readback and launch overheads count against it).
// - % of copy: that GB/s ÷ the device's copy bandwidth (a trivial copy kernel at 2^24 floats,
//   bytes read + written ÷ its time; the same clock: timestamps where there are some, else wall
//   time of the kernel repeated in one command buffer). The issue's goal: ≥ 70 % on a real GPU
//   for the memory-bound families (map, reduce, scan and their adjoints). For compute-bound or
//   one-thread cases (matmul, llsq's gradient, gmm) the GB/s is printed but is not the measure.
// - dispatches: compute dispatches of one call, counted by wrapping GPUComputePassEncoder
//   (dawn.js); tsad's own count (dispatchCount) must agree.
// On the software adapter (llvmpipe) the times only describe llvmpipe: read the dispatch counts
// and the differences.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const dawn = require('./dawn.js');

const root = path.resolve(__dirname, '../..');
const { dispatchCount } = require(path.join(root, 'dist/runtime/webgpu/run'));

const argv = process.argv.slice(2);
const flag = (name) => argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
const value = (name) => flag(name)?.split('=').slice(1).join('=');
const sizesArg = argv.find((a) => !a.startsWith('--'));
const quickAsked = Boolean(flag('quick'));
const maxLog = value('max') !== undefined ? Number(value('max')) : Infinity;
const only = value('only') !== undefined ? new RegExp(value('only')) : undefined;
/** The sizes (quick: 2^16 unless given). */
const sizesOf = (quick) =>
  (sizesArg ?? (quick ? '16' : '16,18,20,22,24'))
    .split(',')
    .map(Number)
    .filter((k) => k <= maxLog)
    .map((k) => 2 ** k);

const source = `
import { grad, valueAndGrad, sum, scan, matmul, stopGradient, reduceByIndex, scatter, gather } from 'tsad';
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
export function picked(x: Float32Array, idx: Float32Array): Float64Array { return gather(x, idx); }
/** @differentiable */
export function put(d: Float32Array, idx: Float32Array, v: Float32Array): Float64Array { return scatter(d, idx, v); }
/** @differentiable */
export function hist(d: Float32Array, idx: Float32Array, v: Float32Array): Float64Array { return reduceByIndex(d, idx, v, '+'); }
/** @differentiable */
export function product(x: number[][], w: number[][]): number[][] { return matmul(x, w); }
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
/** @differentiable */
export function pickLoss(x: Float32Array, idx: Float32Array): number {
  return sum(gather(x, idx).map((v) => v * v * 0.5 + Math.sin(v)));
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
/** A loop over x: its gradient with respect to a puts residuals at the index and sums (both loops on many threads). */
/** @differentiable */
export function wsum(a: number, x: Float32Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.sin(a * x[i]);
  return s;
}
${fs.readFileSync(path.join(root, 'bench/src/tsad/llsq.ts'), 'utf8')}
${fs.readFileSync(path.join(root, 'bench/src/tsad/gmm.ts'), 'utf8')}
export const cases = {
  'map (wave)': [gpu(wave), wave, 'two'],
  'sum': [gpu(total), total, 'one'],
  'max': [gpu(highest), highest, 'one'],
  'scan +': [gpu(cumsum), cumsum, 'one'],
  'gather, n of n': [gpu(picked), picked, 'gather'],
  'scatter, n into 2n slots': [gpu(put), put, 'scatter'],
  'histogram + (reduceByIndex), n into n/4 bins': [gpu(hist), hist, 'hist'],
  'matmul, n/64×64 by 64×64': [gpu(product), product, 'product'],
  'grad lse': [gpu(grad(lse)), grad(lse), 'one'],
  'valueAndGrad logsumexp': [gpu(valueAndGrad(logsumexp)), valueAndGrad(logsumexp), 'one'],
  'grad of a scan with a lambda': [gpu(grad(scanLoss)), grad(scanLoss), 'one'],
  'grad of a gather (wrt x)': [gpu(grad(pickLoss)), grad(pickLoss), 'gather'],
  'grad of a tanh layer (matmul), n×64 by 64×64': [gpu(grad(layer)), grad(layer), 'layer'],
  'grad of two layers (x·W1·W2), n×64, 64×64, 64×16': [gpu(grad(twoLayer)), grad(twoLayer), 'twoLayer'],
  'grad of reduceByIndex + (wrt values), n/4 bins': [gpu(grad(histAdd, { wrt: [2] })), grad(histAdd, { wrt: [2] }), 'hist'],
  'grad of reduceByIndex min (wrt values), n/4 bins': [gpu(grad(histMin, { wrt: [2] })), grad(histMin, { wrt: [2] }), 'hist'],
  'grad of scatter (wrt values), n of 2n slots': [gpu(grad(putLoss, { wrt: [2] })), grad(putLoss, { wrt: [2] }), 'scatter'],
  // llsq's value: its outer loop is a sum, a map over the points and a reduction (many threads).
  'llsq value (a sum loop), 16 coefficients, n points': [gpu(llsq), llsq, 'llsqPoints'],
  'grad of a loop s += sin(a·x[i]) (wrt a; both loops on many threads)': [gpu(grad(wsum, { wrt: [0] })), grad(wsum, { wrt: [0] }), 'scalarArray'],
  // Gradients through loops: sequential, on one GPU thread (docs/backends.md). llvmpipe ends a
  // thread's loops after 65535 trips (such a call rejects): capped there, and on a GPU too (one thread).
  'grad llsq (a loop, one thread), 16 coefficients, points capped': [gpu(grad(llsq)), grad(llsq), 'llsq'],
  'grad gmm (loops, one thread), d=2, k=3, points capped': [gpu(grad(gmmObjective)), grad(gmmObjective), 'gmm'],
};
export { gpu, logMultiGamma };
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

const rows = (flat, c) => Array.from({ length: flat.length / c }, (_, i) => Array.from(flat.subarray(i * c, (i + 1) * c)));
/** A 64×64 weight matrix and n/64 rows of 64 inputs (n numbers in all). */
function layerArgs(n) {
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
/** n indices into x of n, in a scattered order. */
const gatherArgs = (n) => [data(n, 11), Float32Array.from({ length: n }, (_, i) => (i * 7919) % n)];
/** gmm at d = 2, k = 3 over `points` points. */
function gmmArgs(points, m) {
  const d = 2;
  const k = 3;
  const lsz = (d * (d - 1)) / 2;
  const p = { alpha: data(k, 12), mu: data(k * d, 13), q: data(k * d, 14).map((v) => v / 4), l: data(k * lsz, 15) };
  return [p, data(points * d, 16), d, k, points, 2, 1.5, m.logMultiGamma(0.5 * (d + 2 + 1), d)];
}

/**
 * Per case kind: the arguments at size n, and the largest size a case of one GPU thread may
 * have (llvmpipe's 65535 loop trips in all; a GPU's watchdog), when it is capped.
 */
const KINDS = {
  one: { args: (n) => [data(n, 1)] },
  two: { args: (n) => [data(n, 1), data(n, 2)] },
  gather: { args: gatherArgs },
  scatter: { args: scatterArgs },
  hist: { args: histArgs },
  product: { args: (n) => layerArgs(n).reverse() },
  layer: { args: layerArgs, softwareCap: 2 ** 16 },
  twoLayer: { args: twoLayerArgs, softwareCap: 2 ** 16 },
  scalarArray: { args: (n) => [0.7, data(n, 1)] },
  llsqPoints: { args: (n) => [data(16, 5).map((v) => v / 4), n] },
  llsq: { args: (n) => [data(16, 5).map((v) => v / 4), n], softwareCap: 1000, cap: 2 ** 14 },
  gmm: { args: gmmArgs, softwareCap: 200, cap: 2 ** 16 },
};

/** Numbers of a result or argument, flattened (objects by their fields). */
const flat = (r) => (typeof r === 'number' ? [r] : Array.isArray(r) ? r.flatMap(flat) : ArrayBuffer.isView(r) ? Array.from(r) : r && typeof r === 'object' ? Object.values(r).flatMap(flat) : []);
/** How many numbers: the ideal program reads or writes each once. */
const count = (r) =>
  typeof r === 'number'
    ? 1
    : Array.isArray(r)
      ? r.reduce((a, x) => a + count(x), 0)
      : ArrayBuffer.isView(r)
        ? r.length
        : r && typeof r === 'object'
          ? Object.values(r).reduce((a, x) => a + count(x), 0)
          : 0;

function relDiff(a, b) {
  const x = flat(a);
  const y = flat(b);
  let scale = 0;
  for (const v of y) scale = Math.max(scale, Math.abs(v));
  let d = 0;
  for (let i = 0; i < y.length; i++) d = Math.max(d, Math.abs(x[i] - y[i]));
  return x.length === y.length ? d / Math.max(scale, 1e-30) : Infinity;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timed(f, runs) {
  const wall = [];
  const kernel = [];
  for (let r = 0; r < runs; r++) {
    await dawn.kernelMs();
    const t0 = process.hrtime.bigint();
    await f();
    wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const k = await dawn.kernelMs();
    if (k !== undefined) kernel.push(k);
  }
  return { ms: median(wall), kernelMs: kernel.length === runs ? median(kernel) : undefined };
}

/** jax-js's columns: dispatches of one call (after a warm-up that compiles), median ms of 3, difference from the CPU path. */
async function timeJax(call, want) {
  try {
    await call();
    const before = dawn.dispatches();
    const got = await call();
    const dispatches = dawn.dispatches() - before;
    const { ms } = await timed(call, 3);
    return `${dispatches} | ${ms.toFixed(1)} | ${relDiff(got, want).toExponential(1)}`;
  } catch (e) {
    return `failed: ${String(e.message).split('\n')[0].slice(0, 80)} | — | —`;
  }
}

const fixed = (v, digits = 1) => (v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(digits));

(async () => {
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsad-webgpu-'));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(root, path.join(dir, 'node_modules', 'tsad'), 'dir');
  if (value('cases') !== undefined) {
    // Compiled before (--emit): no TypeScript needed here (device.sh on a machine without network).
    fs.copyFileSync(path.resolve(value('cases')), path.join(dir, 'cases.js'));
  } else {
    const { transform } = require(path.join(root, 'dist/transformer/plugin/transform'));
    const r = transform(source, { fileName: path.join(dir, 'cases.ts') });
    for (const d of r.diagnostics ?? []) console.log(`build: ${typeof d.messageText === 'string' ? d.messageText : d.messageText.messageText}`);
    fs.writeFileSync(path.join(dir, 'cases.js'), r.outputText);
    if (value('emit') !== undefined) {
      fs.mkdirSync(path.dirname(path.resolve(value('emit'))), { recursive: true });
      fs.copyFileSync(path.join(dir, 'cases.js'), path.resolve(value('emit')));
      console.log(`wrote ${value('emit')}`);
      return;
    }
  }
  const m = require(path.join(dir, 'cases.js'));
  // navigator.gpu first (dawn.js): tsad's runtime and jax-js both take their device there.
  const dawnError = await dawn.setup();
  if (dawnError) console.log(`dawn: ${dawnError}; tsad's runtime looks for its own device`);
  const noJax = flag('no-jax') || process.env.TSAD_BENCH_NO_JAX;
  const jax = noJax ? { error: 'not asked for (--no-jax)' } : await import('./jax.mjs').then((j) => j.setup());
  if (jax.error) console.log(`jax-js: not run: ${jax.error}`);
  const why = await m.gpu.unavailableReason();
  if (why) {
    console.log(`no adapter: ${why}`);
    return;
  }
  // On the software adapter (asked for, or no GPU found) every run is a quick one.
  const quick = quickAsked || dawn.isSoftware() || process.env.TSAD_WEBGPU === 'software';
  const sizes = sizesOf(quick);
  const acquired = await require(path.join(root, 'dist/runtime/webgpu/device')).acquire();
  const info = acquired.adapter?.info ?? {};
  const adapterText = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ');
  console.log(
    `device: ${acquired.description}${adapterText ? ` (${adapterText})` : ''}; ${os.cpus().length} CPU cores (${os.cpus()[0]?.model}), load ${os.loadavg()[0].toFixed(1)}; ${new Date().toISOString()}`,
  );
  console.log(`sizes: ${sizes.map((n) => `2^${Math.log2(n)}`).join(', ')}${quick ? ' (quick: one-thread cases at their software caps)' : ''}`);
  const timestamps = await dawn.checkTimestamps(acquired.device);
  if (!timestamps) console.log('no GPU timestamps on this device: kernel ms stays empty, GB/s is of the call time');
  const copy = await dawn.copyBandwidth(acquired.device, 2 ** 24, quick ? 2 : 10);
  const reference = copy.timestamps ? copy.kernelTimestamps : copy.kernel;
  console.log(
    `copy bandwidth at 2^24 floats (bytes read + written ÷ time): buffer-to-buffer copy ${fixed(copy.copy)} GB/s (wall), copy kernel ${fixed(copy.kernel)} GB/s (wall)${copy.timestamps ? `, ${fixed(copy.kernelTimestamps)} GB/s (timestamps)` : ', no timestamp queries on this adapter'}; % of copy below is of ${fixed(reference)} GB/s`,
  );
  console.log('');
  console.log('| case | n | dispatches | call ms | kernel ms | GB/s | % of copy | CPU ms | max rel. difference | jax-js dispatches | jax-js ms | jax-js rel. difference |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const uploads = [];
  const resident = async (args) =>
    Promise.all(
      args.map(async (a) => {
        if (!(a instanceof Float32Array)) return a;
        const h = await m.gpu.upload(a);
        uploads.push(h);
        return h;
      }),
    );
  for (const size of sizes) {
    for (const [name, [onGpu, onCpu, kind]] of Object.entries(m.cases)) {
      if (only && !only.test(name)) continue;
      const K = KINDS[kind];
      const n = Math.min(size, (quick ? K.softwareCap : K.cap) ?? size);
      if (n < size && sizes.some((s) => s < size && Math.min(s, (quick ? K.softwareCap : K.cap) ?? s) === n)) continue; // capped: already run at this n
      const args = kind === 'gmm' ? K.args(n, m) : K.args(n);
      let line;
      try {
        const onDevice = await resident(args);
        await onGpu(...onDevice);
        const before = dispatchCount();
        const counted = dawn.dispatches();
        const got = await onGpu(...onDevice);
        const dispatches = dispatchCount() - before;
        const seen = dawn.dispatches() - counted;
        const t0 = Date.now();
        const want = onCpu(...args);
        const cpuOnce = Date.now() - t0;
        const gpuTime = await timed(() => onGpu(...onDevice), 3);
        const cpuMs = cpuOnce > 2000 ? cpuOnce : (await timed(async () => onCpu(...args), 3)).ms;
        const bytes = 4 * (count(args) + count(want));
        const gbs = bytes / ((gpuTime.kernelMs ?? gpuTime.ms) * 1e6);
        const peer = jax.cases?.[name] ? await timeJax(jax.cases[name](args), want) : '— | — | —';
        line = `| ${name} | ${n} | ${dispatches}${seen !== dispatches && seen !== 0 ? ` (${seen} seen)` : ''} | ${fixed(gpuTime.ms)} | ${fixed(gpuTime.kernelMs, 3)} | ${fixed(gbs, 2)} | ${fixed((100 * gbs) / reference)} | ${fixed(cpuMs)} | ${relDiff(got, want).toExponential(1)} | ${peer} |`;
      } catch (e) {
        line = `| ${name} | ${n} | failed: ${String(e.message).split('\n')[0].slice(0, 100)} | | | | | | | | | |`;
      }
      console.log(line);
      for (const h of uploads.splice(0)) h.destroy();
    }
  }
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s in all)`);
  await m.gpu.release();
  process.exit(0);
})();
