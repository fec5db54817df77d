// A length check's message (atmost, backend/ts/constructs/array/checks.ts) is one string literal
// handed to the runtime with the numbers (s15: `tsad$exceeds("… past its end", n, m)`, where it was
// `"… past its end (" + n + " > " + m + ")"` written out per check), never `"…" + " (" + …`.
// The message thrown is the same.
import { load } from './harness';

test("a length check's literal message goes to the runtime whole; the error reads as before", () => {
  const { exports: m, result } = load(`import { grad } from 'tsad';
/** @differentiable */
export function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
export const g = grad(dot);
`);
  expect(result.outputText).toMatch(/throw tsad\$exceeds\("[^"]*past its end", [\w$]+, [\w$]+\);/);
  expect(result.outputText).not.toMatch(/" \+ " \("/);
  expect(() => m.g(new Float64Array([1, 2, 3]), new Float64Array([1, 2]))).toThrow("grad(dot): in dot: the loop for (… i < a.length …) reads 'b[i]' past its end (3 > 2)");
  expect(Array.from(m.g(new Float64Array([1, 2]), new Float64Array([5, 7])))).toEqual([5, 7]);
});
