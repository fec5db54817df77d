// GradBench's llsq in jax-js, vectorised: y(x) = ½|s − V x|² with V the n×m matrix of ascending
// powers of t_i = −1 + 2i/(n−1) and s = sign(t), differentiated by jit(grad(·)). One jitted
// function per n, since n fixes the shapes.
//
// How V is built matters more than the rest: jax-js 0.1.25's vander is a running product whose scan
// is quadratic in m (680 ms at n = 16,392, m = 128), and power(t, j) is only f32-accurate.
// So V doubles its columns: [V_k | V_k · t^k] holds powers 0..2k−1, products only (each power is
// exact to a few ulp), log₂ m steps. t comes from arange, not linspace: linspace ignores its dtype
// option and rounds t to float32.
import { jit, grad, np, fromF64 } from './setup.mjs';

function powers(t, n, m) {
  let v = np.ones([n, 1], { dtype: np.float64 });
  let tk = t.reshape([n, 1]);
  let width = 1;
  while (width < m) {
    v = np.concatenate([v.ref, v.mul(tk.ref)], 1);
    tk = tk.ref.mul(tk);
    width *= 2;
  }
  tk.dispose();
  return width === m ? v : v.slice([], [0, m]);
}

function objective(n) {
  return (x) => {
    const m = x.shape[0];
    const t = np
      .arange(0, n, 1, { dtype: np.float64 })
      .mul(2)
      .div(n - 1)
      .sub(1);
    const r = np.sign(t.ref).sub(np.matmul(powers(t, n, m), x));
    return np.sum(r.ref.mul(r)).mul(0.5);
  };
}

const primals = new Map();
const gradients = new Map();

function cached(table, n, make) {
  if (!table.has(n)) table.set(n, jit(make(objective(n))));
  return table.get(n);
}

/** The input held as a jax-js array (see lse.mjs: timing leaves out the copy from Float64Array). */
export function prepare(xs, n) {
  const x = fromF64(xs);
  const p = cached(primals, n, (f) => f);
  const g = cached(gradients, n, grad);
  return {
    primal: () => p(x.ref).dataSync()[0],
    gradient: () => g(x.ref).dataSync(),
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
