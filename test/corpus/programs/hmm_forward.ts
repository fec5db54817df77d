// The forward algorithm of a hidden Markov model in log space: log p(observations).

/** @differentiable */
function logSumExp(xs: number[]): number {
  const m = Math.max(...xs);
  if (m === -Infinity) return -Infinity;
  return m + Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0));
}

/**
 * logInit[i], logTrans[i][j] = log p(j | i), logEmit[i][o] = log p(o | i).
 * @differentiable
 */
export function logLikelihood(logInit: number[], logTrans: number[][], logEmit: number[][], observations: Int32Array): number {
  const n = logInit.length;
  if (observations.length === 0) return 0;
  let alpha = logInit.map((li, i) => li + logEmit[i][observations[0]]);
  for (let t = 1; t < observations.length; t++) {
    const next = new Array<number>(n);
    for (let j = 0; j < n; j++) {
      const incoming = alpha.map((a, i) => a + logTrans[i][j]);
      next[j] = logSumExp(incoming) + logEmit[j][observations[t]];
    }
    alpha = next;
  }
  return logSumExp(alpha);
}
