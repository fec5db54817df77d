// GradBench's lse in TensorFlow.js: LSE(x) = a + log Σ exp(x_i − a), a = max x, differentiated by
// tf.grad. The shift a is computed before tf.grad sees the function, so it is a constant there
// (tfjs has no stopGradient); its exact derivative 1 − Σ softmax is 0, so nothing is lost.
import { tf, fromF64, toF64 } from './setup.mjs';

const shifted = (a) => (x) => tf.log(tf.sum(tf.exp(tf.sub(x, a)))).add(a);

export function primal(x) {
  return tf.tidy(() => {
    const t = fromF64(x);
    return shifted(tf.max(t))(t).dataSync()[0];
  });
}

export function gradient(x) {
  return tf.tidy(() => {
    const t = fromF64(x);
    return toF64(tf.grad(shifted(tf.max(t)))(t));
  });
}
