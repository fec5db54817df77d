// The demo: generate noisy measurements of a damped oscillator, fit its four parameters with
// Adam on the compiled gradient and finish with Newton steps on the compiled Hessian, then check
// the gradient against central finite differences.
import { Params, Data, Fit, lossAndGrad, gradLoss, hessianLoss } from './oscillator';
import { simulatedLoss, simulatedLossAndGrad, simulatedGrad, simulatedHessian } from './simulated';

const truth: Params = { amplitude: 1.5, damping: 0.3, omega: 2.0, phase: 0.4 };

// Deterministic noise, so every run prints the same numbers.
let seed = 12345;
function noise(): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return (seed / 2147483648 - 0.5) * 0.1;
}

function truthAt(t: number): number {
  return truth.amplitude * Math.exp(-truth.damping * t) * Math.cos(truth.omega * t + truth.phase);
}

// Any number of measurements: the loss loops over the arrays.
const SAMPLES = 40;
const t = Float64Array.from({ length: SAMPLES }, (_, i) => i * 0.2);
const data: Data = { t, x: t.map((ti) => truthAt(ti) + noise()) };

const keys = ['amplitude', 'damping', 'omega', 'phase'] as const;
const start: Params = { amplitude: 1.0, damping: 0.1, omega: 1.8, phase: 0.0 };
let p: Params = start;
const m: Record<string, number> = { amplitude: 0, damping: 0, omega: 0, phase: 0 };
const v: Record<string, number> = { amplitude: 0, damping: 0, omega: 0, phase: 0 };
const rate = 0.02;

const fmt = (x: number) => x.toFixed(6);
console.log(`tsad demo: fitting x(t) = A·exp(-γt)·cos(ωt + φ) to ${SAMPLES} noisy samples (Float64Arrays)`);
for (let step = 1; step <= 150; step++) {
  const [loss, g] = lossAndGrad(p, data.t, data.x);
  const next = { ...p };
  for (const k of keys) {
    m[k] = 0.9 * m[k] + 0.1 * g[k];
    v[k] = 0.999 * v[k] + 0.001 * g[k] * g[k];
    const mHat = m[k] / (1 - 0.9 ** step);
    const vHat = v[k] / (1 - 0.999 ** step);
    next[k] = p[k] - (rate * mHat) / (Math.sqrt(vHat) + 1e-8);
  }
  p = next;
  if ([1, 10, 25, 50, 100, 150].includes(step)) console.log(`adam ${String(step).padStart(4)}  loss ${loss.toExponential(8)}  |gradient| ${Math.hypot(...keys.map((k) => g[k])).toExponential(2)}`);
}

// Newton refinement with the compiled Hessian (forward over reverse): from where Adam got to,
// each step solves H·δ = −∇ and the gradient collapses quadratically.
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    const pivot = m.slice(c).reduce((best, row, i) => (Math.abs(row[c]) > Math.abs(m[best][c]) ? c + i : best), c);
    [m[c], m[pivot]] = [m[pivot], m[c]];
    for (let r = c + 1; r < n; r++) {
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) x[r] = (m[r][n] - m[r].slice(r + 1, n).reduce((s, v, i) => s + v * x[r + 1 + i], 0)) / m[r][r];
  return x;
}
console.log('\nNewton steps with the compiled Hessian:');
for (let step = 1; step <= 4; step++) {
  const g = gradLoss(p, data.t, data.x);
  const delta = solve(hessianLoss(p, data.t, data.x), keys.map((k) => -g[k]));
  p = { ...p };
  keys.forEach((k, i) => (p[k] += delta[i]));
  const norm = Math.hypot(...keys.map((k) => gradLoss(p, data.t, data.x)[k]));
  console.log(`newton ${String(step).padStart(2)}  loss ${lossAndGrad(p, data.t, data.x)[0].toExponential(8)}  |gradient| ${norm.toExponential(2)}`);
}

console.log('\nfitted parameters (truth in parentheses):');
for (const k of keys) console.log(`  ${k.padEnd(9)} ${fmt(p[k])}  (${truth[k]})`);

