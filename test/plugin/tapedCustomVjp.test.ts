// Mixing taped and compiled code with arrays (docs/frontend.md, "Taped mode", "Mixing"): a
// compiled callee of arrays called from taped code is one tape entry (its compiled gradient for
// the whole array), and a function that must run taped, called from compiled code, is an opaque
// call of that code whose derivatives come from its taped copies (a custom VJP).
import { load, partial, expectClose } from './harness';

const tsad = require('tsad') as { tsad$tape: { stats(): { nodes: number; edges: number } } };

describe('a compiled function of arrays called from taped code', () => {
  const { exports: m, result } = load(`import { grad } from 'tsad';
/** @differentiable */
export function energy(xs: Float64Array, k: number): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += Math.sin(k * xs[i]) * xs[i];
  return s;
}
/** @differentiable */
export function walk(xs: Float64Array, n: number): number {
  return n === 0 ? 0 : energy(xs, n) + walk(xs, n - 1);
}
/** The scale active too: the entry has a partial for it beside the array's. */
/** @differentiable */
export function scaled(xs: number[], k: number, n: number): number {
  return n === 0 ? k : energy(new Float64Array(xs), k) * scaled(xs, k, n - 1);
}
export const dWalk = grad(walk);
export const dScaled = grad(scaled, { wrt: [0, 1] });
`);

  test('builds: only the recursive functions run taped', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
    const notes = result.messages.filter((s) => /note TSAD2001/.test(s));
    expect(notes.map((s) => s.match(/'(\w+)' runs taped/)?.[1]).sort()).toEqual(['scaled', 'walk']);
  });

  test('each call is one tape entry with a partial per element: m + 2n nodes', () => {
    for (const [len, n] of [
      [3, 1],
      [5, 4],
      [8, 10],
    ]) {
      const xs = Float64Array.from({ length: len }, (_, i) => 0.3 + 0.17 * i);
      const g = m.dWalk(xs, n) as Float64Array;
      expect(tsad.tsad$tape.stats()).toEqual({ nodes: len + 2 * n, edges: n * len + 2 * n - 1 });
      expect(g).toBeInstanceOf(Float64Array);
      for (let k = 0; k < len; k++) expectClose([g[k]], partial(m.walk, [Array.from(xs), n], 0, k), 1e-5);
    }
  });

  test('an array built in taped code and an active number: the gradient agrees with central differences', () => {
    const xs = [0.4, -0.7, 1.1];
    const [gx, gk] = m.dScaled(xs, 0.9, 3);
    for (let k = 0; k < xs.length; k++) expectClose([gx[k]], partial(m.scaled, [xs, 0.9, 3], 0, k), 1e-5);
    expectClose([gk], partial(m.scaled, [xs, 0.9, 3], 1, 0), 1e-5);
  });
});
