// Second order of taped code (docs/frontend.md, "Taped mode"): `hvp` and `hessian` of a function
// that runs taped are forward over reverse. The taped copy runs once on numbers that carry a
// tangent along the caller's direction v (tape.ts's TangentDual), each operation records its
// partials and their tangents, and one backward pass carrying tangents gives H·v in the adjoints'
// tangents. A Hessian is one such run per differentiated number (its columns).
import { type Dual, Tape, collect, isPlainObject, refuseInstance, seed } from './tape';
import { inputsOf } from './tapedCalls';

type Structure = unknown;
/** The taped copy of the function (generated at build time). */
type Copy = (...args: Structure[]) => Structure;

/** The parameter with each of its numbers an input node carrying the tangent's number there. */
function liftWithTangent(tape: Tape, x: Structure, tangent: Structure): Structure {
  if (typeof x === 'number') return tape.inputWithTangent(x, tangent as number);
  if (ArrayBuffer.isView(x) || Array.isArray(x)) {
    const t = tangent as ArrayLike<Structure>;
    return Array.from(x as ArrayLike<Structure>, (e, k) => liftWithTangent(tape, e, t[k]));
  }
  if (isPlainObject(x)) return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, liftWithTangent(tape, v, (tangent as Record<string, Structure>)[k])]));
  refuseInstance(x);
  return x;
}

/** H·v for the parameters `wrt` of `copy` at `params`: one v (and result) per differentiated parameter. */
function hessianTimes(copy: Copy, params: readonly Structure[], wrt: readonly number[], v: readonly Structure[]): Structure[] {
  const tape = new Tape(true);
  const lifted = params.map((p, i) => (wrt.includes(i) ? liftWithTangent(tape, p, v[wrt.indexOf(i)]) : p));
  const inputs = lifted.map(inputsOf);
  const y = copy(...lifted) as number | Dual;
  const [, adjointTangent] = tape.backwardWithTangents((a) => seed(a, y, 1, tape));
  return wrt.map((i) => collect(adjointTangent, inputs[i], params[i]));
}

/** `hvp(f)(...params, v)`: v (and the result) has the gradient's shape, a tuple for several `wrt`. */
export function hvp(copy: Copy, params: readonly Structure[], wrt: readonly number[], v: Structure): Structure {
  if (wrt.length === 1) return hessianTimes(copy, params, wrt, [v])[0];
  return hessianTimes(copy, params, wrt, v as Structure[]);
}

/**
 * `hessian(f)(...params)`: for one `wrt` the matrix over its numbers in row-major order, for
 * several the blocks H[a][b] (rows: parameter a's numbers, columns: b's).
 */
export function hessian(copy: Copy, params: readonly Structure[], wrt: readonly number[]): number[][] | number[][][][] {
  const sizes = wrt.map((i) => countNumbers(params[i]));
  const blocks = wrt.map((_, a) => wrt.map((_, b) => Array.from({ length: sizes[a] }, () => new Array<number>(sizes[b]).fill(0))));
  wrt.forEach((_, b) => {
    for (let c = 0; c < sizes[b]; c++) {
      const direction = wrt.map((j, k) => unit(params[j], k === b ? c : -1));
      const column = hessianTimes(copy, params, wrt, direction);
      column.forEach((ha, a) => {
        flatten(ha).forEach((h, r) => {
          blocks[a][b][r][c] = h;
        });
      });
    }
  });
  return wrt.length === 1 ? blocks[0][0] : blocks;
}

/** How many numbers a parameter holds (in the order `flatten` and `unit` walk it). */
function countNumbers(x: Structure): number {
  if (typeof x === 'number') return 1;
  if (ArrayBuffer.isView(x) || Array.isArray(x)) return Array.from(x as ArrayLike<Structure>).reduce<number>((n, e) => n + countNumbers(e), 0);
  if (isPlainObject(x)) return Object.values(x).reduce<number>((n, e) => n + countNumbers(e), 0);
  return 0;
}

/** A tangent of `x`'s shape that is 1 at its `at`-th number and 0 elsewhere (all 0 for a negative `at`). */
function unit(x: Structure, at: number): Structure {
  let k = 0;
  const walk = (e: Structure): Structure => {
    if (typeof e === 'number') return k++ === at ? 1 : 0;
    if (ArrayBuffer.isView(e) || Array.isArray(e)) return Array.from(e as ArrayLike<Structure>, walk);
    if (isPlainObject(e)) return Object.fromEntries(Object.entries(e).map(([key, v]) => [key, walk(v)]));
    return undefined;
  };
  return walk(x);
}

function flatten(x: Structure): number[] {
  if (typeof x === 'number') return [x];
  if (ArrayBuffer.isView(x) || Array.isArray(x)) return Array.from(x as ArrayLike<Structure>).flatMap(flatten);
  if (isPlainObject(x)) return Object.values(x).flatMap(flatten);
  return [];
}
