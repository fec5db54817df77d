// One convolution layer (valid, stride 1) with ReLU and 2×2 max pooling over a batch of images
// stored channels × height × width; a least-squares readout of the pooled features.

/**
 * @differentiable
 */
export function conv2d(image: number[][][], kernel: number[][][], bias: number): number[][] {
  const C = image.length;
  const H = image[0].length;
  const W = image[0][0].length;
  const K = kernel[0].length;
  const out: number[][] = [];
  for (let i = 0; i + K <= H; i++) {
    const row: number[] = [];
    for (let j = 0; j + K <= W; j++) {
      let s = bias;
      for (let c = 0; c < C; c++) {
        for (let u = 0; u < K; u++) {
          for (let v = 0; v < K; v++) s += kernel[c][u][v] * image[c][i + u][j + v];
        }
      }
      row.push(Math.max(0, s));
    }
    out.push(row);
  }
  return out;
}

/** @differentiable */
export function maxPool(fm: number[][]): number[] {
  const pooled: number[] = [];
  for (let i = 0; i + 1 < fm.length; i += 2) {
    for (let j = 0; j + 1 < fm[i].length; j += 2) {
      pooled.push(Math.max(...[fm[i][j], fm[i][j + 1], fm[i + 1][j], fm[i + 1][j + 1]]));
    }
  }
  return pooled;
}

/** @differentiable */
export function convLoss(kernel: number[][][], bias: number, images: number[][][][], targets: number[]): number {
  let loss = 0;
  images.forEach((img, n) => {
    const features = maxPool(conv2d(img, kernel, bias));
    const score = features.reduce((s, f) => s + f, 0);
    loss += (score - targets[n]) ** 2;
  });
  return loss;
}
