// A chain of masses joined by springs, hanging from a fixed point; symplectic Euler steps.

export interface Mass {
  x: number;
  v: number;
}

/**
 * Where the last mass is after `steps` steps, for spring constant k and rest length L.
 * @differentiable
 */
export function chainEnd(chain: Mass[], k: number, L: number, steps: number): number {
  const n = chain.length;
  if (n === 0) throw new Error('empty chain');
  const dt = 0.01;
  const g = 9.81;
  let state = chain.map((m) => ({ x: m.x, v: m.v }));
  for (let s = 0; s < steps; s++) {
    const force = new Array<number>(n).fill(-g);
    for (let i = 0; i < n; i++) {
      const above = i === 0 ? 0 : state[i - 1].x;
      const stretch = above - state[i].x - L;
      force[i] += k * stretch;
      if (i > 0) force[i - 1] -= k * stretch;
    }
    const next = new Array<Mass>(n);
    for (let i = 0; i < n; i++) {
      const v = state[i].v + dt * force[i];
      next[i] = { x: state[i].x + dt * v, v };
    }
    state = next;
  }
  return state.at(-1)!.x;
}
