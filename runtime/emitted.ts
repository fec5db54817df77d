// What the derivatives the compiler emits call at run time (internal: not for user code). Each
// module used to carry its own copy of these (3.5 kB per module, a sixth of the demo's emitted
// code); a module now binds the ones it uses from the runtime it already imports
// (backend/typescript.ts, RUNTIME_HELPERS). None of them is on an element's path: the argument
// checks run when a check has failed, the naming when a derivative throws, the stack functions
// once per call or loop (take, give, reserve) or when a stack outgrows its room (grow), a
// result's fit once per array a wrapper returns.

// ---- argument checks (the wrappers' inline test failed; backend/typescript.ts, argumentCheck) ----

/**
 * A check's expectation: a leaf's typeof, an array or matrix of numbers, an Int32Array, or a container:
 * `['tuple', spec, …]`, `['object' | 'arguments', key, spec, key, spec, …]`.
 */
type Spec = string | (string | number | Spec)[];

/**
 * The compact spec of the wrappers' JSON: an item is `"key:code"` for a leaf, or `["key:tag", item,
 * …]` for a container (a tuple's items have no key); the key is everything before the last `:`.
 * The backend writes the same letters (backend/typescript.ts, SPEC_CODES).
 */
type SpecItem = string | SpecItem[];
const SPEC_CODES: Readonly<Record<string, string>> = { n: 'number', a: 'array', m: 'matrix', b: 'boolean', s: 'string', i: 'int32array', '': '', t: 'tuple', o: 'object', g: 'arguments' };

/** An item's key and its spec in the long form. */
function decoded(item: SpecItem): [string, Spec] {
  const head = typeof item === 'string' ? item : (item[0] as string);
  const at = head.lastIndexOf(':');
  const key = head.slice(0, at);
  const kind = SPEC_CODES[head.slice(at + 1)];
  if (typeof item === 'string') return [key, kind];
  const items = item.slice(1).map(decoded);
  return [key, [kind, ...(kind === 'tuple' ? items.map(([, s]) => s) : items.flat())]];
}

/** One argument's `[label, path, spec]`: from a compact entry (an item, or `{ label, item }`), or from the long form of earlier builds (`[path, spec]`, `[label, path, spec]`). */
function entryOf(e: unknown, i: number): [string, string, Spec] {
  const argument = `argument ${i + 1}`;
  if (typeof e === 'string' || (Array.isArray(e) && typeof e[0] === 'string' && e[0].includes(':'))) return [argument, ...decoded(e as SpecItem)];
  if (!Array.isArray(e)) {
    const { label, item } = e as { label: string; item: SpecItem };
    return [label, ...decoded(item)];
  }
  return e.length === 2 ? [argument, e[0] as string, e[1] as Spec] : (e as [string, string, Spec]);
}

/**
 * The TypeError for the first problem among a wrapper's arguments. `expected` is JSON, one entry
 * per argument (SpecItem, under `{ label, item }` where the label is not `argument i + 1`): one
 * string constant at the call, so the check adds little bytecode to the wrapper.
 */
export function tsad$argumentError(where: string, expected: string, count: number, ...values: unknown[]): TypeError {
  const params = JSON.parse(expected) as unknown[];
  if (count !== params.length) return new TypeError(`${where}: expects ${params.length}${params.length === 1 ? ' argument, got ' : ' arguments, got '}${count}`);
  for (let i = 0; i < params.length; i++) {
    const [label, path, spec] = entryOf(params[i], i);
    const problem = tsad$argumentProblem(label, path, spec, values[i]);
    if (problem) return new TypeError(`${where}: ${problem}`);
  }
  return new TypeError(`${where}: invalid arguments`);
}

/** A container spec's items, `[key, spec]`: a tuple's keys are its indices. */
function itemsOf(spec: (string | number | Spec)[]): [string | number, Spec][] {
  const items: [string | number, Spec][] = [];
  if (spec[0] === 'tuple') for (let i = 1; i < spec.length; i++) items.push([i - 1, spec[i] as Spec]);
  else for (let i = 1; i < spec.length; i += 2) items.push([spec[i] as string, spec[i + 1] as Spec]);
  return items;
}

/** What a container must be, in a message: `an object with number fields a, b`, `an array of 3 numbers`. */
function described(tag: string, items: [string | number, Spec][]): string {
  const numbers = items.every(([, c]) => c === 'number');
  if (tag === 'object') return `an object with ${numbers ? 'number ' : ''}fields ${items.map(([k]) => k).join(', ')}`;
  if (tag === 'tuple') return `an array of ${items.length} ${numbers ? 'numbers' : 'elements'}`;
  return `an array of ${items.length} values`;
}

