// jax-js on its fastest CPU backend (wasm), shared by the jax-js peers. Importing this module
// initialises the backend once.
//
// jax-js 0.1.25 tests `data instanceof Float16Array` when it builds an array from a typed array;
// Node 20 has no Float16Array, so that test throws. An empty stand-in class makes the test false
// (no real buffer is ever one) and changes nothing else.
if (typeof globalThis.Float16Array === 'undefined') globalThis.Float16Array = class Float16Array {};

const jax = await import('@jax-js/jax');
const devices = await jax.init('wasm');
if (!devices.includes('wasm')) throw new Error(`jax-js: the wasm backend did not start (got ${devices.join(', ')})`);
jax.defaultDevice('wasm');

export const { jit, grad, jvp, lax, numpy: np } = jax;

/** A jax-js array of float64 holding a copy of `x` (jax-js infers the dtype from the buffer). */
export function fromF64(x) {
  return np.array(x);
}
