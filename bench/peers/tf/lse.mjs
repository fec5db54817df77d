// GradBench's lse in TensorFlow.js: LSE(x) = a + log Σ exp(x_i − a), a = max x, differentiated by
// tf.grad. The shift a is computed before tf.grad sees the function, so it is a constant there
// (tfjs has no stopGradient); its exact derivative 1 − Σ softmax is 0, so nothing is lost.
import { tf, fromF64, toF64 } from './setup.mjs';

const shifted = (a) => (x) => tf.log(tf.sum(tf.exp(tf.sub(x, a)))).add(a);

/** The input held as a tfjs tensor, so that timing leaves out the copy from Float64Array. */
export function prepare(xs) {
  const x = fromF64(xs);
  return {
    primal: () => tf.tidy(() => shifted(tf.max(x))(x).dataSync()[0]),
    gradient: () => tf.tidy(() => toF64(tf.grad(shifted(tf.max(x)))(x))),
    dispose: () => x.dispose(),
  };
}

export function primal(x) {
  return once(x, (p) => p.primal());
}

export function gradient(x) {
  return once(x, (p) => p.gradient());
}

function once(x, f) {
  const p = prepare(x);
  try {
    return f(p);
  } finally {
    p.dispose();
  }
}
