// Mixing taped and compiled code (docs/frontend.md, "Taped mode"): a marked function the
// compiler can take, called from taped code, runs compiled and contributes its compiled gradient
// as one tape entry, not one per operation (asserted with the tape's node counter).
import { load, partial, expectClose } from './harness';

const tsad = require('tsad') as { tsad$tape: { stats(): { nodes: number; edges: number } } };

describe('a compiled function called from taped code', () => {
  const { exports: m, result } = load(`import { grad, valueAndGrad } from 'tsad';
/** Eight operations on numbers: compiled. */
/** @differentiable */
export function bump(x: number, k: number): number {
  return Math.sin(k * x) * Math.exp(-0.1 * x * x) + 0.5 * x;
}
/** @differentiable */
export function rec(x: number, n: number): number {
  return n === 0 ? x : bump(rec(x, n - 1), 1 / n);
}
/** Both arguments active: one entry with two partials. */
/** @differentiable */
export function both(x: number, n: number): number {
  return n === 0 ? x : bump(both(x, n - 1), x);
}
export const dRec = grad(rec);
export const vgBoth = valueAndGrad(both);
`);

  test('builds: only the recursive functions run taped', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
    const notes = result.messages.filter((s) => /note TSAD2001/.test(s));
    expect(notes.map((s) => s.match(/'(\w+)' runs taped/)?.[1]).sort()).toEqual(['both', 'rec']);
  });

  test('each call of the compiled function is one tape entry: n + 1 nodes, n partials', () => {
    for (const n of [1, 5, 40]) {
      const x = 0.8;
      expectClose([m.dRec(x, n)], partial(m.rec, [x, n], 0, 0), 1e-5);
      expect(tsad.tsad$tape.stats()).toEqual({ nodes: n + 1, edges: n });
    }
  });

  test('with two active arguments: one entry with two partials each', () => {
    for (const n of [1, 6]) {
      const x = 0.45;
      const [v, g] = m.vgBoth(x, n);
      expect(v).toBe(m.both(x, n));
      expectClose([g], partial(m.both, [x, n], 0, 0), 1e-5);
      expect(tsad.tsad$tape.stats()).toEqual({ nodes: n + 1, edges: 2 * n });
    }
  });
});
