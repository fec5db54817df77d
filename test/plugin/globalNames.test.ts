// Emitted code reads JavaScript's globals by name: a wrapper's argument check calls
// `Array.isArray`, a def makes `new Float64Array(n)`, the owned-array bookkeeping `new Set()`, a
// length `Math.max(…)`, a gather's check `instanceof Int32Array`, a read check
// `throw new RangeError(…)`. A user's parameter or local named after one of them used to shadow it
// in the emitted code, and every wrapper or def failed (`Array.isArray is not a function`;
// fuzz23-findings P6). The front end now names such a variable apart (ir/names.ts JS_GLOBALS).
// Every transform of functions with such names is checked against central differences of the
// source run as plain JavaScript, and the messages still use the source's names.
import { expectClose, load, partial, runPlain } from './harness';

const source = `import { grad, valueAndGrad, hessian, hvp, vjp, jvp, linearize, jacobian, jacfwd, jacrev, differentiable } from 'tsad';
/** @differentiable */
export function f1(x: Float64Array, Array: number, Set: number): number {
  const Float64Array = x.map((v) => v * Array);
  let Math = 0;
  for (let i = 0; i < x.length; i++) Math += Float64Array[i] * Float64Array[i] * Set + x[i] * Set * x[i];
  return Math;
}
/** @differentiable */
export function f2(x: Float64Array, Int32Array: Int32Array, RangeError: number): number {
  let Number = 0;
  for (let i = 0; i < Int32Array.length; i++) Number += x[Int32Array[i]] * x[Int32Array[i]] * RangeError;
  const Object = Number * RangeError;
  return Object + x[0];
}
/** @differentiable */
export function g(a: number, b: number, Math: number): [number, number, number] {
  const Array = a * Math;
  const Float32Array = b * b;
  return [Array * Float32Array, Array + Math, Float32Array * Math];
}
/** @differentiable */
export function g2(x: number[], Math: number): number[] {
  const Array = x.map((v) => v * Math);
  const Float32Array = x[1] * x[1];
  return [Array[0] * Float32Array, Array[1] + Math, Float32Array * Math];
}
/** @differentiable */
export function w(x: Float64Array, Set: number): number {
  const Array: number[] = [];
  let i = 0;
  let Int32Array = 0;
  while (i < x.length) {
    if (x[i] > 0) Array.push(x[i] * Set);
    Int32Array += x[i];
    i++;
  }
  let s = Int32Array * Set;
  for (let k = Array.length - 1; k >= 0; k--) s = s * 0.5 + Array[k] * Array[k];
  return s;
}
/** @differentiable */
export function cb(x: number[], Map: number): number {
  return x.map((Math) => Math * Math * Map).reduce((Array, v) => Array + v * v, 0);
}
export const arrow = differentiable((x: Float64Array, Set: number): number => x[0] * x[1] * Set + x[1] * Set * Set);
/** @differentiable */
function helper(Float64Array: number, Array: number): number {
  let s = 0;
  for (let i = 0; i < 3; i++) s += Float64Array * Array + s * s * 0.1;
  return s;
}
/** @differentiable */
export function calls(x: Float64Array, Math: number): number {
  return helper(x[0], Math) * helper(x[1], x[0]) + helper(Math, x[1]);
}
/** @differentiable */
export function rec(x: Float64Array, Set: number, n: number): number {
  let Math = 0;
  for (let i = 0; i < x.length; i++) Math += x[i] * x[i] * Set * Set;
  return n <= 0 ? Math : rec(x, Set * 0.5, n - 1) + Math;
}
export const f1g = grad(f1, { wrt: [0, 1, 2] });
export const f1vg = valueAndGrad(f1, { wrt: [0, 1, 2] });
export const f1h = hessian(f1);
export const f1hs = hessian(f1, { wrt: [1, 2] });
export const f1hvp = hvp(f1);
export const f1vjp = (x: Float64Array, a: number, s: number) => vjp(f1, x, a, s)[1](1);
export const f2g = grad(f2, { wrt: [0, 2] });
export const f2vg = valueAndGrad(f2, { wrt: [0, 2] });
export const f2h = hessian(f2);
export const gjac = jacobian(g, { wrt: [0, 1, 2] });
export const gfwd = jacfwd(g, { wrt: [0, 1, 2] });
export const grev = jacrev(g, { wrt: [0, 1, 2] });
export const gflat = jacobian(g, { flat: true, wrt: [0, 1, 2] });
export const gjvp = (a: number, b: number, m: number, da: number, db: number, dm: number) => jvp(g, [a, b, m], [da, db, dm]);
export const glin = (a: number, b: number, m: number, da: number, db: number, dm: number) => linearize(g, a, b, m)[1](da, db, dm);
export const gvjp = (a: number, b: number, m: number, y: [number, number, number]) => vjp(g, a, b, m)[1](y);
export const g2jac = jacobian(g2, { wrt: [0, 1] });
export const g2fwd = jacfwd(g2, { wrt: [0, 1] });
export const g2rev = jacrev(g2, { wrt: [0, 1] });
export const g2jvp = (x: number[], m: number, dx: number[], dm: number) => jvp(g2, [x, m], [dx, dm]);
export const g2lin = (x: number[], m: number, dx: number[], dm: number) => linearize(g2, x, m)[1](dx, dm);
export const g2vjp = (x: number[], m: number, y: number[]) => vjp(g2, x, m)[1](y);
export const wg = grad(w, { wrt: [0, 1] });
export const wh = hessian(w);
export const cbg = grad(cb, { wrt: [0, 1] });
export const cbh = hessian(cb);
export const ag = grad(arrow, { wrt: [0, 1] });
export const ah = hessian(arrow);
export const callsg = grad(calls, { wrt: [0, 1] });
export const callsh = hessian(calls);
export const recg = grad(rec, { wrt: [0, 1] });
export const rech = hessian(rec);
`;

