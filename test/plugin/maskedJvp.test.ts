// Forward mode with symbolic zeros for the parameters outside wrt (ad/jvp.ts' mask): hessian and
// hvp in some parameters differentiate the gradient along those only, so the terms of the other
// parameters' directions (zeros the wrapper passes) are neither computed nor passed. Checked
// against central differences of the compiled gradient, beside a full jvp(grad(f)) of the same
// function in the same module (a masked def never serves a request for all tangents).
import { compile, expectClose, loadOutput } from './harness';

// RK4-shaped: the step length comes from a data array, as in the demo's simulated loss.
const source = `
import { grad, hessian, hvp, jvp } from 'tsad';
/** @differentiable */
export function decay(k: number, c: number, t: Float64Array, x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < t.length; i++) {
    const h = t[i] / 8;
    let y = c;
    for (let j = 0; j < 8; j++) {
      const a1 = -k * y;
      const a2 = -k * (y + (h / 2) * a1);
      const a3 = -k * (y + (h / 2) * a2);
      const a4 = -k * (y + h * a3);
      y = y + (h / 6) * (a1 + 2 * a2 + 2 * a3 + a4);
    }
    const r = y - x[i];
    s += r * r * Math.exp(-h * c);
  }
  return s;
}

/** @differentiable */
export function outer(k: number, c: number, t: Float64Array, x: Float64Array): number {
  return decay(k, c, t, x) * Math.sin(k + t[0]) + c * c * x[1];
}
`;

const m = loadOutput(
  compile(`${source}
export const gAll = grad(decay, { wrt: [0, 1, 2] });
export const g0 = grad(decay, { wrt: [0] });
export const g01 = grad(decay, { wrt: [0, 1] });
export const h0 = hessian(decay, { wrt: [0] });
export const h01 = hessian(decay, { wrt: [0, 1] });
export const hv01 = hvp(decay, { wrt: [0, 1] });
export const hv2 = hvp(decay, { wrt: [2] });
export const hOuter = hessian(outer, { wrt: [0, 1] });
export const gOuter = grad(outer, { wrt: [0, 1] });
export const both01 = (k: number, c: number, t: Float64Array, x: Float64Array, dk: number, dc: number, dt: Float64Array) =>
  jvp(grad(decay, { wrt: [0, 1] }), [k, c, t, x], [dk, dc, dt, new Float64Array(x.length)]);
export const both = (k: number, c: number, t: Float64Array, x: Float64Array, dk: number, dc: number, dt: Float64Array) =>
  jvp(grad(decay, { wrt: [0, 1, 2] }), [k, c, t, x], [dk, dc, dt, new Float64Array(x.length)]);
`),
);

const t = new Float64Array([0.1, 0.35, 0.2, 0.5]);
const x = new Float64Array([0.9, 0.7, 0.75, 0.4]);
const at = [0.8, 1.1];
const step = 1e-5;

/** Central differences of a gradient in (k, c) along (dk, dc): a column of the Hessian, H·v. */
function differences(g: (k: number, c: number) => number[], v: number[]): number[] {
  const plus = g(at[0] + step * v[0], at[1] + step * v[1]);
  const minus = g(at[0] - step * v[0], at[1] - step * v[1]);
  return plus.map((p, i) => (p - minus[i]) / (2 * step));
}
const flat = (v: unknown): number[] => (Array.isArray(v) || ArrayBuffer.isView(v) ? Array.from(v as ArrayLike<unknown>).flatMap(flat) : [v as number]);

test('hessian in one parameter of four, through a nested RK4 loop, against differences of the gradient', () => {
  const H = flat(m.h0(at[0], at[1], t, x));
  expect(H).toHaveLength(1);
  expectClose(
    H,
    differences((k, c) => flat(m.g0(k, c, t, x)), [1, 0]),
    1e-6,
  );
});

