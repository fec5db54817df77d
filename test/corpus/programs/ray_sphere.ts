// Shade a pixel: the nearest hit of a ray with a scene of spheres, Lambertian light.
import { differentiable } from 'tsad';

export interface Sphere {
  center: [number, number, number];
  radius: number;
  albedo: number;
}

/** @differentiable */
function hitDistance(origin: number[], dir: number[], s: Sphere): number {
  const oc = [origin[0] - s.center[0], origin[1] - s.center[1], origin[2] - s.center[2]];
  const b = oc[0] * dir[0] + oc[1] * dir[1] + oc[2] * dir[2];
  const c = oc[0] * oc[0] + oc[1] * oc[1] + oc[2] * oc[2] - s.radius * s.radius;
  const disc = b * b - c;
  if (disc < 0) return Infinity;
  const t = -b - Math.sqrt(disc);
  return t > 1e-9 ? t : Infinity;
}

export const shade = differentiable((spheres: Sphere[], origin: number[], dir: number[], light: number[]): number => {
  const ts = spheres.map((s) => hitDistance(origin, dir, s));
  if (!ts.some((t) => t < Infinity)) return 0;
  const nearest = ts.indexOf(Math.min(...ts));
  const s = spheres[nearest];
  const t = ts[nearest];
  const p = origin.map((o, i) => o + t * dir[i]);
  const normal = p.map((pi, i) => (pi - s.center[i]) / s.radius);
  const lambert = Math.max(0, normal[0] * light[0] + normal[1] * light[1] + normal[2] * light[2]);
  return s.albedo * lambert;
});
