// Implicit (backward Euler) heat equation with a source term, a tridiagonal solve per step.
import { differentiable } from 'tsad';

/** Solves (1 + 2r) u_i − r (u_{i−1} + u_{i+1}) = b_i with zero boundaries, into a fresh array. */
const implicitSolve = differentiable((b: Float64Array, r: number): Float64Array => {
  const n = b.length;
  const c = new Float64Array(n);
  const d = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const m = 1 + 2 * r + (i > 0 ? r * c[i - 1] : 0);
    c[i] = -r / m;
    d[i] = (b[i] + (i > 0 ? r * d[i - 1] : 0)) / m;
  }
  for (let i = n - 2; i >= 0; i--) d[i] -= c[i] * d[i + 1];
  return d;
});

export const heatAfter = differentiable((u0: Float64Array, source: Float64Array, kappa: number, steps: number): number => {
  const dt = 0.1;
  const r = kappa * dt;
  let u: Float64Array = u0.slice();
  const rhs = new Float64Array(u.length);
  for (let s = 0; s < steps; s++) {
    for (let i = 0; i < u.length; i++) rhs[i] = u[i] + dt * source[i];
    const next = implicitSolve(rhs, r);
    next[0] = 0;
    u = next;
  }
  return u.reduce((acc, ui) => acc + ui * ui, 0);
});
