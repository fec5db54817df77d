// Runs a GpuProgram (plan.ts) for one call: the host program over lengths, the uploads, every
// kernel in one command encoder (data stays on the device between kernels), one readback at the
// end. Pipelines are compiled once per device and kept; buffers come from a per-device pool
// and go back to it when the call has read its results.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Acquired, GPUDeviceLike } from './device';
import { GpuArray } from './handles';
import { flattenParams, leafResults, rebuildResults } from './objects';
import { GpuProgram, HOST_FNS, MAP_WORKGROUP, MAX_ELEMENTS, REDUCE_CHUNK, REDUCE_WORKGROUP, TILE } from './plan';

// The WebGPU constants (GPUBufferUsage, GPUMapMode), fixed by the specification.
const MAP_READ = 1;
const COPY_SRC = 4;
const COPY_DST = 8;
const UNIFORM = 64;
const STORAGE = 128;

/** Sequential code (a loop on one invocation) addresses its heap in f32, exact up to 2^24. */
const MAX_HEAP = 2 ** 24;

interface DeviceState {
  readonly pipelines: Map<string, any>;
  readonly layouts: Map<string, any>;
  readonly pool: Map<string, any[]>;
}

const states = new WeakMap<object, DeviceState>();

function stateOf(device: GPUDeviceLike): DeviceState {
  let s = states.get(device);
  if (!s) {
    s = { pipelines: new Map(), layouts: new Map(), pool: new Map() };
    states.set(device, s);
  }
  return s;
}

/** Binding kinds of a kernel, in binding order: 's' storage, 'u' uniform. */
function pipelineOf(device: GPUDeviceLike, code: string, kinds: string): any {
  const s = stateOf(device);
  const key = `${kinds}\n${code}`;
  let p = s.pipelines.get(key);
  if (!p) {
    let layout = s.layouts.get(kinds);
    if (!layout) {
      const group = device.createBindGroupLayout({
        entries: [...kinds].map((k, binding) => ({ binding, visibility: 4 /* COMPUTE */, buffer: { type: k === 'u' ? 'uniform' : 'storage' } })),
      });
      layout = device.createPipelineLayout({ bindGroupLayouts: [group] });
      s.layouts.set(kinds, layout);
    }
    p = device.createComputePipeline({ layout, compute: { module: device.createShaderModule({ code }), entryPoint: 'main' } });
    s.pipelines.set(key, p);
  }
  return p;
}

class Buffers {
  private readonly taken: { key: string; buffer: any }[] = [];
  constructor(
    private readonly device: GPUDeviceLike,
    private readonly cap: number,
  ) {}

  take(bytes: number, usage: number): any {
    // Power-of-two sizes pool well; one past the device's largest buffer is as large as needed.
    const pow2 = Math.max(16, 2 ** Math.ceil(Math.log2(Math.max(bytes, 1))));
    const size = pow2 <= this.cap ? pow2 : Math.ceil(bytes / 16) * 16;
    const key = `${usage}:${size}`;
    const pool = stateOf(this.device).pool;
    const buffer = pool.get(key)?.pop() ?? this.device.createBuffer({ size, usage });
    this.taken.push({ key, buffer });
    return buffer;
  }

  /** Back to the pool, for the next call. */
  giveBack(): void {
    const pool = stateOf(this.device).pool;
    for (const { key, buffer } of this.taken) {
      const list = pool.get(key) ?? [];
      list.push(buffer);
      pool.set(key, list);
    }
    this.taken.length = 0;
  }
}

/** Kernels dispatched since the process started (tests and bench/webgpu count them per call). */
let dispatched = 0;
export function dispatchCount(): number {
  return dispatched;
}

/** A test may lower the grid's width to check 2-D dispatch on small inputs. */
let widthLimit = Infinity;
export function limitGridWidthForTests(width: number): void {
  widthLimit = width;
}

function grid(groups: number, acquired: Acquired): [number, number] {
  const width = Math.min(acquired.maxWorkgroupsPerDimension, widthLimit);
  if (groups <= width) return [groups, 1];
  const rows = Math.ceil(groups / width);
  if (rows > acquired.maxWorkgroupsPerDimension) throw new RangeError(`tsad/webgpu: ${groups} workgroups do not fit the device's grid`);
  return [width, rows];
}

