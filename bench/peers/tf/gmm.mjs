// GradBench's gmm in TensorFlow.js, vectorised over points and components like jax/gmm.mjs (the
// maths is in the eval's README), differentiated by tf.grads with respect to alpha, mu, q and l.
// tfjs has no stopGradient, so logsumexp's shift goes through one made with tf.customGrad (a
// zero derivative; the shift's exact derivative 1 − Σ softmax is 0 anyway).
import { tf } from './setup.mjs';
import { gmmConstant } from '../gmmConstant.mjs';

const stopGradient = tf.customGrad((v) => ({ value: v.clone(), gradFunc: (dy) => tf.zerosLike(dy) }));

function logsumexp(v, axis) {
  const a = stopGradient(tf.max(v, axis, true));
  return tf.log(tf.sum(tf.exp(v.sub(a)), axis)).add(a.squeeze([axis]));
}

/** The k×d×d strictly lower parts of Q from l (k × d(d−1)/2, columns one after the other). */
function lowerParts(l, k, d) {
  const columns = [];
  let offset = 0;
  for (let c = 0; c < d; c++) {
    const len = d - 1 - c;
    columns.push(
      len === 0
        ? tf.zeros([k, d])
        : tf.pad(l.slice([0, offset], [k, len]), [
            [0, 0],
            [c + 1, 0],
          ]),
    );
    offset += len;
  }
  return tf.stack(columns, 2);
}

function objective(data, x) {
  const { d, k, n, m, gamma } = data;
  const constant = gmmConstant(data);
  return (alpha, mu, q, l) => {
    const eq = tf.exp(q);
    const diff = x.reshape([1, n, d]).sub(mu.reshape([k, 1, d]));
    const z = diff.mul(eq.reshape([k, 1, d])).add(tf.matMul(diff, lowerParts(l, k, d), false, true));
    const sumq = tf.sum(q, 1);
    const beta = alpha
      .reshape([k, 1])
      .add(sumq.reshape([k, 1]))
      .sub(tf.sum(tf.square(z), 2).mul(0.5));
    const frob = tf.sum(tf.square(eq)).add(tf.sum(tf.square(l)));
    return tf
      .sum(logsumexp(beta, 0))
      .sub(logsumexp(alpha, 0).mul(n))
      .sub(frob.mul(0.5 * gamma * gamma))
      .add(tf.sum(sumq).mul(m))
      .add(constant);
  };
}

/**
 * The inputs held as tfjs tensors (the timing leaves out the copies); the gradient comes back as
 * one Float64Array, alpha, mu, q, l one after the other.
 */
export function prepare(data, params) {
  const { d, k, n } = data;
  const f32 = (a, shape) => tf.tensor(Float32Array.from(a), shape);
  const x = f32(data.x, [n, d]);
  const p = [f32(params.alpha, [k]), f32(params.mu, [k, d]), f32(params.q, [k, d]), f32(params.l, [k, (d * (d - 1)) / 2])];
  const f = objective(data, x);
  const gradients = tf.grads(f);
  return {
    primal: () => tf.tidy(() => f(...p).dataSync()[0]),
    gradient: () =>
      tf.tidy(() => {
        const parts = gradients(p).map((g) => g.dataSync());
        const out = new Float64Array(parts.reduce((s, a) => s + a.length, 0));
        let o = 0;
        for (const a of parts) {
          out.set(a, o);
          o += a.length;
        }
        return out;
      }),
    dispose: () => [x, ...p].forEach((t) => t.dispose()),
  };
}
