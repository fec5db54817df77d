// jax-js (@jax-js/jax) on its WebGPU backend, for bench/webgpu/run.js: the cases of run.js that
// jax-js can express, as jit of the same maths on float32 arrays held on the device.
//
// In Node jax-js finds WebGPU through `navigator.gpu` only: `setup` has dawn.js set it to an
// instance of the `webgpu` package (Dawn), where tsad's runtime takes its device too, so both run
// on one adapter (on the software adapter one that asks for compatibility mode, the only mode of
// Dawn's OpenGL ES backend: without it requestAdapter returns null and jax-js reports no webgpu
// device). dawn.js counts both's dispatches by wrapping GPUComputePassEncoder's dispatch methods.
import { createRequire } from 'module';

const require = createRequire(import.meta.url);
const dawn = require('./dawn.js');

/** Sets navigator.gpu, starts jax-js's webgpu backend; an error message when it cannot. */
export async function setup() {
  // jax-js 0.1.25 tests `data instanceof Float16Array`; Node 20 has none (bench/peers/jax/setup.mjs).
  if (typeof globalThis.Float16Array === 'undefined') globalThis.Float16Array = class Float16Array {};
  const error = await dawn.setup();
  if (error) return { error };
  let jax;
  try {
    jax = await import('@jax-js/jax');
  } catch (e) {
    return { error: `jax-js is not installed (${String(e.message).split('\n')[0]}): node bench/peers/install.js` };
  }
  const devices = await jax.init('webgpu');
  if (!devices.includes('webgpu')) return { error: `jax-js started no webgpu device (got ${devices.join(', ')})` };
  jax.defaultDevice('webgpu');
  return { cases: cases(jax) };
}

export const dispatchTotal = () => dawn.dispatches();

/**
 * For each case name of run.js that jax-js can run: (args) → an async call that computes and
 * reads the result back (a Float32Array, or [value, gradient]); inputs are uploaded once.
 */
function cases(jax) {
  const np = jax.numpy;
  const { jit, grad, valueAndGrad, lax } = jax;
  const arr = (x) => np.array(Float32Array.from(x));
  const mat = (rows) => arr(rows.flat()).reshape([rows.length, rows[0].length]);
  const read = async (r) => (Array.isArray(r) ? Promise.all(r.map(read)) : r.data());
  const holding = (inputs, f) => async () => read(f(...inputs.map((x) => x.ref)));

  const wave = jit((x, y) =>
    np
      .sin(x.ref)
      .mul(y)
      .add(np.exp(x.ref.mul(x).mul(-1))),
  );
  const total = jit((x) => np.sum(x));
  const take = jit((x, idx) => np.take(x, idx));
  const product = jit((x, w) => np.matmul(x, w));
  const highest = jit((x) => np.max(x));
  const cumsum = jit((x) => np.cumsum(x));
  const lse = (x) => {
    const a = lax.stopGradient(np.max(x.ref));
    return np.log(np.sum(np.exp(x.sub(a.ref)))).add(a);
  };
  const logsumexp = (x) => {
    const m = np.max(x.ref);
    return np.log(np.sum(np.exp(x.sub(m.ref)))).add(m);
  };
  const layer = (w, x) => {
    const h = np.matmul(x, w);
    return np.sum(np.tanh(h.ref).mul(h));
  };
  const twoLayer = (w1, w2, x) => {
    const h = np.matmul(np.matmul(x, w1), w2);
    return np.sum(np.tanh(h.ref).mul(h));
  };
  const gLse = jit(grad(lse));
  const vgLogsumexp = jit(valueAndGrad(logsumexp));
  const gLayer = jit(grad(layer));
  const gTwoLayer = jit(grad(twoLayer));
  return {
    'map (wave)': ([x, y]) => holding([arr(x), arr(y)], wave),
    sum: ([x]) => holding([arr(x)], total),
    max: ([x]) => holding([arr(x)], highest),
    'scan +': ([x]) => holding([arr(x)], cumsum),
    'gather, n of n': ([x, idx]) => holding([arr(x), np.array(Int32Array.from(idx))], take),
    'matmul, n/64×64 by 64×64': ([x, w]) => holding([mat(x), mat(w)], product),
    'grad lse': ([x]) => holding([arr(x)], gLse),
    'valueAndGrad logsumexp': ([x]) => holding([arr(x)], vgLogsumexp),
    'grad of a tanh layer (matmul), n×64 by 64×64': ([w, x]) => holding([mat(w), mat(x)], gLayer),
    'grad of two layers (x·W1·W2), n×64, 64×64, 64×16': ([w1, w2, x]) => holding([mat(w1), mat(w2), mat(x)], gTwoLayer),
  };
}
