// Solve A x = b by LU decomposition with partial pivoting, and measure the solution.
import { differentiable } from 'tsad';

export interface LU {
  lu: number[][];
  perm: number[];
}

/** @differentiable */
export function decompose(A: number[][]): LU {
  const n = A.length;
  const lu = A.map((row) => row.slice());
  const perm = new Array<number>(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) {
      if (Math.abs(lu[r][c]) > Math.abs(lu[p][c])) p = r;
    }
    if (lu[p][c] === 0) throw new Error('matrix is singular');
    if (p !== c) {
      const tmp = lu[p];
      lu[p] = lu[c];
      lu[c] = tmp;
      const t = perm[p];
      perm[p] = perm[c];
      perm[c] = t;
    }
    for (let r = c + 1; r < n; r++) {
      const f = lu[r][c] / lu[c][c];
      lu[r][c] = f;
      for (let k = c + 1; k < n; k++) lu[r][k] -= f * lu[c][k];
    }
  }
  return { lu, perm };
}

/** @differentiable */
export function solve({ lu, perm }: LU, b: number[]): number[] {
  const n = lu.length;
  const x = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    let s = b[perm[i]];
    for (let k = 0; k < i; k++) s -= lu[i][k] * x[k];
    x[i] = s;
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = x[i];
    for (let k = i + 1; k < n; k++) s -= lu[i][k] * x[k];
    x[i] = s / lu[i][i];
  }
  return x;
}

/** Squared norm of the solution of A x = b: how strongly the system amplifies b. */
export const solutionEnergy = differentiable((A: number[][], b: number[]): number => {
  const x = solve(decompose(A), b);
  let e = 0;
  for (const xi of x) e += xi * xi;
  return e;
});
