// Jacobians and linearize of taped code (docs/frontend.md, "Taped mode"). The tape of one run
// holds the whole linear map of the function at that point: a Jacobian is one backward pass per
// output number (its rows), and linearize's tangent map is a forward sweep over the same tape,
// in ID order, with no run of the function again.
import { Dual, Tape, collect, isInstance, isPlainObject, lift, primal } from './tape';
import { inputsOf } from './tapedCalls';

type Structure = unknown;
/** The taped copy of the function (generated at build time). */
type Copy = (...args: Structure[]) => Structure;

/** The numbers and nodes of a result, in the order its rows are given. */
function outputs(y: Structure): Structure[] {
  if (typeof y === 'number' || y instanceof Dual) return [y];
  if (Array.isArray(y)) return y.flatMap(outputs);
  if (isPlainObject(y)) return Object.values(y).flatMap(outputs);
  return [];
}

/** A cotangent's numbers in the order of its parameter's numbers. */
function flatten(x: Structure): number[] {
  if (typeof x === 'number') return [x];
  if (ArrayBuffer.isView(x) || Array.isArray(x)) return Array.from(x as ArrayLike<Structure>).flatMap(flatten);
  if (isPlainObject(x)) return Object.values(x).flatMap(flatten);
  return [];
}

/** `jacobian(f)(...params)` (also jacfwd, jacrev): rows are the result's numbers, columns each `wrt` parameter's. */
export function jacobian(copy: Copy, params: readonly Structure[], wrt: readonly number[]): number[][] | number[][][] {
  const tape = new Tape();
  const lifted = params.map((p, i) => (wrt.includes(i) ? lift(tape, p) : p));
  const inputs = lifted.map(inputsOf);
  const blocks = wrt.map((): number[][] => []);
  for (const out of outputs(copy(...lifted))) {
    const adjoint = tape.backward((a) => {
      if (out instanceof Dual && out.tape === tape) a[out.i] += 1;
    });
    wrt.forEach((i, b) => {
      blocks[b].push(flatten(collect(adjoint, inputs[i], params[i])));
    });
  }
  return wrt.length === 1 ? blocks[0] : blocks;
}

/** Seeds the input nodes of a lifted parameter with a tangent of its shape (`undefined`: zero). */
function seedTangents(tangents: Float64Array, lifted: Structure, tangent: Structure): void {
  if (tangent === undefined || tangent === null) return;
  if (lifted instanceof Dual) {
    tangents[lifted.i] = tangent as number;
    return;
  }
  if (Array.isArray(lifted)) {
    lifted.forEach((e, k) => {
      seedTangents(tangents, e, (tangent as ArrayLike<Structure>)[k]);
    });
    return;
  }
  if (isPlainObject(lifted) || isInstance(lifted)) {
    for (const [k, v] of Object.entries(lifted)) seedTangents(tangents, v, (tangent as Record<string, Structure>)[k]);
  }
}

/** The tangent of a result, in its shape, read from the nodes' tangents on TAPE (a constant's, or another tape's node's, is 0). */
function readTangent(tangents: Float64Array, y: Structure, tape: Tape): Structure {
  if (y instanceof Dual) return y.tape === tape ? tangents[y.i] : 0;
  if (typeof y === 'number') return 0;
  if (Array.isArray(y)) return y.map((e) => readTangent(tangents, e, tape));
  if (isPlainObject(y)) return Object.fromEntries(Object.entries(y).map(([k, v]) => [k, readTangent(tangents, v, tape)]));
  return undefined;
}

/** `linearize(f, ...params)`: the value and the tangent map, a forward sweep over the one tape per call. */
export function linearize(copy: Copy, params: readonly Structure[]): [Structure, (...tangents: Structure[]) => Structure] {
  const tape = new Tape();
  const lifted = params.map((p) => (typeof p === 'function' ? p : lift(tape, p)));
  const inputs = lifted.map(inputsOf);
  const y = copy(...lifted);
  const map = (...tangents: Structure[]) => {
    const seeded = new Float64Array(tape.size);
    inputs.forEach((l, i) => {
      seedTangents(seeded, l, tangents[i]);
    });
    return readTangent(tape.forward(seeded), y, tape);
  };
  return [primal(y), map];
}
