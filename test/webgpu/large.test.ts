// Arrays past 2^24 elements on the GPU (the software adapter) against the CPU path. f32 holds
// every integer only up to 2^24, so lengths travel as exact u32 counts and the map index as an
// exact i32 (backend/wgsl/indices.ts); before, such an array was a RangeError. The data are
// small integers where that makes the f32 result exact (a wrong index or a lost element then
// shows as a difference, not as noise under a tolerance). Sizes: just under, at and just over
// 2^24, and past 65535 workgroups in one dimension (a map of 64-invocation workgroups past
// 65535 · 64 elements dispatches a 2-D grid). One module and one data set per size, shared.
import { close, data, gpuSuite } from './gpuSuite';

const N = 2 ** 24;

const source = `
import { grad, sum, scan, gather } from 'tsad';
import { gpu } from 'tsad/webgpu';

/** A second array read at the map index, and the index as a value (f32: rounded past 2^24). */
/** @differentiable */
export function mix(x: Float32Array, y: Float32Array): Float32Array {
  return x.map((v, i) => v * y[i] + i);
}
/** @differentiable */
export function total(x: Float32Array): number {
  return sum(x);
}
/** @differentiable */
export function cumsum(x: Float32Array): Float64Array {
  return scan(x, '+');
}
/** @differentiable */
export function weighted(x: Float32Array, y: Float32Array): number {
  return sum(x.map((v, i) => v * y[i]));
}
/** @differentiable */
export function gathered(w: Float32Array, idx: Float32Array): Float64Array {
  return gather(w, idx);
}
/** @differentiable */
export function picked(w: Float32Array, idx: Float32Array): number {
  return sum(gather(w, idx).map((v) => v * v * 0.5));
}
/** Each element less half the one before it: an index computed in the body (a gather of i − 1). */
/** @differentiable */
export function diffs(x: Float32Array): Float32Array {
  return x.map((v, i) => v - x[Math.max(i - 1, 0)] * 0.5);
}
/** The index compared with a number: exactly, as on the CPU (f32(2^24 + 1) would be 2^24). */
/** @differentiable */
export function upTo(x: Float32Array, c: number): Float32Array {
  return x.map((v, i) => (i <= c ? v : 0));
}
/** An index computed with f32 arithmetic from the map index. */
/** @differentiable */
export function halves(x: Float32Array): Float32Array {
  return x.map((v, i) => x[Math.floor(i * 0.5)]);
}

export const gpuMix = gpu(mix);
export const gpuTotal = gpu(total);
export const gpuCumsum = gpu(cumsum);
export const gpuWeighted = gpu(grad(weighted));
export const cpuWeighted = grad(weighted);
export const gpuGathered = gpu(gathered);
export const gpuPicked = gpu(grad(picked));
export const cpuPicked = grad(picked);
export const gpuDiffs = gpu(diffs);
export const gpuHalves = gpu(halves);
export const gpuUpTo = gpu(upTo);
export { gpu };
`;

const suite = gpuSuite('large.test.ts', source, 300_000);
const run = suite.run;
// The two slowest cases (about 45 s together on the software adapter, most of the file) run with
// TSAD_LARGE=1; by default they are reported as skipped. The cases that stay cover every length
// rule: counts just under, at and over 2^24, a 2-D grid, the exact index comparison, a gradient
// at 2^24 + 3 and the rejections.
const LARGE = process.env.TSAD_LARGE === '1';
let skippedLarge = 0;
const runLarge: typeof run = (name, body, t) => run(`${name} (TSAD_LARGE=1)`, LARGE ? body : async () => void skippedLarge++, t);
afterAll(() => {
  if (skippedLarge > 0) console.warn(`\n*** large.test.ts: ${skippedLarge} slow cases skipped (set TSAD_LARGE=1 to run them) ***\n`);
});
const m = () => suite.exports();

/**
 * Small integers in [-8, 8), one array for every size (its prefixes): sums, prefix sums and
 * halved differences of them are exact in f32 (every partial sum below 2^24 in magnitude).
 */
let shared: Float32Array | undefined;
function ints(n: number): Float32Array {
  if (!shared || shared.length < n) {
    shared = new Float32Array(N + 3);
    let s = 12345;
    for (let i = 0; i < shared.length; i++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      shared[i] = (s >>> 28) - 8;
    }
  }
  return shared.subarray(0, n);
}

/** Exactly equal, element by element (a tight loop: the arrays are 2^24 long). */
function same(gpu: ArrayLike<number>, want: ArrayLike<number>, what: string): void {
  expect(gpu.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) if (gpu[i] !== want[i]) throw new Error(`${what}: element ${i} of ${want.length}: GPU ${gpu[i]}, expected ${want[i]}`);
}

// The references of the exact cases are the functions written out in plain JavaScript with f32
// rounding where the kernel rounds (the CPU path computes in f64; on a small prefix both agree).
const mixOf = (x: Float32Array, y: Float32Array) => {
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i] * y[i] + Math.fround(i);
  return out;
};
/** Deterministic indices in [0, m): a cheap hash of i (16M of them). */
const indices = (n: number, m: number, k: number) => {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (Math.imul(i + k, 40503) >>> 0) % m;
  return out;
};
const prefix = (x: Float32Array) => {
  const out = new Float64Array(x.length);
  let acc = 0;
  for (let i = 0; i < x.length; i++) out[i] = acc += x[i];
  return out;
};
const totalOf = (x: Float32Array) => {
  let acc = 0;
  for (let i = 0; i < x.length; i++) acc += x[i];
  return acc;
};
const AMBIGUOUS = /an index held as an f32 number is 2\^24 or more/;

