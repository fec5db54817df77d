// Mean–variance portfolio objective with long-only weights, a cap on the largest position and
// a penalty on the position furthest over a benchmark.

/** @differentiable */
export function portfolioObjective(weights: number[], returns: number[][], riskAversion: number, benchmark: number[]): number {
  if (!weights.every((w) => w >= 0)) throw new Error('weights must be long-only');
  const total = weights.reduce((a, b) => a + b, 0);
  const w = weights.map((x) => x / total);
  const T = returns.length;
  const mean = new Array<number>(w.length).fill(0);
  for (const r of returns) for (let i = 0; i < w.length; i++) mean[i] += r[i] / T;
  let expected = 0;
  for (let i = 0; i < w.length; i++) expected += w[i] * mean[i];
  let variance = 0;
  for (const r of returns) {
    let dev = 0;
    for (let i = 0; i < w.length; i++) dev += w[i] * (r[i] - mean[i]);
    variance += (dev * dev) / T;
  }
  const excess = w.map((x, i) => x - benchmark[i]);
  const worst = excess.indexOf(Math.max(...excess));
  const firstOver = excess.findIndex((e) => e > 0.1);
  const cap = firstOver >= 0 ? 10 * excess[worst] ** 2 : 0;
  return -expected + riskAversion * variance + cap;
}
