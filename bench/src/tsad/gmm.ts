// GradBench gmm for tsad: the log posterior of a Gaussian mixture with a Wishart prior (the
// maths is in the eval's README). The independent variables come first as one object, so grad
// returns their gradients in the same shape; the data and sizes are constants. Row-major:
// x is n×d, mu and q are k×d, l is k×d(d−1)/2 (Q's strict lower triangle, column by column).

export interface GmmParams {
  alpha: Float64Array;
  mu: Float64Array;
  q: Float64Array;
  l: Float64Array;
}

/** log Γ_d(a) for a a multiple of ½ (m is an integer), a constant of the objective. */
export function logMultiGamma(a: number, d: number): number {
  let acc = ((d * (d - 1)) / 4) * Math.log(Math.PI);
  for (let j = 1; j <= d; j++) {
    const v = a + (1 - j) / 2;
    let lg = Number.isInteger(v) ? 0 : 0.5 * Math.log(Math.PI);
    for (let u = Number.isInteger(v) ? 1 : 0.5; u < v; u += 1) lg += Math.log(u);
    acc += lg;
  }
  return acc;
}

/** @differentiable */
export function gmmObjective(
  p: GmmParams,
  x: Float64Array,
  d: number,
  k: number,
  n: number,
  m: number,
  gamma: number,
  logGammaD: number,
): number {
  const lsz = (d * (d - 1)) / 2;
  const beta = new Float64Array(k);
  const z = new Float64Array(d);
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < k; c++) {
      // z = Q(x_i − μ_c): the diagonal e^q, then the strict lower part column by column.
      let sumq = 0;
      for (let r = 0; r < d; r++) {
        sumq += p.q[c * d + r];
        z[r] = Math.exp(p.q[c * d + r]) * (x[i * d + r] - p.mu[c * d + r]);
      }
      let li = c * lsz;
      for (let col = 0; col < d; col++) {
        for (let r = col + 1; r < d; r++) {
          z[r] += p.l[li] * (x[i * d + col] - p.mu[c * d + col]);
          li++;
        }
      }
      let sq = 0;
      for (let r = 0; r < d; r++) sq += z[r] * z[r];
      beta[c] = p.alpha[c] + sumq - 0.5 * sq;
    }
    let bmax = -Infinity;
    for (let c = 0; c < k; c++) bmax = Math.max(bmax, beta[c]);
    let bsum = 0;
    for (let c = 0; c < k; c++) bsum += Math.exp(beta[c] - bmax);
    total += bmax + Math.log(bsum);
  }
  let amax = -Infinity;
  for (let c = 0; c < k; c++) amax = Math.max(amax, p.alpha[c]);
  let asum = 0;
  for (let c = 0; c < k; c++) asum += Math.exp(p.alpha[c] - amax);
  const lseAlpha = amax + Math.log(asum);
  let frob = 0;
  let sumqAll = 0;
  for (let j = 0; j < k * d; j++) {
    frob += Math.exp(2 * p.q[j]);
    sumqAll += p.q[j];
  }
  for (let j = 0; j < k * lsz; j++) frob += p.l[j] * p.l[j];
  const dof = d + m + 1;
  const constant = -n * (d / 2) * Math.log(2 * Math.PI) + k * (dof * d * Math.log(gamma / Math.SQRT2) - logGammaD);
  return total - n * lseAlpha - 0.5 * gamma * gamma * frob + m * sumqAll + constant;
}
