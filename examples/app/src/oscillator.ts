// Fitting a damped oscillator x(t) = A·exp(−γt)·cos(ωt + φ) to noisy measurements by gradient
// descent. The derivatives are compiled by tsad at build time (`tspc`), from three marker forms.
import { differentiable, valueAndGrad, grad, hessian } from 'tsad';

export interface Params {
  amplitude: number;
  damping: number;
  omega: number;
  phase: number;
}
/** Measurements: x[i] measured at time t[i], any number of them. */
export interface Data {
  t: Float64Array;
  x: Float64Array;
}

/** @differentiable */
export function model(p: Params, t: number): number {
  return p.amplitude * Math.exp(-p.damping * t) * Math.cos(p.omega * t + p.phase);
}

/** Squared error of one measurement. */
const residual2 = differentiable((p: Params, t: number, x: number) => {
  const r = model(p, t) - x;
  return r * r;
});

export class Fit {
  // The measurements are constants: only the parameters are differentiated.
  @differentiable({ wrt: ['p'] })
  static loss(p: Params, t: Float64Array, x: Float64Array): number {
    let total = 0;
    for (let i = 0; i < t.length; i++) total += residual2(p, t[i], x[i]);
    return total / t.length;
  }
}

export const lossAndGrad = valueAndGrad(Fit.loss);
export const gradLoss = grad(Fit.loss);
/** 4×4, rows and columns in field-name order (amplitude, damping, omega, phase). */
export const hessianLoss = hessian(Fit.loss);
