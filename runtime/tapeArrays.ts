// Arrays as whole operations in taped reverse mode (docs/frontend.md, "Taped mode"): `xs.map(f)`
// and `xs.reduce(f, init)` with a body of arithmetic and Math's functions, and tsad's sum, dot
// and prod, record ONE tape entry each instead of one per element and operation. The partials
// come from the same primitive registry as the per-element path: the plugin emits, next to the
// taped body, the body on dual numbers (forward mode, whose primitives use the registry's
// partials), and each element's partials are the tangents of that body along each of its active
// inputs. Where a whole operation does not apply (no live tape, a second-order tape, a stream
// shorter than the array) the taped body runs per element, as before.
import { Dual, Forward, type Tape, liveTape, value as valueOfNumber } from './tape';

/** The body on dual numbers: the element (or accumulator and element), the index, the streams' elements, then the captures. */
type ForwardBody = (...args: unknown[]) => unknown;

const plain = (x: unknown): number => valueOfNumber(x as number | Dual | Forward);

/** The live tape of a whole operation's inputs, if it can take one entry for them. */
function tapeOf(xs: ArrayLike<unknown>, streams: readonly ArrayLike<unknown>[], captures: readonly unknown[], init?: unknown): Tape | undefined {
  let tape = liveTape(xs);
  for (const s of streams) {
    if (s.length < xs.length) return undefined;
    tape = newer(tape, liveTape(s));
  }
  tape = newer(tape, liveTape(captures));
  if (init !== undefined) tape = newer(tape, liveTape([init]));
  return tape?.secondOrder ? undefined : tape;
}

function newer(a: Tape | undefined, b: Tape | undefined): Tape | undefined {
  return a === undefined || (b !== undefined && b.serial > a.serial) ? b : a;
}

/** The inputs of one element: their values, and which are nodes of `tape` (the others are constants to it). */
class Inputs {
  readonly values: number[];
  readonly ids: number[];
  /** The body's arguments: the values, one of them a dual number while a tangent is taken. */
  private readonly args: (number | Forward)[];

  constructor(size: number) {
    this.values = new Array<number>(size).fill(0);
    this.ids = new Array<number>(size).fill(-1);
    this.args = new Array<number | Forward>(size).fill(0);
  }

  set(at: number, x: unknown, tape: Tape): void {
    if (typeof x === 'number') {
      this.values[at] = x;
      this.args[at] = x;
      this.ids[at] = -1;
      return;
    }
    const v = plain(x);
    this.values[at] = v;
    this.args[at] = v;
    this.ids[at] = x instanceof Dual && x.tape === tape ? x.i : -1;
  }

  setValue(at: number, v: number): void {
    this.values[at] = v;
    this.args[at] = v;
  }

  /** The body at the values with a unit tangent along argument `along` (-1: none). */
  run(body: ForwardBody, along: number): unknown {
    const a = this.args;
    if (along >= 0) a[along] = new Forward(this.values[along], 1);
    // Positional calls for the usual widths: a spread call per element costs more than the body.
    const y = a.length === 2 ? body(a[0], a[1]) : a.length === 3 ? body(a[0], a[1], a[2]) : a.length === 4 ? body(a[0], a[1], a[2], a[3]) : body(...a);
    if (along >= 0) a[along] = this.values[along];
    return y;
  }
}

/**
 * Scratch typed arrays shared by every whole operation (the tape copies what it keeps): a typed
 * array made per operation lives outside the heap, and costs more than a short map itself.
 */
const scratch = { f: [new Float64Array(64), new Float64Array(64), new Float64Array(64)], i: [new Int32Array(64), new Int32Array(64)] };

function floats(slot: number, size: number): Float64Array {
  if (scratch.f[slot].length < size) scratch.f[slot] = new Float64Array(Math.max(size, 2 * scratch.f[slot].length));
  return scratch.f[slot];
}

function ints(slot: number, size: number): Int32Array {
  if (scratch.i[slot].length < size) scratch.i[slot] = new Int32Array(Math.max(size, 2 * scratch.i[slot].length));
  return scratch.i[slot];
}

const tangentOf = (y: unknown): number => (typeof y === 'number' ? 0 : y instanceof Forward ? y.d : 0);

/**
 * `xs.map(body)`: ONE tape entry for the whole array, each new node's partials the body's
 * tangents along its element, its streams' elements and its captures.
 */
