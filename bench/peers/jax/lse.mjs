// GradBench's lse in jax-js: LSE(x) = a + log Σ exp(x_i − a), a = max x, differentiated by
// jit(grad(·)). The shift a is held constant under differentiation (stopGradient): its exact
// derivative is 1 − Σ softmax = 0, so this only spares jax-js a useless arg-max scatter.
import { jit, grad, lax, np, fromF64 } from './setup.mjs';

function lse(x) {
  const a = lax.stopGradient(np.max(x.ref));
  return np.log(np.sum(np.exp(x.sub(a.ref)))).add(a);
}

const primalJit = jit(lse);
const gradientJit = jit(grad(lse));

/**
 * The input held as a jax-js array, so that timing leaves out the copy from Float64Array. Each call
 * passes x.ref (jax-js functions consume their arguments) and reads the result back, which is
 * what makes jax-js compute it.
 */
export function prepare(xs) {
  const x = fromF64(xs);
  return {
    primal: () => primalJit(x.ref).dataSync()[0],
    gradient: () => gradientJit(x.ref).dataSync(),
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
