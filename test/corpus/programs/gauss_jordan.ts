// Matrix inverse by Gauss–Jordan elimination with partial pivoting; the squared Frobenius
// norm of the inverse.

/** @differentiable */
export function inverse(A: number[][]): number[][] {
  const n = A.length;
  const M = A.map((row, i) => [...row, ...row.map((_, j) => (i === j ? 1 : 0))]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    if (M[p][c] === 0) throw new Error('matrix is singular');
    [M[p], M[c]] = [M[c], M[p]];
    const pivot = M[c][c];
    for (let k = 0; k < 2 * n; k++) M[c][k] /= pivot;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r][c];
      for (let k = 0; k < 2 * n; k++) M[r][k] -= f * M[c][k];
    }
  }
  return M.map((row) => row.slice(n));
}

/** @differentiable */
export function inverseNorm(A: number[][]): number {
  const inv = inverse(A);
  let s = 0;
  for (const row of inv) for (const v of row) s += v * v;
  return s;
}
