// Negative log-likelihood of a multivariate normal with covariance Σ = L Lᵀ from a Cholesky
// factorisation written out by hand.
import { differentiable } from 'tsad';

export const gaussianNll = differentiable((sigma: number[][], mean: number[], x: number[]): number => {
  const n = mean.length;
  const L: number[][] = new Array(n);
  for (let i = 0; i < n; i++) {
    L[i] = new Array(n).fill(0);
    for (let j = 0; j <= i; j++) {
      let s = sigma[i][j];
      for (let k = 0; k < j; k++) s -= L[i][k] * L[j][k];
      if (i === j) {
        if (!(s > 0)) throw new Error('not positive definite');
        L[i][i] = Math.sqrt(s);
      } else {
        L[i][j] = s / L[j][j];
      }
    }
  }
  const z = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    let s = x[i] - mean[i];
    for (let k = 0; k < i; k++) s -= L[i][k] * z[k];
    z[i] = s / L[i][i];
  }
  let quad = 0;
  let logDet = 0;
  for (let i = 0; i < n; i++) {
    quad += z[i] * z[i];
    logDet += 2 * Math.log(L[i][i]);
  }
  return 0.5 * (quad + logDet + n * Math.log(2 * Math.PI));
});
