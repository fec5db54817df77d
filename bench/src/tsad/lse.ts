// GradBench lse for tsad: log Σ exp(x_i), stabilised by the maximum. The value does not depend on
// the shift (its derivative through the shift is exactly zero), so the shift is a constant for
// differentiation, as in JAX's logsumexp: stopGradient spares the max loop its reverse sweep.
import { stopGradient } from 'tsad';

/** @differentiable */
export function lse(x: Float64Array): number {
  let m = -Infinity;
  for (let i = 0; i < x.length; i++) m = Math.max(m, x[i]);
  const a = stopGradient(m);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i] - a);
  return a + Math.log(s);
}
