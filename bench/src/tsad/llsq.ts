// GradBench llsq for tsad: y(x) = ½ Σ_i (s_i − Σ_j x_j t_i^j)², t_i = −1 + 2i/(n−1), s_i = sign(t_i).
// n is an integer size, a constant for the derivative.

/** @differentiable */
export function llsq(x: Float64Array, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const t = -1 + (i * 2) / (n - 1);
    let r = Math.sign(t);
    let p = 1;
    for (let j = 0; j < x.length; j++) {
      r -= x[j] * p;
      p *= t;
    }
    sum += r * r;
  }
  return sum / 2;
}
