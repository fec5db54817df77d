// Adaptive Runge–Kutta–Fehlberg 4(5) on Lotka–Volterra; the prey population at t = T.

/**
 * dy/dt for predator–prey dynamics, as a fresh array.
 * @differentiable
 */
function lotkaVolterra(y: Float64Array, p: Float64Array): Float64Array {
  const dy = new Float64Array(2);
  dy[0] = p[0] * y[0] - p[1] * y[0] * y[1];
  dy[1] = p[2] * y[0] * y[1] - p[3] * y[1];
  return dy;
}

/** @differentiable */
function combine(y: Float64Array, h: number, ks: Float64Array[], cs: number[]): Float64Array {
  const out = y.slice();
  for (let s = 0; s < ks.length; s++) {
    for (let i = 0; i < out.length; i++) out[i] += h * cs[s] * ks[s][i];
  }
  return out;
}

/** @differentiable */
export function preyAt(p: Float64Array, y0: Float64Array, T: number, tol: number): number {
  let y: Float64Array = y0.slice();
  let t = 0;
  let h = 0.1;
  let steps = 0;
  while (T - t > 1e-12) {
    if (t + h > T) h = T - t;
    const k1 = lotkaVolterra(y, p);
    const k2 = lotkaVolterra(combine(y, h, [k1], [1 / 4]), p);
    const k3 = lotkaVolterra(combine(y, h, [k1, k2], [3 / 32, 9 / 32]), p);
    const k4 = lotkaVolterra(combine(y, h, [k1, k2, k3], [1932 / 2197, -7200 / 2197, 7296 / 2197]), p);
    const k5 = lotkaVolterra(combine(y, h, [k1, k2, k3, k4], [439 / 216, -8, 3680 / 513, -845 / 4104]), p);
    const k6 = lotkaVolterra(combine(y, h, [k1, k2, k3, k4, k5], [-8 / 27, 2, -3544 / 2565, 1859 / 4104, -11 / 40]), p);
    const y4 = combine(y, h, [k1, k3, k4, k5], [25 / 216, 1408 / 2565, 2197 / 4104, -1 / 5]);
    const y5 = combine(y, h, [k1, k3, k4, k5, k6], [16 / 135, 6656 / 12825, 28561 / 56430, -9 / 50, 2 / 55]);
    let err = 0;
    for (let i = 0; i < y.length; i++) err = Math.max(err, Math.abs(y5[i] - y4[i]));
    if (err <= tol || h < 1e-6) {
      t += h;
      y = y5;
    }
    const scale = err === 0 ? 2 : Math.min(2, Math.max(0.2, 0.9 * Math.pow(tol / err, 0.2)));
    h *= scale;
    if (++steps > 10000) throw new Error('rkf45: too many steps');
  }
  return y[0];
}
