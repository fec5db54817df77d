// What writing the corpus found beside its refusals: programs tsad built but got wrong. Each was
// `test.failing` until fixed; it stays as the regression test.
import { load } from '../plugin/harness';

// Issue 19, item 6: a marked function reading a module-level array saw its initializer, not
// what the module wrote into it when it loaded. JavaScript gives f(x) = 3·x0 + 4·x1; tsad's
// valueAndGrad gave the value 0 and the gradient [0, 0], with no diagnostic.
test('a module-level lookup table filled at load is read as filled (issue 19, item 6)', () => {
  const { exports } = load(`
import { valueAndGrad } from 'tsad';
export const WEIGHTS = new Float64Array(2);
for (let i = 0; i < WEIGHTS.length; i++) WEIGHTS[i] = 3 + i;
/** @differentiable */
export function weighted(x: Float64Array): number {
  return WEIGHTS[0] * x[0] + WEIGHTS[1] * x[1];
}
export const g = valueAndGrad(weighted);
`);
  const x = Float64Array.from([1.5, 2.5]);
  const [value, gradient] = exports.g(x);
  expect(value).toBe(exports.weighted(x));
  expect(Array.from(gradient)).toEqual([3, 4]);
});
