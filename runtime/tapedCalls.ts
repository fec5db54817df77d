// Calls between compiled and taped code (docs/frontend.md, "Taped mode", "Mixing"), at run time.
// Taped code calling a compiled function of numbers and arrays records ONE tape entry for the
// call, its partials from the compiled valueAndGrad (`compiledCall`). Compiled code calling a
// function that must run taped treats it as an opaque call whose derivatives come from the taped
// copies (`tapedJvp`, `tapedVjp`, `tapedHvp`): the backend emits these for the constructs of
// transformer/constructs/taped, with the values of the compiled code (numbers, arrays of numbers).
import { Dual, Forward, Tape, collect, compiled, dual, isInstance, isPlainObject, lift, tangent, value } from './tape';

type Structure = unknown;
/** A copy of the function generated at build time (taped, dual-number or second order). */
type Copy = (...args: Structure[]) => Structure;

/** An array of taped code or of compiled code (typed arrays in compiled code, plain arrays of nodes in taped code). */
function isArray(x: unknown): x is ArrayLike<unknown> {
  return Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView));
}

/**
 * A call from taped code of a compiled function whose parameters are numbers or arrays of numbers:
 * with no active number among its arguments, the function itself; else its compiled valueAndGrad
 * (every parameter) gives the value and the partials, recorded as ONE node whose parents are the
 * active numbers of every argument, arrays included (a vector-Jacobian product for the whole call).
 */
export function compiledCall(plain: (...args: never[]) => number, valueAndGrad: (...args: never[]) => [number, Structure], ...args: Structure[]): number | Dual {
  if (!args.some(isArray)) return compiled(plain as (...a: number[]) => number, valueAndGrad as (...a: number[]) => [number, number | number[]], ...(args as (number | Dual)[]));
  const flat: (number | Dual)[] = [];
  for (const a of args) {
    if (isArray(a)) for (let k = 0; k < a.length; k++) flat.push(a[k] as number | Dual);
    else flat.push(a as number | Dual);
  }
  const tape = newestTape(flat);
  // Constants only: the function itself, on arrays of the kind taped code holds (as the copies do).
  if (!tape)
    return (plain as (...a: Structure[]) => number)(...args.map((a) => (ArrayBuffer.isView(a) ? a : isArray(a) ? Array.from(a as ArrayLike<number | Dual>, value) : value(a as number | Dual))));
  const values = args.map((a) => (isArray(a) ? Float64Array.from(a as ArrayLike<number | Dual>, value) : value(a as number | Dual)));
  const [y, g] = (valueAndGrad as (...a: Structure[]) => [number, Structure])(...values);
  const grads = args.length === 1 ? [g] : (g as Structure[]);
  const partials: number[] = [];
  grads.forEach((gi, i) => {
    if (isArray(args[i])) for (let k = 0; k < (args[i] as ArrayLike<unknown>).length; k++) partials.push((gi as ArrayLike<number>)[k] ?? 0);
    else partials.push(gi as number);
  });
  return tape.recordN(y, flat, partials);
}

/** The newest tape still recording among the nodes of `xs` (older tapes' nodes are constants to it). */
function newestTape(xs: readonly (number | Dual)[]): Tape | undefined {
  let newest: Tape | undefined;
  for (const x of xs) if (x instanceof Dual && !x.tape.released && (newest === undefined || x.tape.serial > newest.serial)) newest = x.tape;
  return newest;
}

/**
 * The tangent of a function that runs taped, called from compiled code (J of the call): its
 * dual-number copy run once on the arguments carrying `tangents` (a missing element of a tangent
 * array is a zero, as compiled code's zero arrays are empty).
 */
export function tapedJvp(copy: Copy, args: readonly Structure[], tangents: readonly Structure[]): Structure {
  // An argument whose tangent is all zero (a size) stays a number: its arithmetic carries no tangent.
  const y = copy(...args.map((a, i) => (isZero(tangents[i]) ? asConstant(a) : dual(a, tangents[i]))));
  return compiledValue(tangent(y), y);
}

/**
 * The cotangents of the arguments of a function that runs taped, called from compiled code (T of
 * its tangent, the VJP of the call): its taped copy run once on a tape of its own, seeded with
 * `cotangent`, one backward pass. The tape's arrays serve the next tape once the cotangents are read.
 * Where `read` is given, only the arguments it flags are lifted and get a cotangent: the others
 * (an integer size) go in as they are, so nothing computed from them alone is recorded.
 */
export function tapedVjp(copy: Copy, args: readonly Structure[], cotangent: Structure, read?: readonly boolean[]): Structure[] {
  const tape = new Tape();
  const lifted = args.map((a, i) => (read && !read[i] ? asConstant(a) : lift(tape, a)));
  const y = copy(...lifted);
  const adjoint = tape.backward((a) => seedInto(a, y, cotangent, tape));
  const out: Structure[] = [];
  args.forEach((a, i) => {
    if (!read || read[i]) out.push(compiledValue(collect(adjoint, lifted[i], a), a));
  });
  tape.release();
  return out;
}

