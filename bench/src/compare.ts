// The tsad side of two builds of scalar.ts, timed against each other in one process: the two
// run in alternating short batches and each pair of neighbouring batches gives one ratio, so the
// load changes of a shared machine, larger than the few percent a change to the emitted wrappers
// makes, hit both sides of every ratio. Reports the median ratio and the median ns per call.
// usage: node bench/dist/compare.js BEFORE.js AFTER.js [pairs]
import * as path from 'path';
import type { Case } from './scalar';

const [beforeFile, afterFile, pairsArg] = process.argv.slice(2);
if (!beforeFile || !afterFile) {
  console.error('usage: node bench/dist/compare.js BEFORE.js AFTER.js [pairs]');
  process.exit(2);
}
const load = (file: string): Case[] => require(path.resolve(file)).cases;
const before = load(beforeFile);
const after = load(afterFile);
const pairs = Number(pairsArg ?? 201);
const CALLS = 50_000;

let sink = 0;
function batch(f: (i: number) => unknown): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) {
    const v = f(i);
    sink += typeof v === 'number' ? v : (v as number[])[0] === undefined ? 0 : 1;
  }
  return Number(process.hrtime.bigint() - t0) / CALLS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${pairs} pairs of ${CALLS} calls`);
console.log('| case | before ns/call | after ns/call | after / before (median of pairs) |');
console.log('|---|---:|---:|---:|');
before.forEach((b, k) => {
  const a = after[k];
  for (let w = 0; w < 10; w++) [b.tsad, a.tsad].forEach(batch); // warm-up: let the JIT settle
  const tb: number[] = [];
  const ta: number[] = [];
  const ratios: number[] = [];
  for (let p = 0; p < pairs; p++) {
    // Alternate which side goes first so neither always runs right after the other.
    let x: number, y: number;
    if (p % 2) {
      x = batch(b.tsad);
      y = batch(a.tsad);
    } else {
      y = batch(a.tsad);
      x = batch(b.tsad);
    }
    tb.push(x);
    ta.push(y);
    ratios.push(y / x);
  }
  console.log(`| ${b.name} | ${median(tb).toFixed(1)} | ${median(ta).toFixed(1)} | ${median(ratios).toFixed(3)} |`);
});
if (sink === 0.5) console.log('');
