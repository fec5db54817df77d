// Least-squares fit of a polynomial (Horner evaluation) with a ridge penalty.

/** @differentiable({ wrt: ['coeffs'] }) */
export function polyLoss(coeffs: Float64Array, x: Float64Array, y: Float64Array, ridge: number): number {
  let loss = 0;
  for (let i = 0; i < x.length; i++) {
    let p = 0;
    for (let k = coeffs.length - 1; k >= 0; k--) p = p * x[i] + coeffs[k];
    loss += (p - y[i]) ** 2;
  }
  const penalty = coeffs.reduce((s, c) => s + c * c, 0);
  return loss / Math.max(1, x.length) + ridge * penalty;
}
