import { grad } from 'tsad';
import { energy } from './model';

// Compiled by tsad/vite at build time (and again on every edit under `vite`).
export const gradient = grad(energy, { wrt: [0, 1] })(0.3, 1.2);

const h = 1e-6;
export const centralDifferences = [(energy(0.3 + h, 1.2) - energy(0.3 - h, 1.2)) / (2 * h), (energy(0.3, 1.2 + h) - energy(0.3, 1.2 - h)) / (2 * h)];

if (typeof document !== 'undefined') {
  document.querySelector('#result')!.textContent = `∇energy(0.3, 1.2) = (${gradient.join(', ')}); central differences (${centralDifferences.join(', ')})`;
}
