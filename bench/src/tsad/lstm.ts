// GradBench lstm for tsad: ADBench's LSTM with diagonal weights. For layer j with input u (the
// layer below's new hidden state, or seq[t]·in_w), its previous hidden h and cell c:
//   f = σ(u·Wf + bf), g = σ(h·Wi + bi), o = σ(u·Wo + bo), a = tanh(h·Wc + bc),
//   c' = c·f + g·a,  h' = o·tanh(c'),  y = h'_top·out_w + out_b,
// loss = −Σ_t Σ_i seq[t+1]_i (y_i − log(Σ e^{y} + 2)) / ((len−1)·b).
// mainParams is l blocks of 8b (Wf Wi Wo Wc bf bi bo bc), extraParams is in_w, out_w, out_b,
// state is l blocks of 2b (hidden, cell), sequence is len×b. Differentiated with respect to
// mainParams and extraParams.

/** @differentiable */
function sigmoid(v: number): number {
  return 1 / (1 + Math.exp(-v));
}

/** @differentiable */
export function lstmObjective(
  mainParams: Float64Array,
  extraParams: Float64Array,
  state: Float64Array,
  sequence: Float64Array,
  l: number,
  b: number,
): number {
  const len = sequence.length / b;
  const st = state.slice();
  const u = new Float64Array(b);
  let total = 0;
  for (let t = 0; t < len - 1; t++) {
    for (let i = 0; i < b; i++) u[i] = sequence[t * b + i] * extraParams[i];
    for (let j = 0; j < l; j++) {
      for (let i = 0; i < b; i++) {
        const p = 8 * b * j + i;
        const hi = 2 * b * j + i;
        const ci = hi + b;
        const f = sigmoid(u[i] * mainParams[p] + mainParams[p + 4 * b]);
        const g = sigmoid(st[hi] * mainParams[p + b] + mainParams[p + 5 * b]);
        const o = sigmoid(u[i] * mainParams[p + 2 * b] + mainParams[p + 6 * b]);
        const a = Math.tanh(st[hi] * mainParams[p + 3 * b] + mainParams[p + 7 * b]);
        st[ci] = st[ci] * f + g * a;
        st[hi] = o * Math.tanh(st[ci]);
        u[i] = st[hi];
      }
    }
    let sum = 0;
    for (let i = 0; i < b; i++) {
      u[i] = u[i] * extraParams[b + i] + extraParams[2 * b + i];
      sum += Math.exp(u[i]);
    }
    const lse = Math.log(sum + 2);
    for (let i = 0; i < b; i++) total += sequence[(t + 1) * b + i] * (u[i] - lse);
  }
  return -total / ((len - 1) * b);
}
