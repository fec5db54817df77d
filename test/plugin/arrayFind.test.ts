// `xs.find(f) ?? fallback` (docs/frontend.md, "Arrays"): the first element f accepts, else the
// fallback; checked against the same source run as plain JavaScript and central differences.
import { compile, expectClose, load, runPlain } from './harness';

const SOURCE = `
interface Sphere { r: number; z: number }
/** @differentiable */
export function f(xs: number[], spheres: Sphere[], t: number): number {
  const first = xs.find((x) => x > t) ?? t * t;
  const hit = spheres.find(({ z }) => z > t) ?? { r: 0, z: t };
  return first * 2 + hit.r * hit.z + (xs.find((x, i) => x * i < 0) ?? 1);
}
`;

type S = { r: number; z: number };
describe('.find with ?? for the case nothing is found', () => {
  const { exports: m, result } = load(`${SOURCE}
import { valueAndGrad } from 'tsad';
export const vg = valueAndGrad(f, { wrt: [0, 1, 2] });`);
  const plain = runPlain(SOURCE).f as (xs: number[], s: S[], t: number) => number;

  test('builds', () => expect(result.messages).toEqual([]));

  test.each([
    [
      [0.5, -1, 2],
      [
        { r: 1, z: 0.2 },
        { r: 2, z: 1.5 },
      ],
      0.7,
    ],
    [[0.5, -1, 2], [{ r: 1, z: 0.2 }], 3],
    [[], [], 0.25],
    [[1.5, 2.5], [{ r: 0.5, z: 2 }], -1],
  ] as [number[], S[], number][])('at %p, %p, %p', (xs, spheres, t) => {
    const args = (): [number[], S[], number] => [xs.slice(), spheres.map((s) => ({ ...s })), t];
    const [value, [gx, gs, gt]] = m.vg(...args());
    expect(value).toBe(plain(...args()));
    const h = 1e-6;
    const at = (v: number[]) =>
      plain(
        v.slice(0, xs.length),
        spheres.map((_, i) => ({ r: v[xs.length + 2 * i], z: v[xs.length + 2 * i + 1] })),
        v[v.length - 1],
      );
    const v0 = [...xs, ...spheres.flatMap((s) => [s.r, s.z]), t];
    const fd = v0.map((_, k) => (at(v0.map((x, j) => (j === k ? x + h : x))) - at(v0.map((x, j) => (j === k ? x - h : x)))) / (2 * h));
    expectClose([...Array.from(gx as number[]), ...(gs as S[]).flatMap((s) => [s.r, s.z]), gt], fd, 1e-6);
  });

  test('the value of .find alone (undefined where nothing is found): TSAD1121 saying what to write', () => {
    const r = compile(`/** @differentiable */ export function g(xs: number[]): number { const y = xs.find((x) => x > 0); return y === undefined ? 0 : y; }`, { throwOnError: false });
    expect(r.messages.join('\n')).toMatch(/TSAD1121: \.find's value is undefined where no element is found/);
  });
});
