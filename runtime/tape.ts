// The tape of taped reverse mode (docs/frontend.md, "Taped mode"): what the code the plugin
// generates for a function it cannot unroll (recursion) records while it runs, and the backward
// pass over it. It follows §9–10 of Smeding & Vákár, "Parallel Dual-Numbers Reverse AD": every
// active number is a node with an ID given in evaluation order, a node's partials are written
// when it is created (the generated code computes them from the primitive registry's rules), and
// the backward pass resolves each node once, from the highest ID down, in one loop: no recursion,
// so the depth of the user's recursion is not the backward pass's. Nodes live in flat typed
// arrays (CSR: a node's parents and partials are a slice), never as per-node objects. Forward
// mode (jvp) needs no tape: a `Forward` number carries its tangent.

/** An active number: its value and its node on the tape that made it. */
export class Dual {
  constructor(
    readonly v: number,
    readonly i: number,
    readonly tape: Tape,
  ) {}
}

/**
 * An active number of second-order taped mode (hvp, hessian: forward over reverse): a node that
 * also carries its tangent along the direction the caller gave.
 */
export class TangentDual extends Dual {
  constructor(
    v: number,
    i: number,
    tape: Tape,
    readonly d: number,
  ) {
    super(v, i, tape);
  }
}

/** A number of forward mode (jvp of taped code): its value and its tangent. */
export class Forward {
  constructor(
    readonly v: number,
    readonly d: number,
  ) {}
}

/** What one backward pass cost: the operation counter the complexity tests read. */
export interface TapeStats {
  /** Nodes on the tape (inputs and recorded operations). */
  readonly nodes: number;
  /** Partials the backward pass applied (one multiply-add each). */
  readonly edges: number;
}

/** Tapes in the order they were made: of two tapes, the newer one is the gradient running now. */
let tapesMade = 0;

/**
 * The tape an operation on ARGS records on: the newest unreleased tape among theirs. A node of an
 * older tape (a number a module-level memo kept from an earlier gradient) is a constant to the
 * gradient running now, as its plain number would be to the function; a node of a released tape
 * (its arrays serve another tape now) never records again. Undefined: every argument is such a
 * constant.
 */
export function liveTape(args: ArrayLike<unknown>): Tape | undefined {
  let newest: Tape | undefined;
  for (let j = 0; j < args.length; j++) {
    const a = args[j];
    if (a instanceof Dual && !a.tape.released && (newest === undefined || a.tape.serial > newest.serial)) newest = a.tape;
  }
  return newest;
}

export class Tape {
  readonly serial = ++tapesMade;
  /** Set by release(): the tape's arrays belong to the next tape, and its nodes are constants. */
  released = false;
  /** Node k's parents and partials are parents[start[k] .. start[k + 1]). */
  private start: Int32Array;
  private parents: Int32Array;
  private partials: Float64Array;
  /** Second order only: each partial's tangent (its derivative along the caller's direction). */
  private partialTangents: Float64Array | undefined;
  private nodes = 0;
  private edges = 0;
  /** The array operations, in ID order: each a range of nodes whose partials are typed arrays of their own. */
  private vectors: VectorEntry[] = [];
  /** The adjoints' array, reused by each backward pass (and by the next tape). */
  private adjoints: Float64Array | undefined;

  /** `tangents`: a tape of second-order mode, whose nodes carry tangents and partials theirs. */
  constructor(tangents = false) {
    // The arrays a released tape left (a gradient's, once read) serve the next one: no
    // allocation and no growth per gradient of the same size.
    const reused = spare;
    spare = undefined;
    this.start = reused?.start ?? new Int32Array(64);
    this.parents = reused?.parents ?? new Int32Array(128);
    this.partials = reused?.partials ?? new Float64Array(128);
    this.adjoints = reused?.adjoints;
    if (tangents) this.partialTangents = new Float64Array(this.partials.length);
  }

  /** Gives the tape's arrays to the next tape; this one must not be used again (grad and valueAndGrad call it once their result is read). */
  release(): void {
    this.released = true;
    spare = { start: this.start, parents: this.parents, partials: this.partials, adjoints: this.adjoints };
  }

  get size(): number {
    return this.nodes;
  }