function toF32(v: unknown, label: string, where: string): Float32Array | GpuArray {
  if (v instanceof Float32Array || v instanceof GpuArray) return v;
  // Float64Array and number[] are converted (one pass and a copy; values rounded to f32).
  if (v instanceof Float64Array || (Array.isArray(v) && (v.length === 0 || typeof v[0] === 'number'))) return Float32Array.from(v as ArrayLike<number>);
  throw new TypeError(`${where}: ${label} must be a Float32Array (or a Float64Array or number[], converted to f32, or a gpu.upload handle), got ${describe(v)}`);
}

/** A count of invocations or workgroups: a NaN would skip a kernel and leave zeros, silently. */
function finite(n: number, where: string): number {
  if (!Number.isFinite(n)) throw new Error(`${where}: a kernel's size is ${n} (a bug in tsad)`);
  return n;
}

/** A matrix argument as its row-major f32 data (rectangular: every row as long as the first). */
function toMatrix(v: unknown, label: string, where: string): { flat: Float32Array; rows: number; cols: number } {
  if (!Array.isArray(v)) throw new TypeError(`${where}: ${label} must be a matrix (number[][], Float32Array[] or Float64Array[]), got ${describe(v)}`);
  const rows = v.length;
  const cols = rows > 0 ? (v[0] as ArrayLike<number>).length : 0;
  const flat = new Float32Array(rows * cols);
  v.forEach((row: unknown, i: number) => {
    const ok = row instanceof Float32Array || row instanceof Float64Array || Array.isArray(row);
    if (!ok) throw new TypeError(`${where}: ${label} must be a matrix; row ${i} is ${describe(row)}`);
    const r = row as ArrayLike<number>;
    if (r.length !== cols) throw new RangeError(`${where}: ${label} must be a rectangular matrix: row ${i} has ${r.length} numbers, row 0 has ${cols}`);
    flat.set(r, i * cols);
  });
  if (flat.length > MAX_ELEMENTS) throw new RangeError(`${where}: ${label} has ${flat.length} numbers; the GPU path takes at most 2^30`);
  return { flat, rows, cols };
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'object') return (v as object).constructor?.name ?? 'an object';
  return typeof v;
}

/** Per program, the heap its last call needed (plan.ts, `heap`): a loop's next call sizes it right the first time. */
const heapNeeds = new WeakMap<GpuProgram, number>();

/** A call whose sequential code needed more heap than it had: run again with `needed`. */
class HeapShort {
  constructor(readonly needed: number) {}
}

export async function runProgram(acquired: Acquired, prog: GpuProgram, args: readonly unknown[]): Promise<unknown> {
  // Each retry runs with at least what the last one counted; the count is exact once nothing was skipped.
  for (let attempt = 0; ; attempt++) {
    const heap = heapNeeds.get(prog) ?? 1024;
    const r = await runOnce(acquired, prog, args, heap);
    if (!(r instanceof HeapShort)) return r;
    if (!(r.needed <= MAX_HEAP) || attempt >= 8)
      throw new RangeError(`${prog.where}: the loops' stacks and local arrays need ${r.needed} numbers; the GPU path takes at most 2^24 (a loop on the device addresses them with f32 numbers)`);
    heapNeeds.set(prog, Math.max(r.needed, 2 * heap));
  }
}

