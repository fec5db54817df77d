// TensorFlow.js on its CPU backend (plain JavaScript kernels), shared by the tfjs peers. Importing
// this module selects the backend once. tfjs computes in float32 only: inputs are rounded to it and
// gradients come back widened to Float64Array.
import * as tf from '@tensorflow/tfjs';

// Production mode, as a user after speed would run it: it also silences the start-up hint to
// install tfjs-node, which would otherwise land in the middle of the table.
tf.enableProdMode();
if (!(await tf.setBackend('cpu'))) throw new Error('tfjs: the cpu backend did not start');
await tf.ready();

export { tf };

/** A float64 copy of a tensor's values. */
export function toF64(t) {
  return Float64Array.from(t.dataSync());
}

/** A float32 tensor of `x` (tfjs accepts no Float64Array). */
export function fromF64(x) {
  return tf.tensor1d(Float32Array.from(x), 'float32');
}
