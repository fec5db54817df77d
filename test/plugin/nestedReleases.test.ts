// A loop releases its array invariants before it runs (`$own.delete(u); $gen++`: no update may
// write them in place). A loop nested in its body that reads the same invariant released it again
// in every iteration: a set operation and a bump of $gen (which makes every hot slot miss) per run
// of the inner loop, for nothing, since only fresh arrays ever join $own. The backend now leaves
// the inner release out (EmitTsOps.emitBody's `released`; GradBench gmm's exp(q) table, read in
// the loop over components of every point, forward and backward: issue 22).
import * as ts from 'typescript';
import { expectClose, load, partial } from './harness';
import { countInLoops } from './emittedLoops';

const SOURCE = `
import { grad } from 'tsad';
/** Σ_i Σ_c exp(−|L·diag(e^q)(x_i − μ_c)|²): exp(q) becomes a table every point's loops read. */
/** @differentiable */
export function mix(l: Float64Array, q: Float64Array, mu: Float64Array, x: Float64Array, d: number, k: number, n: number): number {
  const z = new Float64Array(d);
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < k; c++) {
      for (let r = 0; r < d; r++) z[r] = Math.exp(q[c * d + r]) * (x[i * d + r] - mu[c * d + r]);
      let li = 0;
      for (let col = 0; col < d; col++) {
        for (let r = col + 1; r < d; r++) {
          z[r] += l[li] * z[col];
          li++;
        }
      }
      let s = 0;
      for (let r = 0; r < d; r++) s += z[r] * z[r];
      total += Math.exp(-0.5 * s);
    }
  }
  return total;
}
export const gMix = grad(mix, { wrt: [0, 1, 2, 3] });
`;

const vec = (n: number, phase: number) => Array.from({ length: n }, (_, k) => 0.3 * Math.sin(k + phase) + 0.1);
const f64 = (xs: number[]) => Float64Array.from(xs);
const fdAll = (f: (...a: any[]) => number, at: any[], i: number) => Array.from({ length: at[i].length }, (_, k) => partial(f, at, i, k)[0]);

describe('a loop nested in a loop that released an invariant does not release it again', () => {
  const { exports: m, result } = load(SOURCE);

  test('compiles without diagnostics', () => {
    expect(result.diagnostics).toEqual([]);
  });

  test('no release of the exp(q) table inside a loop of the gradient (the outermost loops release it)', () => {
    const releasesOfTable = (node: ts.Node) =>
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'delete' &&
      node.arguments.length === 1 &&
      ts.isIdentifier(node.arguments[0]) &&
      node.arguments[0].text.startsWith('table');
    // Before: one per run of the loop over components and one per point, forward and backward.
    expect(result.outputText).toMatch(/\$own\.delete\(table/);
    expect(countInLoops(result.outputText, 'mix$grad', releasesOfTable)).toBe(0);
  });

  test('gradients against central differences, with every loop running zero times, once and more', () => {
    for (const [d, k, n] of [
      [0, 2, 2],
      [1, 2, 2],
      [2, 1, 1],
      [3, 0, 2],
      [3, 2, 0],
      [4, 3, 2],
    ]) {
      const at = [vec((d * (d - 1)) / 2, 1), vec(k * d, 5), vec(k * d, 3), vec(n * d, 2), d, k, n];
      const g = m.gMix(...at.map((v) => (Array.isArray(v) ? f64(v) : v))) as Float64Array[];
      for (const w of [0, 1, 2, 3]) expectClose(Array.from(g[w]), fdAll(m.mix, at, w));
      // A second call reuses what the first left in the slab pool: same gradient.
      const again = m.gMix(...at.map((v) => (Array.isArray(v) ? f64(v) : v))) as Float64Array[];
      for (const w of [0, 1, 2, 3]) expect(Array.from(again[w])).toEqual(Array.from(g[w]));
    }
  });
});