export function map(
  xs: ArrayLike<unknown> & { map: (f: (...a: unknown[]) => unknown) => unknown },
  taped: (...a: unknown[]) => unknown,
  forward: ForwardBody,
  streams: readonly ArrayLike<unknown>[],
  captures: readonly unknown[],
): unknown {
  const tape = tapeOf(xs, streams, captures);
  if (tape === undefined) return xs.map(taped);
  const n = xs.length;
  // Arguments: element, index, streams, captures; the index is a constant.
  const width = 2 + streams.length + captures.length;
  const inputs = new Inputs(width);
  captures.forEach((c, q) => {
    inputs.set(2 + streams.length + q, c, tape);
  });
  // The block's columns: every argument but the index (a constant).
  const columns = width - 1;
  const values = floats(0, n);
  const parents = ints(0, n * columns).fill(-1, 0, n * columns);
  const partials = floats(1, n * columns).fill(0, 0, n * columns);
  for (let j = 0; j < n; j++) {
    inputs.set(0, xs[j], tape);
    inputs.setValue(1, j);
    for (let q = 0; q < streams.length; q++) inputs.set(2 + q, streams[q][j], tape);
    let y: unknown;
    for (let at = 0; at < width; at++) {
      if (inputs.ids[at] < 0) continue;
      y = inputs.run(forward, at);
      const slot = j * columns + (at === 0 ? 0 : at - 1);
      parents[slot] = inputs.ids[at];
      partials[slot] = tangentOf(y);
    }
    values[j] = plain(y === undefined ? inputs.run(forward, -1) : y);
  }
  return tape.recordVector(values, n, columns, parents, partials);
}

/**
 * `xs.reduce(body, init)` (and tsad's sum, dot, prod): ONE node whose partials with respect to
 * every element, stream element, capture and the initial value are the fold's chain rule over
 * the body's tangents, accumulated from the last step back.
 */
export function fold(
  xs: ArrayLike<unknown> & { reduce: (...a: unknown[]) => unknown },
  taped: (...a: unknown[]) => unknown,
  forward: ForwardBody,
  streams: readonly ArrayLike<unknown>[],
  captures: readonly unknown[],
  ...init: unknown[]
): unknown {
  const hasInit = init.length > 0;
  const n = xs.length;
  const tape = n === 0 && !hasInit ? undefined : tapeOf(xs, streams, captures, hasInit ? init[0] : undefined);
  if (tape === undefined) return hasInit ? xs.reduce(taped, init[0]) : xs.reduce(taped);
  // Arguments: accumulator, element, index, streams, captures.
  const width = 3 + streams.length + captures.length;
  const inputs = new Inputs(width);
  captures.forEach((c, q) => {
    inputs.set(3 + streams.length + q, c, tape);
  });
  const from = hasInit ? 0 : 1;
  const steps = n - from;
  // Each step's local partials; the accumulator's own (column 0) chains the steps.
  const local = floats(0, steps * width).fill(0, 0, steps * width);
  const ids = ints(0, steps * width).fill(-1, 0, steps * width);
  let acc = hasInit ? plain(init[0]) : plain(xs[0]);
  const first = hasInit ? init[0] : xs[0];
  const firstId = first instanceof Dual && first.tape === tape ? first.i : -1;
  // Whether the accumulator depends on a node yet (else its tangent column is not needed).
  let active = firstId >= 0;
  for (let k = 0; k < steps; k++) {
    const j = from + k;
    inputs.setValue(0, acc);
    inputs.ids[0] = active ? 0 : -1;
    inputs.set(1, xs[j], tape);
    inputs.setValue(2, j);
    for (let q = 0; q < streams.length; q++) inputs.set(3 + q, streams[q][j], tape);
    let y: unknown;
    for (let at = 0; at < width; at++) {
      if (inputs.ids[at] < 0) continue;
      y = inputs.run(forward, at);
      local[k * width + at] = tangentOf(y);
      ids[k * width + at] = inputs.ids[at];
    }
    if (y === undefined) y = inputs.run(forward, -1);
    else active = true;
    acc = plain(y);
  }
  // Back from the last step: g is ∂(result)/∂(accumulator after step k − 1).
  const parents = ints(1, steps * (width - 1) + 1);
  const partials = floats(1, steps * (width - 1) + 1);
  let count = 0;
  let g = 1;
  for (let k = steps - 1; k >= 0; k--) {
    for (let at = 1; at < width; at++) {
      if (ids[k * width + at] < 0) continue;
      parents[count] = ids[k * width + at];
      partials[count++] = g * local[k * width + at];
    }
    g *= local[k * width];
  }
  if (firstId >= 0) {
    parents[count] = firstId;
    partials[count++] = g;
  }
  return tape.recordMany(acc, parents, partials, count);
}

/** tsad's dot in taped code: its arrays must have the same length, as the compiled helper requires. */
export function sameLength<A extends ArrayLike<unknown>>(a: A, b: ArrayLike<unknown>): A {
  if (a.length !== b.length) throw new RangeError(`tsad: dot: the two arrays have different lengths (${a.length} and ${b.length})`);
  return a;
}
