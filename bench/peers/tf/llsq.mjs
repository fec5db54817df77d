// GradBench's llsq in TensorFlow.js, vectorised: y(x) = ½|s − V x|² with V the n×m Vandermonde
// matrix of t_i = −1 + 2i/(n−1) (ascending powers as a running product, cumprod, not pow) and
// s = sign(t); differentiated by tf.grad. V is built in every call, as the other systems do.
import { tf, fromF64, toF64 } from './setup.mjs';

function objective(n, m) {
  return (x) => {
    const t = tf
      .range(0, n, 1, 'float32')
      .mul(2 / (n - 1))
      .sub(1);
    const ones = tf.ones([n, 1]);
    const v = m === 1 ? ones : tf.concat([ones, tf.cumprod(tf.tile(t.reshape([n, 1]), [1, m - 1]), 1)], 1);
    const r = tf.sign(t).sub(tf.matMul(v, x.reshape([m, 1])).reshape([n]));
    return tf.sum(tf.square(r)).mul(0.5);
  };
}

/** The input held as a tfjs tensor (see lse.mjs). */
export function prepare(xs, n) {
  const x = fromF64(xs);
  const f = objective(n, xs.length);
  return {
    primal: () => tf.tidy(() => f(x).dataSync()[0]),
    gradient: () => tf.tidy(() => toF64(tf.grad(f)(x))),
    dispose: () => x.dispose(),
  };
}

export function primal(x, n) {
  return once(x, n, (p) => p.primal());
}

export function gradient(x, n) {
  return once(x, n, (p) => p.gradient());
}

function once(x, n, f) {
  const p = prepare(x, n);
  try {
    return f(p);
  } finally {
    p.dispose();
  }
}
