// Multi-head self-attention over a sequence; heads' outputs concatenated, then a squared
// readout. Weights per head are stacked as number[][][] (head × model × head width).

/** @differentiable */
export function gelu(x: number): number {
  return 0.5 * x * (1 + Math.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)));
}

/** @differentiable */
function project(x: number[], W: number[][]): number[] {
  return W[0].map((_, k) => x.reduce((s, xi, i) => s + xi * W[i][k], 0));
}

/** @differentiable */
export function attentionLoss(tokens: number[][], Wq: number[][][], Wk: number[][][], Wv: number[][][]): number {
  let loss = 0;
  for (const token of tokens) {
    let out: number[] = [];
    for (let h = 0; h < Wq.length; h++) {
      const q = project(token, Wq[h]);
      const scores = tokens.map((other) => {
        const k = project(other, Wk[h]);
        return q.reduce((s, qi, i) => s + qi * k[i], 0) / Math.sqrt(q.length);
      });
      const m = Math.max(...scores);
      const weights = scores.map((s) => Math.exp(s - m));
      const z = weights.reduce((a, b) => a + b, 0);
      const head = new Array<number>(Wv[h][0].length).fill(0);
      tokens.forEach((other, j) => {
        const v = project(other, Wv[h]);
        for (let i = 0; i < head.length; i++) head[i] += (weights[j] / z) * v[i];
      });
      out = out.concat(head);
    }
    loss += out.map(gelu).reduce((a, b) => a + b * b, 0);
  }
  return loss;
}
