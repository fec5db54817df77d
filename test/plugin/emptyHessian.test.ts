// The Hessian in an array parameter is built column by column, H·e_c for each c below the
// parameter's length; an empty parameter has no column, so no H·e_c ran, and with it none of the
// function's checks: hessian returned [] where valueAndGrad of the same call threw the RangeError
// of a read past the end (fuzz23-findings O3). JAX traces the function whatever the shapes, Swift
// runs it: a Hessian fails where the function does. One H·0 now runs where there is no column.
import { expectClose, load, partial } from './harness';

const source = `import { hessian, valueAndGrad } from 'tsad';
/** @differentiable */
export function lastRead(x: Float64Array, w: Float64Array, d: number): number {
  let s = 0;
  for (let r = 0; r < d; r++) s += x[r] * w[0];
  return s + x[x.length - 1] * x[0];
}
/** @differentiable */
export function first(x: Float64Array, w: Float64Array): number {
  return x[0] * w[0] + w[1] * w[1];
}
/** @differentiable */
export function refuses(x: number[], w: Float64Array): number {
  if (x.length === 0) throw new Error('refuses: no points');
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * x[i] * w[0];
  return s;
}
/** @differentiable */
export function sumSq(x: Float64Array, w: Float64Array): number {
  let s = w[0] * w[1];
  for (let i = 0; i < x.length; i++) s += x[i] * x[i] * w[1] + x[i] * w[0];
  return s;
}
export const lastH = hessian(lastRead);
export const lastHw = hessian(lastRead, { wrt: [1] });
export const lastVg = valueAndGrad(lastRead);
export const firstH = hessian(first);
export const firstVg = valueAndGrad(first);
export const refusesH = hessian(refuses);
export const refusesVg = valueAndGrad(refuses);
export const sumSqH = hessian(sumSq);
export const sumSqHw = hessian(sumSq, { wrt: [1] });
export const sumSqVg = valueAndGrad(sumSq, { wrt: [0, 1] });
`;

const m = load(source).exports;
const f64 = (xs: number[]) => Float64Array.from(xs);
const flat = (v: unknown): number[] => (typeof v === 'number' ? [v] : Array.from(v as ArrayLike<unknown>).flatMap(flat));

/** The message `thunk` throws, with the transform's name taken out. */
function failure(thunk: () => unknown): string {
  try {
    thunk();
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message.replace(/^\w+\(\w+\): /, '')}`;
  }
  return 'no error';
}

describe('hessian in an empty array parameter fails where valueAndGrad does', () => {
  test('a read past the end in a loop (the RangeError of valueAndGrad)', () => {
    const args = () => [f64([]), f64([1, 2]), 2] as const;
    const expected = failure(() => m.lastVg(...args()));
    expect(expected).toMatch(/^RangeError: in lastRead: .* past its end \(2 > 0\)$/);
    expect(failure(() => m.lastH(...args()))).toBe(expected);
    expect(failure(() => m.lastHw(...args()))).toBe(expected);
  });

  test('a read of x[0]', () => {
    const expected = failure(() => m.firstVg(f64([]), f64([1, 2])));
    expect(expected).toMatch(/^RangeError: in first: reads 'x\[0\]' past its end/);
    expect(failure(() => m.firstH(f64([]), f64([1, 2])))).toBe(expected);
  });

  test("the function's own throw", () => {
    expect(failure(() => m.refusesVg([], f64([1])))).toBe('Error: refuses: no points');
    expect(failure(() => m.refusesH([], f64([1])))).toBe('Error: refuses: no points');
  });

  test('a function defined at an empty array: an empty Hessian, and the columns as before elsewhere', () => {
    expect(m.sumSqH(f64([]), f64([1, 2]))).toEqual([]);
    expect(flat(m.sumSqHw(f64([]), f64([1, 2])))).toEqual([0, 1, 1, 0]);
    const x = [0.5, -1.5];
    const w = [0.7, 1.3];
    const gradX = (xs: number[], ws: number[]) => flat(m.sumSqVg(f64(xs), f64(ws))[1][0]);
    const hessian = [0, 1].flatMap((k) => partial(gradX, [x, w], 0, k));
    expectClose(flat(m.sumSqH(f64(x), f64(w))), hessian, 1e-5);
  });
});
