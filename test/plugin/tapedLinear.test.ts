// Jacobians and linearize of taped code (docs/frontend.md, "Taped mode"): one run of the taped
// copy, then one backward pass per output (Jacobians) or a forward sweep over the same tape per
// tangent (linearize), against central finite differences.
import { load, partial, expectClose } from './harness';

const tsad = require('tsad') as { tsad$tape: { stats(): { nodes: number; edges: number } } };

describe('jacobian, jacfwd, jacrev and linearize of a recursive function', () => {
  const { exports: m, result } = load(`import { jacobian, jacfwd, jacrev, linearize } from 'tsad';
/** n steps of a twisted rotation of the point p by t. */
/** @differentiable */
export function twist(p: number[], t: number, n: number): number[] {
  if (n === 0) return p;
  const q = twist(p, t, n - 1);
  return [Math.cos(t) * q[0] - Math.sin(t) * q[1] * q[0], Math.sin(t) * q[0] + Math.cos(t) * q[1], q[0] * q[1] * t];
}
export const jP = jacobian(twist);
export const jT = jacrev(twist, { wrt: [1] });
export const jBoth = jacfwd(twist, { wrt: [0, 1] });
export const lin = (p: number[], t: number, n: number) => linearize(twist, p, t, n);
`);

  const fdColumns = (at: [number[], number, number], i: number, size: number) => Array.from({ length: size }, (_, k) => partial(m.twist, at, i, k));
  const rows = (columns: number[][]) => columns[0].map((_, r) => columns.map((c) => c[r]));

  test('build with a note, no error', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
    expect(result.messages.some((s) => /note TSAD2001: 'twist' runs taped/.test(s))).toBe(true);
  });

  test('the Jacobians agree with central differences, rows = outputs', () => {
    for (const n of [1, 4]) {
      const at: [number[], number, number] = [[0.6, -0.4], 0.3, n];
      const refP = rows(fdColumns(at, 0, 2));
      const refT = rows(fdColumns(at, 1, 1));
      const j = m.jP(...at);
      expect(j).toHaveLength(n === 0 ? 2 : 3);
      expectClose(j.flat(), refP.flat());
      expectClose(m.jT(...at).flat(), refT.flat());
      const [a, b] = m.jBoth(...at);
      expectClose(a.flat(), refP.flat());
      expectClose(b.flat(), refT.flat());
    }
  });

  test('linearize: the tangent map is a sweep over one tape, without running the function again', () => {
    const at: [number[], number, number] = [[0.6, -0.4], 0.3, 5];
    const [y, f] = m.lin(...at);
    expect(y).toEqual(m.twist(...at));
    f([0, 0], 0, 0);
    const nodes = tsad.tsad$tape.stats().nodes;
    for (const [dp, dt] of [
      [[1, 0], 0],
      [[0.3, -2], 1.5],
    ] as [number[], number][]) {
      const tangent = f(dp, dt, 0);
      const ref = [0, 1, 2].map((r) => dp[0] * partial(m.twist, at, 0, 0)[r] + dp[1] * partial(m.twist, at, 0, 1)[r] + dt * partial(m.twist, at, 1, 0)[r]);
      expectClose(tangent, ref);
      // The sweep reads the tape the value was computed on: the same nodes, no new ones.
      expect(tsad.tsad$tape.stats().nodes).toBe(nodes);
    }
  });
});
