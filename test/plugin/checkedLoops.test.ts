// A loop's length check must run even when nothing of the forward loop it sits in is kept: a
// rule (s12, gmm22c's "a check that passes its operand on is not a residual") let the backward
// pass read the checked count itself, the forward loop then had no result anyone read, and the
// dead-code pass removed it with its check: a read past the end of x gave finite, wrong numbers
// (fuzz12's F3). The gradient must throw the RangeError the function's own check throws.
import { expectClose, load, partial } from './harness';

const SOURCE = `import { grad } from 'tsad';
/** @differentiable */
export function f(x: Float64Array, mu: Float64Array, d: number, k: number): number {
  let s = 0;
  for (let c = 0; c < k; c++) {
    for (let r = 0; r < d; r++) s += (x[r] - mu[c * d + r]) ** 2;
  }
  return s;
}
export const g = grad(f, { wrt: [0, 1] });
`;

describe('a length check inside a loop nest', () => {
  test('reading x past its end throws a RangeError, at every outer trip count', () => {
    const { exports: m } = load(SOURCE);
    for (const k of [1, 2]) {
      expect(() => m.g(Float64Array.from([1, 2]), Float64Array.from([0.5, 0.25, 1, 3, 2, 1]), 3, k)).toThrow(RangeError);
    }
  });

  test('within bounds the gradient agrees with central differences, zero trips included', () => {
    const { exports: m } = load(SOURCE);
    const x = [1, 2, -0.5];
    const mu = [0.5, 0.25, 1, 3, 2, 1];
    for (const [d, k] of [
      [3, 2],
      [2, 1],
      [0, 2],
      [3, 0],
    ]) {
      const [gx, gmu] = m.g(Float64Array.from(x), Float64Array.from(mu), d, k);
      const f = (a: number[], b: number[]) => m.f(Float64Array.from(a), Float64Array.from(b), d, k);
      const fd = (i: number, n: number) => Array.from({ length: n }, (_, j) => partial(f, [x, mu], i, j)[0]);
      expectClose(Array.from(gx), fd(0, x.length), 1e-6);
      expectClose(Array.from(gmu), fd(1, mu.length), 1e-6);
    }
  });
});
