// Compiled gradients against hand-written ones, for scalar code. Each case has a marked
// function, the gradient tsad emits for it at build time, and a gradient derived by hand the way
// one would write it in production code. Prints ns per gradient call (median of batches) and the
// ratio. Run: npm run bench (numbers go to docs/benchmarks.md; tests never assert time).
// bench/src/compare.ts times the tsad side of two builds of this file against each other.
import { grad, valueAndGrad } from 'tsad';

// ---- Rosenbrock: the smallest interesting case ----
/** @differentiable */
function rosenbrock(x: number, y: number): number {
  return (1 - x) ** 2 + 100 * (y - x * x) ** 2;
}
function rosenbrockByHand(x: number, y: number): [number, number] {
  const r = y - x * x;
  return [-2 * (1 - x) - 400 * x * r, 200 * r];
}

// ---- Three-link planar arm: squared distance of the tip to a target ----
type Arm = [number, number, number];
/** @differentiable */
function reach(theta: Arm, target: [number, number]): number {
  const [a, b, c] = theta;
  const ab = a + b;
  const abc = ab + c;
  const x = Math.cos(a) + 0.8 * Math.cos(ab) + 0.5 * Math.cos(abc);
  const y = Math.sin(a) + 0.8 * Math.sin(ab) + 0.5 * Math.sin(abc);
  const dx = x - target[0];
  const dy = y - target[1];
  return dx * dx + dy * dy;
}
function reachByHand(theta: Arm, target: [number, number]): Arm {
  const [a, b, c] = theta;
  const ab = a + b;
  const abc = ab + c;
  const ca = Math.cos(a), cab = Math.cos(ab), cabc = Math.cos(abc);
  const sa = Math.sin(a), sab = Math.sin(ab), sabc = Math.sin(abc);
  const dx = ca + 0.8 * cab + 0.5 * cabc - target[0];
  const dy = sa + 0.8 * sab + 0.5 * sabc - target[1];
  // d(x, y)/dc, then /db and /da accumulate the outer links.
  const xc = -0.5 * sabc, yc = 0.5 * cabc;
  const xb = xc - 0.8 * sab, yb = yc + 0.8 * cab;
  const xa = xb - sa, ya = yb + ca;
  return [2 * (dx * xa + dy * ya), 2 * (dx * xb + dy * yb), 2 * (dx * xc + dy * yc)];
}

// ---- Damped oscillator, one residual (the demo's inner function) ----
interface Params {
  amplitude: number;
  damping: number;
  omega: number;
  phase: number;
}
/** @differentiable */
function residual(p: Params, t: number, x: number): number {
  const r = p.amplitude * Math.exp(-p.damping * t) * Math.cos(p.omega * t + p.phase) - x;
  return r * r;
}
function residualByHand(p: Params, t: number, x: number): [number, Params] {
  const e = Math.exp(-p.damping * t);
  const arg = p.omega * t + p.phase;
  const c = Math.cos(arg);
  const s = Math.sin(arg);
  const r = p.amplitude * e * c - x;
  const k = 2 * r;
  return [r * r, { amplitude: k * e * c, damping: -k * p.amplitude * t * e * c, omega: -k * p.amplitude * e * s * t, phase: -k * p.amplitude * e * s }];
}

const rosenbrockGrad = grad(rosenbrock, { wrt: [0, 1] });
const reachGrad = grad(reach);
const residualValueAndGrad = valueAndGrad(residual);

// ---- timing ----
let sink = 0;
function consume(v: unknown): void {
  if (typeof v === 'number') sink += v;
  else if (Array.isArray(v)) sink += v[0] as number;
  else if (v && typeof v === 'object') sink += (v as Record<string, number>).amplitude ?? 0;
}

/** Median ns per call of two functions, measured in alternating batches so drift hits both. */
export function nsPerCall(a: (i: number) => unknown, b: (i: number) => unknown, calls = 200_000, batches = 21): [number, number] {
  for (let i = 0; i < calls; i++) consume(a(i)); // warm-up: let the JIT settle
  for (let i = 0; i < calls; i++) consume(b(i));
  const times: [number[], number[]] = [[], []];
  for (let k = 0; k < batches; k++) {
    [a, b].forEach((f, j) => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) consume(f(i));
      times[j].push(Number(process.hrtime.bigint() - t0) / calls);
    });
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[xs.length >> 1];
  return [median(times[0]), median(times[1])];
}

function maxRelDiff(a: number[], b: number[]): number {
  return Math.max(...a.map((v, i) => Math.abs(v - b[i]) / Math.max(1, Math.abs(b[i]))));
}

const xs = Array.from({ length: 1024 }, (_, i) => Math.sin(i * 12.9898) * 1.5);
const P: Params = { amplitude: 1.3, damping: 0.2, omega: 2.1, phase: 0.4 };

export interface Case {
  name: string;
  tsad: (i: number) => unknown;
  byHand: (i: number) => unknown;
  check: () => number;
}

export const cases: Case[] = [
  {
    name: 'rosenbrock (2 inputs)',
    tsad: (i) => rosenbrockGrad(xs[i & 1023], xs[(i + 7) & 1023]),
    byHand: (i) => rosenbrockByHand(xs[i & 1023], xs[(i + 7) & 1023]),
    check: () => maxRelDiff(rosenbrockGrad(0.3, -0.7), rosenbrockByHand(0.3, -0.7)),
  },
  {
    name: 'three-link arm (3 inputs)',
    tsad: (i) => reachGrad([xs[i & 1023], xs[(i + 1) & 1023], xs[(i + 2) & 1023]], [1.2, 0.7]),
    byHand: (i) => reachByHand([xs[i & 1023], xs[(i + 1) & 1023], xs[(i + 2) & 1023]], [1.2, 0.7]),
    check: () => maxRelDiff(reachGrad([0.3, 0.5, -0.2], [1.2, 0.7]), reachByHand([0.3, 0.5, -0.2], [1.2, 0.7])),
  },
  {
    name: 'oscillator residual (4 params, value and gradient)',
    tsad: (i) => residualValueAndGrad(P, (i & 1023) * 0.01, xs[i & 1023]),
    byHand: (i) => residualByHand(P, (i & 1023) * 0.01, xs[i & 1023]),
    check: () => {
      const [v, g] = residualValueAndGrad(P, 0.7, 0.2);
      const [hv, hg] = residualByHand(P, 0.7, 0.2);
      return maxRelDiff([v, g.amplitude, g.damping, g.omega, g.phase], [hv, hg.amplitude, hg.damping, hg.omega, hg.phase]);
    },
  },
];

if (require.main === module) {
  console.log(`node ${process.version}, ${new Date().toISOString().slice(0, 10)}`);
  console.log('| case | tsad ns/call | by hand ns/call | ratio | max rel. diff |');
  console.log('|---|---:|---:|---:|---:|');
  for (const c of cases) {
    const diff = c.check();
    if (!(diff < 1e-12)) throw new Error(`${c.name}: tsad and the hand-written gradient disagree (${diff})`);
    const [t, h] = nsPerCall(c.tsad, c.byHand);
    console.log(`| ${c.name} | ${t.toFixed(1)} | ${h.toFixed(1)} | ${(t / h).toFixed(2)} | ${diff.toExponential(1)} |`);
  }
  if (sink === 42) console.log('');
}
