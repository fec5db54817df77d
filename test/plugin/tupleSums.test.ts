// The cotangent of a record parameter read in several places is a sum of tuples, each all zeros
// but the fields that read saw. The simplifier sums such tuples field by field
// (opt/simplify.ts `splitTupleAdd`): a zero field is the other one, and an array's sum fuses into
// the loop accumulating it. Before, the erased sum was a helper function (`ladd$E$TAr_Ar__`)
// adding every field's arrays, the zeros (empty arrays) included, once per read of the record.
import { compile, expectClose, loadOutput } from './harness';

const SOURCE = `import { grad } from 'tsad';
interface Model { w: Float64Array; b: Float64Array; s: number }
/** @differentiable */
export function loss(p: Model, x: Float64Array, n: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) total += Math.sin(p.w[i] * x[i]) + p.s * p.b[i];
  let reg = 0;
  for (let i = 0; i < n; i++) reg += p.w[i] * p.w[i];
  return total + 0.5 * reg + p.s * p.s * p.b[0];
}
export const g = grad(loss);
`;

const result = compile(SOURCE);
const m = loadOutput(result);
const n = 6;
const x = Float64Array.from({ length: n }, (_, i) => 0.3 + 0.2 * i);
const p = { w: Float64Array.from({ length: n }, (_, i) => 0.5 - 0.1 * i), b: Float64Array.from({ length: n }, (_, i) => 1 + 0.25 * i), s: 0.7 };

test('the record cotangent is summed field by field: no tuple-adding helper', () => {
  expect(result.outputText).not.toMatch(/ladd\$E/);
});

test('the gradient against central differences', () => {
  const f = (q: typeof p) => {
    let total = 0;
    for (let i = 0; i < n; i++) total += Math.sin(q.w[i] * x[i]) + q.s * q.b[i];
    let reg = 0;
    for (let i = 0; i < n; i++) reg += q.w[i] * q.w[i];
    return total + 0.5 * reg + q.s * q.s * q.b[0];
  };
  const step = 1e-6;
  const g = m.g(p, x, n) as { w: Float64Array; b: Float64Array; s: number };
  for (const key of ['w', 'b'] as const) {
    const fd = Array.from(p[key], (_, i) => {
      const plus = { ...p, [key]: p[key].map((v, j) => (j === i ? v + step : v)) };
      const minus = { ...p, [key]: p[key].map((v, j) => (j === i ? v - step : v)) };
      return (f(plus) - f(minus)) / (2 * step);
    });
    expectClose(Array.from(g[key]), fd, 1e-7);
  }
  expectClose([g.s], [(f({ ...p, s: p.s + step }) - f({ ...p, s: p.s - step })) / (2 * step)], 1e-7);
});