// Gradient check: the compiled reverse-mode gradient against central differences, at the
// starting point (where the gradient is far from zero) and at the fit.
const h = 1e-6;
let worst = 0;
for (const [label, at] of [['the starting point', start], ['the fitted parameters', p]] as const) {
  const g = gradLoss(at, data.t, data.x);
  console.log(`\ngradient check at ${label}:`);
  for (const k of keys) {
    const fd = (Fit.loss({ ...at, [k]: at[k] + h }, data.t, data.x) - Fit.loss({ ...at, [k]: at[k] - h }, data.t, data.x)) / (2 * h);
    const rel = Math.abs(g[k] - fd) / Math.max(1e-6, Math.abs(fd));
    if (Math.abs(fd) > 1e-6) worst = Math.max(worst, rel);
    console.log(`  d/d${k.padEnd(9)} tsad ${g[k].toExponential(8).padStart(16)}   finite differences ${fd.toExponential(8).padStart(16)}`);
  }
}
// The same fit with a simulated model: each sample's x(t) comes from 40 RK4 steps of the
// equation of motion in a `for` loop, differentiated by tsad through the loop.
console.log('\nthe same fit, the model simulated by RK4 in a for loop (40 steps per sample):');
let q: Params = start;
const mq: Record<string, number> = { amplitude: 0, damping: 0, omega: 0, phase: 0 };
const vq: Record<string, number> = { amplitude: 0, damping: 0, omega: 0, phase: 0 };
for (let step = 1; step <= 100; step++) {
  const [loss, g] = simulatedLossAndGrad(q, data.t, data.x);
  const next = { ...q };
  for (const k of keys) {
    mq[k] = 0.9 * mq[k] + 0.1 * g[k];
    vq[k] = 0.999 * vq[k] + 0.001 * g[k] * g[k];
    next[k] = q[k] - (rate * (mq[k] / (1 - 0.9 ** step))) / (Math.sqrt(vq[k] / (1 - 0.999 ** step)) + 1e-8);
  }
  q = next;
  if ([1, 50, 100].includes(step)) console.log(`adam ${String(step).padStart(4)}  loss ${loss.toExponential(8)}  |gradient| ${Math.hypot(...keys.map((k) => g[k])).toExponential(2)}`);
}
// Newton on the Hessian of the simulated loss: second derivatives through the RK4 loop.
for (let step = 1; step <= 3; step++) {
  const g = simulatedGrad(q, data.t, data.x);
  const delta = solve(simulatedHessian(q, data.t, data.x), keys.map((k) => -g[k]));
  q = { ...q };
  keys.forEach((k, i) => (q[k] += delta[i]));
  const norm = Math.hypot(...keys.map((k) => simulatedGrad(q, data.t, data.x)[k]));
  console.log(`newton ${String(step).padStart(2)}  loss ${simulatedLossAndGrad(q, data.t, data.x)[0].toExponential(8)}  |gradient| ${norm.toExponential(2)}`);
}
for (const k of keys) console.log(`  ${k.padEnd(9)} ${fmt(q[k])}  (closed-form fit ${fmt(p[k])})`);
const gs = simulatedGrad(start, data.t, data.x);
console.log('gradient check of the simulated loss at the starting point:');
for (const k of keys) {
  const fd = (simulatedLoss({ ...start, [k]: start[k] + h }, data.t, data.x) - simulatedLoss({ ...start, [k]: start[k] - h }, data.t, data.x)) / (2 * h);
  worst = Math.max(worst, Math.abs(gs[k] - fd) / Math.max(1e-6, Math.abs(fd)));
  console.log(`  d/d${k.padEnd(9)} tsad ${gs[k].toExponential(8).padStart(16)}   finite differences ${fd.toExponential(8).padStart(16)}`);
}

const ok = worst < 1e-6;
console.log(`\nlargest relative difference ${worst.toExponential(2)} ${ok ? '(ok)' : '(MISMATCH)'}`);
if (!ok) process.exitCode = 1;
