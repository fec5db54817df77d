// A reduction's kernels fused with the work around it, so that a gradient runs in fewer
// dispatches (docs/backends.md, "The WGSL backend"): an elementwise kernel whose count is the reduction's
// length runs inside the reduction's first pass (each element's body just before the element is
// folded), and the pass that leaves one partial folds the neutral elements itself and runs the
// scalar code after the reduction, on its invocation 0. With lengths known on the host, a
// reduction of up to one workgroup's reach (REDUCE_WORKGROUP · REDUCE_CHUNK) is one dispatch.
import type { DeviceStep } from '../../../runtime/webgpu/plan';
import { type Combine, type Guard, type PassFusion, reducePass } from './kernels';

/** Storage buffers one kernel may bind: WebGPU's default limit per stage (the scalar slots included). */
const MAX_STORAGE = 8;

type ReduceStep = Extract<DeviceStep, { op: 'reduce' }>;

/** A reduction lowered last: the scalar code after it may still join its final pass. */
export interface OpenReduction {
  readonly step: { -readonly [K in keyof ReduceStep]: ReduceStep[K] } & { inputs: number[]; post: number[] };
  readonly c: Combine;
  readonly lengthSlots: readonly number[];
  readonly pre: PassFusion['pre'];
  readonly inits: readonly string[];
  readonly outs: readonly number[];
  readonly guards: readonly Guard[];
  readonly lines: string[];
}

/** An elementwise kernel that a reduction over `inputs` (array ids) may run in its first pass. */
export interface MapKernel {
  readonly arrays: readonly number[];
  readonly lines: readonly string[];
  readonly guards: readonly Guard[];
}

/**
 * `map`'s body as the first pass's `pre`, reading the inputs from its arrays (an input it does
 * not bind is added), or undefined when the bindings would pass the limit or the map runs under
 * a guard (passes run unguarded). The caller checks that the map's count is the reduction's.
 */
export function absorb(map: MapKernel, inputs: readonly number[], k: number): { pre: NonNullable<PassFusion['pre']>; arrays: number[] } | undefined {
  if (map.guards.length > 0) return undefined;
  const arrays = [...map.arrays];
  const at = inputs.map((id) => {
    const k0 = arrays.indexOf(id);
    return k0 >= 0 ? k0 : arrays.push(id) - 1;
  });
  // S, the pass's arrays, k partials and their flags.
  if (1 + arrays.length + k + 1 > MAX_STORAGE) return undefined;
  return { pre: { arrays: arrays.length, lines: map.lines, inputs: at }, arrays };
}

/** The reduction's four kernels: first, next, first-and-last, next-and-last (plan.ts). */
export function reductionKernels(r: OpenReduction): string[] {
  const last = { inits: r.inits, outs: r.outs, guards: r.guards, arrays: r.step.post.length, lines: r.lines };
  return [reducePass(r.c, true, r.lengthSlots, { pre: r.pre }), reducePass(r.c, false, []), reducePass(r.c, true, r.lengthSlots, { pre: r.pre, last }), reducePass(r.c, false, [], { last })];
}

/**
 * Whether the final passes may bind `post` besides what they read: within the limit, and none
 * of it bound by the first pass already (two writable bindings of one buffer are invalid).
 */
export function postFits(r: OpenReduction, post: readonly number[]): boolean {
  if (post.some((id) => r.step.inputs.includes(id))) return false;
  return 1 + Math.max(r.step.inputs.length, r.c.k + 1) + post.length <= MAX_STORAGE;
}
