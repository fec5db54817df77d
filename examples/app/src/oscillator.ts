// Fitting a damped oscillator x(t) = A·exp(−γt)·cos(ωt + φ) to noisy measurements by gradient
// descent. The derivatives are compiled by tsad at build time (`tspc`), from three marker forms.
import { differentiable, valueAndGrad, grad, hessian } from 'tsad';

export interface Params {
  amplitude: number;
  damping: number;
  omega: number;
  phase: number;
}
export type Sample = [t: number, x: number];
export type Data = [Sample, Sample, Sample, Sample, Sample, Sample, Sample, Sample, Sample, Sample, Sample, Sample, Sample, Sample, Sample, Sample];

/** @differentiable */
export function model(p: Params, t: number): number {
  return p.amplitude * Math.exp(-p.damping * t) * Math.cos(p.omega * t + p.phase);
}

/** Squared error of one measurement. */
const residual2 = differentiable((p: Params, s: Sample) => {
  const r = model(p, s[0]) - s[1];
  return r * r;
});

export class Fit {
  // Data are constants: only the parameters are differentiated.
  @differentiable({ wrt: ['p'] })
  static loss(p: Params, d: Data): number {
    const total =
    residual2(p, d[0]) +
    residual2(p, d[1]) +
    residual2(p, d[2]) +
    residual2(p, d[3]) +
    residual2(p, d[4]) +
    residual2(p, d[5]) +
    residual2(p, d[6]) +
    residual2(p, d[7]) +
    residual2(p, d[8]) +
    residual2(p, d[9]) +
    residual2(p, d[10]) +
    residual2(p, d[11]) +
    residual2(p, d[12]) +
    residual2(p, d[13]) +
    residual2(p, d[14]) +
    residual2(p, d[15]);
    return total / 16;
  }
}

export const lossAndGrad = valueAndGrad(Fit.loss);
export const gradLoss = grad(Fit.loss);
/** 4×4, rows and columns in field-name order (amplitude, damping, omega, phase). */
export const hessianLoss = hessian(Fit.loss);