/** What is wrong with v against spec ('' when nothing is); `at` follows the quoted path (` element 0`, ` row 0 element 0`). */
export function tsad$argumentProblem(label: string, path: string, spec: Spec, v: unknown, at = ''): string {
  if (spec === '') return '';
  const got = v === null ? 'null' : Array.isArray(v) ? `an array of length ${v.length}` : typeof v;
  const must = `${label} '${path}'${at} must be `;
  if (spec === 'int32array') return v instanceof Int32Array ? '' : `${must}an Int32Array, got ${ArrayBuffer.isView(v) ? `a ${v.constructor.name}` : got}`;
  if (spec === 'array' || spec === 'matrix') {
    if (!(Array.isArray(v) || ArrayBuffer.isView(v)))
      return `${must}${spec === 'array' ? 'an array of numbers (number[], Float64Array or Float32Array)' : 'a matrix (number[][] or Float64Array[])'}, got ${got}`;
    // The first number only: an array's element 0, a matrix's row 0 and its element 0.
    const items = v as ArrayLike<unknown>;
    const first = items.length === 0 ? '' : tsad$argumentProblem(label, path, spec === 'array' ? 'number' : 'array', items[0], at + (spec === 'array' ? ' element 0' : ' row 0'));
    // A hole (`new Array(n)` not filled, `delete a[i]`): JavaScript reads undefined there, and
    // reduce, map and forEach skip it; the derivatives would read NaN or 0.
    // biome-ignore lint/complexity/useIndexOf: indexOf skips holes; findIndex visits them
    const hole = first === '' && spec === 'array' && Array.isArray(v) ? v.findIndex((x) => x === undefined) : -1;
    return hole >= 0 ? `${must}an array of numbers, got no number at element ${hole} (a hole or undefined)` : first;
  }
  if (typeof spec === 'string') return typeof v === spec ? '' : `${must}a ${spec}, got ${got}`;
  const tag = spec[0] as string;
  const items = itemsOf(spec);
  const arrayLike = v as Record<string | number, unknown> & { length: number };
  if (v === null || (typeof v !== 'object' && typeof v !== 'function') || (tag === 'arguments' && arrayLike.length !== items.length)) return `${must}${described(tag, items)}, got ${got}`;
  for (let index = 0; index < items.length; index++) {
    const [key, inner] = items[index];
    const problem =
      tag === 'arguments'
        ? tsad$argumentProblem(`${path}[${index}]`, key as string, inner, arrayLike[index])
        : tsad$argumentProblem(label, tag === 'tuple' ? `${path}[${key}]` : `${path}.${key}`, inner, arrayLike[key]);
    if (problem) return problem;
  }
  return '';
}

// ---- a flat Jacobian's output arguments (the wrapper's inline test failed; backend/typescript.ts, output) ----

/**
 * The TypeError or RangeError for an `offset` that is not a non-negative integer, an `out` that is
 * not a Float64Array, or one shorter than offset + length. Out of the wrapper, which keeps only the
 * tests of the happy path and so stays small enough for V8 to inline into the caller's loop.
 */
export function tsad$outputError(where: string, what: string, length: number, outName: string, offsetName: string, out: unknown, offset: unknown): Error {
  if (!Number.isInteger(offset) || (offset as number) < 0) return new TypeError(`${where}: the offset argument '${offsetName}' must be a non-negative integer, got ${String(offset)}`);
  const must = `${where}: the output argument '${outName}' must be a Float64Array of at least ${length} numbers (${what})`;
  if (!(out instanceof Float64Array)) return new TypeError(`${must}, got ${out === null ? 'null' : typeof out}`);
  return new RangeError(`${must}${offset ? ` after offset ${offset}` : ''}, got length ${out.length}`);
}

// ---- results (a wrapper's `fit` of an IR array; backend/typescript.ts) ----

/** A class of the user's arrays: Array, Float64Array, Float32Array. */
interface ArrayClass {
  from(items: ArrayLike<number>): ArrayLike<number>;
  from(items: { length: number }, map: (_: unknown, i: number) => number): ArrayLike<number>;
}

/**
 * An IR array as the user's kind of array `C`: as long as `like` when there is one (an IR tangent
 * may be shorter: its missing elements are zeros), else as long as v. An array of class C and of
 * that length goes through uncopied unless `fresh` (the caller must get an array of its own) or C
 * is Array (the IR's arrays are typed).
 */
