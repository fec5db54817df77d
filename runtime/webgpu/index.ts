// tsad/webgpu: `gpu(fn)` runs a marked function, or a transform of one (`gpu(grad(loss))`), as
// WebGPU kernels generated at build time. With the compiler plugin every `gpu(...)` call is
// replaced by `gpu.compiled(program)`; without it, calling the result rejects with the message
// of the other transforms.
import { NoAdapterError, acquire, release } from './device';
import type { GpuProgram } from './plan';
import { GpuArray, upload } from './handles';
import { runProgram } from './run';

/** Brand the compiler plugin uses to recognise this module (as it does tsad's own). */
export const TSAD_RUNTIME = true;

export type { GpuProgram } from './plan';
export { NoAdapterError } from './device';
export { GpuArray } from './handles';

/** What the GPU returns for a value: numbers stay numbers, arrays of numbers come back as Float32Array. */
export type OnGpu<T> = T extends number
  ? number
  : T extends Float32Array | Float64Array | readonly number[]
    ? Float32Array
    : T extends readonly unknown[]
      ? { -readonly [K in keyof T]: OnGpu<T[K]> }
      : T;

/** What a GPU function takes for a parameter: arrays of numbers as Float32Array (a Float64Array or number[] is converted). */
export type GpuArg<T> = T extends Float32Array | Float64Array | readonly number[] ? Float32Array | Float64Array | readonly number[] | GpuArray : T;

/** Each parameter as gpu takes it (a mapped tuple: over a type parameter, so it stays a tuple). */
export type GpuArgs<P extends readonly unknown[]> = { [K in keyof P]: GpuArg<P[K]> };

export type GpuFunction<F extends (...args: any[]) => any> = (...args: GpuArgs<Parameters<F>>) => Promise<OnGpu<ReturnType<F>>>;

export interface Gpu {
  <F extends (...args: any[]) => any>(fn: F): GpuFunction<F>;
  /** Whether a WebGPU device can be had here; never rejects. */
  available(): Promise<boolean>;
  /** Why not, when `available()` is false (undefined when it is true). */
  unavailableReason(): Promise<string | undefined>;
  /**
   * A copy of `array` on the device (converted to f32 as an argument is), which every GPU
   * function takes wherever it takes an array, without copying it again: data an optimisation
   * loop reads every step is uploaded once. `read()` copies it back; `destroy()` frees it.
   */
  upload(array: Float32Array | Float64Array | readonly number[]): Promise<GpuArray>;
  /** Destroys the device and its buffers (a test's teardown; the next call acquires a new one). */
  release(): Promise<void>;
  /** What the plugin emits for `gpu(f)`: not for hand-written code. */
  compiled(program: GpuProgram): (...args: unknown[]) => Promise<unknown>;
}

function notCompiled(fn: unknown): never {
  const name = typeof fn === 'function' && fn.name ? fn.name : 'fn';
  throw new Error(`tsad: gpu(${name}) was not compiled. Add { "transform": "tsad/transformer" } to compilerOptions.plugins and build with tspc.`);
}

export const gpu: Gpu = Object.assign(<F extends (...args: any[]) => any>(fn: F): GpuFunction<F> => (async () => notCompiled(fn)) as unknown as GpuFunction<F>, {
  async available(): Promise<boolean> {
    return (await this.unavailableReason()) === undefined;
  },
  async unavailableReason(): Promise<string | undefined> {
    try {
      await acquire();
      return undefined;
    } catch (e) {
      return e instanceof NoAdapterError ? e.message : `tsad/webgpu: ${(e as Error).message}`;
    }
  },
  release,
  async upload(array: Float32Array | Float64Array | readonly number[]): Promise<GpuArray> {
    const data = array instanceof Float32Array ? array : array instanceof Float64Array || Array.isArray(array) ? Float32Array.from(array) : undefined;
    if (!data) throw new TypeError(`gpu.upload: expected a Float32Array, Float64Array or number[], got ${typeof array}`);
    return upload(await acquire(), data);
  },
  compiled(program: GpuProgram) {
    return async (...args: unknown[]) => {
      let device: Awaited<ReturnType<typeof acquire>>;
      try {
        device = await acquire();
      } catch (e) {
        if (e instanceof NoAdapterError) throw new NoAdapterError(`${e.message.replace(/^tsad\/webgpu: no WebGPU adapter: /, '')} (needed by ${program.where})`);
        throw e;
      }
      return runProgram(device, program, args);
    };
  },
});
