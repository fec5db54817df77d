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

export function primal(x) {
  return primalJit(fromF64(x)).dataSync()[0];
}

export function gradient(x) {
  return gradientJit(fromF64(x)).dataSync();
}
