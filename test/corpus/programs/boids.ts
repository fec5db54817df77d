// A boids flock: cohesion, alignment and separation; the flock's spread after a few steps.
import { differentiable } from 'tsad';

export interface Boid {
  pos: [number, number];
  vel: [number, number];
}

/** @differentiable */
function step(flock: Boid[], radius: number, dt: number): Boid[] {
  return flock.map((b, i) => {
    const neighbours = flock.filter((o, j) => j !== i && Math.hypot(o.pos[0] - b.pos[0], o.pos[1] - b.pos[1]) < radius);
    let ax = 0;
    let ay = 0;
    if (neighbours.length > 0) {
      let cx = 0;
      let cy = 0;
      let vx = 0;
      let vy = 0;
      neighbours.forEach((o) => {
        cx += o.pos[0];
        cy += o.pos[1];
        vx += o.vel[0];
        vy += o.vel[1];
        const dx = b.pos[0] - o.pos[0];
        const dy = b.pos[1] - o.pos[1];
        const d2 = dx * dx + dy * dy + 1e-3;
        ax += (0.05 * dx) / d2;
        ay += (0.05 * dy) / d2;
      });
      const k = neighbours.length;
      ax += 0.01 * (cx / k - b.pos[0]) + 0.05 * (vx / k - b.vel[0]);
      ay += 0.01 * (cy / k - b.pos[1]) + 0.05 * (vy / k - b.vel[1]);
    }
    const vel: [number, number] = [b.vel[0] + dt * ax, b.vel[1] + dt * ay];
    return { pos: [b.pos[0] + dt * vel[0], b.pos[1] + dt * vel[1]], vel };
  });
}

export const flockSpread = differentiable((flock: Boid[], radius: number, steps: number): number => {
  let boids = flock;
  for (let s = 0; s < steps; s++) {
    const next = step(boids, radius, 0.1);
    boids = next;
  }
  if (boids.length === 0) return 0;
  const mx = boids.reduce((s, b) => s + b.pos[0], 0) / boids.length;
  const my = boids.reduce((s, b) => s + b.pos[1], 0) / boids.length;
  return boids.reduce((s, b) => s + (b.pos[0] - mx) ** 2 + (b.pos[1] - my) ** 2, 0) / boids.length;
});