describe('arrays past 2^24 elements', () => {
  // Against the f32-rounded reference exactly: the index past 2^24 is exact where it indexes
  // (y[i]) and rounded to f32 where it is a value (+ i), as every number on the device.
  runLarge('a map reading a second array at i, a sum and a scan at 2^24 + 3 (exact)', async () => {
    const x = ints(N + 3);
    const y = new Float32Array(N + 3);
    for (let i = 0; i < y.length; i++) y[i] = x[(i + 5) % y.length] + 9;
    same(m().mix(x.subarray(0, 1000), y.subarray(0, 1000)), mixOf(x.subarray(0, 1000), y.subarray(0, 1000)), 'the CPU path agrees with the reference');
    same(await m().gpuMix(x, y), mixOf(x, y), 'mix');
    expect(await m().gpuTotal(x)).toBe(totalOf(x));
    same(await m().gpuCumsum(x), prefix(x), 'cumsum');
  });

  run('a scan at 2^24 + 1 (exact)', async () => {
    const x = ints(N + 1);
    same(await m().gpuCumsum(x), prefix(x), 'cumsum 2^24 + 1');
  });

  // Where an f32 count would round: 2^24 + 1 is no f32 number (it rounds to 2^24).
  run('a sum at 2^24 − 1, 2^24 and 2^24 + 1 (exact)', async () => {
    for (const n of [N - 1, N, N + 1]) {
      const x = ints(n);
      expect(await m().gpuTotal(x)).toBe(totalOf(x));
    }
  });

  run('a map past 65535 workgroups of 64 (a 2-D grid), at the boundary', async () => {
    for (const n of [65535 * 64, 65535 * 64 + 1]) {
      const x = ints(n);
      same(await m().gpuMix(x, x), mixOf(x, x), `mix n=${n}`);
    }
  });

  // The gradient of Σ x_i·y_i with respect to x is y, exactly; its value a long f32 sum of small
  // integer products, exact too (every partial sum below 2^24).
  run('a gradient at 2^24 + 3 (a map with a free array and a sum)', async () => {
    const x = ints(N + 3);
    const y = new Float32Array(N + 3);
    for (let i = 0; i < y.length; i++) y[i] = x[(i + 7) % y.length] + 1;
    const got = await m().gpuWeighted(x, y);
    same(m().cpuWeighted(x.subarray(0, 1000), y.subarray(0, 1000)), y.subarray(0, 1000), 'the CPU gradient');
    same(got, y, 'grad weighted');
  });

  // Indices below 2^24 into an array longer than 2^24, and 2^24 + 3 indices into 2^16 bins (the
  // gradient: a scatter-add, each bin about 256 additions, within the recursive-summation bound
  // (count + 1) · 2^-24 · |the bin's value| as in gpu.test.ts: 2^-14 relative here).
  runLarge('gather from and scatter-add over arrays past 2^24', async () => {
    const w = ints(N + 3);
    const idx = indices(N + 3, N, 1);
    const want = new Float32Array(idx.length);
    for (let i = 0; i < idx.length; i++) want[i] = w[idx[i]];
    same(await m().gpuGathered(w, idx), want, 'gather n=2^24+3');
    const short = data(2 ** 16, 43);
    const bins = indices(N + 3, 2 ** 16, 2);
    close(await m().gpuPicked(short, bins), m().cpuPicked(short, bins), 2 ** -14, 1e-6, 'grad picked n=2^24+3');
  });

  run('the map index compared with a number past 2^24 (exact)', async () => {
    const x = ints(N + 3).map((v) => v + 9);
    const got = await m().gpuUpTo(x, N);
    same(got.subarray(N - 2), [x[N - 2], x[N - 1], x[N], 0, 0], 'upTo 2^24');
    same(m().upTo(x.subarray(N - 2), 1), [x[N - 2], x[N - 1], 0, 0, 0], 'the CPU path');
  });

  // Indices the device holds only as f32 numbers: exact below 2^24; at or above (or computed
  // from an index that was), the call rejects rather than reading a neighbour.
  run('an index held as f32 at 2^24 or more rejects; below, it is exact', async () => {
    const w = ints(N + 3);
    const idx = Float32Array.from([0, N - 1, N + 2]);
    await expect(m().gpuGathered(w, idx)).rejects.toThrow(AMBIGUOUS);
    same(await m().gpuGathered(w, idx.subarray(0, 2)), [w[0], w[N - 1]], 'gather below 2^24');
    // floor(i · 0.5) from f32(i), rounded past 2^24: the last element would read w[2^23 + 2], not w[2^23 + 1].
    await expect(m().gpuHalves(w)).rejects.toThrow(AMBIGUOUS);
    // x[i − 1] goes through an index array of f32 (the front end's gather): past 2^24 too.
    await expect(m().gpuDiffs(w)).rejects.toThrow(AMBIGUOUS);
    const x = ints(1000);
    same(await m().gpuHalves(x), m().halves(x), 'halves n=1000');
    same(await m().gpuDiffs(x), m().diffs(x), 'diffs n=1000');
  });
});
