// Potential energy of a Lennard-Jones cluster of atoms with a soft cut-off.
import { differentiable } from 'tsad';

export interface Atom {
  x: number;
  y: number;
  z: number;
}

export const clusterEnergy = differentiable((atoms: Atom[], sigma: number, epsilon: number): number => {
  if (atoms.some((a) => !Number.isFinite(a.x + a.y + a.z))) throw new Error('atom position is not finite');
  const cutoff = 2.5 * sigma;
  let energy = 0;
  for (let i = 0; i < atoms.length; i++) {
    for (let j = i + 1; j < atoms.length; j++) {
      const dx = atoms[i].x - atoms[j].x;
      const dy = atoms[i].y - atoms[j].y;
      const dz = atoms[i].z - atoms[j].z;
      const r2 = dx * dx + dy * dy + dz * dz;
      if (r2 > cutoff * cutoff) continue;
      const s6 = (sigma * sigma / r2) ** 3;
      energy += 4 * epsilon * (s6 * s6 - s6);
    }
  }
  console.log('energy', energy);
  return energy;
});