  private node(arity: number): number {
    if (this.nodes + 2 > this.start.length) this.start = grow(this.start, this.nodes + 2);
    if (this.edges + arity > this.parents.length) {
      this.parents = grow(this.parents, this.edges + arity);
      this.partials = grow(this.partials, this.edges + arity);
      if (this.partialTangents) this.partialTangents = grow(this.partialTangents, this.edges + arity);
    }
    const k = this.nodes++;
    this.start[k] = this.edges;
    return k;
  }

  /**
   * ONE entry for an array operation: `count` new nodes, node `first + j` with the `width`
   * parents and partials at `j * width` of `parents` and `partials` (a parent -1 is a constant),
   * copied into the tape's own typed arrays as one block (no allocation per operation). The
   * backward pass applies the block as one loop; the nodes' own slices are never read.
   */
  recordVector(values: ArrayLike<number>, count: number, width: number, parents: Int32Array, partials: Float64Array): Dual[] {
    // An empty array makes no nodes, and no entry whose range the backward pass would look for.
    if (count === 0) return [];
    const size = count * width;
    if (this.nodes + count + 1 > this.start.length) this.start = grow(this.start, this.nodes + count + 1);
    if (this.edges + size > this.parents.length) {
      this.parents = grow(this.parents, this.edges + size);
      this.partials = grow(this.partials, this.edges + size);
    }
    const first = this.nodes;
    const offset = this.edges;
    // The node before keeps its slice [start[first - 1], offset); the block follows it.
    this.start.fill(offset, first, first + count);
    this.parents.set(parents.subarray(0, size), offset);
    this.partials.set(partials.subarray(0, size), offset);
    this.edges += size;
    this.nodes += count;
    this.vectors.push({ first, count, width, offset });
    const out = new Array<Dual>(count);
    for (let j = 0; j < count; j++) out[j] = new Dual(values[j], first + j, this);
    return out;
  }

  /** ONE node `y` with `count` parents and partials (constants left out by the caller): a reduction of an array. */
  recordMany(y: number, parents: Int32Array, partials: Float64Array, count: number): Dual {
    const k = this.node(count);
    for (let e = 0; e < count; e++) this.edge(parents[e], partials[e]);
    return new Dual(y, k, this);
  }

  /** Whether the tape records partials' tangents (second order): array operations are then recorded per element. */
  get secondOrder(): boolean {
    return this.partialTangents !== undefined;
  }

  private edge(parent: number, partial: number): void {
    this.parents[this.edges] = parent;
    this.partials[this.edges++] = partial;
  }

  /** A number of the input: a node without parents. */
  input(v: number): Dual {
    return new Dual(v, this.node(0), this);
  }

  /** `y` computed from `a` with ∂y/∂a = `da` (a constant `a` gives no edge). */
  record1(y: number, a: Dual, da: number): Dual | number {
    if (this.released) return y;
    // The hot path of every operation: written out, with no call but the node's allocation.
    const k = this.nodes;
    const e = this.edges;
    if (k + 2 > this.start.length || e + 1 > this.parents.length) this.node(1);
    else this.nodes = k + 1;
    this.start[k] = e;
    this.parents[e] = a.i;
    this.partials[e] = da;
    this.edges = e + 1;
    return new Dual(y, k, this);
  }

  record2(y: number, a: number | Dual, da: number, b: number | Dual, db: number): Dual | number {
    if (this.released || (typeof a !== 'number' && a.tape !== this) || (typeof b !== 'number' && b.tape !== this)) return this.recordForeign(y, [a, b], [da, db]);
    const k = this.nodes;
    let e = this.edges;
    if (k + 2 > this.start.length || e + 2 > this.parents.length) this.node(2);
    else this.nodes = k + 1;
    this.start[k] = e;
    const { parents, partials } = this;
    if (typeof a !== 'number') {
      parents[e] = a.i;
      partials[e++] = da;
    }
    if (typeof b !== 'number') {
      parents[e] = b.i;
      partials[e++] = db;
    }
    this.edges = e;
    return new Dual(y, k, this);
  }

  recordN(y: number, args: readonly (number | Dual)[], partials: readonly number[]): Dual | number {
    if (!this.ownsAll(args)) return this.recordForeign(y, args, partials);
    const k = this.node(args.length);
    args.forEach((a, j) => {
      if (typeof a !== 'number') this.edge(a.i, partials[j]);
    });
    return new Dual(y, k, this);
  }

  /** Whether this tape still records and every node among ARGS is its own (no closure per operation: a hot path). */
  private ownsAll(args: readonly (number | Dual)[]): boolean {
    if (this.released) return false;
    for (let j = 0; j < args.length; j++) {
      const a = args[j];
      if (typeof a !== 'number' && a.tape !== this) return false;
    }
    return true;
  }