test('hessian and hvp in two parameters of four, against differences of the gradient', () => {
  const g = (k: number, c: number) => flat(m.g01(k, c, t, x));
  const H = [differences(g, [1, 0]), differences(g, [0, 1])];
  expectClose(flat(m.h01(at[0], at[1], t, x)), [H[0][0], H[1][0], H[0][1], H[1][1]], 1e-6);
  const v = [0.3, -1.7];
  expectClose(flat(m.hv01(at[0], at[1], t, x, [v[0], v[1]])), differences(g, v), 1e-6);
});

test('hvp in the data array only, against differences of its gradient', () => {
  const dt = new Float64Array([0.5, -1, 0.25, 2]);
  const gt = (s: number) =>
    flat(
      m.gAll(
        at[0],
        at[1],
        t.map((u, i) => u + s * dt[i]),
        x,
      ),
    ).slice(2);
  const expected = gt(step).map((p, i) => (p - gt(-step)[i]) / (2 * step));
  expectClose(flat(m.hv2(at[0], at[1], t, x, dt)), expected, 1e-6);
});

test('a full jvp(grad(f)) in the same module keeps every tangent (the data array too)', () => {
  const [dk, dc, dt] = [0.4, -0.6, new Float64Array([1, -0.5, 0.3, 0.8])];
  const [grad, hv] = m.both(at[0], at[1], t, x, dk, dc, dt);
  expectClose(flat(grad), flat(m.gAll(at[0], at[1], t, x)), 1e-14);
  const along = (s: number) =>
    flat(
      m.gAll(
        at[0] + s * dk,
        at[1] + s * dc,
        t.map((u, i) => u + s * dt[i]),
        x,
      ),
    );
  const expected = along(step).map((p, i) => (p - along(-step)[i]) / (2 * step));
  expectClose(flat(hv), expected, 1e-6);
  // The data array's direction matters: without it the product differs.
  const [, hvNoT] = m.both(at[0], at[1], t, x, dk, dc, new Float64Array(4));
  expect(Math.abs(flat(hv)[0] - flat(hvNoT)[0])).toBeGreaterThan(1e-3);
});

test('jvp(grad(f, wrt)) beside hessian(f, wrt) of the same wrt: the data direction still counts (one gradient def, two JVPs)', () => {
  const [dk, dc, dt] = [0.4, -0.6, new Float64Array([1, -0.5, 0.3, 0.8])];
  const [grad, hv] = m.both01(at[0], at[1], t, x, dk, dc, dt);
  expectClose(flat(grad), flat(m.g01(at[0], at[1], t, x)), 1e-14);
  const along = (s: number) =>
    flat(
      m.g01(
        at[0] + s * dk,
        at[1] + s * dc,
        t.map((u, i) => u + s * dt[i]),
        x,
      ),
    );
  const expected = along(step).map((p, i) => (p - along(-step)[i]) / (2 * step));
  expectClose(flat(hv), expected, 1e-6);
  // And the Hessian of the same module is still the one in (k, c) alone.
  const g = (k: number, c: number) => flat(m.g01(k, c, t, x));
  expectClose(flat(m.h01(at[0], at[1], t, x)), [...differences(g, [1, 0]), ...differences(g, [0, 1])], 1e-6);
});

test('hessian of a function that calls another marked one (nested), against differences of its gradient', () => {
  const g = (k: number, c: number) => flat(m.gOuter(k, c, t, x));
  const H = [differences(g, [1, 0]), differences(g, [0, 1])];
  expectClose(flat(m.hOuter(at[0], at[1], t, x)), [H[0][0], H[1][0], H[0][1], H[1][1]], 1e-6);
});

test('hessian in the model parameters takes no data directions (the wrapper passes none)', () => {
  const text = compile(`${source}\nexport const h01 = hessian(decay, { wrt: [0, 1] });\n`).outputText;
  const body = /function decay\$hvp_0_1\(k, c, t, x, k_v, c_v\) \{[\s\S]*?\n\}/.exec(text);
  expect(body).not.toBeNull();
  expect(text).not.toMatch(/\b[tx]_v\b|zero = new Float64Array/);
  expect(text).toMatch(/decay\$hvp_0_1\(k, c, t, x, 1, 0\)/);
});
