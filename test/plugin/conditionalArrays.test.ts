// `c ? f(x) : []`: a literal side of `?:` is an array where the other side (or the whole) is one,
// as TypeScript types it (docs/frontend.md, "Conditionals"); checked against plain JavaScript and
// central differences.
import { expectClose, load, runPlain } from './harness';

const SOURCE = `
/** @differentiable */
function squares(x: number[]): number[] {
  return x.map((v) => v * v);
}
/** @differentiable */
export function f(x: number[], c: number): number {
  const ys: number[] = c > 0 ? squares(x) : [];
  const zs = c > 1 ? x.map((v) => v + c) : [];
  const ws = c > 2 ? [] : [c, 2 * c, x.length];
  let s = 0;
  for (const y of ys) s += y;
  for (const z of zs) s += z * c;
  for (const w of ws) s += w * w;
  return s + ys.length + zs.length;
}
`;

describe('?: with an empty array literal on one side', () => {
  const { exports: m, result } = load(`${SOURCE}
import { valueAndGrad } from 'tsad';
export const vg = valueAndGrad(f, { wrt: [0, 1] });`);
  const plain = runPlain(SOURCE).f as (x: number[], c: number) => number;

  test('builds', () => expect(result.messages).toEqual([]));

  test.each([
    [[0.5, -1, 2], -1],
    [[0.5, -1, 2], 0.5],
    [[1.5, 2], 1.5],
    [[1.5, 2, 3, -0.25], 2.5],
    [[], 1.5],
  ])('at %p, c = %p', (x, c) => {
    const [value, [dx, dc]] = m.vg(x.slice(), c);
    expect(value).toBe(plain(x.slice(), c));
    const h = 1e-6;
    const fdx = x.map(
      (_, k) =>
        (plain(
          x.map((v, j) => (j === k ? v + h : v)),
          c,
        ) -
          plain(
            x.map((v, j) => (j === k ? v - h : v)),
            c,
          )) /
        (2 * h),
    );
    expectClose(Array.from(dx), fdx, 1e-6);
    expectClose([dc], [(plain(x.slice(), c + h) - plain(x.slice(), c - h)) / (2 * h)], 1e-6);
  });
});
