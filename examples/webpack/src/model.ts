// The model of the page: a marked function in its own file; main.ts differentiates it.

/** @differentiable */
export function energy(x: number, v: number): number {
  return 0.5 * v * v + (1 - Math.cos(x)) * 9.81;
}