  /** An operation whose arguments are nodes of several tapes: recorded on the live one, the others constants. */
  private recordForeign(y: number, args: readonly (number | Dual)[], partials: readonly number[]): Dual | number {
    const tape = liveTape(args);
    if (tape === undefined) return y;
    const k = tape.node(args.length);
    args.forEach((a, j) => {
      if (typeof a !== 'number' && a.tape === tape) tape.edge(a.i, partials[j]);
    });
    return new Dual(y, k, tape);
  }

  /** An input number of second-order mode, with its tangent `d`. */
  inputWithTangent(v: number, d: number): TangentDual {
    return new TangentDual(v, this.node(0), this, d);
  }

  /**
   * Second order: `y` with tangent `yd`, computed from `args` with partials `partials` whose own
   * tangents are `partialTangents` (constant arguments give no edge).
   */
  recordWithTangent(y: number, yd: number, args: readonly (number | Dual)[], partials: readonly number[], partialTangents: readonly number[]): TangentDual | number {
    const tape = this.ownsAll(args) ? this : liveTape(args);
    if (tape === undefined) return y;
    // A node of another tape is a constant: it adds neither an edge nor a tangent.
    let tangent = tape === this ? yd : 0;
    const k = tape.node(args.length);
    const dp = tape.partialTangents as Float64Array;
    args.forEach((a, j) => {
      if (typeof a === 'number' || a.tape !== tape) return;
      if (tape !== this) tangent += partials[j] * (a as TangentDual).d;
      dp[tape.edges] = partialTangents[j];
      tape.edge(a.i, partials[j]);
    });
    return new TangentDual(y, k, tape, tangent);
  }

  /**
   * The backward pass: `seed` adds the output's cotangents to `adjoint`, then each node, from the
   * highest ID down, passes its adjoint to its parents. A node with a zero adjoint still does, so
   * a NaN or infinite partial propagates as it does in the compiled path's products.
   */
  backward(seed: (adjoint: Float64Array) => void): Float64Array {
    const n = this.nodes;
    this.start[n] = this.edges;
    const adjoint = this.adjointArray(n);
    seed(adjoint);
    const { start, parents, partials, vectors } = this;
    let v = vectors.length - 1;
    let top = v >= 0 ? vectors[v].first + vectors[v].count - 1 : -1;
    for (let k = n - 1; k >= 0; k--) {
      if (k === top) {
        // An array operation's nodes have no edges of their own: its partials go in one loop.
        const { first, count, width, offset } = vectors[v];
        for (let j = count - 1; j >= 0; j--) {
          const g = adjoint[first + j];
          for (let e = offset + j * width; e < offset + (j + 1) * width; e++) if (parents[e] >= 0) adjoint[parents[e]] += partials[e] * g;
        }
        k = first;
        v--;
        top = v >= 0 ? vectors[v].first + vectors[v].count - 1 : -1;
        continue;
      }
      const g = adjoint[k];
      for (let e = start[k]; e < start[k + 1]; e++) adjoint[parents[e]] += partials[e] * g;
    }
    this.stats();
    return adjoint;
  }

  /**
   * Zeroed adjoints for N nodes, in an array the tape keeps: a typed array made per backward pass
   * is memory outside the heap, whose pressure makes the garbage collector run far more often.
   * Who reads a backward pass's adjoints does so before the next one.
   */
  private adjointArray(n: number): Float64Array {
    let a = this.adjoints;
    if (a === undefined || a.length < n) {
      a = this.adjoints = new Float64Array(Math.max(n, 2 * (a?.length ?? 0)));
      return a;
    }
    a.fill(0, 0, n);
    return a;
  }

  /**
   * The forward sweep (linearize): each node's tangent is the sum of its partials times its
   * parents' tangents, in ID order; `tangents` holds the input nodes' on entry.
   */
  forward(tangents: Float64Array): Float64Array {
    const n = this.nodes;
    this.start[n] = this.edges;
    const { start, parents, partials, vectors } = this;
    let v = 0;
    for (let k = 0; k < n; k++) {
      if (v < vectors.length && k === vectors[v].first) {
        const { first, count, width, offset } = vectors[v++];
        for (let j = 0; j < count; j++) {
          let d = 0;
          for (let e = offset + j * width; e < offset + (j + 1) * width; e++) if (parents[e] >= 0) d += partials[e] * tangents[parents[e]];
          tangents[first + j] = d;
        }
        k = first + count - 1;
        continue;
      }
      if (start[k] === start[k + 1]) continue;
      let d = 0;
      for (let e = start[k]; e < start[k + 1]; e++) d += partials[e] * tangents[parents[e]];
      tangents[k] = d;
    }
    this.stats();
    return tangents;
  }