export function tsad$fit(v: ArrayLike<number>, like: ArrayLike<unknown> | undefined, C: ArrayClass, fresh?: boolean): ArrayLike<number> {
  const keep = !fresh && (C as unknown) !== Array && v instanceof (C as unknown as typeof Float64Array);
  if (like === undefined) return keep ? v : C.from(v);
  return keep && v.length === like.length ? v : C.from({ length: like.length }, (_, i) => v[i] ?? 0);
}

// ---- failed run-time checks (constructs/array/checks.ts: the emitted test failed) ----

/** atmost's RangeError: `what` (the function and the arrays), then n > limit. */
export function tsad$exceeds(what: string, n: number, limit: number): RangeError {
  return new RangeError(`${what} (${n} > ${limit})`);
}

/**
 * What is wrong with reading elements lo … hi of an array of `limit` (undefined: nothing), in
 * the words after the read's own ("tsad: f: reads 'x[i + 1]'"): its end first, as a NaN index
 * reads past it. The interpreter's `within` says the same.
 */
export function tsad$readProblem(lo: number, hi: number, limit: number): string | undefined {
  if (!(hi + 1 <= limit)) return `past its end (${hi + 1} > ${limit})`;
  if (!(Math.floor(lo) === lo && lo >= 0)) return `before its start or between two elements (at ${lo})`;
  return undefined;
}

/** within's RangeError: `what` names the read ("tsad: f: reads 'x[i]'"). */
export function tsad$badRead(what: string, lo: number, hi: number, limit: number): RangeError {
  return new RangeError(`${what} ${tsad$readProblem(lo, hi, limit) ?? `outside its ${limit} elements (at ${lo} … ${hi})`}`);
}

// ---- errors thrown inside a derivative ----

/** constructs/effect/raise.ts, THROWN_BY_SOURCE: a RangeError the user's code throws carries this mark. */
const THROWN_BY_SOURCE = Symbol.for('tsad.thrownBySource');

/**
 * Called by a wrapper's catch: puts the transform's name on a RangeError of the derivative's own
 * checks (`atmost`'s start `tsad: <function>: ` and reads `grad(loss): in loss: …`); one the
 * source throws keeps its message.
 */
export function tsad$inTransform(e: unknown, where: string): unknown {
  // The wrapper's own argument checks inside the try (an `out` too short) name it already.
  if (e instanceof RangeError && !(e as unknown as Record<symbol, unknown>)[THROWN_BY_SOURCE] && !e.message.startsWith(`${where}: `)) {
    e.message = `${where}: ${e.message.startsWith('tsad: ') ? `in ${e.message.slice(6)}` : e.message}`;
  }
  return e;
}

// ---- stacks of reals (backend/ts/constructs/stackEmit.ts says how they are laid out) ----

/** A call's memory for its stacks: `chunk` from `top` on is free. */
export interface Slab {
  chunk: Float64Array;
  top: number;
}

/** A stack of reals: element k at a[b + k], room up to a[c], n elements. */
export interface RealStack {
  a: Float64Array;
  b: number;
  c: number;
  n: number;
}

/**
 * An empty stack with room for exactly ⌈n⌉ records, cut from the slab, counted as full (a counted
 * loop fills record i in iteration i). The first chunk is what the first loop needs, each later
 * one twice the last: a small derivative called many times zeroes no big slab. Twice the last
 * only up to what the pool keeps, else what the call cut from the last chunk and this stack (as
 * tsad$grow): a doubled chunk just past the limit is dropped after the call and allocated again
 * by the next.
 */
export function tsad$reserve(slab: Slab, n: number): RealStack {
  const cap = Math.max(0, Math.ceil(n));
  if (slab.top + cap > slab.chunk.length) {
    slab.chunk = new Float64Array(Math.max(slab.top + cap, Math.min(2 * slab.chunk.length, POOL_KEEPS)));
    slab.top = 0;
  }
  const s = { a: slab.chunk, b: slab.top, c: slab.top + cap, n: cap };
  slab.top += cap;
  return s;
}

/**
 * Room for `need` elements in s, cut from the slab. A stack that ends where the slab's free room
 * starts (a while loop's tape, the last one opened) grows in place with no copy; any other moves
 * to the top of the slab, into a new chunk when the chunk is full, whose old regions stay with the
 * stacks that hold them. The new chunk is twice the last, but not past what the pool keeps unless
 * this call needs more: it has room for what the call cut from the last chunk and the grown
 * stack, so the next call finds all of it in one chunk. (Doubling a chunk the pool kept, for a
 * tape presized to its full length, made one the pool drops: lstm's gradient at l = 4 allocated
 * and zeroed 34 MB on every call.)
 */
