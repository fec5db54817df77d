// GradBench's kmeans in TensorFlow.js: f(C) = Σ_i min_j |C_j − P_i|², distances expanded as
// |P_i|² + |C_j|² − 2 P_i·C_j (one matmul). "dir" is J / H with J = ∇f and H = diag(∇²f); tfjs has
// no forward mode, so H comes from reverse over reverse: ∇(Σ ∇f) = ∇²f·1, which is diag(∇²f)
// because the Hessian is diagonal.
import { tf, toF64 } from './setup.mjs';

// tfjs 4.22 has no gradient for Equal, which its own gradient of min uses to find the arg-minimum,
// so reverse over reverse through min stops there. Equal is piecewise constant: its derivative is
// zero, which is all that is registered here; everything else is tfjs's own differentiation.
if (!tf.getGradient('Equal')) {
  tf.registerGradient({
    kernelName: 'Equal',
    inputsToSave: ['a', 'b'],
    gradFunc: (_dy, [a, b]) => ({ a: () => tf.zerosLike(a), b: () => tf.zerosLike(b) }),
  });
}

function cost(c, p) {
  const pp = tf.sum(tf.square(p), 1).reshape([-1, 1]);
  const cc = tf.sum(tf.square(c), 1).reshape([1, -1]);
  const dist = pp.add(cc).sub(tf.matMul(p, c, false, true).mul(2));
  return tf.sum(tf.min(dist, 1));
}

/** The inputs held as tfjs tensors (n×d and k×d), so that timing leaves out the copies. */
export function prepare(points, centroids, d) {
  const p = tf.tensor2d(Float32Array.from(points), [points.length / d, d]);
  const c = tf.tensor2d(Float32Array.from(centroids), [centroids.length / d, d]);
  const gradient = tf.grad((cc) => cost(cc, p));
  const diag = tf.grad((cc) => tf.sum(gradient(cc)));
  return {
    primal: () => tf.tidy(() => cost(c, p).dataSync()[0]),
    gradient: () => tf.tidy(() => toF64(gradient(c).div(diag(c)))),
    dispose: () => {
      p.dispose();
      c.dispose();
    },
  };
}
