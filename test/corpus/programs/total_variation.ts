// Total-variation denoising energy of a colour image (channels × height × width).
import { differentiable } from 'tsad';

export const tvEnergy = differentiable((u: number[][][], f: number[][][], lambda: number): number => {
  const eps = 1e-6;
  let tv = 0;
  let fidelity = 0;
  u.forEach((channel, c) => {
    const H = channel.length;
    for (let i = 0; i < H; i++) {
      const W = channel[i].length;
      for (let j = 0; j < W; j++) {
        const dx = j + 1 < W ? channel[i][j + 1] - channel[i][j] : 0;
        const dy = i + 1 < H ? channel[i + 1][j] - channel[i][j] : 0;
        tv += Math.sqrt(dx * dx + dy * dy + eps);
        fidelity += (channel[i][j] - f[c][i][j]) ** 2;
      }
    }
  });
  return tv + 0.5 * lambda * fidelity;
});
