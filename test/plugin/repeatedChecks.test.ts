// A check of the same operands again in the same scope (two loops over i < k reading x[i]) is the
// first one (opt/simplify.ts, ConstructRule.keptUnread with passesOn): it cannot fail where the
// first passed, so the derivative checks once. Its error and numbers are as before.
import { load } from './harness';

const source = `import { grad } from 'tsad';
/** @differentiable */
export function twoPasses(x: Float64Array, k: number): number {
  let s = 0;
  for (let i = 0; i < k; i++) s += x[i];
  let q = 0;
  for (let i = 0; i < k; i++) q += x[i] * x[i];
  return s * q;
}
export const g = grad(twoPasses);
`;

test('two loops over i < k reading x[i]: one check in the gradient, the same error, the hand-derived gradient', () => {
  const { exports: m, result } = load(source);
  const fn = result.outputText.slice(result.outputText.indexOf('function twoPasses$grad'));
  expect(fn.match(/reads 'x\[i\]' past its end/g)?.length).toBe(1);
  expect(() => m.g(Float64Array.from([1, 2]), 3)).toThrow("grad(twoPasses): in twoPasses: the loop for (… i < k …) reads 'x[i]' past its end (3 > 2)");
  // d/dx_i (s·q) = q + 2 s x_i for i < k, 0 beyond.
  const x = Float64Array.from([1, 2, 3, 4]);
  const [s, q] = [1 + 2 + 3, 1 + 4 + 9];
  expect(Array.from(m.g(x, 3) as Float64Array)).toEqual([q + 2 * s * 1, q + 2 * s * 2, q + 2 * s * 3, 0]);
});
