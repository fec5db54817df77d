// The same damped oscillator, but simulated instead of solved: x'' = −(ω² + γ²)·x − 2γ·x',
// started from the closed form's x(0) and x'(0) and integrated with classical Runge–Kutta in a
// plain `for` loop. tsad differentiates through the loop (the emitted gradient runs the loop
// forwards, saving each step's residuals, then backwards), so the fit needs no closed form.
import { differentiable, valueAndGrad, grad, hessian } from 'tsad';
import type { Params } from './oscillator';

/** x(t) by `steps` RK4 steps of the oscillator's equation of motion. */
export const simulate = differentiable((p: Params, t: number, steps: number): number => {
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
});

const STEPS = 40;

/** Squared error of one measurement against the simulated trajectory. */
const simulatedResidual2 = differentiable((p: Params, t: number, x: number) => {
  const r = simulate(p, t, STEPS) - x;
  return r * r;
});

/** @differentiable */
export function simulatedLoss(p: Params, t: Float64Array, x: Float64Array): number {
  let total = 0;
  for (let i = 0; i < t.length; i++) total += simulatedResidual2(p, t[i], x[i]);
  return total / t.length;
}

export const simulatedLossAndGrad = valueAndGrad(simulatedLoss);
export const simulatedGrad = grad(simulatedLoss);
/** Forward over reverse through the RK4 loop: the loop's tape has tangents too. */
export const simulatedHessian = hessian(simulatedLoss);
