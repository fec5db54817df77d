// Where tsad/webgpu gets its device: `navigator.gpu` in a browser; in Node the `webgpu` package
// (Dawn, an optional dependency), first on the machine's own GPU, then on the software adapter
// (Dawn's OpenGL ES backend on Mesa's llvmpipe, WebGPU compatibility mode). One device per
// process, requested with the limits the kernels need, never more than the adapter offers.
/* eslint-disable @typescript-eslint/no-explicit-any */

/** The WebGPU objects used here, typed loosely: the package has no dependency on @webgpu/types. */
export type GPUDeviceLike = any;

export interface Acquired {
  readonly device: GPUDeviceLike;
  /** Held with the device, for the same reason as `instances`. */
  readonly adapter: unknown;
  /** In words, for messages: "Dawn (OpenGL ES, compatibility mode)". */
  readonly description: string;
  readonly maxStorageBuffers: number;
  readonly maxWorkgroupsPerDimension: number;
  readonly maxBufferSize: number;
}

/** Why no device could be had, for `gpu.available()` and the rejection of a call. */
export class NoAdapterError extends Error {
  constructor(reason: string) {
    super(`tsad/webgpu: no WebGPU adapter: ${reason}`);
    this.name = 'NoAdapterError';
  }
}

/** The kernels' workgroups take 256 invocations (REDUCE_WORKGROUP). */
const NEEDED_INVOCATIONS = 256;

function dawn(): { create(options: string[]): any } | string {
  // The package is an ES module; its native addon is what it loads, and a CommonJS require of
  // the addon works everywhere (jest included, which cannot import ES modules by default).
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const path = require('path') as typeof import('path');
    const dir = path.dirname(require.resolve('webgpu'));
    const arch = process.platform === 'darwin' ? 'universal' : process.arch;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(path.join(dir, 'dist', `${process.platform}-${arch}`, 'dawn.node'));
  } catch (e) {
    return `the optional dependency 'webgpu' (Dawn) cannot be loaded (${(e as Error).message.split('\n')[0]}); install it with npm install webgpu`;
  }
}

/**
 * Every Dawn instance created, kept for the life of the process: an instance the garbage
 * collector takes while its device works loses the device's callbacks (a readback that never
 * resolves) or aborts the process in Dawn's threads.
 */
const instances: unknown[] = [];

function instance(d: { create(options: string[]): any }, options: string[]): any {
  const gpu = d.create(options);
  instances.push(gpu);
  return gpu;
}

async function adapterOf(): Promise<{ adapter: any; description: string }> {
  const nav = (globalThis as any).navigator;
  if (nav?.gpu) {
    const adapter = await nav.gpu.requestAdapter();
    if (!adapter) throw new NoAdapterError('navigator.gpu.requestAdapter() returned null (WebGPU is disabled or the GPU is blocked)');
    return { adapter, description: 'navigator.gpu' };
  }
  if (typeof process === 'undefined' || typeof require === 'undefined') throw new NoAdapterError('this environment has neither navigator.gpu nor Node');
  const d = dawn();
  if (typeof d === 'string') throw new NoAdapterError(d);
  if (process.env.TSAD_WEBGPU !== 'software') {
    const adapter = await instance(d, []).requestAdapter();
    if (adapter) return { adapter, description: 'Dawn' };
  }
  // No display on a server: EGL must not look for one (docs: webgpu-without-a-gpu).
  process.env.EGL_PLATFORM ??= 'surfaceless';
  const adapter = await instance(d, ['backend=opengles']).requestAdapter({ featureLevel: 'compatibility' });
  if (!adapter) throw new NoAdapterError("Dawn found no GPU adapter and no software adapter (the OpenGL ES one needs Mesa's EGL and llvmpipe: libegl-mesa0, libgl1-mesa-dri)");
  return { adapter, description: 'Dawn (OpenGL ES on the software adapter, compatibility mode)' };
}

let acquiring: Promise<Acquired> | undefined;

export function acquire(): Promise<Acquired> {
  acquiring ??= (async () => {
    const { adapter, description } = await adapterOf();
    const limits = adapter.limits;
    if (limits.maxComputeInvocationsPerWorkgroup < NEEDED_INVOCATIONS || limits.maxComputeWorkgroupSizeX < NEEDED_INVOCATIONS) {
      throw new NoAdapterError(`the adapter (${description}) runs at most ${limits.maxComputeInvocationsPerWorkgroup} invocations per workgroup; tsad's kernels need ${NEEDED_INVOCATIONS}`);
    }
    const device = await adapter.requestDevice({
      requiredLimits: {
        maxComputeInvocationsPerWorkgroup: NEEDED_INVOCATIONS,
        maxComputeWorkgroupSizeX: NEEDED_INVOCATIONS,
        maxStorageBuffersPerShaderStage: limits.maxStorageBuffersPerShaderStage,
        maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
        maxBufferSize: limits.maxBufferSize,
      },
    });
    // A lost device is forgotten: the next call asks for a new one.
    device.lost?.then?.(() => {
      if (current?.device === device) {
        current = undefined;
        acquiring = undefined;
      }
    });
    const got: Acquired = {
      device,
      adapter,
      description,
      maxStorageBuffers: limits.maxStorageBuffersPerShaderStage,
      maxWorkgroupsPerDimension: limits.maxComputeWorkgroupsPerDimension,
      maxBufferSize: Math.min(limits.maxBufferSize, limits.maxStorageBufferBindingSize),
    };
    current = got;
    return got;
  })();
  // A failure is not cached: a later call tries again (a GPU may have come back).
  acquiring.catch(() => {
    acquiring = undefined;
  });
  return acquiring;
}

let current: Acquired | undefined;

/** Destroys the device (its buffers and pipelines go with it); the next call acquires a new one. */
export async function release(): Promise<void> {
  const had = acquiring;
  acquiring = undefined;
  current = undefined;
  if (!had) return;
  try {
    (await had).device.destroy();
  } catch {
    // Nothing was acquired: nothing to destroy.
  }
}