  /** Records this tape's counts as the latest backward pass's (an array operation's partials count as edges). */
  private stats(): void {
    let edges = this.edges;
    let entries = this.nodes;
    for (const { count, width, offset } of this.vectors) {
      edges -= count * width;
      for (let e = offset; e < offset + count * width; e++) if (this.parents[e] >= 0) edges++;
      entries -= count - 1;
    }
    lastStats = { nodes: this.nodes, edges };
    lastEntries = entries;
  }

  /**
   * Second order (forward over reverse): the backward pass carrying each adjoint's tangent too.
   * With ȳ seeded and its tangent 0, the adjoints are the gradient and their tangents the
   * Hessian times the inputs' tangents: (x̄ + p·ȳ)˙ = ṗ·ȳ + p·ȳ˙.
   */
  backwardWithTangents(seed: (adjoint: Float64Array) => void): [Float64Array, Float64Array] {
    const n = this.nodes;
    this.start[n] = this.edges;
    const adjoint = new Float64Array(n);
    const adjointTangent = new Float64Array(n);
    seed(adjoint);
    const { start, parents, partials } = this;
    const dp = this.partialTangents as Float64Array;
    for (let k = n - 1; k >= 0; k--) {
      const g = adjoint[k];
      const gd = adjointTangent[k];
      for (let e = start[k]; e < start[k + 1]; e++) {
        adjoint[parents[e]] += partials[e] * g;
        adjointTangent[parents[e]] += dp[e] * g + partials[e] * gd;
      }
    }
    this.stats();
    return [adjoint, adjointTangent];
  }
}

/**
 * A node or dual number that reaches code tsad did not compile (a function of another module, a
 * built-in that converts its argument) would be converted to a number there, and the derivative
 * through it lost: it says so instead of computing with NaN or a wrong value.
 */
function refuseConversion(this: Dual | Forward): never {
  throw new TypeError(
    `tsad: a number of taped code (value ${this.v}) was converted by code that tsad did not compile, which would lose its derivative; call only functions of the same module, Math's functions and array methods with taped numbers (docs/frontend.md, "Taped mode")`,
  );
}
for (const c of [Dual, Forward]) {
  Object.defineProperty(c.prototype, 'valueOf', { value: refuseConversion });
  Object.defineProperty(c.prototype, 'toString', { value: refuseConversion });
  Object.defineProperty(c.prototype, Symbol.toPrimitive, { value: refuseConversion });
}

/** The arrays of the latest released tape. */
let spare: { start: Int32Array; parents: Int32Array; partials: Float64Array; adjoints: Float64Array | undefined } | undefined;

function grow<A extends Int32Array | Float64Array>(a: A, atLeast: number): A {
  let size = a.length * 2;
  while (size < atLeast) size *= 2;
  const b = (a instanceof Int32Array ? new Int32Array(size) : new Float64Array(size)) as A;
  b.set(a);
  return b;
}

let lastStats: TapeStats = { nodes: 0, edges: 0 };
let lastEntries = 0;

/** An array operation on the tape (Tape.recordVector). */
interface VectorEntry {
  readonly first: number;
  readonly count: number;
  readonly width: number;
  /** Where its block of `count * width` parents and partials starts in the tape's arrays. */
  readonly offset: number;
}

/**
 * The entries of the latest backward pass's tape: one per scalar operation or input, one per
 * array operation however long the array (tests assert that an array operation costs one).
 */
export function entries(): number {
  return lastEntries;
}

/** The cost of the latest backward pass (tests assert complexity with it). */
export function stats(): TapeStats {
  return lastStats;
}

/** The value of an active or constant number. */
export function value(x: number | Dual | Forward): number {
  return typeof x === 'number' ? x : x.v;
}