type Num = number | Num[];
const flat = (v: unknown): number[] => (typeof v === 'number' ? [v] : Array.from(v as ArrayLike<unknown>).flatMap(flat));
const f64 = (xs: number[]) => Float64Array.from(xs);

const compiled = load(source);
const m = compiled.exports;
const plain = runPlain(
  source.replace(
    /^import .*$/m,
    'const id = (f) => f, grad = id, valueAndGrad = id, hessian = id, hvp = id, vjp = id, jvp = id, linearize = id, jacobian = id, jacfwd = id, jacrev = id, differentiable = id;',
  ),
);

/** Central differences of f in each leaf of the arguments listed (the leaves of an array argument in order). */
function fd(f: (...a: any[]) => Num, at: Num[], wrt: readonly number[]): number[] {
  return wrt.flatMap((i) => Array.from({ length: flat(at[i]).length }, (_, k) => partial(f as never, at as never, i, k)).flat());
}

describe("a user's parameters and locals named after JavaScript's globals", () => {
  test('compiles without diagnostics', () => {
    expect(compiled.result.diagnostics.filter((d) => d.category === 1)).toEqual([]);
  });

  test('Array, Set, Float64Array, Math: grad, valueAndGrad, vjp, hessian, hvp', () => {
    const at: Num[] = [[0.3, -1.2, 0.7], 1.5, 0.8];
    const args = () => [f64(at[0] as number[]), at[1], at[2]];
    const expected = fd(plain.f1, at, [0, 1, 2]);
    expectClose(flat(m.f1g(...args())), expected, 1e-6);
    const [value, gradient] = m.f1vg(...args());
    expect(value).toBe(plain.f1(...args()));
    expectClose(flat(gradient), expected, 1e-6);
    expectClose(flat(m.f1vjp(...args())), expected, 1e-6);
    // Hessians: central differences of the gradient's part in x (leaves 0–2) or in Array and Set (3–4).
    const gradPart = (from: number, to: number) => (x: number[], a: number, s: number) => flat(m.f1g(f64(x), a, s)).slice(from, to);
    const hx = fd(gradPart(0, 3), at, [0]);
    expectClose(flat(m.f1h(...args())), hx, 1e-5);
    expectClose(flat(m.f1hs(...args())), fd(gradPart(3, 5), at, [1, 2]), 1e-5);
    const v = [0.5, -0.25, 1];
    expectClose(
      flat(m.f1hvp(...args(), f64(v))),
      [0, 1, 2].map((r) => v.reduce((s, vk, k) => s + hx[k * 3 + r] * vk, 0)),
      1e-5,
    );
  });

  test('Int32Array, RangeError, Number, Object: a gather by an index parameter, its read checks', () => {
    const at: Num[] = [[0.3, -1.2, 0.7], [0, 2, 2, 1], 1.7];
    const args = () => [f64(at[0] as number[]), Int32Array.from(at[1] as number[]), at[2]];
    const expected = fd(plain.f2, at, [0, 2]);
    expectClose(flat(m.f2g(...args())), expected, 1e-6);
    expectClose(flat(m.f2vg(...args())[1]), expected, 1e-6);
    expectClose(
      flat(m.f2h(...args())),
      fd((x: number[], i: number[], r: number) => flat(m.f2g(f64(x), Int32Array.from(i), r)).slice(0, 3), at, [0]),
      1e-5,
    );
    // The read check's RangeError is still JavaScript's.
    expect(() => m.f2g(f64([1, 2]), Int32Array.from([0, 5]), 1)).toThrow(RangeError);
  });

  test('numbers named Math, Array, Float32Array: jacobian, jacfwd, jacrev, flat, jvp, linearize, vjp', () => {
    const at = [0.4, 1.3, 0.6];
    // cols[c]: the derivative of the three results in argument c.
    const cols = [0, 1, 2].map((c) => partial(plain.g, at, c, 0));
    const rows = [0, 1, 2].map((r) => cols.map((col) => col[r]));
    // One entry per parameter in wrt, each the derivative of every result; the flat form row by row.
    for (const j of [m.gjac, m.gfwd, m.grev]) expectClose(flat(j(...at)), cols.flat(), 1e-6);
    expectClose(Array.from(m.gflat(...at).data as Float64Array), rows.flat(), 1e-6);
    const dir = [1, 0.5, 0.25];
    const along = rows.map((row) => row.reduce((s, x, c) => s + x * dir[c], 0));
    const [value, tangent] = m.gjvp(...at, ...dir);
    expect(value).toEqual(plain.g(...at));
    expectClose(flat(tangent), along, 1e-6);
    expectClose(flat(m.glin(...at, ...dir)), along, 1e-6);
    const y = [1, 2, 3];
    expectClose(
      flat(m.gvjp(...at, y)),
      [0, 1, 2].map((c) => rows.reduce((s, row, r) => s + row[c] * y[r], 0)),
      1e-6,
    );
  });

  test('an array parameter beside Math, a local Array: jacobian, jacfwd, jacrev, jvp, linearize, vjp', () => {
    const at: Num[] = [[0.4, 1.3], 0.6];
    // d[c]: the derivative of the three results in leaf c (x[0], x[1], Math).
    const d = [partial(plain.g2, at, 0, 0), partial(plain.g2, at, 0, 1), partial(plain.g2, at, 1, 0)];
    // Per parameter in wrt, per result, the parameter's leaves.
    const expected = [[0, 1, 2].map((r) => [d[0][r], d[1][r]]), [0, 1, 2].map((r) => [d[2][r]])].flat(2);
    for (const j of [m.g2jac, m.g2fwd, m.g2rev]) expectClose(flat(j(...at)), expected, 1e-6);
    const dir = [1, 0.5, 0.25];
    const along = [0, 1, 2].map((r) => d.reduce((s, col, c) => s + col[r] * dir[c], 0));
    expectClose(flat(m.g2jvp(...at, [1, 0.5], 0.25)[1]), along, 1e-6);
    expectClose(flat(m.g2lin(...at, [1, 0.5], 0.25)), along, 1e-6);
    const y = [1, 2, 3];
    expectClose(
      flat(m.g2vjp(...at, y)),
      d.map((col) => col.reduce((s, x, r) => s + x * y[r], 0)),
      1e-6,
    );
  });

  test('a local Array pushed in a while loop, Int32Array and Set: grad and hessian', () => {
    const at: Num[] = [[0.3, -1.2, 0.7, 0.2], 1.1];
    const args = () => [f64(at[0] as number[]), at[1]];
    expectClose(flat(m.wg(...args())), fd(plain.w, at, [0, 1]), 1e-6);
    expectClose(
      flat(m.wh(...args())),
      fd((x: number[], s: number) => flat(m.wg(f64(x), s)).slice(0, 4), at, [0]),
      1e-5,
    );
  });

  test('callback parameters Math and Array, a parameter Map', () => {
    const at: Num[] = [[0.4, 1.3, -0.2], 0.6];
    expectClose(flat(m.cbg(...at)), fd(plain.cb, at, [0, 1]), 1e-6);
    expectClose(
      flat(m.cbh(...at)),
      fd((x: number[], s: number) => flat(m.cbg(x, s)).slice(0, 3), at, [0]),
      1e-5,
    );
  });

  test('a differentiable arrow with a parameter Set, a helper that stays a call with parameters Float64Array and Array', () => {
    const at: Num[] = [[0.4, 1.3], 0.6];
    const args = () => [f64(at[0] as number[]), at[1]];
    expectClose(flat(m.ag(...args())), fd(plain.arrow, at, [0, 1]), 1e-6);
    expectClose(
      flat(m.ah(...args())),
      fd((x: number[], s: number) => flat(m.ag(f64(x), s)).slice(0, 2), at, [0]),
      1e-5,
    );
    expectClose(flat(m.callsg(...args())), fd(plain.calls, at, [0, 1]), 1e-6);
    expectClose(
      flat(m.callsh(...args())),
      fd((x: number[], s: number) => flat(m.callsg(f64(x), s)).slice(0, 2), at, [0]),
      1e-5,
    );
    expect(compiled.result.outputText).toMatch(/helper\$\w+\(/);
  });

  test('taped mode: a recursive function with a parameter Set and a local Math', () => {
    const at: Num[] = [[0.3, -1.2, 0.7], 0.8, 2];
    const args = () => [f64(at[0] as number[]), at[1], at[2]];
    expectClose(flat(m.recg(...args())), fd(plain.rec, at, [0, 1]), 1e-6);
    expectClose(
      flat(m.rech(...args())),
      fd((x: number[], s: number, n: number) => flat(m.recg(f64(x), s, n)).slice(0, 3), at, [0]),
      1e-5,
    );
  });

  test('messages name the parameter as the source does, not as the emitted code does', () => {
    expect(() => m.f1g(f64([1, 2]), 'a', 1)).toThrow("grad(f1): argument 2 'Array' must be a number, got string");
    expect(() => m.f1hvp(f64([1, 2]), 1, 'a', f64([1, 1]))).toThrow("hvp(f1): argument 3 'Set' must be a number, got string");
    expect(() => m.gjvp(0.4, 1.3, 'm', 1, 1, 1)).toThrow("jvp(g): primals[2] 'Math' must be a number, got string");
    expect(() => m.gjvp(0.4, 1.3, 0.6, 1, 1, 'd')).toThrow("jvp(g): tangents[2] 'Math' must be a number, got string");
    expect(() => m.glin(0.4, 1.3, 0.6, 1, 1, 'd')).toThrow("linearize(g)'s linear function: argument 3 'Math' must be a number, got string");
  });
});
