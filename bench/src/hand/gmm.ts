// The log posterior of GradBench's gmm eval and its gradient, by hand (the maths is in the eval's
// README). Row-major storage: x is n×d, mu and q are k×d, l is k×(d(d−1)/2) holding the strictly
// lower triangle of Q_k column by column. With z = Q_k(x_i − μ_k) and
//   β_ik = α_k − ½|z|² + Σ_j q_kj,  F = Σ_i lse_k(β_ik) − n(d/2·log 2π + lse(α)) + prior,
// the gradient weights every (i, k) term by the responsibility w_ik = softmax_k(β_i·):
//   ∂β/∂μ_k = Q_kᵀz,  ∂β/∂q_kr = 1 − z_r·diff_r·e^{q_kr},  ∂β/∂L_rc = −z_r·diff_c (r > c).

import type { GmmData, GmmParams } from '../gradbench/shapes';

/** log Γ(v) for v a positive multiple of ½, which is all the Wishart constant needs (m integer). */
function logGammaHalfInteger(v: number): number {
  if (!(v > 0) || !Number.isInteger(2 * v)) throw new RangeError(`gmm: log Γ(${v}) needs a positive multiple of 1/2`);
  let acc = Number.isInteger(v) ? 0 : 0.5 * Math.log(Math.PI);
  for (let u = Number.isInteger(v) ? 1 : 0.5; u < v; u += 1) acc += Math.log(u);
  return acc;
}

/** log of the multivariate gamma function Γ_p(a). */
function logMultiGamma(a: number, p: number): number {
  let acc = ((p * (p - 1)) / 4) * Math.log(Math.PI);
  for (let j = 1; j <= p; j++) acc += logGammaHalfInteger(a + (1 - j) / 2);
  return acc;
}

function lseOf(v: Float64Array, len: number): number {
  let a = -Infinity;
  for (let j = 0; j < len; j++) if (v[j] > a) a = v[j];
  let s = 0;
  for (let j = 0; j < len; j++) s += Math.exp(v[j] - a);
  return a + Math.log(s);
}

/** The parameter-independent part of F: −n·d/2·log 2π + k(nD·log(γ/√2) − log Γ_D(nW/2)). */
function constantPart(data: GmmData): number {
  const { d, k, n, m, gamma } = data;
  const dof = d + m + 1;
  return -n * (d / 2) * Math.log(2 * Math.PI) + k * (dof * d * Math.log(gamma / Math.SQRT2) - logMultiGamma(dof / 2, d));
}

/** Σ_j q_kj and e^{q} for every component (k and k×d). */
function diagonals(q: Float64Array, k: number, d: number, eq: Float64Array, sumq: Float64Array): void {
  for (let c = 0; c < k; c++) {
    let s = 0;
    for (let j = 0; j < d; j++) {
      const v = q[c * d + j];
      s += v;
      eq[c * d + j] = Math.exp(v);
    }
    sumq[c] = s;
  }
}

/**
 * z = Q(x − μ) for one point and component; writes diff and z (length d) and returns |z|².
 * Q's strictly lower part is walked column by column, the order l stores it in.
 */
function project(
  x: Float64Array, xi: number, mu: Float64Array, eq: Float64Array, l: Float64Array,
  kc: number, d: number, lOff: number, diff: Float64Array, z: Float64Array, zo: number,
): number {
  for (let r = 0; r < d; r++) {
    const e = x[xi + r] - mu[kc + r];
    diff[zo + r] = e;
    z[zo + r] = eq[kc + r] * e;
  }
  let li = lOff;
  for (let c = 0; c < d; c++) {
    const dc = diff[zo + c];
    for (let r = c + 1; r < d; r++) z[zo + r] += l[li++] * dc;
  }
  let sq = 0;
  for (let r = 0; r < d; r++) sq += z[zo + r] * z[zo + r];
  return sq;
}

