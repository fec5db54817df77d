// Multinomial logistic regression: cross-entropy of a linear classifier over a labelled batch.

/** @differentiable */
export function softplus(x: number): number {
  return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
}

/** @differentiable */
export function crossEntropy(W: number[][], bias: number[], X: number[][], labels: Int32Array, l2: number): number {
  let loss = 0;
  let correct = 0;
  for (let n = 0; n < X.length; n++) {
    const logits = W.map((w, k) => w.reduce((s, wj, j) => s + wj * X[n][j], bias[k]));
    const m = Math.max(...logits);
    const logZ = m + Math.log(logits.reduce((s, z) => s + Math.exp(z - m), 0));
    loss += logZ - logits[labels[n]];
    if (logits.indexOf(m) === labels[n]) correct++;
  }
  const penalty = bias.map(softplus).reduce((a, b) => a + b, 0);
  console.log(`accuracy ${correct}/${X.length}`);
  return loss / Math.max(1, X.length) + l2 * penalty;
}