/** A tangent that is zero throughout: 0, or an array of zeros (compiled code's zero arrays are empty). */
function isZero(t: Structure): boolean {
  if (t === undefined || t === null) return true;
  if (typeof t === 'number') return t === 0;
  if (isArray(t)) {
    for (let k = 0; k < t.length; k++) if (!isZero(t[k])) return false;
    return true;
  }
  return false;
}

/**
 * An argument not lifted, as taped code holds arrays: a typed array becomes a plain one, into whose
 * copies (`a.slice()`) the copy may write taped numbers (a typed array would refuse them). The
 * callee does not write into its parameters (transformer/taped/callees.ts), so a copy loses nothing.
 */
function asConstant(x: Structure): Structure {
  return ArrayBuffer.isView(x) && !(x instanceof DataView) ? Array.from(x as unknown as ArrayLike<number>) : x;
}

/**
 * Forward over the VJP above (hvp and hessian of the compiled caller): the tangent of the
 * cotangents, H[ȳ]·ẋ + Jᵀ·ȳ˙, from the second-order copy run once on numbers carrying `tangents`
 * (one backward pass carrying tangents for the first term, one plain pass for the second).
 */
export function tapedHvp(copy: Copy, args: readonly Structure[], cotangent: Structure, tangents: readonly Structure[], cotangentTangent: Structure, read?: readonly boolean[]): Structure[] {
  const tape = new Tape(true);
  // Every argument carries its tangent (a size's tangent may still move the others' cotangents);
  // one with neither a cotangent read nor a tangent (a size, mostly) stays a number.
  const lifted = args.map((a, i) => (read && !read[i] && isZero(tangents[i]) ? asConstant(a) : liftWithTangent(tape, a, tangents[i])));
  const y = copy(...lifted);
  const [, adjointTangent] = tape.backwardWithTangents((a) => seedInto(a, y, cotangent, tape));
  const adjoint = tape.backward((a) => seedInto(a, y, cotangentTangent, tape));
  const out: Structure[] = [];
  args.forEach((a, i) => {
    if (!read || read[i]) out.push(compiledValue(add(collect(adjointTangent, lifted[i], a), collect(adjoint, lifted[i], a)), a));
  });
  return out;
}

/** A parameter with each number an input node carrying its tangent (a missing one is 0). */
function liftWithTangent(tape: Tape, x: Structure, t: Structure): Structure {
  if (typeof x === 'number') return tape.inputWithTangent(x, typeof t === 'number' ? t : 0);
  if (isArray(x)) return Array.from(x, (e, k) => liftWithTangent(tape, e, isArray(t) ? t[k] : undefined));
  return x;
}

/** Adds a cotangent to the adjoints of a result's nodes on `tape`; a missing number of it is 0. */
function seedInto(adjoint: Float64Array, y: Structure, cotangent: Structure, tape: Tape): void {
  if (y instanceof Dual) {
    if (y.tape === tape && typeof cotangent === 'number') adjoint[y.i] += cotangent;
    return;
  }
  if (isArray(y) && isArray(cotangent)) for (let k = 0; k < y.length && k < cotangent.length; k++) seedInto(adjoint, y[k], cotangent[k], tape);
}

function add(a: Structure, b: Structure): Structure {
  if (typeof a === 'number') return a + (b as number);
  if (isArray(a)) return Array.from(a, (e, k) => add(e, (b as ArrayLike<Structure>)[k]));
  return a;
}

/** A value for compiled code in the shape of `like`: numbers, and arrays of numbers as Float64Array. */
function compiledValue(x: Structure, like: Structure): Structure {
  if (typeof like === 'number' || like instanceof Dual || like instanceof Forward) return typeof x === 'number' ? x : 0;
  if (isArray(like)) {
    const n = like.length;
    const xs = isArray(x) ? x : [];
    const flat = Array.from({ length: n }, (_, k) => like[k]).every((e) => typeof e === 'number' || e instanceof Dual || e instanceof Forward);
    if (flat) return Float64Array.from({ length: n }, (_, k) => (typeof xs[k] === 'number' ? (xs[k] as number) : 0));
    return Array.from({ length: n }, (_, k) => compiledValue(xs[k], like[k]));
  }
  return x;
}

/**
 * A lifted parameter's input nodes where they were put, before the function runs: what it does to
 * the arrays and objects it is given (swaps, sorts in place) does not move a number's cotangent.
 */
export function inputsOf(lifted: Structure): Structure {
  if (lifted instanceof Dual) return lifted;
  if (Array.isArray(lifted)) return lifted.map(inputsOf);
  if (isPlainObject(lifted) || isInstance(lifted)) return Object.fromEntries(Object.entries(lifted).map(([k, v]) => [k, inputsOf(v)]));
  return lifted;
}