export function gmmObjective(data: GmmData, p: GmmParams): number {
  const { d, k, n, x, m, gamma } = data;
  const { alpha, mu, q, l } = p;
  const lsz = (d * (d - 1)) / 2;
  const eq = new Float64Array(k * d);
  const sumq = new Float64Array(k);
  diagonals(q, k, d, eq, sumq);
  const diff = new Float64Array(d);
  const z = new Float64Array(d);
  const beta = new Float64Array(k);
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < k; c++) {
      beta[c] = alpha[c] + sumq[c] - 0.5 * project(x, i * d, mu, eq, l, c * d, d, c * lsz, diff, z, 0);
    }
    total += lseOf(beta, k);
  }
  let prior = 0;
  for (let c = 0; c < k; c++) {
    let frob = 0;
    for (let j = 0; j < d; j++) frob += eq[c * d + j] * eq[c * d + j];
    for (let j = 0; j < lsz; j++) frob += l[c * lsz + j] * l[c * lsz + j];
    prior += -0.5 * gamma * gamma * frob + m * sumq[c];
  }
  return total - n * lseOf(alpha, k) + prior + constantPart(data);
}

/** ∇F with respect to (alpha, mu, q, l), in the same layouts as the parameters. */
export function gmmGradient(data: GmmData, p: GmmParams): GmmParams {
  const { d, k, n, x, m, gamma } = data;
  const { alpha, mu, q, l } = p;
  const lsz = (d * (d - 1)) / 2;
  const eq = new Float64Array(k * d);
  const sumq = new Float64Array(k);
  diagonals(q, k, d, eq, sumq);
  const g: GmmParams = {
    alpha: new Float64Array(k),
    mu: new Float64Array(k * d),
    q: new Float64Array(k * d),
    l: new Float64Array(k * lsz),
  };
  // Per point, every component's diff and z are kept (k×d) so the backward sweep reuses them.
  const diff = new Float64Array(k * d);
  const z = new Float64Array(k * d);
  const beta = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    const xi = i * d;
    for (let c = 0; c < k; c++) {
      beta[c] = alpha[c] + sumq[c] - 0.5 * project(x, xi, mu, eq, l, c * d, d, c * lsz, diff, z, c * d);
    }
    const lse = lseOf(beta, k);
    for (let c = 0; c < k; c++) {
      const w = Math.exp(beta[c] - lse);
      const kc = c * d;
      g.alpha[c] += w;
      // Diagonal of Q: ∂β/∂μ gets e^q·z, ∂β/∂q gets 1 − z·diff·e^q.
      for (let r = 0; r < d; r++) {
        const zr = z[kc + r];
        g.mu[kc + r] += w * eq[kc + r] * zr;
        g.q[kc + r] += w * (1 - zr * diff[kc + r] * eq[kc + r]);
      }
      // Strictly lower part, column by column: (Qᵀz)_c += L_rc·z_r and ∂β/∂L_rc = −z_r·diff_c.
      let li = c * lsz;
      for (let col = 0; col < d; col++) {
        const dc = diff[kc + col];
        const wdc = w * dc;
        let acc = 0;
        for (let r = col + 1; r < d; r++) {
          const zr = z[kc + r];
          acc += l[li] * zr;
          g.l[li] -= wdc * zr;
          li++;
        }
        g.mu[kc + col] += w * acc;
      }
    }
  }
  // −n·lse(α) and the Wishart prior.
  let amax = -Infinity;
  for (let c = 0; c < k; c++) if (alpha[c] > amax) amax = alpha[c];
  let asum = 0;
  for (let c = 0; c < k; c++) asum += Math.exp(alpha[c] - amax);
  for (let c = 0; c < k; c++) g.alpha[c] -= (n * Math.exp(alpha[c] - amax)) / asum;
  const g2 = gamma * gamma;
  for (let j = 0; j < k * d; j++) g.q[j] += m - g2 * eq[j] * eq[j];
  for (let j = 0; j < k * lsz; j++) g.l[j] -= g2 * l[j];
  return g;
}
