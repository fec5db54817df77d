// Second derivatives of structured parameters: hessian and hvp with respect to a tuple and an
// object parameter, against hand-derived Hessians.
import { load } from './harness';

const { exports: m, result } = load(`import { hessian, hvp } from 'tsad';
/** @differentiable */
export function bowl(p: [number, number], k: number): number {
  const [x, y] = p;
  return k * x * x * y + Math.sin(x * y);
}
/** @differentiable */
export function spring(q: { a: number; b: number }): number {
  return Math.exp(q.a) * q.b * q.b;
}
export const H = hessian(bowl);
export const Hv = hvp(bowl);
export const Hk = hessian(bowl, { wrt: ['k'] });
export const G = hessian(spring);
export const Gv = hvp(spring);
`);

function bowlHessian(x: number, y: number, k: number): number[][] {
  const s = Math.sin(x * y);
  const c = Math.cos(x * y);
  return [
    [2 * k * y - y * y * s, 2 * k * x + c - x * y * s],
    [2 * k * x + c - x * y * s, -x * x * s],
  ];
}

test('compiles', () => expect(result.diagnostics).toEqual([]));

test('hessian with respect to a tuple parameter', () => {
  const H = m.H([0.7, -1.1], 2.5);
  const ref = bowlHessian(0.7, -1.1, 2.5);
  H.forEach((row: number[], i: number) => row.forEach((v, j) => expect(v).toBeCloseTo(ref[i][j], 12)));
});

test('hvp with respect to a tuple parameter is H·v', () => {
  const ref = bowlHessian(0.7, -1.1, 2.5);
  const v = [0.3, -2];
  const hv = m.Hv([0.7, -1.1], 2.5, v);
  [0, 1].forEach((i) => expect(hv[i]).toBeCloseTo(ref[i][0] * v[0] + ref[i][1] * v[1], 12));
});

test('hessian with respect to a parameter that enters linearly is zero', () => {
  expect(m.Hk([0.7, -1.1], 2.5)).toEqual([[0]]);
});

test('hessian and hvp with respect to an object parameter (fields in name order)', () => {
  const [a, b] = [0.4, 1.3];
  const e = Math.exp(a);
  const ref = [
    [e * b * b, 2 * e * b],
    [2 * e * b, 2 * e],
  ];
  const G = m.G({ a, b });
  G.forEach((row: number[], i: number) => row.forEach((v, j) => expect(v).toBeCloseTo(ref[i][j], 12)));
  const gv = m.Gv({ a, b }, { a: 1, b: -0.5 });
  expect(gv.a).toBeCloseTo(ref[0][0] - 0.5 * ref[0][1], 12);
  expect(gv.b).toBeCloseTo(ref[1][0] - 0.5 * ref[1][1], 12);
});
