// The WebGPU device of bench/webgpu (run.js, jax.mjs): one Dawn instance from the `webgpu` package
// set as `navigator.gpu`, where both tsad's runtime and jax-js take their device, so both run on
// one adapter; and what the bench measures on it besides wall time:
// - dispatches, counted by wrapping GPUComputePassEncoder's dispatch methods (for both);
// - the GPU's own time of each compute pass, where the adapter has 'timestamp-query' (real GPUs;
//   not the software adapter): the device is asked for the feature, every compute pass gets a
//   begin and an end timestamp, and `kernelMs()` sums the passes of the command buffers since
//   the last call. Dawn quantizes timestamps unless told not to: the instance is created with
//   timestamp_quantization off.
// - the device's copy bandwidth (`copyBandwidth`): a buffer-to-buffer copy and a trivial copy
//   kernel, each repeated in one command buffer.
'use strict';

let state;

/** Sets navigator.gpu to a Dawn instance and installs the counters; an error message when it cannot. */
async function setup() {
  if (state) return state.error;
  let webgpu;
  try {
    webgpu = require('webgpu');
  } catch (e) {
    state = { error: `the 'webgpu' package is not installed (${String(e.message).split('\n')[0]})` };
    return state.error;
  }
  state = { dispatches: 0, pending: [], webgpu };
  const timed = new WeakMap();
  Object.assign(globalThis, webgpu.globals);
  const { GPUComputePassEncoder, GPUCommandEncoder, GPUDevice, GPUAdapter } = webgpu.globals;
  for (const method of ['dispatchWorkgroups', 'dispatchWorkgroupsIndirect']) {
    const original = GPUComputePassEncoder.prototype[method];
    GPUComputePassEncoder.prototype[method] = function (...args) {
      state.dispatches++;
      return original.apply(this, args);
    };
  }
  const requestDevice = GPUAdapter.prototype.requestDevice;
  GPUAdapter.prototype.requestDevice = function (descriptor = {}) {
    const features = [...(descriptor.requiredFeatures ?? [])];
    if (this.features.has('timestamp-query') && !features.includes('timestamp-query')) features.push('timestamp-query');
    return requestDevice.call(this, { ...descriptor, requiredFeatures: features });
  };
  const createCommandEncoder = GPUDevice.prototype.createCommandEncoder;
  GPUDevice.prototype.createCommandEncoder = function (...args) {
    const enc = createCommandEncoder.apply(this, args);
    if (state.timestamps !== false && this.features.has('timestamp-query')) timed.set(enc, { device: this, passes: 0 });
    return enc;
  };
  const MAX_PASSES = 4096;
  const beginComputePass = GPUCommandEncoder.prototype.beginComputePass;
  GPUCommandEncoder.prototype.beginComputePass = function (descriptor = {}) {
    const t = timed.get(this);
    if (!t || t.passes >= MAX_PASSES || descriptor.timestampWrites) return beginComputePass.call(this, descriptor);
    t.querySet ??= t.device.createQuerySet({ type: 'timestamp', count: 2 * MAX_PASSES });
    const k = t.passes++;
    return beginComputePass.call(this, { ...descriptor, timestampWrites: { querySet: t.querySet, beginningOfPassWriteIndex: 2 * k, endOfPassWriteIndex: 2 * k + 1 } });
  };
  const finish = GPUCommandEncoder.prototype.finish;
  GPUCommandEncoder.prototype.finish = function (...args) {
    const t = timed.get(this);
    if (t && t.passes > 0) {
      const bytes = 16 * t.passes;
      const resolved = t.device.createBuffer({ size: bytes, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
      const read = t.device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      this.resolveQuerySet(t.querySet, 0, 2 * t.passes, resolved, 0);
      this.copyBufferToBuffer(resolved, 0, read, 0, bytes);
      state.pending.push({ read, resolved, querySet: t.querySet, passes: t.passes });
    }
    return finish.apply(this, args);
  };
  // The machine's GPU unless TSAD_WEBGPU=software, then (or when there is none) the software
  // adapter, as tsad's runtime chooses (runtime/webgpu/device.ts).
  let software = process.env.TSAD_WEBGPU === 'software';
  let instance;
  if (!software) {
    instance = webgpu.create(['disable-dawn-features=timestamp_quantization']);
    if (!(await instance.requestAdapter())) software = true;
  }
  if (software) {
    process.env.EGL_PLATFORM ??= 'surfaceless';
    instance = webgpu.create(['backend=opengles']);
  }
  state.software = software;
  globalThis.__tsadBenchDawn = instance; // kept alive: a collected instance loses its devices' callbacks
  const gpu = software
    ? {
        // Dawn's OpenGL ES backend has compatibility mode only: without it requestAdapter gives null.
        requestAdapter: (options = {}) => instance.requestAdapter({ ...options, featureLevel: 'compatibility' }),
        getPreferredCanvasFormat: () => 'rgba8unorm',
        wgslLanguageFeatures: instance.wgslLanguageFeatures,
      }
    : instance;
  Object.defineProperty(globalThis, 'navigator', { value: { ...(globalThis.navigator ?? {}), gpu, userAgent: 'node' }, configurable: true, writable: true });
  return undefined;
}

const dispatches = () => state?.dispatches ?? 0;
/** Whether navigator.gpu is the software adapter (asked for, or no GPU found). */
const isSoftware = () => state?.software === true;

/** The GPU time (ms) of the compute passes submitted since the last call, or undefined without timestamps. */
async function kernelMs() {
  const pending = state?.pending ?? [];
  if (pending.length === 0) return undefined;
  state.pending = [];
  let ns = 0;
  for (const p of pending) {
    await p.read.mapAsync(GPUMapMode.READ);
    const t = new BigUint64Array(p.read.getMappedRange().slice(0));
    p.read.unmap();
    for (let k = 0; k < p.passes; k++) if (t[2 * k + 1] > t[2 * k]) ns += Number(t[2 * k + 1] - t[2 * k]);
    p.read.destroy();
    p.resolved.destroy();
    p.querySet.destroy();
  }
  return ns / 1e6;
}

/**
 * Whether the device's compute passes get timestamps: one empty pass with them, checked for a
 * validation error and a readable result; where that fails they are turned off (the bench then
 * reports wall times only) rather than failing every call.
 */
async function checkTimestamps(device) {
  if (!state || state.error || !device.features.has('timestamp-query')) return false;
  try {
    device.pushErrorScope('validation');
    const enc = device.createCommandEncoder();
    enc.beginComputePass().end();
    device.queue.submit([enc.finish()]);
    const error = await device.popErrorScope();
    const ms = await kernelMs();
    if (error || ms === undefined) state.timestamps = false;
  } catch {
    state.timestamps = false;
    state.pending = [];
  }
  return state.timestamps !== false;
}

/**
 * The device's copy bandwidth in GB/s (bytes read + written per second) at `n` floats: a
 * buffer-to-buffer copy, and a kernel where each invocation copies one float, each `reps` times
 * in one command buffer, the best of 3 such submissions (wall time from submit to done; the
 * kernel's also from timestamps where there are some).
 */
async function copyBandwidth(device, n, reps) {
  const bytes = n * 4;
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const a = device.createBuffer({ size: bytes, usage });
  const b = device.createBuffer({ size: bytes, usage });
  const module = device.createShaderModule({
    code: `@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i < arrayLength(&dst)) { dst[i] = src[i]; }
}`,
  });
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  const bind = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: { buffer: a } },
      { binding: 1, resource: { buffer: b } },
    ],
  });
  const groups = Math.ceil(n / 256);
  const x = Math.min(groups, device.limits.maxComputeWorkgroupsPerDimension);
  const y = Math.ceil(groups / x);
  const time = async (encode) => {
    let best = Infinity;
    let bestKernel;
    for (let round = 0; round < 3; round++) {
      await kernelMs();
      const enc = device.createCommandEncoder();
      for (let r = 0; r < reps; r++) encode(enc);
      const t0 = process.hrtime.bigint();
      device.queue.submit([enc.finish()]);
      await device.queue.onSubmittedWorkDone();
      const ms = Number(process.hrtime.bigint() - t0) / 1e6 / reps;
      const k = await kernelMs();
      best = Math.min(best, ms);
      if (k !== undefined) bestKernel = Math.min(bestKernel ?? Infinity, k / reps);
    }
    return { ms: best, kernelMs: bestKernel };
  };
  const copy = await time((enc) => enc.copyBufferToBuffer(a, 0, b, 0, bytes));
  const kernel = await time((enc) => {
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bind);
    pass.dispatchWorkgroups(x, y);
    pass.end();
  });
  a.destroy();
  b.destroy();
  const gbs = (ms) => (ms === undefined ? undefined : (2 * bytes) / (ms * 1e6));
  return { copy: gbs(copy.ms), kernel: gbs(kernel.ms), kernelTimestamps: gbs(kernel.kernelMs), timestamps: kernel.kernelMs !== undefined };
}

module.exports = { setup, dispatches, isSoftware, kernelMs, checkTimestamps, copyBandwidth };
