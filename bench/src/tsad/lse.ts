// GradBench lse for tsad: log Σ exp(x_i), stabilised by the maximum.

/** @differentiable */
export function lse(x: Float64Array): number {
  let a = -Infinity;
  for (let i = 0; i < x.length; i++) a = Math.max(a, x[i]);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i] - a);
  return a + Math.log(s);
}
