// hessian and hvp in some parameters differentiate the gradient along those parameters only (the
// masked J, ad/jvp.ts), after fusing it (ad/drivers.ts hvpOf): the backward pass's tape then keeps
// its symbolic zeros, so the data arrays' tangents are never materialised and read back
// (`(empty[i] ?? 0)`), and the loop's tangents need no stacks of their own. Unfused (s12), the
// demo's Fit Hessian stacked tangents it then multiplied by those zeros. The fusion waited for
// checks that survive dead-code removal: along a parameter the gradient is constant in, every
// loop's J is its primal loop, nobody reads it, and its trip-count check went with it
// (droppedChecks.test.ts; now opt/checksAlone.ts keeps the check).
import { compile, expectClose, loadOutput } from './harness';

const SOURCE = `import { grad, hessian, hvp } from 'tsad';
/** @differentiable */
export function loss(a: number, g: number, w: number, ph: number, t: Float64Array, x: Float64Array): number {
  let total = 0;
  for (let i = 0; i < t.length; i++) {
    const r = a * Math.exp(-g * t[i]) * Math.cos(w * t[i] + ph) - x[i];
    total += r * r;
  }
  return total / t.length;
}
/** @differentiable */
export function linear(a: number, w: Float64Array, d: number): number {
  let s = 0;
  for (let r = 0; r < d; r++) s += a * w[r];
  return s;
}
export const g = grad(loss, { wrt: [0, 1, 2, 3] });
export const h = hessian(loss, { wrt: [0, 1, 2, 3] });
export const hv = hvp(loss, { wrt: [0, 1, 2, 3] });
export const hLinear = hessian(linear, { wrt: [0] });
`;

const result = compile(SOURCE);
const m = loadOutput(result);
const n = 12;
const t = Float64Array.from({ length: n }, (_, i) => i * 0.25);
const x = t.map((v) => Math.cos(2 * v) * Math.exp(-0.3 * v));
const at = [1.2, 0.3, 2.1, 0.4];
const step = 1e-5;

/** The emitted function whose name starts with `prefix`, as text. */
function emitted(prefix: string): string {
  const text = result.outputText;
  const start = text.indexOf(`function ${prefix}`);
  expect(start).toBeGreaterThanOrEqual(0);
  const next = text.indexOf('\nfunction ', start + 1);
  return text.slice(start, next < 0 ? undefined : next);
}

test('the Hessian reads no zero tangent of the data and stacks no tangents', () => {
  const body = emitted('loss$hvp');
  expect(body).not.toMatch(/\?\? 0\)/);
  expect(body).not.toMatch(/tsad\$cover|tsad\$lpush|tsad\$lat|tsad\$reserve|tsad\$empty/);
});

test('hessian and hvp against central differences of the gradient', () => {
  const grad = (p: number[]) => Array.from(m.g(...p, t, x) as number[]);
  const columns = at.map((_, j) => {
    const plus = grad(at.map((v, i) => (i === j ? v + step : v)));
    const minus = grad(at.map((v, i) => (i === j ? v - step : v)));
    return plus.map((p, i) => (p - minus[i]) / (2 * step));
  });
  expectClose((m.h(...at, t, x) as number[][]).flat(), columns.flat(), 1e-6);
  const v = [0.5, -1, 0.25, 2];
  const along = columns[0].map((_, i) => columns.reduce((s, c, j) => s + c[i] * v[j], 0));
  expectClose(Array.from(m.hv(...at, t, x, v) as number[]), along, 1e-6);
});

test('a function linear in the parameter still checks its loop: the Hessian throws past the end, and is 0 within', () => {
  const w = Float64Array.from([1, 2]);
  expect(() => m.hLinear(0.5, w, 3)).toThrow(RangeError);
  expect((m.hLinear(0.5, w, 2) as number[][]).flat()).toEqual([0]);
  expect((m.hLinear(0.5, w, 0) as number[][]).flat()).toEqual([0]);
});
