// A robust location fit: the median absolute deviation of residuals, medians from sorted copies.

/** @differentiable */
export function median(xs: number[]): number {
  if (xs.length === 0) throw new Error('median of an empty array');
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
}

/**
 * MAD of y − (a + b·x).
 * @differentiable
 */
export function madLoss(params: [number, number], x: number[], y: number[]): number {
  const residuals = y.map((yi, i) => yi - (params[0] + params[1] * x[i]));
  const m = median(residuals);
  return median(residuals.map((r) => Math.abs(r - m)));
}
