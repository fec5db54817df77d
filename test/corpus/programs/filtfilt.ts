// Zero-phase smoothing: a first-order IIR filter run forward, then over the reversed result,
// then reversed back (filtfilt); the roughness of the residual against the raw signal.

/** @differentiable */
export function iir(x: Float64Array, alpha: number): Float64Array {
  const y = new Float64Array(x.length);
  let state = x.length > 0 ? x[0] : 0;
  for (let i = 0; i < x.length; i++) {
    state = alpha * x[i] + (1 - alpha) * state;
    y[i] = state;
  }
  return y;
}

/** @differentiable */
export function smoothingLoss(signal: Float64Array, alpha: number, window: number): number {
  const forward = iir(signal, alpha);
  const backward = iir(forward.slice().reverse(), alpha);
  const smooth = backward.reverse();
  let loss = 0;
  for (let start = 0; start + window <= smooth.length; start += window) {
    const seg = smooth.subarray(start, start + window);
    const raw = signal.subarray(start, start + window);
    let e = 0;
    for (let i = 0; i < seg.length; i++) e += (seg[i] - raw[i]) ** 2;
    loss += Math.sqrt(e + 1e-12);
  }
  return loss;
}
