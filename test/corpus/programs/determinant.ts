// The sign and log |det A| by Gaussian elimination with partial pivoting (each row swap flips
// the sign), as numpy's slogdet; the objective is a barrier −log |det A| + ½‖A‖².

/** @differentiable */
export function slogdet(A: number[][]): [number, number] {
  const n = A.length;
  const m = A.map((row) => row.slice());
  let sign = 1;
  let logDet = 0;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    if (m[p][c] === 0) return [0, -Infinity];
    if (p !== c) {
      const tmp = m[p];
      m[p] = m[c];
      m[c] = tmp;
      sign = -sign;
    }
    logDet += Math.log(Math.abs(m[c][c]));
    if (m[c][c] < 0) sign = -sign;
    for (let r = c + 1; r < n; r++) {
      const f = m[r][c] / m[c][c];
      for (let k = c; k < n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return [sign, logDet];
}

/** @differentiable */
export function barrier(A: number[][]): number {
  let frob = 0;
  for (const row of A) for (const a of row) frob += a * a;
  const [, logDet] = slogdet(A);
  return -logDet + 0.5 * frob;
}
