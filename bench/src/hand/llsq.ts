// The linear least-squares objective of GradBench's llsq eval and its gradient by hand:
//   y(x) = ½ Σ_i (s_i − Σ_j x_j t_i^j)²,  t_i = −1 + 2i/(n−1),  s_i = sign(t_i).
// The gradient is ∂y/∂x_j = −Σ_i r_i t_i^j with r_i the residual, so one pass over i computes the
// residual (powers of t_i ascending) and a second pass over the same powers accumulates it.

function t(i: number, n: number): number {
  return -1 + (i * 2) / (n - 1);
}

export function llsq(x: Float64Array, n: number): number {
  const m = x.length;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const ti = t(i, n);
    let r = Math.sign(ti);
    let p = 1;
    for (let j = 0; j < m; j++) {
      r -= x[j] * p;
      p *= ti;
    }
    sum += r * r;
  }
  return sum / 2;
}

export function llsqGradient(x: Float64Array, n: number, out: Float64Array = new Float64Array(x.length)): Float64Array {
  const m = x.length;
  out.fill(0);
  for (let i = 0; i < n; i++) {
    const ti = t(i, n);
    let r = Math.sign(ti);
    let p = 1;
    for (let j = 0; j < m; j++) {
      r -= x[j] * p;
      p *= ti;
    }
    p = 1;
    for (let j = 0; j < m; j++) {
      out[j] -= r * p;
      p *= ti;
    }
  }
  return out;
}
