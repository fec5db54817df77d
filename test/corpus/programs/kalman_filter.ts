// A constant-velocity Kalman filter over noisy position measurements; the negative log
// likelihood of the innovations (for fitting the noise levels).

export interface Track {
  mean: number[];
  cov: number[][];
}

/**
 * Predict step: x ← F x, P ← F P Fᵀ + Q for F = [[1, dt], [0, 1]].
 * @differentiable
 */
function predict(t: Track, dt: number, q: number): Track {
  const [p, v] = t.mean;
  const P = t.cov;
  const a = P[0][0] + dt * (P[1][0] + P[0][1]) + dt * dt * P[1][1];
  const b = P[0][1] + dt * P[1][1];
  return {
    mean: [p + dt * v, v],
    cov: [
      [a + q * dt, b],
      [b, P[1][1] + q * dt],
    ],
  };
}

/** @differentiable */
export function innovationNll(measurements: number[], logQ: number, logR: number): number {
  const q = Math.exp(logQ);
  const r = Math.exp(logR);
  let track: Track = { mean: [measurements.length > 0 ? measurements[0] : 0, 0], cov: [[1, 0], [0, 1]] };
  let nll = 0;
  let innovations: number[] = [];
  for (let k = 1; k < measurements.length; k++) {
    const prior = predict(track, 1, q);
    const S = prior.cov[0][0] + r;
    const y = measurements[k] - prior.mean[0];
    const K = [prior.cov[0][0] / S, prior.cov[1][0] / S];
    const mean = prior.mean;
    mean[0] += K[0] * y;
    mean[1] += K[1] * y;
    const cov = prior.cov.map((row) => row.slice());
    for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) cov[i][j] -= K[i] * prior.cov[0][j];
    track = { mean, cov };
    innovations = innovations.concat([y / Math.sqrt(S)]);
    nll += 0.5 * Math.log(2 * Math.PI * S);
  }
  return nll + 0.5 * innovations.reduce((s, e) => s + e * e, 0);
}
