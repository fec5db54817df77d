// Arrays kept on the device across calls: `gpu.upload(array)` copies an array once and returns a
// handle that every GPU function takes where it takes an array, binding the handle's buffer
// instead of copying the data again (an optimisation loop uploads its data set once). Kernels
// only read their parameters' buffers, so one handle serves any number of calls.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Acquired } from './device';

// GPUBufferUsage: STORAGE | COPY_SRC | COPY_DST, MAP_READ | COPY_DST.
const STORAGE_USAGE = 128 | 4 | 8;
const READ_USAGE = 1 | 8;

/** An array of f32 on the device, made by `gpu.upload(array)`. */
export class GpuArray {
  private buf: any;
  /** @internal */
  constructor(
    /** @internal the device it lives on */
    readonly acquired: Acquired,
    buffer: any,
    /** Its number of elements. */
    readonly length: number,
  ) {
    this.buf = buffer;
  }

  /** @internal The buffer, for a call on `acquired`'s device; an error naming the argument when it is gone. */
  bufferFor(acquired: Acquired, label: string, where: string): any {
    if (!this.buf) throw new Error(`${where}: ${label} is a GPU array that was destroyed`);
    if (acquired !== this.acquired) throw new Error(`${where}: ${label} was uploaded to a device that is gone (lost or released); upload it again`);
    return this.buf;
  }

  /** A copy of its elements back on the host. */
  async read(): Promise<Float32Array> {
    const buffer = this.bufferFor(this.acquired, 'the array', 'GpuArray.read');
    const { device } = this.acquired;
    const bytes = Math.max(16, this.length * 4);
    const staging = device.createBuffer({ size: bytes, usage: READ_USAGE });
    try {
      const enc = device.createCommandEncoder();
      enc.copyBufferToBuffer(buffer, 0, staging, 0, bytes);
      device.queue.submit([enc.finish()]);
      await staging.mapAsync(1, 0, bytes);
      const out = new Float32Array(staging.getMappedRange(0, bytes).slice(0, this.length * 4));
      staging.unmap();
      return out;
    } finally {
      staging.destroy();
    }
  }

  /** Frees its device memory now (otherwise the garbage collector does, or `gpu.release()`). */
  destroy(): void {
    this.buf?.destroy();
    this.buf = undefined;
  }
}

/** A device copy of `data` (already f32). */
export function upload(acquired: Acquired, data: Float32Array): GpuArray {
  if (data.length * 4 > acquired.maxBufferSize) throw new RangeError(`gpu.upload: an array of ${data.length} elements exceeds the device's buffer size (${acquired.maxBufferSize} bytes)`);
  // At least 16 bytes (an empty array still binds); a multiple of 4 bytes by construction.
  const buffer = acquired.device.createBuffer({ size: Math.max(16, data.byteLength), usage: STORAGE_USAGE });
  if (data.length > 0) acquired.device.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
  return new GpuArray(acquired, buffer, data.length);
}
