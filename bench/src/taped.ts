// The price of taping (issue 24's benchmark): the same computation differentiated by compiled
// code and by taped mode, in the same run, and taped gradients against their own primal. Taped
// mode runs where the compiled path cannot (recursion, function values); here each taped case has
// a compiled twin that computes the same numbers, so the ratio is the cost of the tape alone.
// Run: npm run bench:taped (numbers go to docs/benchmarks.md; tests never assert time).
import { grad } from 'tsad';
import { nsPerCall } from './scalar';

// ---- a chain of n steps: a loop (compiled) and a recursion (taped) ----
/** @differentiable */
function chainLoop(x: number, n: number): number {
  let y = x;
  for (let k = 0; k < n; k++) y = Math.sin(y) * x + 0.5 * x;
  return y;
}
/** @differentiable */
function chainRecursive(x: number, n: number): number {
  if (n === 0) return x;
  return Math.sin(chainRecursive(x, n - 1)) * x + 0.5 * x;
}

// ---- one function, called by name (compiled) and through a function value (taped) ----
/** @differentiable */
function energy(x: number[]): number {
  let e = 0;
  for (let i = 0; i + 1 < x.length; i++) {
    const d = x[i + 1] - x[i];
    e += d * d + 0.1 * Math.cos(x[i]);
  }
  return e;
}
/** @differentiable */
function energyByName(x: number[]): number {
  return energy(x);
}
/** @differentiable */
function through(f: (x: number[]) => number, x: number[]): number {
  return f(x);
}
/** @differentiable */
function energyAsValue(x: number[]): number {
  return through(energy, x);
}

// ---- the determinant by minors (recursive, taped) against its primal ----
/** @differentiable */
function det(a: Float64Array, n: number): number {
  if (n === 1) return a[0];
  let s = 0;
  for (let j = 0; j < n; j++) {
    const minor = new Float64Array((n - 1) * (n - 1));
    for (let r = 1; r < n; r++) {
      let k = 0;
      for (let c = 0; c < n; c++) {
        if (c === j) continue;
        minor[(r - 1) * (n - 1) + k] = a[r * n + c];
        k++;
      }
    }
    s += (j % 2 === 0 ? 1 : -1) * a[j] * det(minor, n - 1);
  }
  return s;
}

const dChainLoop = grad(chainLoop);
const dChainRecursive = grad(chainRecursive);
const dEnergy = grad(energyByName);
const dAsValue = grad(energyAsValue);
const dDet = grad(det);

function main(): void {
  console.log(`node ${process.version}, ${new Date().toISOString().slice(0, 10)}`);
  console.log('| case | compiled ns/call | taped ns/call | taped ÷ compiled |');
  console.log('|---|---:|---:|---:|');
  for (const n of [10, 100, 1000]) {
    const calls = Math.max(200, 200_000 / n);
    const [c, t] = nsPerCall(
      (i) => dChainLoop(0.7 + i * 1e-9, n),
      (i) => dChainRecursive(0.7 + i * 1e-9, n),
      calls,
    );
    console.log(`| chain of ${n} steps: loop / recursion | ${c.toFixed(0)} | ${t.toFixed(0)} | ${(t / c).toFixed(1)} |`);
  }
  for (const n of [16, 256]) {
    const x = Array.from({ length: n }, (_, i) => Math.sin(i));
    const [c, t] = nsPerCall(
      () => dEnergy(x),
      () => dAsValue(x),
      Math.max(200, 100_000 / n),
    );
    console.log(`| energy of ${n}: by name / as a value | ${c.toFixed(0)} | ${t.toFixed(0)} | ${(t / c).toFixed(1)} |`);
  }
  console.log('');
  console.log('| taped case | primal ns/call | gradient ns/call | gradient ÷ primal |');
  console.log('|---|---:|---:|---:|');
  for (const n of [4, 6, 7]) {
    const a = Float64Array.from({ length: n * n }, (_, i) => Math.sin(1.7 * i + 0.3) + (i % (n + 1) === 0 ? 2 : 0));
    const calls = n >= 7 ? 20 : n >= 6 ? 200 : 5000;
    const [p, g] = nsPerCall(
      () => det(a, n),
      () => dDet(a, n),
      calls,
      11,
    );
    console.log(`| det by minors, ${n}×${n} (${n}! terms) | ${p.toFixed(0)} | ${g.toFixed(0)} | ${(g / p).toFixed(1)} |`);
  }
}

main();
