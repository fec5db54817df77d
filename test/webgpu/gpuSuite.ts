// The frame every WebGPU test file shares: the module compiled once (compiling is the slow part
// on the CPU side), GPU tests that skip where no adapter can be created, and a loud count of what
// was skipped and why, so that a machine without an adapter never passes them silently.
import { load } from '../plugin/harness';

export interface GpuSuite {
  /** A test that needs the device: skipped, and counted, when there is no adapter. */
  run(name: string, body: () => Promise<void>, timeout?: number): void;
  /** The compiled module's exports (set before the first test). */
  exports(): Record<string, any>;
  /** Why no adapter could be created, or undefined when one was. */
  unavailable(): string | undefined;
}

export function gpuSuite(file: string, source: string, timeout = 60_000): GpuSuite {
  let m: Record<string, any> | undefined;
  let unavailable: string | undefined;
  let skipped = 0;
  beforeAll(async () => {
    m = load(source).exports;
    unavailable = await m.gpu.unavailableReason();
  }, 180_000);
  afterAll(async () => {
    if (unavailable !== undefined) console.warn(`\n\n*** SKIPPED ${skipped} GPU TESTS (${file}): ${unavailable} ***\n\n`);
    await m?.gpu.release();
  });
  return {
    run: (name, body, t = timeout) =>
      test(
        name,
        async () => {
          if (unavailable !== undefined) {
            skipped++;
            return;
          }
          await body();
        },
        t,
      ),
    exports: () => m!,
    unavailable: () => unavailable,
  };
}

/** Deterministic data in [lo, hi), already f32. */
export function data(n: number, seed: number, lo = -2, hi = 2): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = lo + ((s >>> 8) / 2 ** 24) * (hi - lo);
  }
  return out;
}

/** |gpu − cpu| ≤ rel · max(|cpu|, floor) + abs, element by element, same length. */
export function close(gpu: ArrayLike<number>, cpu: ArrayLike<number>, rel: number, floor: number, what: string, abs = 0): void {
  expect(gpu.length).toBe(cpu.length);
  for (let i = 0; i < cpu.length; i++) {
    const err = Math.abs(gpu[i] - cpu[i]);
    if (!(err <= rel * Math.max(Math.abs(cpu[i]), floor) + abs)) throw new Error(`${what}: element ${i} of ${cpu.length}: GPU ${gpu[i]}, CPU ${cpu[i]} (error ${err})`);
  }
}

/** The largest magnitude of an array's elements (0 when empty). */
export function maxAbs(a: ArrayLike<number>): number {
  let r = 0;
  for (let i = 0; i < a.length; i++) r = Math.max(r, Math.abs(a[i]));
  return r;
}
