// The 1-D wave equation by leapfrog with two buffers swapped each step; energy at the end.

/**
 * @differentiable
 */
export function waveEnergy(u0: Float64Array, c: number, steps: number): number {
  const n = u0.length;
  const dt = 0.5;
  const r2 = (c * dt) ** 2;
  let u = u0.slice();
  let prev = u0.slice();
  let next = new Float64Array(n);
  for (let s = 0; s < steps; s++) {
    next.fill(0);
    for (let i = 1; i < n - 1; i++) {
      next[i] = 2 * u[i] - prev[i] + r2 * (u[i - 1] - 2 * u[i] + u[i + 1]);
    }
    [prev, u, next] = [u, next, prev];
  }
  let e = 0;
  for (let i = 0; i + 1 < n; i++) e += (u[i] - prev[i]) ** 2 + r2 * (u[i + 1] - u[i]) ** 2;
  return e;
}
