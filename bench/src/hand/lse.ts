// Log-sum-exp and its gradient (the softmax), differentiated by hand: the reference that tsad's
// gradient of the same function is measured against. Plain loops over Float64Array.

/** log Σ exp(x_i), stabilised by the maximum (the value is −Infinity for an empty x). */
export function lse(x: Float64Array): number {
  const n = x.length;
  let a = -Infinity;
  for (let i = 0; i < n; i++) if (x[i] > a) a = x[i];
  if (a === -Infinity || a === Infinity) return a;
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.exp(x[i] - a);
  return a + Math.log(s);
}

/** ∇lse(x) = softmax(x), written into `out` (allocated when absent). */
export function lseGradient(x: Float64Array, out: Float64Array = new Float64Array(x.length)): Float64Array {
  const n = x.length;
  let a = -Infinity;
  for (let i = 0; i < n; i++) if (x[i] > a) a = x[i];
  let s = 0;
  for (let i = 0; i < n; i++) {
    const e = Math.exp(x[i] - a);
    out[i] = e;
    s += e;
  }
  const inv = 1 / s;
  for (let i = 0; i < n; i++) out[i] *= inv;
  return out;
}
