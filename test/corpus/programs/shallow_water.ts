// One-dimensional shallow-water equations, Lax–Friedrichs with reflecting walls (ghost cells).
import { differentiable } from 'tsad';

const G = 9.81;

/** @differentiable */
function withGhosts(a: number[], sign: number): number[] {
  return [sign * a[0], ...a, sign * a.at(-1)!];
}

export const surfaceRoughness = differentiable((h0: number[], hu0: number[], steps: number): number => {
  if (h0.length === 0) return 0;
  if (h0.some((h) => h <= 0)) throw new Error('water depth must be positive');
  const dx = 1;
  const dt = 0.05;
  let h = h0;
  let hu = hu0;
  for (let s = 0; s < steps; s++) {
    const H = withGhosts(h, 1);
    const HU = withGhosts(hu, -1);
    const flux = HU.map((q, i) => q * q / H[i] + 0.5 * G * H[i] * H[i]);
    const hNext = h.map((_, i) => 0.5 * (H[i] + H[i + 2]) - (dt / (2 * dx)) * (HU[i + 2] - HU[i]));
    const huNext = hu.map((_, i) => 0.5 * (HU[i] + HU[i + 2]) - (dt / (2 * dx)) * (flux[i + 2] - flux[i]));
    h = hNext;
    hu = huNext;
  }
  const mean = h.reduce((a, b) => a + b, 0) / h.length;
  return h.reduce((acc, hi) => acc + (hi - mean) ** 2, 0);
});