/** `a.indexOf(x)`, `lastIndexOf`, `includes` in taped code: numbers and nodes compared by value (includes: NaN finds NaN). */
export function search(a: ArrayLike<unknown>, method: 'indexOf' | 'lastIndexOf' | 'includes', x: unknown, from?: number): number | boolean {
  const plain = Array.from(a, (e) => (e instanceof Dual || e instanceof Forward ? e.v : e));
  const target = x instanceof Dual || x instanceof Forward ? x.v : x;
  return method === 'includes' ? plain.includes(target, from) : plain[method](target, from ?? (method === 'indexOf' ? 0 : plain.length - 1));
}

/** A comparator of taped code (`a.sort((p, q) => p - q)`) whose result may be a node: its value orders. */
export function comparator(f: (a: unknown, b: unknown) => number | Dual | Forward): (a: unknown, b: unknown) => number {
  return (a, b) => value(f(a, b));
}

/** JavaScript's default order of `sort()` (by the numbers' strings), for numbers and nodes. */
export function defaultOrder(a: unknown, b: unknown): number {
  const sa = String(a instanceof Dual || a instanceof Forward ? a.v : a);
  const sb = String(b instanceof Dual || b instanceof Forward ? b.v : b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Whether `x` is an active number (the generated code tests this before recording). */
export function isDual(x: unknown): x is Dual {
  return x instanceof Dual;
}

type Structure = unknown;

/** The parameter with each of its numbers an input node: typed arrays become arrays (they cannot hold nodes). */
export function lift(tape: Tape, x: Structure): Structure {
  if (typeof x === 'number') return tape.input(x);
  if (ArrayBuffer.isView(x) && !(x instanceof DataView)) return Array.from(x as unknown as ArrayLike<number>, (v) => tape.input(v));
  if (Array.isArray(x)) return x.map((e) => lift(tape, e));
  if (isPlainObject(x)) return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, lift(tape, v)]));
  if (isInstance(x)) return cloneInstance(x, (v) => lift(tape, v));
  refuseInstance(x);
  return x;
}

/**
 * An instance of one of the program's classes: differentiated by its own fields (taped copies of
 * its methods read them through `this`). Built-ins (Map, Date, …) and objects with accessors or
 * private fields are not, whose state a copy would not hold.
 */
export function isInstance(x: unknown): x is object {
  if (typeof x !== 'object' || x === null || isPlainObject(x) || Array.isArray(x) || ArrayBuffer.isView(x)) return false;
  const ctor = (x as { constructor?: unknown }).constructor;
  if (typeof ctor !== 'function' || /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(ctor))) return false;
  return Object.values(Object.getOwnPropertyDescriptors(x)).every((d) => 'value' in d);
}

/** A copy of an instance with the same prototype and each own field mapped. */
function cloneInstance(x: object, map: (v: unknown) => unknown): object {
  const copy = Object.create(Object.getPrototypeOf(x)) as Record<string, unknown>;
  for (const [k, v] of Object.entries(x)) copy[k] = map(v);
  return copy;
}

/** A class instance among the differentiated values: its numbers would silently get no derivative. */
export function refuseInstance(x: unknown): void {
  if (typeof x === 'object' && x !== null && !(x instanceof Map) && !(x instanceof Set)) {
    throw new TypeError(`tsad: taped mode differentiates numbers, arrays, typed arrays and plain objects; got an instance of ${x.constructor?.name ?? 'a class'} among the differentiated values`);
  }
}

/** The cotangent of a lifted parameter, in the shape of the caller's value (`undefined` for constants). */
export function collect(adjoint: Float64Array, lifted: Structure, original: Structure): Structure {
  if (lifted instanceof Dual) return adjoint[lifted.i];
  if (ArrayBuffer.isView(original) && !(original instanceof DataView)) {
    const out = new (original.constructor as new (n: number) => Float64Array)((original as unknown as ArrayLike<number>).length);
    (lifted as Structure[]).forEach((e, k) => {
      out[k] = collect(adjoint, e, undefined) as number;
    });
    return out;
  }
  if (Array.isArray(lifted)) return lifted.map((e, k) => collect(adjoint, e, (original as Structure[] | undefined)?.[k]));
  // An instance's cotangent is a plain object of its fields' cotangents.
  if (isPlainObject(lifted) || isInstance(lifted)) {
    return Object.fromEntries(Object.entries(lifted).map(([k, v]) => [k, collect(adjoint, v, (original as Record<string, Structure> | undefined)?.[k])]));
  }
  return typeof lifted === 'number' ? 0 : undefined;
}

