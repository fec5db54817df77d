// Batch normalisation over a batch × channels × features tensor, then a squared readout.
import { differentiable } from 'tsad';

export const batchNormLoss = differentiable((x: number[][][], gamma: number[], beta: number[]): number => {
  if (x.length === 0) throw new Error('empty batch');
  const C = gamma.length;
  let loss = 0;
  for (let c = 0; c < C; c++) {
    const values = x.map((sample) => sample[c]).flat();
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
    if (x.some((sample) => sample[c].length === 0)) throw new Error('a channel without features');
    const normalised = values.map((v) => gamma[c] * ((v - mean) / Math.sqrt(variance + 1e-5)) + beta[c]);
    loss += normalised.reduce((a, v) => a + Math.tanh(v) ** 2, 0);
  }
  console.log('batch norm loss', loss);
  return loss / x.length;
});
