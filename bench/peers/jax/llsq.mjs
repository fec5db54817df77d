// GradBench's llsq in jax-js, vectorised: y(x) = ½|s − V x|² with V the n×m Vandermonde matrix of
// t_i = −1 + 2i/(n−1) (ascending powers, built by vander's running product, not pow) and
// s = sign(t). One jitted function per n, since n fixes the shapes. t comes from arange, not
// linspace: jax-js 0.1.25's linspace ignores its dtype option and rounds t to float32.
import { jit, grad, np, fromF64 } from './setup.mjs';

function objective(n) {
  return (x) => {
    const m = x.shape[0];
    const t = np.arange(0, n, 1, { dtype: np.float64 }).mul(2).div(n - 1).sub(1);
    const v = np.vander(t.ref, { n: m, increasing: true });
    const r = np.sign(t).sub(np.matmul(v, x));
    return np.sum(r.ref.mul(r)).mul(0.5);
  };
}

const primals = new Map();
const gradients = new Map();

export function primal(x, n) {
  if (!primals.has(n)) primals.set(n, jit(objective(n)));
  return primals.get(n)(fromF64(x)).dataSync()[0];
}

export function gradient(x, n) {
  if (!gradients.has(n)) gradients.set(n, jit(grad(objective(n))));
  return gradients.get(n)(fromF64(x)).dataSync();
}
