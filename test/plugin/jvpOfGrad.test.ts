// jvp(grad(f)) at the top level gives [∇f, H·v] from one pass; a tangent J carries through a
// loop for a result nobody reads (the value of a min fold, when only the gradient is returned)
// goes once the def is erased (plan/jvp.ts), as in hvp(f)'s code.
import { compile, expectClose, loadOutput } from './harness';

const source = `
import { grad, hvp, jvp } from 'tsad';
/** @differentiable */
export function nearest(x: Float64Array): number {
  let best = Infinity;
  for (let i = 0; i < x.length; i++) {
    const e = x[i] - 1;
    best = Math.min(best, e * e);
  }
  return best;
}
export const both = (x: Float64Array, v: Float64Array) => jvp(grad(nearest), [x], [v]);
export const g = grad(nearest);
export const h = hvp(nearest);
`;

describe('jvp(grad(f)) of a min fold', () => {
  const result = compile(source);
  const m = loadOutput(result);

  test('is [grad, hvp]', () => {
    const x = new Float64Array([3, 0.5, -2, 1.25]);
    const v = new Float64Array([1, -1, 0.5, 2]);
    const [gx, hv] = m.both(x, v);
    expectClose([...gx], [...m.g(x)], 1e-15);
    expectClose([...hv], [...m.h(x, v)], 1e-15);
  });

  test('carries no tangent of the fold nobody reads', () => {
    const def = result.outputText.slice(result.outputText.indexOf('function nearest_grad$jvp'));
    expect(def).not.toMatch(/best\w*_dot/);
  });
});
