// A loop's trip count checked against an array's length (`atmost`: `for (r < d) … x[r]` throws a
// RangeError when d > x.length) must throw in the gradient too, wherever the check sits. gmm22c
// (bcd5ba4) let the linear half read a checked trip count's operand instead of the check's result
// (ConstructRule.passesOn); in a nested loop the forward loop then had no result left that anyone
// read, and it was removed with the check in it: the gradient returned finite, wrong numbers
// (x_bar written past its end and lost) where main threw (fuzz12-findings F3; the rule was taken
// back in 99af492). grad, hessian and the two-array shape lost the check; valueAndGrad and vjp kept it.
import { load } from './harness';

const functions = `
/** @differentiable */
export function nested(x: Float64Array, mu: Float64Array, d: number, k: number): number {
  let s = 0;
  for (let c = 0; c < k; c++) {
    for (let r = 0; r < d; r++) s += (x[r] - mu[c * d + r]) ** 2;
  }
  return s;
}
/** @differentiable */
export function bilinear(x: Float64Array, w: Float64Array, d: number, k: number): number {
  let s = 0;
  for (let c = 0; c < k; c++) {
    for (let r = 0; r < d; r++) s += x[r] * w[r] * c;
  }
  return s;
}
/** @differentiable */
export function single(x: Float64Array, d: number): number {
  let s = 0;
  for (let r = 0; r < d; r++) s += x[r] * x[r];
  return s;
}
`;

const f64 = (xs: number[]) => Float64Array.from(xs);
const pastEnd = /past its end/;

// Each transform in its own module: a valueAndGrad of the same function would give grad its def,
// whose forward loop computes the value and so keeps the check.
describe('a checked trip count past an array\u2019s end throws in the gradient', () => {
  const grads = load(
    `import { grad, hessian } from 'tsad';\n${functions}\nexport const hBilinear = hessian(bilinear, { wrt: [0] });\nexport const gNested = grad(nested, { wrt: [0, 1] });\nexport const gSingle = grad(single);\nexport const gBilinear = grad(bilinear, { wrt: [0, 1] });\n`,
  ).exports;
  const values = load(
    `import { valueAndGrad, vjp } from 'tsad';\n${functions}\nexport const vgNested = valueAndGrad(nested, { wrt: [0, 1] });\nexport const vjNested = (x: Float64Array, mu: Float64Array, d: number, k: number) => vjp(nested, x, mu, d, k)[1](1);\n`,
  ).exports;
  const x = f64([1, 2]);
  const mu = f64([0.5, 0.25, 1, 3]);

  test('in range: the gradients are the squares\u2019 derivatives', () => {
    const [gx, gmu] = grads.gNested(x, mu, 2, 2);
    expect(Array.from(gx)).toEqual([2 * (1 - 0.5) + 2 * (1 - 1), 2 * (2 - 0.25) + 2 * (2 - 3)]);
    expect(Array.from(gmu, (v: number) => v + 0)).toEqual([-2 * (1 - 0.5), -2 * (2 - 0.25), 0, -2 * (2 - 3)]);
    expect(values.vgNested(x, mu, 2, 2)[0]).toBe(0.25 + 1.75 ** 2 + 0 + 1);
  });

  test('one loop: d past x\u2019s end throws', () => expect(() => grads.gSingle(x, 3)).toThrow(pastEnd));

  test('a loop in a loop, valueAndGrad and vjp: d past x\u2019s end throws', () => {
    expect(() => values.vgNested(x, mu, 3, 1)).toThrow(pastEnd);
    expect(() => values.vjNested(x, mu, 3, 1)).toThrow(pastEnd);
  });

  test('a loop in a loop, grad: d past x\u2019s end throws (it returned [[1, 3.5], [-1, -3.5, NaN, 0]])', () => {
    expect(() => grads.gNested(x, mu, 3, 1)).toThrow(pastEnd);
  });

  test('a loop in a loop reading two arrays, grad: d past either end throws (it returned [[3, 6], [3, 6, NaN]] and [[3, NaN], [3]])', () => {
    expect(() => grads.gBilinear(x, f64([1, 2, 3]), 3, 3)).toThrow(pastEnd);
    expect(() => grads.gBilinear(x, f64([1]), 2, 3)).toThrow(pastEnd);
  });

  test('a loop in a loop, hessian: d past x\u2019s end throws (it returned [[NaN, 6], [NaN, 0]])', () => {
    expect(() => grads.hBilinear(x, f64([1, 2, 3]), 3, 3)).toThrow(pastEnd);
  });
});