async function runOnce(acquired: Acquired, prog: GpuProgram, given: readonly unknown[], heap: number): Promise<unknown> {
  const { device } = acquired;
  const where = prog.where;
  if (given.length < prog.params.length) throw new TypeError(`${where}: expected ${prog.params.length} arguments (${prog.params.map((p) => p.name).join(', ')}), got ${given.length}`);
  const { params, args } = flattenParams(prog, given);
  const results = leafResults(prog.results);
  const dims: [number, number][] = [];
  const data = params.map((p, k) => {
    const label = `argument ${k + 1} ('${p.name}')`;
    if (p.kind === 'matrix') {
      const { flat, rows, cols } = toMatrix(args[k], label, where);
      dims[k] = [rows, cols];
      return flat;
    }
    if (p.kind === 'number') {
      if (typeof args[k] !== 'number') throw new TypeError(`${where}: ${label} must be a number, got ${describe(args[k])}`);
      return args[k] as number;
    }
    const a = toF32(args[k], label, where);
    if (a.length > MAX_ELEMENTS) throw new RangeError(`${where}: ${label} has ${a.length} elements; the GPU path takes at most 2^30 (indices are 32-bit integers on the device)`);
    return a;
  });
  // The host program: lengths, before any kernel.
  const H = new Float64Array(prog.registers);
  for (const s of prog.host) {
    switch (s.op) {
      case 'lit':
        H[s.out] = Number(s.value);
        break;
      case 'arg':
        H[s.out] = data[s.param] as number;
        break;
      case 'dim':
        H[s.out] = dims[s.param][s.axis];
        break;
      case 'len':
        H[s.out] = (data[s.param] as Float32Array | GpuArray).length;
        break;
      case 'add':
        H[s.out] = s.args.reduce((a, r) => a + H[r], 0);
        break;
      case 'mul':
        H[s.out] = s.args.reduce((a, r) => a * H[r], 1);
        break;
      case 'sub':
        H[s.out] = H[s.args[0]] - H[s.args[1]];
        break;
      case 'max':
        H[s.out] = Math.max(...s.args.map((r) => H[r]));
        break;
      case 'min':
        H[s.out] = Math.min(...s.args.map((r) => H[r]));
        break;
      case 'eq':
        H[s.out] = H[s.args[0]] === H[s.args[1]] ? 1 : 0;
        break;
      case 'fn':
        H[s.out] = (HOST_FNS[s.fn] as (...a: number[]) => number)(...s.args.map((r) => H[r]));
        break;
      case 'heap':
        H[s.out] = heap;
        break;
      case 'atmost':
        if (!(H[s.a] <= H[s.b])) throw new RangeError(`${s.message} (${H[s.a]} > ${H[s.b]})`);
        H[s.out] = H[s.a];
        break;
    }
  }
  const S = new Float32Array(prog.slots);
  for (const [reg, slot] of prog.uploads) S[slot] = H[reg];
  // A count as two exact f32 halves (indices.ts countAt); lengths are whole and below 2^32.
  for (const [reg, slot] of prog.counts ?? []) {
    const c = Math.min(Math.max(Math.trunc(H[reg]) || 0, 0), 2 ** 32 - 1);
    S[slot] = Math.floor(c / 65536);
    S[slot + 1] = c % 65536;
  }
  const buffers = new Buffers(device, acquired.maxBufferSize);
  // Validation errors (a kernel the device rejects) come back as this call's rejection.
  device.pushErrorScope('validation');
  let scoped = true;
  try {
    const storage = STORAGE | COPY_SRC | COPY_DST;
    const lengths = prog.arrays.map((a) => Math.max(0, H[a.length]));
    for (const n of lengths) if (n * 4 > acquired.maxBufferSize) throw new RangeError(`${where}: an array of ${n} elements exceeds the device's buffer size (${acquired.maxBufferSize} bytes)`);
    const sBuf = buffers.take(S.byteLength, storage);
    device.queue.writeBuffer(sBuf, 0, S);
    const enc = device.createCommandEncoder();
    const bound = new Set<GpuArray>();
    const arr = prog.arrays.map((a, k) => {
      const d = a.param !== undefined ? data[a.param] : undefined;
      // An uploaded array's own buffer (kernels only read parameters); a second binding of the
      // same handle in one call gets a copy (two writable bindings of one buffer are invalid).
      if (d instanceof GpuArray) {
        const own = d.bufferFor(acquired, `argument ${a.param! + 1} ('${params[a.param!].name}')`, where);
        if (!bound.has(d)) {
          bound.add(d);
          return own;
        }
        const b = buffers.take(lengths[k] * 4, storage);
        if (d.length > 0) enc.copyBufferToBuffer(own, 0, b, 0, d.length * 4);
        return b;
      }
      const b = buffers.take(lengths[k] * 4, storage);
      if (d instanceof Float32Array && d.length > 0) device.queue.writeBuffer(b, 0, d.buffer, d.byteOffset, d.byteLength);
      return b;
    });
    const entries = (bufs: readonly any[]) => bufs.map((buffer, binding) => ({ binding, resource: { buffer } }));
    const dispatch = (code: string, kinds: string, bufs: readonly any[], groups: number) => {
      if (bufs.filter((_, k) => kinds[k] === 's').length > acquired.maxStorageBuffers) {
        throw new RangeError(`${where}: a kernel needs ${bufs.length} storage buffers; the device allows ${acquired.maxStorageBuffers}`);
      }
      const pipeline = pipelineOf(device, code, kinds);
      dispatched++;
      const pass = enc.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: entries(bufs) }));
      const [x, y] = grid(groups, acquired);
      pass.dispatchWorkgroups(x, y);
      pass.end();
    };
    const BLOCK = REDUCE_WORKGROUP * REDUCE_CHUNK;
    const uniform2 = (n: number, flag: number) => {
      const u = buffers.take(16, UNIFORM | COPY_DST);
      device.queue.writeBuffer(u, 0, new Uint32Array([n, flag, 0, 0]));
      return u;
    };
    const blocks = (count: number, k: number) => Array.from({ length: k }, () => buffers.take(count * 4, storage));
    /**
     * The inclusive scan of the block totals of `ins` (len elements; with their validity flag
     * when they are partials), or undefined when one block covers them.
     */
    const totalsScan = (step: Extract<(typeof prog.steps)[number], { op: 'scan' }>, ins: readonly any[], partial: boolean, len: number): any[] | undefined => {
      const { k } = step;
      const groups = Math.ceil(len / BLOCK);
      if (groups <= 1) return undefined;
      const totals = blocks(groups, k + 1);
      dispatch(prog.kernels[partial ? step.next : step.first], `su${'s'.repeat(ins.length + k + 1)}`, [sBuf, uniform2(len, 0), ...ins, ...totals], groups);
      const inner = totalsScan(step, totals, true, groups);
      const prefix = blocks(groups, k);
      dispatch(prog.kernels[step.level], `su${'s'.repeat(3 * k)}`, [sBuf, uniform2(groups, inner ? 1 : 0), ...totals.slice(0, k), ...(inner ?? blocks(1, k)), ...prefix], Math.ceil(groups / BLOCK));
      return prefix;
    };
    const runScan = (step: Extract<(typeof prog.steps)[number], { op: 'scan' }>) => {
      const n = H[step.n];
      if (!(n > 0)) return;
      const ins = step.inputs.map((a) => arr[a]);
      const offsets = totalsScan(step, ins, false, n);
      const outs = step.outputs.map((a) => arr[a]);
      dispatch(prog.kernels[step.final], `su${'s'.repeat(2 * step.k + outs.length)}`, [sBuf, uniform2(n, offsets ? 1 : 0), ...ins, ...(offsets ?? blocks(1, step.k)), ...outs], Math.ceil(n / BLOCK));
    };
    for (const step of prog.steps) {
      if (step.op === 'map') {
        const threads = finite(H[step.threads], where);
        if (threads > 0) dispatch(prog.kernels[step.kernel], 's'.repeat(step.arrays.length + 1), [sBuf, ...step.arrays.map((a) => arr[a])], Math.ceil(threads / MAP_WORKGROUP));
      } else if (step.op === 'tiles') {
        const groups = finite(Math.ceil(H[step.rows] / TILE) * Math.ceil(H[step.cols] / TILE), where);
        if (groups > 0) dispatch(prog.kernels[step.kernel], 's'.repeat(step.arrays.length + 1), [sBuf, ...step.arrays.map((a) => arr[a])], groups);
      } else if (step.op === 'scalar') {
        const times = step.sweep ? Math.ceil(finite(H[step.sweep.count], where) / step.sweep.per) : 1;
        for (let t = 0; t < times; t++) dispatch(prog.kernels[step.kernel], 's'.repeat(step.arrays.length + 1), [sBuf, ...step.arrays.map((a) => arr[a])], 1);
      } else if (step.op === 'scan') {
        runScan(step);
      } else {
        const { k } = step;
        let len = H[step.n];
        let groups = Math.max(1, Math.ceil(len / (REDUCE_WORKGROUP * REDUCE_CHUNK)));
        const partials = (count: number) => Array.from({ length: k + 1 }, () => buffers.take(count * 4, storage));
        const uniform = (n: number) => {
          const u = buffers.take(16, UNIFORM | COPY_DST);
          device.queue.writeBuffer(u, 0, new Uint32Array([n, 0, 0, 0]));
          return u;
        };
        const ins = step.inputs.map((a) => arr[a]);
        const post = step.post.map((a) => arr[a]);
        // The pass that leaves one partial finishes the reduction itself (plan.ts).
        if (groups === 1) dispatch(prog.kernels[step.firstLast], `su${'s'.repeat(ins.length + post.length)}`, [sBuf, uniform(len), ...ins, ...post], 1);
        else {
          let out = partials(groups);
          dispatch(prog.kernels[step.first], `su${'s'.repeat(ins.length + k + 1)}`, [sBuf, uniform(len), ...ins, ...out], groups);
          for (;;) {
            len = groups;
            groups = Math.ceil(len / (REDUCE_WORKGROUP * REDUCE_CHUNK));
            if (groups === 1) {
              dispatch(prog.kernels[step.nextLast], `su${'s'.repeat(k + 1 + post.length)}`, [sBuf, uniform(len), ...out, ...post], 1);
              break;
            }
            const next = partials(groups);
            dispatch(prog.kernels[step.next], `su${'s'.repeat(2 * k + 2)}`, [sBuf, uniform(len), ...out, ...next], groups);
            out = next;
          }
        }
      }
    }
    // One readback: the scalar slots, then each array result.
    const resultArrays = results.map((r) => (r.kind === 'scalar' ? 0 : lengths[r.array]));
    const total = S.byteLength + resultArrays.reduce((a, n) => a + n * 4, 0);
    const staging = buffers.take(total, MAP_READ | COPY_DST);
    enc.copyBufferToBuffer(sBuf, 0, staging, 0, S.byteLength);
    let offset = S.byteLength;
    const offsets = results.map((r, j) => {
      const at = offset;
      const bytes = resultArrays[j] * 4;
      if (r.kind !== 'scalar' && bytes > 0) enc.copyBufferToBuffer(arr[r.array], 0, staging, at, bytes);
      offset += bytes;
      return at;
    });
    device.queue.submit([enc.finish()]);
    scoped = false;
    const error = await device.popErrorScope();
    if (error) throw new Error(`${where}: the device rejected a kernel (a bug in tsad): ${error.message}`);
    const size = staging.size;
    await staging.mapAsync(MAP_READ, 0, size);
    const bytes = new Float32Array(staging.getMappedRange(0, size).slice(0));
    staging.unmap();
    if (prog.heap && bytes[prog.heap.slot] > heap) return new HeapShort(bytes[prog.heap.slot]);
    const failed = prog.checks ? bytes[prog.checks.slot] : 0;
    const check = failed ? prog.checks!.messages[failed - 1] : undefined;
    if (failed) throw new RangeError(`${where}: ${check ? `${check.text}${check.length >= 0 ? ` (length ${H[check.length]})` : ''}` : 'a check of the kernels failed'}`);
    const leaves = results.map((r, j) => {
      if (r.kind === 'scalar') return bytes[r.slot];
      const n = resultArrays[j];
      if (r.kind === 'matrix') {
        // Row-major data, zeros past a shorter (sparse) gradient.
        const flat = bytes.subarray(offsets[j] / 4, offsets[j] / 4 + n);
        const cols = H[r.cols];
        return Array.from({ length: H[r.rows] }, (_, i) => {
          const row = new Float32Array(cols);
          row.set(flat.subarray(Math.min(n, i * cols), Math.min(n, (i + 1) * cols)));
          return row;
        });
      }
      const out = new Float32Array(r.like !== undefined ? (data[r.like] as Float32Array | GpuArray).length : n);
      out.set(bytes.subarray(offsets[j] / 4, offsets[j] / 4 + Math.min(n, out.length)));
      return out;
    });
    const values = rebuildResults(prog.results, leaves);
    return prog.tuple ? values : values[0];
  } finally {
    if (scoped) await device.popErrorScope().catch(() => undefined);
    buffers.giveBack();
  }
}
