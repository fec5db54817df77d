// A natural cubic spline through (xs, ys), evaluated at query points; least squares to data.

/**
 * Solves a tridiagonal system by the Thomas algorithm; the diagonals are not changed.
 * @differentiable
 */
function solveTridiagonal(lower: number[], diag: number[], upper: number[], rhs: number[]): number[] {
  const n = diag.length;
  const c = new Array<number>(n).fill(0);
  const d = rhs.slice();
  let m = diag[0];
  c[0] = upper[0] / m;
  d[0] = d[0] / m;
  for (let i = 1; i < n; i++) {
    m = diag[i] - lower[i] * c[i - 1];
    c[i] = i < n - 1 ? upper[i] / m : 0;
    d[i] = (d[i] - lower[i] * d[i - 1]) / m;
  }
  for (let i = n - 2; i >= 0; i--) d[i] -= c[i] * d[i + 1];
  return d;
}

/** @differentiable */
export function splineFit(ys: number[], xs: number[], qx: number[], qy: number[]): number {
  const n = xs.length;
  if (n < 2) throw new Error('a spline needs two knots');
  const h = xs.slice(1).map((x, i) => x - xs[i]);
  const lower = new Array<number>(n).fill(0);
  const diag = new Array<number>(n).fill(1);
  const upper = new Array<number>(n).fill(0);
  const rhs = new Array<number>(n).fill(0);
  for (let i = 1; i < n - 1; i++) {
    lower[i] = h[i - 1];
    diag[i] = 2 * (h[i - 1] + h[i]);
    upper[i] = h[i];
    rhs[i] = 6 * ((ys[i + 1] - ys[i]) / h[i] - (ys[i] - ys[i - 1]) / h[i - 1]);
  }
  const M = solveTridiagonal(lower, diag, upper, rhs);
  M[0] = 0;
  M[n - 1] = 0;
  let loss = 0;
  qx.forEach((x, q) => {
    let k = xs.findIndex((knot) => knot > x) - 1;
    if (k < 0) k = n - 2;
    const t0 = xs[k + 1] - x;
    const t1 = x - xs[k];
    const hk = h[k];
    const s = (M[k] * t0 ** 3 + M[k + 1] * t1 ** 3) / (6 * hk) + (ys[k] / hk - (M[k] * hk) / 6) * t0 + (ys[k + 1] / hk - (M[k + 1] * hk) / 6) * t1;
    loss += (s - qy[q]) ** 2;
  });
  return loss;
}
