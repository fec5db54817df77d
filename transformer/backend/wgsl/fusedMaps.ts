// Consecutive elementwise kernels as one (docs/backends.md, "The WGSL backend"). Over the same count and
// guards, the bodies simply follow each other (fuseBodies). Over different counts or guards (a
// cond's branches, a result copied over a length the host computes otherwise), the kernel runs
// over the longest count and each body under its own count and guards (joinMaps): invocation i
// runs the bodies in order, as the separate kernels did.
import type { DeviceStep } from '../../../runtime/webgpu/plan';
import type { Guard } from './kernels';
import { countAt } from './indices';

type MapStep = { op: 'map'; kernel: number; threads: number; arrays: number[] };

export interface OpenMap {
  readonly step: MapStep;
  /** The count's slot, when every body runs over it (else undefined: a joined kernel). */
  readonly countSlot: number | undefined;
  readonly guards: readonly Guard[];
  readonly arrays: number[];
  lines: string[];
}

/** Storage bindings a fused kernel may take: the scalar slots and 7 arrays (WebGPU's default limit is 8). */
export const MAX_FUSED_ARRAYS = 7;

/**
 * Consecutive elementwise kernels over the same count and guards as one kernel: the second's
 * lines after the first's, its bindings renamed into the first's list. Sound when the second
 * reads what the first wrote only at its own index `i` (each invocation then reads its own
 * write); any other read of such an array (a gather) keeps two kernels, as does a binding count
 * past the limit.
 */
export function fuseBodies(open: OpenMap, arrays: readonly number[], lines: readonly string[]): { arrays: number[]; lines: string[] } | undefined {
  const written = new Set<number>();
  for (const l of open.lines) for (const m of l.matchAll(/^A(\d+)\[i\] = /g)) written.add(open.arrays[Number(m[1])]);
  const merged = [...open.arrays];
  const rename = arrays.map((id) => {
    let k = merged.indexOf(id);
    if (k < 0) {
      merged.push(id);
      k = merged.length - 1;
    }
    return k;
  });
  if (merged.length > MAX_FUSED_ARRAYS) return undefined;
  for (const l of lines) {
    for (const m of l.matchAll(/\bA(\d+)(\[i\])?/g)) {
      if (written.has(arrays[Number(m[1])]) && m[2] === undefined) return undefined;
    }
  }
  const renamed = lines.map((l) => l.replace(/\bA(\d+)\b/g, (_, k) => `A${rename[Number(k)]}`));
  return { arrays: merged, lines: [...open.lines, ...renamed] };
}

/** The thread-count holders of each joined kernel's bodies (their callers set them, maybe later). */
const joinedParts = new WeakMap<MapStep, { threads: number }[]>();

/** A body's lines under its count and guards (one entry a line, so fuseBodies still sees its writes). */
function under(countSlot: number, guards: readonly Guard[], lines: readonly string[]): string[] {
  const tests = [`i < ${countAt(countSlot)}`, ...guards.map((g) => `(S[${g.slot}] != 0.0) == ${g.when}`)];
  return [`if (${tests.join(' && ')}) {`, ...lines, '}'];
}

/**
 * The open kernel and a next body over another count or guards as one kernel (a new step object
 * in place of the open one: a caller may still set the old one's threads, which is then a body's
 * count), and the holder of the new body's thread count; undefined where fuseBodies refuses.
 */
export function joinMaps(open: OpenMap, countSlot: number, guards: readonly Guard[], arrays: readonly number[], lines: readonly string[]): { open: OpenMap; part: { threads: number } } | undefined {
  const prior = joinedParts.get(open.step);
  const first = prior ? open : { ...open, lines: under(open.countSlot!, open.guards, open.lines) };
  const merged = fuseBodies(first, arrays, under(countSlot, guards, lines));
  if (!merged) return undefined;
  const part = { threads: -1 };
  const step: MapStep = { op: 'map', kernel: open.step.kernel, threads: -1, arrays: merged.arrays };
  joinedParts.set(step, [...(prior ?? [open.step]), part]);
  return { open: { step, countSlot: undefined, guards: [], arrays: merged.arrays, lines: merged.lines }, part };
}

/** Each joined kernel's thread count: the largest of its bodies' (a host register `max` makes). */
export function resolveJoined(steps: readonly DeviceStep[], max: (args: number[]) => number): void {
  for (const s of steps) {
    const parts = s.op === 'map' ? joinedParts.get(s as MapStep) : undefined;
    if (parts) (s as MapStep).threads = max(parts.map((p) => p.threads));
  }
}
