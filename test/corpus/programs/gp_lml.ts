// Gaussian-process regression: the negative log marginal likelihood of the data under a
// squared-exponential kernel, by Cholesky factorisation.

/** @differentiable */
export function cholesky(K: number[][]): number[][] {
  const n = K.length;
  const L = K.map(() => new Array<number>(n).fill(0));
  for (let j = 0; j < n; j++) {
    let d = K[j][j];
    for (let k = 0; k < j; k++) d -= L[j][k] * L[j][k];
    if (!(d > 0)) throw new Error('not positive definite');
    L[j][j] = Math.sqrt(d);
    for (let i = j + 1; i < n; i++) {
      let s = K[i][j];
      for (let k = 0; k < j; k++) s -= L[i][k] * L[j][k];
      L[i][j] = s / L[j][j];
    }
  }
  return L;
}

/**
 * −log p(y | X, θ) for θ = [log lengthscale, log signal variance, log noise variance].
 * @differentiable
 */
export function negLogMarginal(theta: [number, number, number], xs: [number, number][], ys: number[]): number {
  const [logEll, logSf2, logSn2] = theta;
  const ell = Math.exp(logEll);
  const n = xs.length;
  const K = xs.map((a, i) =>
    xs.map((b, j) => {
      const r2 = (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2;
      return Math.exp(logSf2 - r2 / (2 * ell * ell)) + (i === j ? Math.exp(logSn2) : 0);
    }),
  );
  const L = cholesky(K);
  const alpha = ys.slice();
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < i; k++) alpha[i] -= L[i][k] * alpha[k];
    alpha[i] /= L[i][i];
  }
  let logDet = 0;
  let fit = 0;
  for (let i = 0; i < n; i++) {
    logDet += Math.log(L[i][i]);
    fit += alpha[i] * alpha[i];
  }
  console.log('nlml terms', fit, logDet);
  return 0.5 * fit + logDet + 0.5 * n * Math.log(2 * Math.PI);
}
