// A Hessian whose gradient's erased JVP is too large to inline (the demo's RK4 fit) calls it for
// the gradient's tangent only: the JVP it calls returns only that (opt/unreadResults.ts,
// `…$E$keep_1`), so the gradient's own last lines and the loop accumulations only they read (the
// friction cotangent) are not emitted. Before, they ran on every Hessian column and were dropped.
// The Hessian-vector def, left only calling it, then takes its body (opt/forwarders.ts).
import { compile, expectClose, loadOutput } from './harness';

const SOURCE = `import { grad, hessian } from 'tsad';
interface Params { amplitude: number; damping: number; omega: number; phase: number }
/** @differentiable */
function simulate(p: Params, t: number, steps: number): number {
  const stiffness = p.omega * p.omega + p.damping * p.damping;
  const friction = 2 * p.damping;
  let x = p.amplitude * Math.cos(p.phase);
  let v = -p.amplitude * (p.damping * Math.cos(p.phase) + p.omega * Math.sin(p.phase));
  const h = t / steps;
  for (let i = 0; i < steps; i++) {
    const a1 = -stiffness * x - friction * v;
    const x2 = x + (h / 2) * v;
    const v2 = v + (h / 2) * a1;
    const a2 = -stiffness * x2 - friction * v2;
    const x3 = x + (h / 2) * v2;
    const v3 = v + (h / 2) * a2;
    const a3 = -stiffness * x3 - friction * v3;
    const x4 = x + h * v3;
    const v4 = v + h * a3;
    const a4 = -stiffness * x4 - friction * v4;
    x = x + (h / 6) * (v + 2 * v2 + 2 * v3 + v4);
    v = v + (h / 6) * (a1 + 2 * a2 + 2 * a3 + a4);
  }
  return x;
}
/** @differentiable */
export function loss(p: Params, t: Float64Array, x: Float64Array): number {
  let total = 0;
  for (let i = 0; i < t.length; i++) {
    const r = simulate(p, t[i], 12) - x[i];
    total += r * r;
  }
  return total / t.length;
}
export const g = grad(loss);
export const h = hessian(loss);
`;

const result = compile(SOURCE);
const m = loadOutput(result);
const names = ['amplitude', 'damping', 'omega', 'phase'] as const;
const at = { amplitude: 1.4, damping: 0.3, omega: 2.1, phase: 0.4 };
const t = Float64Array.from({ length: 9 }, (_, i) => 0.3 * i);
const x = t.map((v) => Math.cos(2 * v) * Math.exp(-0.25 * v));

test('the Hessian computes the tangent of the gradient only: no primal cotangent of p', () => {
  const text = result.outputText;
  // The JVP it called for the tangent alone (…$E$keep_1) was its only callee: the def took its body (opt/forwarders.ts).
  expect(text).not.toMatch(/\$E\b|\$keep_/);
  const start = text.indexOf('function loss$hvp_0(');
  expect(start).toBeGreaterThanOrEqual(0);
  const body = text.slice(start, text.indexOf('\nfunction ', start + 1));
  expect(body).toMatch(/for \(/);
  // The primal cotangents of p are read by nobody: only their tangents are assigned.
  expect(body).not.toMatch(/\bp_(amplitude|damping|omega|phase)_bar = /);
  expect(body).toMatch(/\bp_omega_bar_dot = /);
});

test('the Hessian against central differences of the gradient', () => {
  const step = 1e-5;
  const grad = (p: typeof at) => names.map((k) => (m.g(p, t, x) as Record<string, number>)[k]);
  const columns = names.map((k) => {
    const plus = grad({ ...at, [k]: at[k] + step });
    const minus = grad({ ...at, [k]: at[k] - step });
    return plus.map((v, i) => (v - minus[i]) / (2 * step));
  });
  expectClose((m.h(at, t, x) as number[][]).flat(), columns.flat(), 1e-6);
});
