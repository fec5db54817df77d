// A marked function may read its module's exported state (`export let scale`, `export const
// table = new Float64Array(…)`): each wrapper reads the current value when it runs. In CommonJS
// that is `exports.scale`, which TypeScript writes only for an identifier bound to the
// declaration; a wrapper that printed a fresh `scale` instead threw "scale is not defined"
// (fuzz23-findings F1: the wrapper tidy inlined the state read as a new identifier).
// References: hand derivations at the values the state holds at each call.
import { load } from './harness';

const { exports: m } = load(`
import { grad, valueAndGrad, hessian, hvp, jacobian, jvp, linearize, vjp } from 'tsad';
export let scale = 2;
export const table = new Float64Array([1, 2, 3]);
/** @differentiable */
export function f(x: number, y: number): number {
  return scale * x * y * table[1] + Math.sin(x) * table[0];
}
export const vg = valueAndGrad(f);
export const g = grad(f);
export const g1 = grad(f, { wrt: [1] });
export const h = hessian(f, { wrt: [0, 1] });
export const hv = hvp(f, { wrt: [0, 1] });
export const jv = (x: number, y: number) => jvp(f, [x, y], [1, 0]);
export const vj = (x: number, y: number) => vjp(f, x, y)[1](1);
export const lin = (x: number, y: number) => linearize(f, x, y)[1](0, 1);
/** @differentiable */
export function vec(x: Float64Array): Float64Array {
  return x.map((t) => t * t * scale);
}
export const J = jacobian(vec);
`);

describe('exported module state read by a marked function', () => {
  // f = s·t₁·x·y + t₀·sin x: fx = s·t₁·y + t₀·cos x, fy = s·t₁·x, fxx = −t₀·sin x, fxy = s·t₁, fyy = 0.
  const x = 0.5;
  const y = -1.5;
  test.each([
    [2, 2, 1],
    [-1, 0.5, 3],
  ])('scale %p, table[1] %p, table[0] %p: every transform reads the values of the call', (s, t1, t0) => {
    m.scale = s;
    m.table[1] = t1;
    m.table[0] = t0;
    const value = s * t1 * x * y + t0 * Math.sin(x);
    const fx = s * t1 * y + t0 * Math.cos(x);
    const fy = s * t1 * x;
    const [v, gx] = m.vg(x, y);
    expect(v).toBeCloseTo(value, 14);
    expect(gx).toBeCloseTo(fx, 14);
    expect(m.g(x, y)).toBeCloseTo(fx, 14);
    expect(m.g1(x, y)).toBeCloseTo(fy, 14);
    const [[[[hxx]], [[hxy]]], [[[hyx]], [[hyy]]]] = m.h(x, y);
    expect([hxx, hxy, hyx, hyy].map((t) => Number(t.toPrecision(12)))).toEqual([-t0 * Math.sin(x), s * t1, s * t1, 0].map((t) => Number(t.toPrecision(12))));
    const [hv0, hv1] = m.hv(x, y, [1, 2]);
    expect(hv0).toBeCloseTo(-t0 * Math.sin(x) + 2 * s * t1, 12);
    expect(hv1).toBeCloseTo(s * t1, 12);
    const [jy, jt] = m.jv(x, y);
    expect(jy).toBeCloseTo(value, 14);
    expect(jt).toBeCloseTo(fx, 14);
    const [bx, by] = m.vj(x, y);
    expect(bx).toBeCloseTo(fx, 14);
    expect(by).toBeCloseTo(fy, 14);
    expect(m.lin(x, y)).toBeCloseTo(fy, 14);
    expect(m.J(new Float64Array([1, 2]))).toEqual([
      [2 * s, 0],
      [0, 4 * s],
    ]);
  });
});
