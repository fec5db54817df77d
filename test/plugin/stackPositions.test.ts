// Positions in a flat stack print as one left-to-right sum, without a literal field 0
// (backend/ts/constructs/stack.ts flatPosition): `flat.a[flat.b + (off | 0) + k * 2]`, not
// `flat.a[flat.b + ((off | 0) + (k * 2 + 0))]`. Positions are integers, so the grouping and the
// dropped `+ 0` read the same elements; the gradient and Hessian through a loop nest that stores
// records on a flat stack are checked against central differences.
import { load, expectClose } from './harness';

const source = `import { grad, hessian } from 'tsad';
/** @differentiable */
export function f(k: number, c: number, ts: Float64Array): number {
  let total = 0;
  for (let j = 0; j < ts.length; j++) {
    const h = ts[j] / 8;
    let x = 1;
    let v = 0;
    for (let i = 0; i < 8; i++) {
      const a = -k * x - c * v * Math.abs(v);
      x = x + h * v;
      v = v + h * a;
    }
    total += x * x;
  }
  return total;
}
export const g = grad(f, { wrt: [0, 1] });
export const hf = hessian(f, { wrt: [0, 1] });
`;

const plain = (k: number, c: number, ts: Float64Array) => {
  let total = 0;
  for (let j = 0; j < ts.length; j++) {
    const h = ts[j] / 8;
    let x = 1;
    let v = 0;
    for (let i = 0; i < 8; i++) {
      const a = -k * x - c * v * Math.abs(v);
      x = x + h * v;
      v = v + h * a;
    }
    total += x * x;
  }
  return total;
};

const central = (fn: (k: number, c: number) => number, at: number[], eps = 1e-5) =>
  at.map((_, i) => {
    const up = [...at];
    const down = [...at];
    up[i] += eps;
    down[i] -= eps;
    return (fn(up[0], up[1]) - fn(down[0], down[1])) / (2 * eps);
  });

test('flat-stack positions are one sum without + 0; gradient and Hessian against central differences', () => {
  const { exports, result } = load(source);
  const text = result.outputText;
  // The loop nest keeps its records on a flat stack (a base offset per run of the inner loop).
  expect(text).toMatch(/\.a\[\w+\.b \+ \(\w+ \| 0\) \+ \w+ \* \d+\]/);
  expect(text).not.toMatch(/\.a\[[^\]]*\+ 0\)*\]/);
  expect(text).not.toMatch(/\.a\[\w+\.b \+ \(\(/);
  const ts = Float64Array.from([0.5, 1.2, 2.0]);
  const at = [1.7, 0.3];
  const g = exports.g as (k: number, c: number, t: Float64Array) => number[];
  expectClose(
    g(at[0], at[1], ts),
    central((k, c) => plain(k, c, ts), at),
    1e-6,
  );
  const h = exports.hf as (k: number, c: number, t: Float64Array) => number[][];
  const rows = h(at[0], at[1], ts);
  [0, 1].forEach((i) =>
    expectClose(
      rows[i],
      central((k, c) => g(k, c, ts)[i], at),
      1e-5,
    ),
  );
});
