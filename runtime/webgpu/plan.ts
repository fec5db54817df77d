// What the plugin emits for a `gpu(...)` call site and the runtime runs: a host program over
// lengths (registers of plain numbers, known before any kernel runs) and a device program of
// kernels over buffers. Every scalar of the device program lives in one f32 buffer of slots
// (lengths and host scalars are uploaded into it once per call), every array in a buffer of its
// own; kernels are WGSL text generated at build time (transformer/backend/wgsl/).

/** One host step; `out` is the register it writes. Run in order, before the device program. */
export type HostStep =
  /** A non-finite value is its String (the program travels as JSON, which has no Infinity). */
  | { readonly op: 'lit'; readonly out: number; readonly value: number | string }
  /** A number argument (`param` counts an object parameter's fields as parameters: objects.ts). */
  | { readonly op: 'arg'; readonly out: number; readonly param: number }
  /** The length of an array argument (of a matrix: its number count). */
  | { readonly op: 'len'; readonly out: number; readonly param: number }
  /** A matrix argument's rows (axis 0) or columns (axis 1). */
  | { readonly op: 'dim'; readonly out: number; readonly param: number; readonly axis: 0 | 1 }
  | { readonly op: 'add' | 'sub' | 'mul' | 'max' | 'min'; readonly out: number; readonly args: readonly number[] }
  /** 1 where two registers are equal, else 0 (a test of lengths). */
  | { readonly op: 'eq'; readonly out: number; readonly args: readonly number[] }
  /** A scalar primitive on host numbers (HOST_FNS: a length's arithmetic, `new Float64Array(n)`'s check of n). */
  | { readonly op: 'fn'; readonly out: number; readonly fn: HostFn; readonly args: readonly number[] }
  /** The heap's capacity in numbers for this call (GpuProgram.heap: the runtime's guess, grown and retried when short). */
  | { readonly op: 'heap'; readonly out: number }
  /** `out = a`, and a RangeError naming `message` when a > b (a length check of the program). */
  | { readonly op: 'atmost'; readonly out: number; readonly a: number; readonly b: number; readonly message: string };

/**
 * One device step. A kernel's bindings are, in order: the scalar slots (binding 0), then the
 * arrays listed (bindings 1…). Threads are spread over a 2-D grid when one dimension is not
 * enough; a kernel reads its flat index from its workgroup id and the grid's width.
 */
export type DeviceStep =
  /** `threads` (a host register) invocations of `kernel`, in workgroups of `MAP_WORKGROUP`. */
  | { readonly op: 'map'; readonly kernel: number; readonly threads: number; readonly arrays: readonly number[] }
  /** Workgroups of `TILE`×`TILE` invocations over a `rows`×`cols` result (host registers): a tiled matrix product. */
  | { readonly op: 'tiles'; readonly kernel: number; readonly rows: number; readonly cols: number; readonly arrays: readonly number[] }
  /**
   * One invocation: scalar code. With `sweep`, dispatched ceil(count / per) times one after
   * another (count a host register): a walk through count elements, per of them a dispatch
   * (the kernel keeps its place in a slot), since the software adapter (llvmpipe) stops an
   * invocation after 65535 loop trips in all.
   */
  | { readonly op: 'scalar'; readonly kernel: number; readonly arrays: readonly number[]; readonly sweep?: { readonly count: number; readonly per: number } }
  /**
   * A hierarchical reduction of k arrays (`n` elements each; a host register) to `k` partial
   * values per workgroup of `REDUCE_WORKGROUP` invocations folding `REDUCE_CHUNK` elements each:
   * `first` binds the arrays `inputs` (the reduced ones, or those of an elementwise body it runs
   * first), `next` reads partials, until one workgroup is left. The pass that leaves one
   * (`firstLast` when the first does, else `nextLast`) folds the neutral elements with it into
   * the result slots and runs the scalar code after it, binding `post`. Partials carry a validity
   * flag, so no operator needs an identity, and n = 0 gives the neutral elements.
   */
  | {
      readonly op: 'reduce';
      readonly first: number;
      readonly next: number;
      readonly firstLast: number;
      readonly nextLast: number;
      readonly k: number;
      readonly n: number;
      readonly inputs: readonly number[];
      readonly post: readonly number[];
    }
  /**
   * A hierarchical inclusive scan of `inputs` (k arrays, `n` elements): when they span more than
   * one block of `REDUCE_WORKGROUP · REDUCE_CHUNK`, the blocks' totals (`first`, then `next` on
   * partials, as in a reduce) are scanned by `level` recursively; then `final` scans each block
   * from the inclusive prefix of the blocks before it, writing `outputs` (k scanned arrays, then
   * the body's per-element outputs).
   */
  | {
      readonly op: 'scan';
      readonly first: number;
      readonly next: number;
      readonly level: number;
      readonly final: number;
      readonly k: number;
      readonly n: number;
      readonly inputs: readonly number[];
      readonly outputs: readonly number[];
    };

