// The ADBench LSTM objective of GradBench's lstm eval and its gradient, by hand. Diagonal weights:
// for layer j with input u (the previous layer's new hidden state, or seq[t]·in_weight) and its
// own previous hidden h and cell c,
//   f = σ(u·Wf + bf), g = σ(h·Wi + bi), o = σ(u·Wo + bo), a = tanh(h·Wc + bc),
//   c' = c·f + g·a,   h' = o·tanh(c'),
// the prediction is y = h'_top·out_w + out_b, and the loss is −Σ_t Σ_i seq[t+1]_i·(y_i − lse₂(y))
// / ((len−1)·b) with lse₂(y) = log(Σ e^{y_i} + 2) (ADBench's quirk).
// Layouts: mainParams is l blocks of 8b (Wf Wi Wo Wc bf bi bo bc), extraParams is in_w, out_w,
// out_b (b each), state is l blocks of 2b (hidden, cell), sequence is len×b.
// The gradient is a reverse sweep over time that keeps, for every (t, layer), the layer input,
// the previous h and c, the four gates and tanh(c'): 8b numbers, the checkpoint of one cell.

import type { LstmInput } from '../gradbench/shapes';

const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

export function lstmObjective(inp: LstmInput): number {
  const { l, b, len, mainParams: P, extraParams: E, state, sequence: S } = inp;
  const st = Float64Array.from(state);
  const u = new Float64Array(b);
  let total = 0;
  for (let t = 0; t < len - 1; t++) {
    for (let i = 0; i < b; i++) u[i] = S[t * b + i] * E[i];
    for (let j = 0; j < l; j++) {
      const p = 8 * b * j;
      const h = 2 * b * j;
      const c = h + b;
      for (let i = 0; i < b; i++) {
        const hp = st[h + i];
        const f = sigmoid(u[i] * P[p + i] + P[p + 4 * b + i]);
        const g = sigmoid(hp * P[p + b + i] + P[p + 5 * b + i]);
        const o = sigmoid(u[i] * P[p + 2 * b + i] + P[p + 6 * b + i]);
        const a = Math.tanh(hp * P[p + 3 * b + i] + P[p + 7 * b + i]);
        const cn = st[c + i] * f + g * a;
        st[c + i] = cn;
        const hn = o * Math.tanh(cn);
        st[h + i] = hn;
        u[i] = hn;
      }
    }
    let sum = 0;
    for (let i = 0; i < b; i++) {
      u[i] = u[i] * E[b + i] + E[2 * b + i];
      sum += Math.exp(u[i]);
    }
    const lse = Math.log(sum + 2);
    for (let i = 0; i < b; i++) total += S[(t + 1) * b + i] * (u[i] - lse);
  }
  return -total / ((len - 1) * b);
}

// Offsets of the eight saved vectors of one (t, layer) cell, in units of b.
const U = 0, H = 1, C = 2, F = 3, G = 4, O = 5, A = 6, TC = 7;

/** ∇ with respect to mainParams then extraParams, concatenated (the eval's jacobian). */
export function lstmGradient(inp: LstmInput): Float64Array {
  const { l, b, len, mainParams: P, extraParams: E, state, sequence: S } = inp;
  const steps = len - 1;
  const out = new Float64Array(P.length + E.length);
  if (steps <= 0) return out;
  const gP = out.subarray(0, P.length);
  const gE = out.subarray(P.length);
  const cell = 8 * b;
  const tape = new Float64Array(steps * l * cell);
  const st = Float64Array.from(state);
  const u = new Float64Array(b);
  // Forward, saving each cell's inputs and gates.
  for (let t = 0; t < steps; t++) {
    for (let i = 0; i < b; i++) u[i] = S[t * b + i] * E[i];
    for (let j = 0; j < l; j++) {
      const p = 8 * b * j;
      const h = 2 * b * j;
      const c = h + b;
      const s = (t * l + j) * cell;
      for (let i = 0; i < b; i++) {
        const hp = st[h + i];
        const cp = st[c + i];
        const f = sigmoid(u[i] * P[p + i] + P[p + 4 * b + i]);
        const g = sigmoid(hp * P[p + b + i] + P[p + 5 * b + i]);
        const o = sigmoid(u[i] * P[p + 2 * b + i] + P[p + 6 * b + i]);
        const a = Math.tanh(hp * P[p + 3 * b + i] + P[p + 7 * b + i]);
        const cn = cp * f + g * a;
        const tc = Math.tanh(cn);
        tape[s + U * b + i] = u[i];
        tape[s + H * b + i] = hp;
        tape[s + C * b + i] = cp;
        tape[s + F * b + i] = f;
        tape[s + G * b + i] = g;
        tape[s + O * b + i] = o;
        tape[s + A * b + i] = a;
        tape[s + TC * b + i] = tc;
        st[c + i] = cn;
        const hn = o * tc;
        st[h + i] = hn;
        u[i] = hn;
      }
    }
  }
  // Reverse. dh/dc carry each layer's state adjoint from step t+1 back to step t.
  const dh = new Float64Array(l * b);
  const dc = new Float64Array(l * b);
  const du = new Float64Array(b);
  const scale = -1 / (steps * b);
  for (let t = steps - 1; t >= 0; t--) {
    // The top layer's new hidden state is o·tanh(c') of the last saved cell.
    const top = (t * l + l - 1) * cell;
    let sum = 0;
    let gold = 0;
    for (let i = 0; i < b; i++) {
      sum += Math.exp(tape[top + O * b + i] * tape[top + TC * b + i] * E[b + i] + E[2 * b + i]);
      gold += S[(t + 1) * b + i];
    }
    const denom = sum + 2;
    for (let i = 0; i < b; i++) {
      const hTop = tape[top + O * b + i] * tape[top + TC * b + i];
      const y = hTop * E[b + i] + E[2 * b + i];
      const dy = scale * (S[(t + 1) * b + i] - (gold * Math.exp(y)) / denom);
      gE[b + i] += dy * hTop;
      gE[2 * b + i] += dy;
      du[i] = dy * E[b + i];
    }
    for (let j = l - 1; j >= 0; j--) {
      const p = 8 * b * j;
      const s = (t * l + j) * cell;
      const sj = j * b;
      for (let i = 0; i < b; i++) {
        const f = tape[s + F * b + i];
        const g = tape[s + G * b + i];
        const o = tape[s + O * b + i];
        const a = tape[s + A * b + i];
        const tc = tape[s + TC * b + i];
        const ui = tape[s + U * b + i];
        const hp = tape[s + H * b + i];
        const dhn = du[i] + dh[sj + i];
        const dcn = dc[sj + i] + dhn * o * (1 - tc * tc);
        const zf = dcn * tape[s + C * b + i] * f * (1 - f);
        const zg = dcn * a * g * (1 - g);
        const zo = dhn * tc * o * (1 - o);
        const za = dcn * g * (1 - a * a);
        gP[p + i] += zf * ui;
        gP[p + b + i] += zg * hp;
        gP[p + 2 * b + i] += zo * ui;
        gP[p + 3 * b + i] += za * hp;
        gP[p + 4 * b + i] += zf;
        gP[p + 5 * b + i] += zg;
        gP[p + 6 * b + i] += zo;
        gP[p + 7 * b + i] += za;
        dc[sj + i] = dcn * f;
        dh[sj + i] = zg * P[p + b + i] + za * P[p + 3 * b + i];
        du[i] = zf * P[p + i] + zo * P[p + 2 * b + i];
      }
    }
    for (let i = 0; i < b; i++) gE[i] += du[i] * S[t * b + i];
  }
  return out;
}