export function tsad$grow(s: RealStack, need: number, slab: Slab): void {
  const size = Math.max(2 * (s.c - s.b), need, 16);
  if (s.a === slab.chunk && s.c === slab.top && s.b + size <= slab.chunk.length) {
    slab.top = s.b + size;
    s.c = slab.top;
    return;
  }
  if (slab.top + size > slab.chunk.length) {
    slab.chunk = new Float64Array(Math.max(slab.top + size, Math.min(2 * slab.chunk.length, POOL_KEEPS)));
    slab.top = 0;
  }
  slab.chunk.set(s.a.subarray(s.b, s.b + s.n), slab.top);
  s.a = slab.chunk;
  s.b = slab.top;
  s.c = slab.top + size;
  slab.top = s.c;
}

/** `room` more records at the top of s (an inner loop's run on the flat stack all its runs share), room made first. */
export function tsad$extend(s: RealStack, room: number, slab: Slab): void {
  if (s.b + (s.n + room) > s.c) tsad$grow(s, s.n + room, slab);
  s.n += room;
}

/** A sparse stack's size raised to `need` (an lpush at position need − 1, at or past its top), room made first. */
export function tsad$cover(s: RealStack, need: number, slab: Slab): void {
  if (s.b + need > s.c) tsad$grow(s, need, slab);
  s.n = need;
}

/**
 * `lpush(k, s, x)` on a typed tangent stack (constructs/stack/linear.ts): x at position k, the
 * size covering it. A tangent stack's slab is never a reused one (emitTs.ts, poolsSlab), so the
 * positions a cover skips read zero.
 */
export function tsad$lpush(s: RealStack, k: number, x: number, slab: Slab): void {
  if (k >= s.n) tsad$cover(s, k + 1, slab);
  s.a[s.b + k] = x;
}

/** `lat(i, s) [|| { 0 }]` on a typed tangent stack: element i, or 0 where the stack has none. */
export function tsad$lat(s: RealStack, i: number): number {
  return i < s.n ? s.a[s.b + i] : 0;
}

/** An empty stack with no room, at the slab's top: it allocates nothing until its first push (grow gives it room). */
export function tsad$empty(slab: Slab): RealStack {
  return { a: slab.chunk, b: slab.top, c: slab.top, n: 0 };
}

// ---- owned arrays (backend/ts/constructs/array/emit.ts, emitOwnedDense; once per claim, outside loops) ----

/** A zero array of length n that the running call owns (`own` is its `$own`): a site may update it in place. */
export function tsad$fresh(own: Set<unknown>, n: number): Float64Array {
  const r = new Float64Array(n);
  own.add(r);
  return r;
}

/**
 * `a` itself where the running call owns it and it is at least n long, else an owned dense copy
 * of it at least n long: what a loop accumulating into `a` in place starts from. The caller's
 * arrays and any array with two holders are not in `own` (emitTs.ts release), so they are copied.
 */
export function tsad$claim(own: Set<unknown>, a: ArrayLike<number>, n: number): Float64Array {
  if (a.length >= n && own.has(a)) return a as Float64Array;
  const r = new Float64Array(Math.max(n, a.length));
  r.set(a);
  own.add(r);
  return r;
}

/** The largest slab (in numbers: 32 MB) the pool keeps for the next call; a bigger one is left to the collector. */
export const POOL_KEEPS = 1 << 22;
/** How many slabs the pool keeps: one per derivative running at once (one inside another's evaluation). */
const POOL_SIZE = 4;
const pool: Slab[] = [];

/**
 * A slab for a derivative whose stacks all end with its call (emitTs.ts, poolsSlab): the one the
 * last call gave back, so a call allocates nothing once the chunk has grown. A call running inside
 * another's evaluation finds the pool without the other's slab (it was taken) and gets its own; a
 * call that throws loses its slab to the collector. Stacks are written before they are read
 * (records by put, pushes by push), so a chunk's old contents are never read.
 */
export function tsad$take(): Slab {
  return pool.length > 0 ? pool.pop()! : { chunk: new Float64Array(0), top: 0 };
}

/** Gives the slab back to the pool and returns the call's value. */
export function tsad$give<T>(slab: Slab, value: T): T {
  if (pool.length < POOL_SIZE && slab.chunk.length <= POOL_KEEPS) {
    slab.top = 0;
    pool.push(slab);
  }
  return value;
}