/** The caller's view of a result: its numbers' values, typed arrays where the function made arrays of nodes stay arrays. */
export function primal(x: Structure): Structure {
  if (x instanceof Dual || x instanceof Forward) return x.v;
  if (Array.isArray(x)) return x.map(primal);
  if (isPlainObject(x)) return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, primal(v)]));
  return x;
}

/** A parameter with its tangent (forward mode): each number with the tangent's number there; `undefined` tangents are constants. */
export function dual(x: Structure, tangent: Structure): Structure {
  if (tangent === undefined || tangent === null) return x;
  if (typeof x === 'number') return new Forward(x, tangent as number);
  if (ArrayBuffer.isView(x) || Array.isArray(x)) return Array.from(x as ArrayLike<Structure>, (e, k) => dual(e, (tangent as ArrayLike<Structure>)[k]));
  if (isPlainObject(x)) return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, dual(v, (tangent as Record<string, Structure>)[k])]));
  return x;
}

/** The tangent of a forward-mode result, in its shape (0 for a number that carries none). */
export function tangent(y: Structure): Structure {
  if (y instanceof Forward) return y.d;
  if (typeof y === 'number') return 0;
  if (Array.isArray(y)) return y.map(tangent);
  if (isPlainObject(y)) return Object.fromEntries(Object.entries(y).map(([k, v]) => [k, tangent(v)]));
  return undefined;
}

/**
 * Adds a cotangent to the adjoints of a result's nodes on TAPE (a result's constants take none,
 * and so does a node of another tape: a number a memo kept from an earlier gradient).
 */
export function seed(adjoint: Float64Array, result: Structure, cotangent: Structure, tape: Tape): void {
  if (result instanceof Dual) {
    if (result.tape === tape) adjoint[result.i] += cotangent as number;
    return;
  }
  if (Array.isArray(result)) {
    const ct = cotangent as ArrayLike<Structure>;
    result.forEach((e, k) => {
      seed(adjoint, e, ct[k], tape);
    });
    return;
  }
  if (isPlainObject(result)) {
    for (const [k, v] of Object.entries(result)) seed(adjoint, v, (cotangent as Record<string, Structure>)[k], tape);
  }
}

export function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (typeof x !== 'object' || x === null) return false;
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
}

/** A zero-filled array for `new Float64Array(n)` in taped code: it must hold nodes. */
export function array(n: number | Dual | Forward | ArrayLike<number | Dual | Forward>): (number | Dual | Forward)[] {
  if (typeof n === 'number') return new Array<number>(n).fill(0);
  if (n instanceof Dual || n instanceof Forward) return new Array<number>(n.v).fill(0);
  return Array.from(n);
}

/**
 * `self.name(...args)` in taped code, where the method's body depends on `self`'s class: the class
 * on the prototype chain that owns `name` picks its taped copy (`copyFor`, generated at build
 * time from the module's classes). A class without one is a TypeError naming it: its own body
 * would convert the taped numbers, and another class's body would be the wrong function.
 */
export function method(self: object, name: string, copyFor: (c: unknown) => ((self: object, ...args: unknown[]) => unknown) | undefined, ...args: unknown[]): unknown {
  let owner: object | null = Object.getPrototypeOf(self);
  while (owner !== null && !Object.hasOwn(owner, name)) owner = Object.getPrototypeOf(owner);
  const copy = owner === null || Object.hasOwn(self, name) ? undefined : copyFor(owner.constructor);
  if (copy) return copy(self, ...args);
  const what = Object.hasOwn(self, name) ? `an object whose own property '${name}' is a function` : `an instance of ${owner?.constructor?.name ?? 'an unknown class'}`;
  throw new TypeError(
    `tsad: taped code calls '${name}' of ${what}, and tsad has no taped copy of that method: implement it in a class of the module that differentiates it (docs/frontend.md, "Taped mode")`,
  );
}

/**
 * A call from taped code of a function that runs compiled: with no active argument, the function
 * itself; else its compiled valueAndGrad (with respect to every parameter) gives the value and
 * the partials, recorded as ONE node, so the callee's operations never reach the tape.
 */
export function compiled(plain: (...args: number[]) => number, valueAndGrad: (...args: number[]) => [number, number | number[]], ...args: (number | Dual)[]): number | Dual {
  const tape = liveTape(args);
  const values = args.map((a) => (typeof a === 'number' ? a : a.v));
  if (!tape) return plain(...values);
  const [y, g] = valueAndGrad(...values);
  return tape.recordN(y, args, args.length === 1 ? [g as number] : (g as number[]));
}
