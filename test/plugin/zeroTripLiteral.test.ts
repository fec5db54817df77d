// A counted loop whose bound is the literal 0 runs no iteration; its backward loop is printed by
// the tidy, which may turn `for (k < n) { const i = c - k - 1; … }` into a loop counting down from
// c - 1 (size22f). With c the literal 0, that start was made as the literal -1, which TypeScript's
// factory refuses ("Negative numbers should be created in combination with
// createPrefixUnaryExpression"): the module did not compile (fuzz13, controlProperties at 30 runs).
// The gradients are checked against central differences of the plain function; a loop of one
// iteration and a bound of 1 beside it keep the reversed loop's other literal cases in view.
import { expectClose, load, partial, runPlain } from './harness';

const source = `import { grad, hessian } from 'tsad';
/** @differentiable */
export function none(x: number, y: number): number {
  let a = x;
  let b = y;
  for (let i = 0; i < 0; i++) {
    b = b + 0.1 * i;
    a = Math.sin(a * b);
  }
  return a * b;
}
/** @differentiable */
export function once(x: number, y: number): number {
  let a = x;
  let b = y;
  for (let i = 0; i < 1; i++) {
    b = b + 0.1 * i;
    a = Math.sin(a * b);
  }
  return a * b;
}
/** @differentiable */
export function arrays(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < 0; i++) s = Math.cos(s + x[i]);
  for (let i = 0; i < 2; i++) s = Math.cos(s * x[i]);
  return s;
}
export const gNone = grad(none, { wrt: [0, 1] });
export const gOnce = grad(once, { wrt: [0, 1] });
export const hNone = hessian(none, { wrt: [0] });
export const gArrays = grad(arrays);
`;

test('loops whose bound is the literal 0 (and 1) compile, and their gradients are the differences', () => {
  const m = load(source).exports;
  const plain = runPlain(source.replace(/^import .*$/m, 'const grad = () => 0, hessian = grad;'));
  const at = [0.3, 0.7];
  expectClose(m.gNone(...at), [...partial(plain.none, at, 0, 0), ...partial(plain.none, at, 1, 0)], 1e-7);
  expectClose(m.gOnce(...at), [...partial(plain.once, at, 0, 0), ...partial(plain.once, at, 1, 0)], 1e-7);
  // none(x, y) = x·y: ∂²/∂x² = 0.
  expect(m.hNone(...at)).toEqual([[0]]);
  const x = [0.4, -1.2, 0.9];
  expectClose(
    Array.from(m.gArrays(Float64Array.from(x))),
    [0, 1, 2].flatMap((k) => partial(plain.arrays, [x], 0, k)),
    1e-7,
  );
});
