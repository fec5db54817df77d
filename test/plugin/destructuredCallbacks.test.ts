// Callbacks whose parameters are destructured, `ps.map(({ x, y }) => …)`,
// `pairs.map(([a, b]) => …)`, as TypeScript developers write them (docs/frontend.md, "Arrays of
// records"): checked against the same source run as plain JavaScript and central differences.
import { compile, expectClose, load, runPlain } from './harness';

const SOURCE = `
interface P { x: number; y: number }
/** @differentiable */
export function f(ps: P[], pairs: [number, number][], w: number[]): number {
  const a = ps.map(({ x, y }) => x * y);
  const b = pairs.map(([u, v]) => u - v * 2);
  const c = w.map((v, i) => v * a[i] + b[i]);
  const d = ps.reduce((s, { x }) => s + x * x, 0);
  const moved = ps.map(({ x, y: height }, i) => ({ x: x + w[i], y: height * 2 }));
  let e = 0;
  moved.forEach(({ x, y }, i) => {
    e += x * y * (i + 1);
  });
  pairs.forEach(([u, v]) => {
    e += Math.sin(u) * v;
  });
  let s = d + e;
  for (let i = 0; i < c.length; i++) s += c[i];
  return s;
}
`;

type P = { x: number; y: number };
const flat = (ps: P[], pairs: [number, number][], w: number[]) => [...ps.flatMap((p) => [p.x, p.y]), ...pairs.flat(), ...w];
const build = (v: number[], n: number): [P[], [number, number][], number[]] => [
  Array.from({ length: n }, (_, i) => ({ x: v[2 * i], y: v[2 * i + 1] })),
  Array.from({ length: n }, (_, i) => [v[2 * n + 2 * i], v[2 * n + 2 * i + 1]] as [number, number]),
  v.slice(4 * n),
];

describe('destructured callback parameters', () => {
  const { exports: m, result } = load(`${SOURCE}
import { valueAndGrad } from 'tsad';
export const vg = valueAndGrad(f, { wrt: [0, 1, 2] });`);
  const plain = runPlain(SOURCE).f as (...a: ReturnType<typeof build>) => number;

  test('builds', () => expect(result.messages).toEqual([]));

  test.each([0, 1, 3])('n = %p: the primal of plain JavaScript, the gradient of central differences', (n) => {
    const v = Array.from({ length: 5 * n }, (_, k) => Math.sin(1.3 * k + 0.4) + 0.1 * k);
    const [value, [gps, gpairs, gw]] = m.vg(...build(v, n));
    expect(value).toBe(plain(...build(v, n)));
    const h = 1e-6;
    const fd = v.map(
      (_, k) =>
        (plain(
          ...build(
            v.map((x, j) => (j === k ? x + h : x)),
            n,
          ),
        ) -
          plain(
            ...build(
              v.map((x, j) => (j === k ? x - h : x)),
              n,
            ),
          )) /
        (2 * h),
    );
    expectClose(flat(gps, gpairs, Array.from(gw)), fd, 1e-6);
  });

  test('a rest element or a default in a callback parameter: TSAD1121', () => {
    const r = compile(`/** @differentiable */ export function g(ps: [number, number][]): number { return ps.map(([a, b] = [0, 0]) => a + b).length; }`, { throwOnError: false });
    expect(r.messages.join('\n')).toMatch(/TSAD1121: callback parameters with a default or a rest/);
  });
});
