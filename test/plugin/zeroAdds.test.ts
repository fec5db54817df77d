// The Hessian of `z[r] * z[r] * c + z[r] * (c + k)` in z: T adds c's zero tangent into z̄̇[r]
// beside the two terms of z[r]·z[r], an add of +0 that the emitted code kept
// (`z_bar_dot[r] = z_bar_dot[r] + 0 + t + t`). z̄̇ starts as +0s and is only added to, so it never
// holds −0 and the add changes no bit: opt/zeroAdds.ts drops it. The Hessian and hvp still agree
// with central differences of the gradient.
import { compile, expectClose, loadOutput, partial } from './harness';

const source = `import { grad, hessian, hvp } from 'tsad';
/** @differentiable */
export function sq(z: Float64Array, c: number): number {
  let s = 0;
  for (let k = 0; k < 3; k++) for (let r = 0; r < z.length; r++) s += z[r] * z[r] * c + z[r] * (c + k);
  return s;
}
/** @differentiable */
export function cube(z: number[], c: number): number {
  let s = 0;
  for (let r = 0; r < z.length; r++) s += z[r] * z[r] * z[r] * c + z[r] * c;
  return s;
}
export const sqG = grad(sq);
export const sqH = hessian(sq);
export const sqHvp = hvp(sq);
export const cubeG = grad(cube);
export const cubeH = hessian(cube);
`;

const f64 = (xs: number[]) => Float64Array.from(xs);
const flat = (v: unknown): number[] => (typeof v === 'number' ? [v] : Array.from(v as ArrayLike<unknown>).flatMap(flat));

describe('no add of +0 into an accumulator that starts as +0s', () => {
  const result = compile(source);
  const m = loadOutput(result);

  test('the emitted Hessian-vector products add only the terms', () => {
    expect(result.outputText).not.toMatch(/\[r\] \+ 0\b/);
    expect(result.outputText).not.toMatch(/\+= 0;/);
  });

  test('the Hessians agree with central differences of the gradient', () => {
    const z = [0.5, -1.25, 2];
    const hessianOf = (g: (z: any, c: number) => unknown, wrap: (x: number[]) => unknown) => [0, 1, 2].flatMap((k) => partial((x: number[]) => flat(g(wrap(x), 0.75)), [z], 0, k));
    const expected = hessianOf(m.sqG, f64);
    expectClose(flat(m.sqH(f64(z), 0.75)), expected, 1e-5);
    const v = [1, -2, 0.5];
    expectClose(
      flat(m.sqHvp(f64(z), 0.75, f64(v))),
      [0, 1, 2].map((r) => v.reduce((s, vk, k) => s + expected[k * 3 + r] * vk, 0)),
      1e-5,
    );
    expectClose(
      flat(m.cubeH(z, 0.75)),
      hessianOf(m.cubeG, (x) => x),
      1e-5,
    );
  });

  test('signed zeros: a zero direction gives +0 columns, as z̄̇ starts', () => {
    for (const x of flat(m.sqHvp(f64([-0, 0, 1]), 0.75, f64([0, 0, 0])))) expect(Object.is(x, 0)).toBe(true);
    for (const x of flat(m.sqHvp(f64([-0, 0, 1]), -0, f64([-0, -0, -0])))) expect(Object.is(x, 0)).toBe(true);
  });
});
