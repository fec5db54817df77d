// What the WGSL backend's construct lowerings (constructs/) see of the lowering (lower.ts): the
// values a def's variables hold while it is lowered and the operations that add host steps,
// slots, arrays and kernels, as an interface, so the lowerings import no part of lower.ts and
// lower.ts imports their table (no circle).
import type { Block, Expr, Lambda, Type } from '../../ir/syntax';
import type { DeviceStep, HostStep } from '../../../runtime/webgpu/plan';
import type { Combine, Guard } from './kernels';
import type { ConstructName } from '../../constructs/registry';
import type { Typed, WgslType } from './prims';
import type { IntForm } from './indices';

/** What keeps a program off the GPU; the message names it ("the construct 'scan'"). */
export class NotOnGpu extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotOnGpu';
  }
}

/** Host registers whose largest value bounds a number from above (an index, for a one-hot's length); undefined: unknown. */
export type Bound = ReadonlySet<number> | undefined;

export type Val =
  /** A number (a boolean as 0 or 1): known on the host (`reg`) or only on the device (`slot`). */
  | { readonly kind: 'num'; readonly reg?: number; readonly slot?: number; readonly bool: boolean; readonly bound: Bound }
  /**
   * `taint`: a slot a map sets where an element it wrote is, or was computed from, an integer
   * rounded to f32 (past 2^24: indices.ts); an index read from such an array is refused then.
   */
  | { readonly kind: 'arr'; readonly id: number; readonly len: number; readonly elemBound: Bound; readonly taint?: number }
  | { readonly kind: 'str'; readonly text: string }
  /** A tuple of values (a matrix is (data, rows, cols)). */
  | { readonly kind: 'tup'; readonly elems: readonly Val[] };
export type Num = Extract<Val, { kind: 'num' }>;
export type Arr = Extract<Val, { kind: 'arr' }>;
export type Env = Map<string, Val>;

export const union = (...bs: Bound[]): Bound => (bs.every((b) => b !== undefined) ? new Set(bs.flatMap((b) => [...b!])) : undefined);
export const within = (b: Bound, of: Bound): boolean => b !== undefined && of !== undefined && [...b].every((r) => of.has(r));

/**
 * A value inside a kernel body: WGSL text (with its exact integer form where it is an index:
 * indices.ts), or an invariant array bound to the kernel and its length (u32 WGSL).
 */
export type Local =
  /** `rounds`: the conditions (WGSL) under which this f32 value went through an integer rounded past 2^24 (indices.ts roundsOf). */
  | (Typed & { readonly bound: Bound; readonly array?: undefined; readonly int?: IntForm; readonly rounds?: readonly string[] })
  | { readonly array: string; readonly len: string; readonly bound: Bound; readonly taint?: number };

export interface KernelArrays {
  /** The kernel's binding name of an array of the program. */
  bind(id: number): string;
}

/** The lowering's operations (the class Lowering in lower.ts implements them). */
export interface LoweringOps {
  /** The arrays of the program (a cond patches its outputs' lengths once both branches are lowered). */
  readonly arrays: { length: number; param?: number }[];
  /** Host registers copied into slots before the kernels run: [register, slot]. */
  readonly uploads: [number, number][];
  /** Host registers copied exactly into slot pairs (indices.ts countAt) before the kernels run: [register, slot]. */
  readonly counts: [number, number][];
  /** The guards the kernels recorded now run under (the enclosing conds' tests). */
  readonly guarded: readonly Guard[];
  /** A host step computing a register (a length), its register. */
  reg(step: HostStep extends infer S ? (S extends HostStep ? Omit<S, 'out'> : never) : never): number;
  /** The register of a host constant. */
  lit(value: number): number;
  newSlot(): number;
  /** The slot of a number (a host one is uploaded). */
  slotOf(v: Num): number;
  slotOfReg(reg: number): number;
  /** The slot pair of a count (a length): read it with indices.ts countAt. */
  countSlot(reg: number): number;
  /** A slot pair for a count the caller uploads (`counts`). */
  newCountSlot(): number;
  /** A new array of `length` (a register) elements, its id. */
  newArray(length: number, param?: number): number;
  /** A number as a kernel reads it. */
  load(v: Num): Typed;
  /** A fresh WGSL name. */
  name(prefix: string): string;
  /** The heap of sequential code (its array, and the slot of its bump pointer), made on first use. */
  heap(): { readonly array: number; readonly top: number };
  /** A line of the single-invocation kernel that runs the scalar code between kernels. */
  scalarLine(line: (arrays: KernelArrays) => string): void;
  /** A kernel (or several: a hierarchical reduce) and its device step. */
  device(step: (kernel: number) => DeviceStep, ...wgsl: string[]): void;
  /**
   * A hierarchical reduction of `inputs` (`n` elements) with `c` from the neutral elements
   * `inits` (WGSL) into the slots `outs`, fused with the elementwise kernel before it and the
   * scalar code after it where it can be (fusedReduce.ts).
   */
  reduce(c: Combine, inits: readonly string[], outs: readonly number[], inputs: readonly Arr[], n: number): void;
  /** An elementwise kernel over `count` (a register) elements, fused with the last where it can be. */
  elementwise(count: number, body: (arrays: KernelArrays) => string[]): void;
  /** An elementwise kernel over the number in a slot; its thread count is set by the caller. */
  elementwiseOver(countSlot: number, body: (arrays: KernelArrays) => string[]): { threads: number };
  /** An elementwise kernel updating array `target` with atomics. */
  atomicElementwise(count: number, target: number, body: (arrays: KernelArrays, atomic: string) => string[]): void;
  /** The WGSL that flags a failed run-time check (the call rejects after the readback); `length`: the host register of the length its message names, or −1. */
  failCheck(text: string, length: number): string;
  block(b: Block, env: Env): Val[];
  expr(e: Expr, env: Env): Val[];
  hostNum(reg: number): Num;
  /** Runs `run` with its kernels under the guard. */
  withGuard<T>(g: Guard, run: () => T): T;
  /** A body inlined into a kernel: its lines and results, given its parameters' values. */
  body(l: Lambda, params: readonly Local[]): { lines: string[]; results: Local[] };
}

export const wgslType = (t: Type | undefined): WgslType => (t?.tag === 'bool' ? 'bool' : 'f32');

export type ConstructLowering = (L: LoweringOps, e: Extract<Expr, { tag: 'construct' }>, nl: readonly Val[], lin: readonly Val[], env: Env) => Val[];

export const asNum = (v: Val | undefined, what: string): Num => {
  if (v?.kind !== 'num') throw new NotOnGpu(`${what} that is not a number`);
  return v;
};

export const asArr = (v: Val | undefined, what: string): Arr => {
  if (v?.kind !== 'arr') throw new NotOnGpu(`${what} that is not an array of numbers`);
  return v;
};

export const hostLength = (v: Val | undefined, what: string): number => {
  const n = asNum(v, what);
  if (n.reg === undefined) throw new NotOnGpu(`${what} computed from array data (its length must be known before the kernels run)`);
  return n.reg;
};

/** A table of lowerings by construct name (constructs/index.ts): partial, a construct without one is not on the GPU yet. */
export type ConstructLowerings = { readonly [K in ConstructName]?: ConstructLowering };
