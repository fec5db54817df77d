import { grad } from 'tsad';
import { energy } from './model';

// Compiled by tsad/webpack when webpack bundles this file.
const gradient = grad(energy, { wrt: [0, 1] })(0.3, 1.2);
const h = 1e-6;
const centralDifferences = [(energy(0.3 + h, 1.2) - energy(0.3 - h, 1.2)) / (2 * h), (energy(0.3, 1.2 + h) - energy(0.3, 1.2 - h)) / (2 * h)];
console.log(JSON.stringify({ gradient, centralDifferences }));
