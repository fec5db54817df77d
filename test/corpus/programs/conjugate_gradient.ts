// Conjugate gradient for a symmetric positive definite system; the energy ½xᵀAx − bᵀx it reaches.
import { differentiable } from 'tsad';

/** @differentiable */
function matVec(A: number[][], x: number[]): number[] {
  return A.map((row) => row.reduce((s, a, j) => s + a * x[j], 0));
}

/** @differentiable */
function dotp(a: number[], b: number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export const cgEnergy = differentiable((A: number[][], b: number[], iterations: number): number => {
  const n = b.length;
  let x = new Array<number>(n).fill(0);
  let r = b.slice();
  let p = r.slice();
  let rr = dotp(r, r);
  for (let it = 0; it < iterations && rr > 1e-30; it++) {
    const Ap = matVec(A, p);
    const alpha = rr / dotp(p, Ap);
    const xNext = x.map((xi, i) => xi + alpha * p[i]);
    const rNext = r.map((ri, i) => ri - alpha * Ap[i]);
    const rrNext = dotp(rNext, rNext);
    const beta = rrNext / rr;
    p = rNext.map((ri, i) => ri + beta * p[i]);
    x = xNext;
    r = rNext;
    rr = rrNext;
    console.log(`cg iteration ${it}: residual ${Math.sqrt(rr)}`);
  }
  const Ax = matVec(A, x);
  return 0.5 * dotp(x, Ax) - dotp(b, x);
});
