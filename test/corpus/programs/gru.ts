// A GRU cell run over a batch of sequences (batch × time × features); mean squared error of
// the final hidden state's first unit against a target per sequence.

export interface Gate {
  W: number[][];
  U: number[][];
  b: number[];
}

/** @differentiable */
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** @differentiable */
function affine(g: Gate, x: number[], h: number[]): number[] {
  const out = g.b.slice();
  for (let i = 0; i < out.length; i++) {
    for (let j = 0; j < x.length; j++) out[i] += g.W[i][j] * x[j];
    for (let j = 0; j < h.length; j++) out[i] += g.U[i][j] * h[j];
  }
  return out;
}

/** @differentiable */
export function gruLoss(gates: Gate[], batch: number[][][], targets: number[]): number {
  const [update, reset, candidate] = gates;
  const hidden = update.b.length;
  let loss = 0;
  for (let s = 0; s < batch.length; s++) {
    let h = new Array<number>(hidden).fill(0);
    for (const x of batch[s]) {
      const z = affine(update, x, h).map(sigmoid);
      const r = affine(reset, x, h).map(sigmoid);
      const rh = h.map((hj, j) => r[j] * hj);
      const c = affine(candidate, x, rh);
      for (let j = 0; j < hidden; j++) c[j] = Math.tanh(c[j]);
      h = h.map((hj, j) => (1 - z[j]) * hj + z[j] * c[j]);
    }
    loss += (h[0] - targets[s]) ** 2;
  }
  return batch.length > 0 ? loss / batch.length : 0;
}
