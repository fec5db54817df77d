// Checkpointing benchmark: reverse mode through a fixed-step RK4 loop of n steps (a damped
// oscillator, gradient w.r.t. the initial state and both parameters) compiled by the plugin
// under each checkpoint policy, for n = 10⁴, 10⁵, 10⁶. Each (policy, n) runs in a fresh Node
// process, which reports the median time of a gradient call and its peak resident memory
// (maxRSS) above the same process's warm-up runs at n = 1000: about the memory the tape takes.
//
//   npm run build && node bench/checkpoint/run.js [runs]
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '../..');
const { transform } = require(path.join(root, 'dist/transformer/plugin/transform'));
const runs = Number(process.argv[2] ?? 5);
const POLICIES = ["'store'", '{ every: 100 }', '{ every: 1000 }', "'sqrt'", '{ levels: 3 }'];
const SIZES = [1e4, 1e5, 1e6];

const source = (policy) => `import { grad, differentiable } from 'tsad';
export const oscillator = differentiable(
  (x0: number, v0: number, k: number, c: number, n: number): number => {
    const dt = 0.01;
    let x = x0;
    let v = v0;
    for (let i = 0; i < n; i++) {
      const a1 = -k * x - c * v;
      const x2 = x + 0.5 * dt * v, v2 = v + 0.5 * dt * a1;
      const a2 = -k * x2 - c * v2;
      const x3 = x + 0.5 * dt * v2, v3 = v + 0.5 * dt * a2;
      const a3 = -k * x3 - c * v3;
      const x4 = x + dt * v3, v4 = v + dt * a3;
      const a4 = -k * x4 - c * v4;
      x = x + (dt / 6) * (v + 2 * v2 + 2 * v3 + v4);
      v = v + (dt / 6) * (a1 + 2 * a2 + 2 * a3 + a4);
    }
    return x;
  },
  { checkpoint: ${policy} },
);
export const dOsc = grad(oscillator, { wrt: [0, 1, 2, 3] });
`;

// The child: a few gradients at n = 1000 so that the timed calls run optimised code, the
// baseline memory, then `runs` timed calls at n.
const child = `
const m = require(process.argv[2]);
const n = Number(process.argv[3]);
const runs = Number(process.argv[4]);
const at = [1, 0.5, 4, 0.3];
for (let w = 0; w < 5; w++) m.dOsc(...at, 1000);
const base = process.resourceUsage().maxRSS;
const times = [];
let g;
for (let r = 0; r < runs; r++) {
  const t0 = process.hrtime.bigint();
  g = m.dOsc(...at, n);
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ ms: times[Math.floor(times.length / 2)], rssMiB: (process.resourceUsage().maxRSS - base) / 1024, g }));
`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsad-checkpoint-'));
fs.mkdirSync(path.join(dir, 'node_modules'));
fs.symlinkSync(root, path.join(dir, 'node_modules', 'tsad'), 'dir');
fs.writeFileSync(path.join(dir, 'child.js'), child);

const modules = POLICIES.map((p, i) => {
  const r = transform(source(p), { fileName: path.join(dir, `osc${i}.ts`) });
  const file = path.join(dir, `osc${i}.js`);
  fs.writeFileSync(file, r.outputText);
  return file;
});

console.log(`checkpointing: RK4 oscillator, gradient of 4 inputs, median of ${runs} calls; memory = peak RSS above the warm-up at n = 1000`);
console.log(`| policy | ${SIZES.map((n) => `n = ${n.toExponential(0)} time | memory`).join(' | ')} |`);
console.log(`|---|${SIZES.map(() => '---:|---:').join('|')}|`);
const reference = new Map();
for (let i = 0; i < POLICIES.length; i++) {
  const cells = [];
  for (const n of SIZES) {
    const out = spawnSync(process.execPath, [path.join(dir, 'child.js'), modules[i], String(n), String(runs)], { encoding: 'utf8' });
    if (out.status !== 0) throw new Error(`${POLICIES[i]} n=${n}: ${out.stderr.slice(0, 2000)}`);
    const r = JSON.parse(out.stdout);
    // Every policy must give the stored gradient (to rounding) before its numbers count.
    const ref = reference.get(n) ?? r.g;
    reference.set(n, ref);
    r.g.forEach((v, k) => {
      if (Math.abs(v - ref[k]) > 1e-9 * Math.max(1, Math.abs(ref[k]))) throw new Error(`${POLICIES[i]} n=${n}: gradient ${r.g} differs from ${ref}`);
    });
    cells.push(`${r.ms.toFixed(1)} ms | ${r.rssMiB.toFixed(1)} MiB`);
  }
  console.log(`| ${POLICIES[i]} | ${cells.join(' | ')} |`);
}
