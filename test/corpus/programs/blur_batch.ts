// Separable box blur of a batch of grey images (batch × height × width), two passes through a
// scratch buffer; squared error against target images.
import { differentiable } from 'tsad';

export const blurLoss = differentiable((images: number[][][], targets: number[][][], weight: number): number => {
  let loss = 0;
  for (let b = 0; b < images.length; b++) {
    let src = images[b].map((row) => row.slice());
    let dst = src.map((row) => row.slice());
    const H = src.length;
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < H; i++) {
        const W = src[i].length;
        for (let j = 0; j < W; j++) {
          const a = pass === 0 ? src[i][Math.max(j - 1, 0)] : src[Math.max(i - 1, 0)][j];
          const c = pass === 0 ? src[i][Math.min(j + 1, W - 1)] : src[Math.min(i + 1, H - 1)][j];
          dst[i][j] = weight * a + (1 - 2 * weight) * src[i][j] + weight * c;
        }
      }
      [src, dst] = [dst, src];
    }
    for (let i = 0; i < H; i++) {
      for (let j = 0; j < src[i].length; j++) loss += (src[i][j] - targets[b][i][j]) ** 2;
    }
  }
  return loss;
});