/**
 * The primitives the host program evaluates (booleans as 0 and 1), with the IR primitives'
 * meaning (test/webgpu/loops.test.ts checks them against the primitives' impl): what a length
 * goes through before an array of it is made.
 */
export const HOST_FNS = {
  trunc: Math.trunc,
  floor: Math.floor,
  ceil: Math.ceil,
  abs: Math.abs,
  neg: (a: number) => -a,
  div: (a: number, b: number) => a / b,
  lt: (a: number, b: number) => Number(a < b),
  le: (a: number, b: number) => Number(a <= b),
  gt: (a: number, b: number) => Number(a > b),
  ge: (a: number, b: number) => Number(a >= b),
  ne: (a: number, b: number) => Number(a !== b),
  not: (a: number) => Number(!a),
  and: (a: number, b: number) => Number(Boolean(a) && Boolean(b)),
  or: (a: number, b: number) => Number(Boolean(a) || Boolean(b)),
  select: (c: number, a: number, b: number) => (c ? a : b),
} satisfies Record<string, (...args: number[]) => number>;
export type HostFn = keyof typeof HOST_FNS;
/** Those whose result is a boolean. */
export const HOST_PREDICATES: ReadonlySet<string> = new Set(['lt', 'le', 'gt', 'ge', 'ne', 'not', 'and', 'or']);

/** An array of the device program: its length is a host register; `param`: an argument's data. */
export interface ArraySpec {
  readonly length: number;
  readonly param?: number;
}

/** `like`: the parameter whose length an array result takes (a gradient is as long as its parameter; zeros past the IR's shorter, sparse result). */
export type ResultSpec =
  | { readonly kind: 'scalar'; readonly slot: number }
  | { readonly kind: 'array'; readonly array: number; readonly like?: number }
  /** A matrix: its row-major data and its dimensions (host registers); comes back as Float32Array rows. */
  | { readonly kind: 'matrix'; readonly array: number; readonly rows: number; readonly cols: number }
  /** An object of these fields (a gradient with respect to an object parameter). */
  | { readonly kind: 'object'; readonly fields: readonly (readonly [string, ResultSpec])[] };

/** A parameter the kernels see: an object parameter's fields are such parameters, in order (objects.ts). */
export interface LeafParam {
  readonly name: string;
  readonly kind: 'number' | 'array' | 'matrix';
}

export interface GpuProgram {
  /** `gpu(grad(loss))`: what error messages name. */
  readonly where: string;
  /** A matrix (number[][], Float32Array[], Float64Array[]) goes to the device as its row-major data. */
  readonly params: readonly (LeafParam | { readonly name: string; readonly kind: 'object'; readonly fields: readonly { readonly name: string; readonly kind: 'number' | 'array' }[] })[];
  readonly registers: number;
  readonly host: readonly HostStep[];
  readonly slots: number;
  /** [register, slot]: host values the kernels read, uploaded before the first kernel. */
  readonly uploads: readonly (readonly [number, number])[];
  /**
   * [register, slot]: counts (lengths) the kernels read exactly, as two f32 slots, the high and
   * low 16 bits (an f32 holds every integer only up to 2^24).
   */
  readonly counts?: readonly (readonly [number, number])[];
  readonly arrays: readonly ArraySpec[];
  readonly kernels: readonly string[];
  readonly steps: readonly DeviceStep[];
  readonly results: readonly ResultSpec[];
  /**
   * Checks the kernels make (an index outside its array): a kernel writes k + 1 into `slot`
   * where check k fails, and the call rejects with `messages[k]` after the readback (and the
   * value of its host register `length`, the array's).
   */
  /** A message's `length` is the host register of the length it names, or −1 when it names none. */
  readonly checks?: { readonly slot: number; readonly messages: readonly { readonly text: string; readonly length: number }[] };
  /**
   * Sequential code (a loop inside one invocation, backend/wgsl/sequential.ts) allocates its
   * stacks and local arrays from one heap array by bumping the pointer in `slot`; the heap's
   * length is the host step 'heap'. The pointer's final value is what the call needed: past the
   * capacity, writes were skipped, and the runtime runs the call again with that capacity.
   */
  readonly heap?: { readonly slot: number };
  /** Several results come back as an array `[value, gradient]`; one as itself. */
  readonly tuple: boolean;
}

/**
 * The most elements an array of the GPU path has: kernels index in u32 and bodies in i32 (the sum
 * of two indices stays below 2^31); no device's buffers reach further (4 bytes an element).
 */
export const MAX_ELEMENTS = 2 ** 30;

export const MAP_WORKGROUP = 64;
/** A matrix product's tile: TILE × TILE invocations per workgroup, each one result element. */
export const TILE = 16;
export const REDUCE_WORKGROUP = 256;
/** Elements each invocation of a reduction pass folds in order before the workgroup's tree: a pass covers REDUCE_WORKGROUP · REDUCE_CHUNK. */
export const REDUCE_CHUNK = 16;
