// Code that loop-invariant motion moves out of a loop or a map runs once before it, also where
// the loop runs zero times; JavaScript never runs it then. Its value is never read, but reverse
// mode multiplied the zero cotangent of the empty loop by its partial: at y = 0 with an empty
// array, `a.map((t) => t * Math.log(y))` had the gradient 0 · (1/0) = NaN where it is 0 (fuzzer,
// issue 18). Hoisted code that computes now runs under the loop's `n > 0`
// (constructs/cond/tripGuard.ts). References: the function is constant in y where the array is
// empty (gradient 0 exactly); elsewhere central finite differences.
import { expectClose, load, partial } from './harness';

const { exports: m, result } = load(`import { grad, jvp, vjp, hessian, valueAndGrad } from 'tsad';

/** @differentiable */
export function mapped(y: number, a: number[]): number {
  return a.map((t) => t * Math.log(y)).reduce((s, v) => s + v, 0);
}
/** @differentiable */
export function forOf(y: number, a: number[]): number {
  let s = 0;
  for (const t of a) s += t * Math.log(y);
  return s;
}
/** @differentiable */
export function counted(y: number, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sqrt(y) * i + 1 / y;
  return s;
}
/** @differentiable */
export function folded(y: number, a: Float64Array): number {
  return a.reduce((acc, t) => acc * 0.5 + t / y, 0);
}

export const gMapped = grad(mapped, { wrt: [0, 1] });
export const gForOf = grad(forOf, { wrt: [0, 1] });
export const gCounted = grad(counted);
export const gFolded = grad(folded, { wrt: [0, 1] });
export const vgMapped = valueAndGrad(mapped);
export const tMapped = (y: number, a: number[], dy: number, da: number[]) => jvp(mapped, [y, a], [dy, da]);
export const pForOf = (y: number, a: number[], ct: number) => vjp(forOf, y, a)[1](ct);
export const hForOf = hessian(forOf);
export const hCounted = hessian(counted);
`);

describe('an empty loop or map never puts a NaN of code it does not run into a derivative', () => {
  test('at y = 0 with an empty array every mode gives the exact 0', () => {
    expect(m.gMapped(0, [])).toEqual([0, []]);
    expect(m.gForOf(0, [])).toEqual([0, []]);
    expect(m.gCounted(0, 0)).toBe(0);
    const [gy, ga] = m.gFolded(0, new Float64Array(0));
    expect([gy, Array.from(ga)]).toEqual([0, []]);
    expect(m.vgMapped(0, [])).toEqual([0, 0]);
    expect(m.tMapped(0, [], 1, [])).toEqual([0, 0]);
    expect(m.pForOf(0, [], 1)).toEqual([0, []]);
    expect(m.hForOf(0, [])).toEqual([[0]]);
    expect(m.hCounted(0, 0)).toEqual([[0]]);
  });

  test('where the loop runs, the guarded code still gives the derivative (central differences)', () => {
    const a = [0.5, -1.25, 2];
    const [gy, ga] = m.gMapped(1.7, a);
    expectClose([gy], partial(m.mapped, [1.7, a], 0, 0), 1e-7);
    expectClose(
      ga,
      a.map((_, k) => partial(m.mapped, [1.7, a], 1, k)[0]),
      1e-7,
    );
    expectClose([m.gForOf(1.7, a)[0]], partial(m.forOf, [1.7, a], 0, 0), 1e-7);
    expectClose([m.gCounted(2.3, 4)], partial(m.counted, [2.3, 4], 0, 0), 1e-7);
    const b = [0.3, 1.1, -0.7];
    expectClose([m.gFolded(0.9, Float64Array.from(b))[0]], partial(m.folded, [0.9, b], 0, 0), 1e-7);
    expectClose(m.hCounted(2.3, 4)[0], partial(m.gCounted, [2.3, 4], 0, 0), 1e-6);
  });

  test('at y = 0 with a non-empty array the function computes log(0): the IEEE rule, not a guard', () => {
    expect(m.gMapped(0, [1])[0]).toBe(Infinity);
  });

  test('the hoisted code runs under the loop test in the emitted derivative', () => {
    expect(result.outputText).toMatch(/const nonEmpty\w* = n\w* > 0;/);
  });
});

describe('a matrix read by code the trip guard holds', () => {
  // matrixProperties found it: m's cotangent from the guarded code ([data, rows, cols]) met
  // another one, and the emitted tuple addition added the data arrays with `+` (strings).
  const { exports: e } = load(`import { vjp, matmul } from 'tsad';
/** @differentiable */
export function f(m: number[][], c: number): number[][] {
  const B = Array.from({ length: 2 }, (_, i) => Float64Array.from({ length: m.length }, (_, j) => c * (i + 1) - j));
  return matmul(B, m).map((row) => row.map((x) => x * x));
}
export const p = (m: number[][], c: number) => vjp(f, m, c);
`);

  test('its cotangent is a matrix of numbers equal to central differences of Σ f', () => {
    const m = [
      [0.5, -1, 2],
      [1.5, 0.25, -0.75],
    ];
    const c = 0.8;
    const [, pullback] = e.p(m, c);
    const [mBar, cBar] = pullback([
      [1, 1, 1],
      [1, 1, 1],
    ]);
    const total = (mm: number[][], cc: number) => (e.f(mm, cc) as number[][]).flat().reduce((s: number, v: number) => s + v, 0);
    const h = 1e-6;
    m.forEach((row, i) =>
      row.forEach((_, j) => {
        const at = (d: number) =>
          total(
            m.map((r, a) => r.map((v, b) => (a === i && b === j ? v + d : v))),
            c,
          );
        expect(typeof mBar[i][j]).toBe('number');
        expect(mBar[i][j]).toBeCloseTo((at(h) - at(-h)) / (2 * h), 5);
      }),
    );
    expect(cBar).toBeCloseTo((total(m, c + h) - total(m, c - h)) / (2 * h), 5);
  });
});
