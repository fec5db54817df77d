// A multilayer perceptron as a list of layers; mean squared error over a small data set.

export interface Layer {
  W: number[][];
  b: number[];
}

/** @differentiable */
function matVec(W: number[][], x: number[]): number[] {
  return W.map((row) => row.reduce((s, w, j) => s + w * x[j], 0));
}

/** @differentiable */
export function mse(layers: Layer[], inputs: number[][], targets: number[]): number {
  let loss = 0;
  for (let n = 0; n < inputs.length; n++) {
    let a = inputs[n];
    layers.forEach((layer, l) => {
      const z = matVec(layer.W, a);
      for (let i = 0; i < z.length; i++) {
        z[i] += layer.b[i];
        if (l < layers.length - 1) z[i] = Math.tanh(z[i]);
      }
      a = z;
    });
    loss += (a[0] - targets[n]) ** 2;
  }
  loss /= Math.max(1, inputs.length);
  console.log('loss', loss);
  return loss;
}
