// GradBench's kmeans in jax-js: f(C) = Σ_i min_j |C_j − P_i|², vectorised with the distances
// expanded as |P_i|² + |C_j|² − 2 P_i·C_j (one matmul; the n×k×d difference tensor would be
// 1.3 GB at the default size). "dir" is J / H with J = ∇f and H = diag(∇²f): the Hessian is
// diagonal, so H·1 = diag(H), and jvp(grad(f), C, ones) gives J and H together.
import { jit, grad, jvp, np, fromF64 } from './setup.mjs';

function cost(c, p) {
  const pp = np.sum(p.ref.mul(p.ref), 1).reshape([-1, 1]);
  const cc = np.sum(c.ref.mul(c.ref), 1).reshape([1, -1]);
  const dist = pp.add(cc).sub(np.matmul(p, c.transpose()).mul(2));
  return np.sum(np.min(dist, 1));
}

const costJit = jit(cost);
const dirJit = jit((c, p) => {
  const [g, h] = jvp((cc) => grad(cost)(cc, p), [c.ref], [np.onesLike(c)]);
  return g.div(h);
});

/** The inputs held as jax-js arrays (k×d and n×d), so that timing leaves out the copies. */
export function prepare(points, centroids, d) {
  const p = fromF64(points).reshape([points.length / d, d]);
  const c = fromF64(centroids).reshape([centroids.length / d, d]);
  return {
    primal: () => costJit(c.ref, p.ref).dataSync()[0],
    gradient: () => dirJit(c.ref, p.ref).dataSync(),
    dispose: () => {
      p.dispose();
      c.dispose();
    },
  };
}
