// QR decomposition by Householder reflections; the log-determinant of A from R's diagonal.

/** @differentiable */
function norm(v: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return Math.sqrt(s);
}

/**
 * R of A = QR, computed in place on a copy of A stored by columns.
 * @differentiable
 */
export function qrR(A: number[][]): Float64Array[] {
  const m = A.length;
  const n = m > 0 ? A[0].length : 0;
  const cols: Float64Array[] = [];
  for (let j = 0; j < n; j++) cols.push(Float64Array.from(A, (row) => row[j]));
  for (let k = 0; k < Math.min(m - 1, n); k++) {
    const tail = cols[k].subarray(k);
    const v = tail.slice();
    const alpha = -Math.sign(v[0] || 1) * norm(tail);
    v[0] -= alpha;
    const vv = norm(v) ** 2;
    if (vv === 0) continue;
    for (let j = k; j < n; j++) {
      const c = cols[j].subarray(k);
      let d = 0;
      for (let i = 0; i < v.length; i++) d += v[i] * c[i];
      const f = (2 * d) / vv;
      for (let i = 0; i < v.length; i++) c[i] -= f * v[i];
    }
  }
  return cols;
}

/**
 * log |det A| of a square matrix, as the sum of log |R_kk|.
 * @differentiable
 */
export function logAbsDet(A: number[][]): number {
  const R = qrR(A);
  let s = 0;
  R.forEach((col, k) => {
    s += Math.log(Math.abs(col[k]));
  });
  return s;
}
