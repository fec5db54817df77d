// The dominant eigenvalue of a symmetric matrix by power iteration (Rayleigh quotient).
import { differentiable } from 'tsad';

export const dominantEigenvalue = differentiable((A: number[][], iterations: number): number => {
  const n = A.length;
  if (n === 0) return 0;
  let v = new Array<number>(n).fill(1 / Math.sqrt(n));
  for (let it = 0; it < iterations; it++) {
    const w = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) w[i] += A[i][j] * v[j];
    const norm = Math.sqrt(w.reduce((s, x) => s + x * x, 0));
    // Fix the sign so that the first large component is positive.
    const k = w.findIndex((x) => Math.abs(x) > 1e-8 * norm);
    const sign = k >= 0 && w[k] < 0 ? -1 : 1;
    for (let i = 0; i < n; i++) w[i] = (sign * w[i]) / norm;
    v = w;
  }
  let rayleigh = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) rayleigh += v[i] * A[i][j] * v[j];
  return rayleigh;
});
