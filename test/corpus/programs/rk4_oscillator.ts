// Fixed-step RK4 for a chain of coupled damped oscillators, with preallocated stage buffers.
import { differentiable } from 'tsad';

/**
 * Accelerations of n masses joined by springs k and dampers c; state = [x0..xn-1, v0..vn-1].
 * @differentiable
 */
function rhs(state: Float64Array, k: number, c: number): Float64Array {
  const n = state.length / 2;
  const out = new Float64Array(state.length);
  for (let i = 0; i < n; i++) {
    const left = i > 0 ? state[i - 1] : 0;
    const right = i < n - 1 ? state[i + 1] : 0;
    out[i] = state[n + i];
    out[n + i] = k * (left - 2 * state[i] + right) - c * state[n + i];
  }
  return out;
}

export const finalDisplacement = differentiable((state0: Float64Array, k: number, c: number, steps: number): number => {
  const dt = 0.05;
  const m = state0.length;
  let y = state0.slice();
  let yNext = new Float64Array(m);
  const y1 = new Float64Array(m);
  const y2 = new Float64Array(m);
  const y3 = new Float64Array(m);
  for (let s = 0; s < steps; s++) {
    const k1 = rhs(y, k, c);
    for (let i = 0; i < m; i++) y1[i] = y[i] + 0.5 * dt * k1[i];
    const k2 = rhs(y1, k, c);
    for (let i = 0; i < m; i++) y2[i] = y[i] + 0.5 * dt * k2[i];
    const k3 = rhs(y2, k, c);
    for (let i = 0; i < m; i++) y3[i] = y[i] + dt * k3[i];
    const k4 = rhs(y3, k, c);
    for (let i = 0; i < m; i++) yNext[i] = y[i] + (dt / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    [y, yNext] = [yNext, y];
  }
  let sq = 0;
  for (let i = 0; i < m / 2; i++) sq += y[i] * y[i];
  return sq;
});
