// Logistic regression: mean binary cross-entropy of a linear model over a design matrix.
import { differentiable, dot } from 'tsad';

export const logisticLoss = differentiable((w: Float64Array, b: number, X: number[][], y: Float64Array): number => {
  let total = 0;
  for (let i = 0; i < X.length; i++) {
    let z = b;
    for (let j = 0; j < w.length; j++) z += w[j] * X[i][j];
    // log(1 + e^z) − y z, written to stay finite for large |z|.
    total += Math.max(z, 0) + Math.log1p(Math.exp(-Math.abs(z))) - y[i] * z;
  }
  return total / Math.max(1, X.length) + 1e-3 * dot(w, w);
});
