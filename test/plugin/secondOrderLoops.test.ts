// Second derivatives through loops from TypeScript source: hessian and hvp (forward over
// reverse) of functions with a `for`, a `while`, a `do … while` and a loop with a branch inside,
// against closed forms and central finite differences of the compiled gradient.
import { load, expectClose } from './harness';

const { exports: m, result } = load(`import { grad, hessian, hvp } from 'tsad';
/** @differentiable */
export function squarings(x: number): number {
  let y = x;
  for (let i = 0; i < 3; i++) {
    y = y * y;
  }
  return y;
}

/** @differentiable */
export function power(x: number, n: number): number {
  let p = 1;
  for (let i = 0; i < n; i++) p *= x;
  return p;
}

/** @differentiable */
export function newton(a: number): number {
  let x = a;
  while (Math.abs(x * x - a) >= 1e-12) {
    x = (x + a / x) / 2;
  }
  return x;
}

/** @differentiable */
export function halving(x: number, y: number): number {
  let s = x;
  let k = 0;
  do {
    s = s * y + Math.sin(s);
    k = k + 1;
  } while (k < 4);
  return s;
}

/** @differentiable */
export function branchy(x: number, y: number): number {
  let acc = 0;
  let u = x;
  for (let i = 0; i < 5; i++) {
    if (u > 1) {
      u = u * y - 0.5;
    } else {
      u = u * u + y;
    }
    acc = acc + u * x;
  }
  return acc;
}

/** @differentiable */
export function viaCall(x: number): number {
  return power(x, 3) + x;
}

export const dSquarings = grad(squarings);
export const hSquarings = hessian(squarings);
export const hvSquarings = hvp(squarings);
export const dPower = grad(power, { wrt: [0] });
export const hPower = hessian(power, { wrt: [0] });
export const dNewton = grad(newton);
export const hNewton = hessian(newton);
export const hvNewton = hvp(newton);
export const dHalving = grad(halving, { wrt: [0, 1] });
export const hHalving = hessian(halving, { wrt: [0, 1] });
export const hvHalving = hvp(halving, { wrt: [0, 1] });
export const dBranchy = grad(branchy, { wrt: [0, 1] });
export const hBranchy = hessian(branchy, { wrt: [0, 1] });
export const hvBranchy = hvp(branchy, { wrt: [0, 1] });
export const hvViaCall = hvp(viaCall);
`);

/** Central differences of a compiled gradient (an array of partials, or one number): the Hessian's columns. */
function hessianByDifferences(g: (...a: number[]) => number | number[], at: number[], h = 1e-5): number[][] {
  const grad = (x: number[]) => {
    const r = g(...x);
    return Array.isArray(r) ? r : [r];
  };
  return at.map((_, j) => {
    const plus = grad(at.map((v, k) => (k === j ? v + h : v)));
    const minus = grad(at.map((v, k) => (k === j ? v - h : v)));
    return plus.map((p, i) => (p - minus[i]) / (2 * h));
  });
}

const flat = (h: number[][]): number[] => h.flat();
/** hessian(f) of one scalar parameter is the 1×1 matrix [[h]]. */
const scalar = (h: number[][]): number => h[0][0];
/** hessian(f, { wrt: [0, 1] }) of scalar parameters: a 2×2 matrix of 1×1 blocks. */
const matrix = (h: number[][][][]): number[][] => h.map((row) => row.map((b) => b[0][0]));

test('compiles without diagnostics (TSAD1007 is retired)', () => expect(result.diagnostics).toEqual([]));

test('for loop: repeated squaring, d²/dx² x⁸ = 56 x⁶', () => {
  const x = 1.5;
  expect(scalar(m.hSquarings(x))).toBeCloseTo(56 * x ** 6, 9);
  expect(m.hvSquarings(x, 2)).toBeCloseTo(2 * 56 * x ** 6, 9);
  expectClose(flat(m.hSquarings(x)), flat(hessianByDifferences(m.dSquarings, [x])), 1e-6);
});

test('for loop with a run-time trip count: d²/dx² xⁿ = n(n−1)xⁿ⁻²', () => {
  for (const n of [0, 1, 2, 5]) expect(scalar(m.hPower(1.3, n))).toBeCloseTo(n * (n - 1) * 1.3 ** (n - 2), 9);
  expect(m.hvViaCall(0.8, 3)).toBeCloseTo(3 * 6 * 0.8, 9);
});

test('while loop: Newton square root, d²/da² √a = −1/(4 a^{3/2})', () => {
  for (const a of [0.5, 2, 9]) {
    expect(scalar(m.hNewton(a))).toBeCloseTo(-1 / (4 * a ** 1.5), 8);
    expect(m.hvNewton(a, -3)).toBeCloseTo(3 / (4 * a ** 1.5), 8);
  }
  expectClose(flat(m.hNewton(2)), flat(hessianByDifferences(m.dNewton, [2])), 1e-5);
});

test('do … while loop: the Hessian against differences of the gradient, and symmetric', () => {
  const at = [0.4, 0.9];
  const H = matrix(m.hHalving(...at));
  expect(H[0][1]).toBeCloseTo(H[1][0], 10);
  expectClose(flat(H), flat(hessianByDifferences(m.dHalving, at)), 1e-6);
  const v = [0.3, -1.2];
  expectClose(m.hvHalving(...at, v), [H[0][0] * v[0] + H[0][1] * v[1], H[1][0] * v[0] + H[1][1] * v[1]], 1e-10);
});

test('a loop with a branch inside: the Hessian against differences of the gradient', () => {
  // u crosses 1 during the iterations at this point, so both branches run.
  const at = [0.7, 0.6];
  const H = matrix(m.hBranchy(...at));
  expectClose(flat(H), flat(hessianByDifferences(m.dBranchy, at)), 1e-6);
  expect(H[0][1]).toBeCloseTo(H[1][0], 10);
  const v = [1, 2];
  expectClose(m.hvBranchy(...at, v), [H[0][0] + 2 * H[0][1], H[1][0] + 2 * H[1][1]], 1e-10);
});
