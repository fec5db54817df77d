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

const { exports: n, result: second } = load(`import { grad, valueAndGrad, jvp, hvp, hessian, jacobian } from 'tsad';
/** @differentiable */
export function g(x: number, y: number): number { return Math.sin(x * y) + x * x * Math.exp(y); }
export const hvpJvp = (x: number, y: number, vx: number, vy: number) => jvp(grad(g, { wrt: [0, 1] }), [x, y], [vx, vy]);
export const jacOfGrad = jacobian(grad(g, { wrt: [0, 1] }));
export const H = hessian(g, { wrt: [0, 1] });

/** @differentiable */
export function cube(x: number): number { return x * x * x * x; }
export const third = hessian(grad(cube));

/** @differentiable */
export function inner(a: number, b: number): number { return a * a * b + Math.cos(a); }
/** @differentiable */
export function outer(a: number, b: number): number {
  const [v, da] = valueAndGrad(inner)(a, b);
  return grad(inner)(a * b, b) * da + v + hvp(inner)(a, b, 1) * jvp(inner, [a, b], [0, 1])[1];
}
export const dOuter = grad(outer, { wrt: [0, 1] });
export const dInner = grad(inner);

/** @differentiable */
export function branchy(x: number): number {
  if (x > 0) return x * x * x;
  return Math.sin(x);
}
/** @differentiable */
export function loops(x: number, n: number): number {
  let s = 0;
  for (let i = 0; i < 3; i++) s = s + x * i;
  return s * x;
}
export const dBranchy = grad(grad(branchy));
/** @differentiable */
export function usesLoop(x: number): number { return grad(loops)(x, 3) * x; }
export const usesLoopValue = (x: number) => usesLoop(x);
`);

test('second module compiles', () => expect(second.diagnostics).toEqual([]));

function gHessian(x: number, y: number): number[][] {
  const [s, c, e] = [Math.sin(x * y), Math.cos(x * y), Math.exp(y)];
  return [
    [-y * y * s + 2 * e, c - x * y * s + 2 * x * e],
    [c - x * y * s + 2 * x * e, -x * x * s + x * x * e],
  ];
}

test('jvp(grad(g)) is the Hessian times the direction; jacobian(grad(g)) is its first column', () => {
  const [x, y, vx, vy] = [0.6, -0.8, 1.5, -0.25];
  const ref = gHessian(x, y);
  const [value, tangent] = n.hvpJvp(x, y, vx, vy);
  expectClose(value, [y * Math.cos(x * y) + 2 * x * Math.exp(y), x * Math.cos(x * y) + x * x * Math.exp(y)], 1e-12);
  expectClose(tangent, [ref[0][0] * vx + ref[0][1] * vy, ref[1][0] * vx + ref[1][1] * vy], 1e-12);
  // jacobian differentiates with respect to x (the first parameter): the Hessian's first column.
  expectClose(n.jacOfGrad(x, y).flat(), [ref[0][0], ref[1][0]], 1e-12);
  expectClose(n.H(x, y).flat(), ref.flat(), 1e-12);
});

test('hessian(grad(f)) is the third derivative', () => {
  expect(n.third(1.3)).toEqual([[expect.closeTo(24 * 1.3, 12)]]);
});

test('grad of a function that calls grad, valueAndGrad, hvp and jvp of another matches finite differences', () => {
  for (const at of [[0.7, 1.2], [-0.4, 0.3]]) {
    const ours = n.dOuter(...at);
    expectClose(ours, [0, 1].map((i) => partial(n.outer, at, i, 0)[0]), 1e-6);
  }
  // The inner derivatives as the outer function uses them, against the compiled first derivative.
  const [a, b] = [0.7, 1.2];
  const da = 2 * a * b - Math.sin(a);
  const v = a * a * b + Math.cos(a);
  const expected = n.dInner(a * b, b) * da + v + (2 * b - Math.cos(a)) * a * a;
  expect(n.outer(a, b)).toBeCloseTo(expected, 12);
});

test('nested transforms through a branch and through a loop differentiated once', () => {
  for (const x of [-0.9, 0.8]) {
    expect(n.dBranchy(x)).toBeCloseTo(x > 0 ? 6 * x : -Math.sin(x), 12);
    // usesLoop(x) = x · d/dx(3x²) = 6x², so its derivative is 12x.
    expect(n.usesLoopValue(x)).toBeCloseTo(6 * x * x, 12);
  }
});
