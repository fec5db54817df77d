// Side-by-side gradients of GradBench evals: tsad's (bench/src/tsad, differentiated by the plugin,
// built to bench/dist/gradbench/tsad.js), the hand-written Float64Array derivatives (bench/src/hand,
// built to bench/dist/hand), jax-js (jit(grad), wasm) and TensorFlow.js (tf.grad, cpu backend), and
// GradBench's `manual` C++ as recorded by the runner (bench/results/gradbench-hand-vs-manual.md).
// First checks every system against the hand-written primal and gradient at small sizes, then
// times the gradient at the eval's default size (the largest of GradBench's defaults) and a
// smaller one and prints markdown tables: the long one, and a summary with tsad's ratios to each.
//
// Timing: inputs are converted to each system's own arrays before the clock starts (GradBench
// times the function, not input parsing); the result is read back into a Float64Array inside the
// timed call, since that is what makes the lazy peers compute and what the hand-written code hands
// back. Each system is warmed up, then REPS repetitions of CALLS calls run, interleaved across
// systems so that a change of load on a shared machine hits all of them; a repetition's figure is
// its median call and the table shows the best repetition.
//
// usage: node bench/peers/compare.js [--quick] [--evals=lse,llsq,...]
//   (npm run bench:peers installs the peers and builds bench/dist first)
'use strict';
const fs = require('fs');
const path = require('path');
const os = require('os');
const { pathToFileURL } = require('url');

const here = __dirname;
const handDir = path.join(here, '..', 'dist', 'hand');
const tsadFile = path.join(here, '..', 'dist', 'gradbench', 'tsad.js');
const manualFile = path.join(here, '..', 'results', 'gradbench-hand-vs-manual.md');
const quick = process.argv.includes('--quick');
const only = (process.argv.find((a) => a.startsWith('--evals=')) ?? '').slice('--evals='.length).split(',').filter(Boolean);
const REPS = quick ? 2 : 5;
const CALLS = quick ? 3 : 7;
const WARM_MS = quick ? 100 : 500;
const SLOW_MS = 1000;

/** Deterministic inputs (mulberry32), uniform in [0, 1) like GradBench's generators. */
function uniform(len, seed) {
  let s = seed >>> 0;
  const out = new Float64Array(len);
  for (let i = 0; i < len; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  return out;
}

/** Standard normal deviates by Box–Muller over `uniform`. */
function normal(len, seed) {
  const u = uniform(2 * len, seed);
  return Float64Array.from({ length: len }, (_, i) => Math.sqrt(-2 * Math.log(1 - u[2 * i])) * Math.cos(2 * Math.PI * u[2 * i + 1]));
}

/** gmm's gradient object (alpha, mu, q, l) as one Float64Array, in that order. */
function flatGmm(g) {
  const out = new Float64Array(g.alpha.length + g.mu.length + g.q.length + g.l.length);
  let o = 0;
  for (const a of [g.alpha, g.mu, g.q, g.l]) {
    out.set(a, o);
    o += a.length;
  }
  return out;
}

/**
 * `manual`'s milliseconds as GradBench's runner recorded them (bench/results/gradbench-hand-vs-manual.md,
 * sections per eval with rows `| function | size | hand | manual | ratio |`); empty when absent.
 */
function manualTimes() {
  const out = new Map();
  if (!fs.existsSync(manualFile)) return out;
  let section = '';
  for (const line of fs.readFileSync(manualFile, 'utf8').split('\n')) {
    const h = /^## (\w+)/.exec(line);
    if (h) section = h[1];
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length >= 6 && Number.isFinite(Number(cells[4])) && cells[4] !== '') out.set(`${section} ${cells[1]} ${cells[2]}`, Number(cells[4]));
  }
  return out;
}

/** gmm's input drawn as GradBench draws it: x, alpha, q, l normal; mu uniform; m = 0, γ = 1. */
function gmmInput({ d, k, n }) {
  const data = { d, k, n, m: 0, gamma: 1, x: normal(n * d, 1) };
  const params = { alpha: normal(k, 2), mu: uniform(k * d, 3), q: normal(k * d, 4), l: normal((k * d * (d - 1)) / 2, 5) };
  return [data, params];
}

/**
 * One eval: its sizes, how to make an input, and the hand-written reference as a `prepare` like the
 * peers' (an object whose primal() and gradient() run on the prepared input).
 */
const evals = [
  {
    name: 'lse',
    checks: [{ n: 10 }, { n: 1000 }],
    sizes: [{ n: 80_000 }, { n: 1_280_000 }],
    label: ({ n }) => `n = ${n.toLocaleString('en-US')}`,
    input: ({ n }) => [uniform(n, 31337)],
    hand: () => {
      const h = require(path.join(handDir, 'lse.js'));
      return (x) => ({ primal: () => h.lse(x), gradient: () => h.lseGradient(x), dispose() {} });
    },
    tsad: (t) => (x) => ({ primal: () => t.lse.primal(x), gradient: () => t.lse.gradient(x), dispose() {} }),
    manual: ({ n }) => ['gradient', `n=${n}`],
  },
  {
    name: 'llsq',
    checks: [
      { n: 7, m: 4 },
      { n: 64, m: 16 },
    ],
    sizes: [
      { n: 1024, m: 128 },
      { n: 16_392, m: 128 },
    ],
    label: ({ n, m }) => `n = ${n.toLocaleString('en-US')}, m = ${m}`,
    input: ({ n, m }) => [uniform(m, 31337), n],
    hand: () => {
      const h = require(path.join(handDir, 'llsq.js'));
      return (x, n) => ({ primal: () => h.llsq(x, n), gradient: () => h.llsqGradient(x, n), dispose() {} });
    },
    tsad: (t) => (x, n) => ({ primal: () => t.llsq.primal(x, n), gradient: () => t.llsq.gradient(x, n), dispose() {} }),
    manual: ({ n, m }) => ['gradient', `n=${n},m=${m}`],
  },
  {
    name: 'gmm',
    checks: [
      { d: 2, k: 5, n: 20 },
      { d: 10, k: 5, n: 100 },
    ],
    sizes: [
      { d: 10, k: 25, n: 1000 },
      { d: 64, k: 100, n: 1000 },
    ],
    label: ({ d, k, n }) => `d = ${d}, k = ${k}, n = ${n.toLocaleString('en-US')}`,
    input: gmmInput,
    hand: () => {
      const h = require(path.join(handDir, 'gmm.js'));
      return (data, params) => ({ primal: () => h.gmmObjective(data, params), gradient: () => flatGmm(h.gmmGradient(data, params)), dispose() {} });
    },
    tsad: (t) => (data, params) => ({ primal: () => t.gmm.objective(data, params), gradient: () => flatGmm(t.gmm.jacobian(data, params)), dispose() {} }),
    manual: ({ d, k, n }) => ['jacobian', `${d}_${k}_${n}`],
  },
  {
    name: 'kmeans',
    checks: [
      { k: 3, n: 20, d: 2 },
      { k: 10, n: 1000, d: 8 },
    ],
    sizes: [
      { k: 100, n: 10_000, d: 16 },
      { k: 1000, n: 10_000, d: 16 },
    ],
    label: ({ k, n, d }) => `k = ${k}, n = ${n.toLocaleString('en-US')}, d = ${d}`,
    // As GradBench does: the centroids are the last k points, so none is without a point.
    input: ({ k, n, d }) => {
      const points = uniform(n * d, 31337);
      return [points, points.slice((n - k) * d), d];
    },
    hand: () => {
      const h = require(path.join(handDir, 'kmeans.js'));
      return (p, c, d) => ({ primal: () => h.kmeansCost(p, c, d), gradient: () => h.kmeansDir(p, c, d), dispose() {} });
    },
    tsad: (t) => (p, c, d) => ({ primal: () => t.kmeans.cost(p, c, d), gradient: () => t.kmeans.dir(p, c, d), dispose() {} }),
    manual: ({ k, n, d }) => ['dir', `k=${k},n=${n},d=${d}`],
  },
];

/** The peers: where their modules live and which package each needs. */
const peers = [
  { name: 'jax-js', dir: 'jax', pkg: '@jax-js/jax', what: 'jit(grad), wasm, float64' },
  { name: 'tfjs', dir: 'tf', pkg: '@tensorflow/tfjs', what: 'tf.grad, cpu backend, float32' },
];

/** Loads each peer's module for an eval; a missing package is reported, not fatal. */
async function loadPeers(evalName, missing) {
  const loaded = [];
  for (const peer of peers) {
    if (missing.has(peer.name)) continue;
    const file = path.join(here, peer.dir, `${evalName}.mjs`);
    if (!fs.existsSync(file)) continue;
    try {
      loaded.push({ name: peer.name, prepare: (await import(pathToFileURL(file).href)).prepare });
    } catch (e) {
      if (e && (e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND') && String(e.message).includes(peer.pkg)) {
        missing.set(peer.name, peer.pkg);
      } else {
        throw e;
      }
    }
  }
  return loaded;
}

/**
 * The largest difference relative to the reference's scale: max_i |a_i − b_i| / max_i |b_i|
 * (absolute where b is all zeros). Elementwise ratios would be ruled by entries near zero, which
 * kmeans' direction has; on lse's nearly uniform softmax the two agree.
 */
function maxRel(a, b) {
  if (typeof b === 'number') return maxRel([a], [b]);
  if (a.length !== b.length) return NaN;
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < b.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= diff)) diff = d; // NaN wins
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return scale === 0 ? diff : diff / scale;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** Runs the gradient for WARM_MS (at least once); returns the last call's time in ms. */
function warm(run) {
  const t0 = now();
  let last;
  do {
    const t = now();
    run.gradient();
    last = now() - t;
  } while (now() - t0 < WARM_MS);
  return last;
}

/** One repetition: the median of `calls` timed calls, in ms. */
function repetition(run, calls) {
  const times = [];
  for (let c = 0; c < calls; c++) {
    const t0 = now();
    run.gradient();
    times.push(now() - t0);
  }
  return median(times);
}

const fmtMs = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const fmtRel = (r) => (Number.isNaN(r) ? 'NaN' : r === 0 ? '0' : r.toExponential(1));

async function main() {
  if (!fs.existsSync(path.join(handDir, 'lse.js'))) {
    console.error(`compare: ${path.relative(process.cwd(), handDir)} is missing; build it with \`npm run bench:gradbench\` (or run \`npm run bench:peers\`).`);
    process.exit(1);
  }
  const missing = new Map();
  const plan = [];
  const tsad = fs.existsSync(tsadFile) ? require(tsadFile).tsadImpls : undefined;
  if (!tsad) console.log(`**tsad skipped**: ${path.relative(process.cwd(), tsadFile)} is missing; \`npm run bench:gradbench\` builds it.`);
  const manual = manualTimes();
  for (const ev of evals.filter((e) => only.length === 0 || only.includes(e.name))) {
    const hand = ev.hand();
    const ours = tsad?.[ev.name] ? [{ name: 'tsad', prepare: ev.tsad(tsad) }] : [];
    plan.push({ ev, hand, systems: [{ name: 'hand', prepare: hand }, ...ours, ...(await loadPeers(ev.name, missing))] });
  }
  const versions = peers.filter((p) => !missing.has(p.name)).map((p) => `${p.name} ${require(path.join(here, '..', 'node_modules', p.pkg, 'package.json')).version} (${p.what})`);
  console.log(`node ${process.version}, ${os.cpus().length} × ${os.cpus()[0].model.trim()}, ${new Date().toISOString().slice(0, 16)}Z; ${versions.join('; ') || 'no peers'}`);
  for (const [name, pkg] of missing) {
    console.log(`\n**${name} skipped**: ${pkg} is not installed; \`npm install --prefix bench\` (or \`npm run bench:peers\`) installs it.`);
  }
  console.log(
    `median call of ${CALLS}, best of ${REPS} repetitions (1 call, best of 2 where a call takes over ${SLOW_MS / 1000} s), after ${WARM_MS} ms of warm-up; inputs drawn as GradBench draws them, seeded`,
  );
  const checkRows = [];
  const timeRows = [];
  const summaryRows = [];
  for (const { ev, hand, systems } of plan) {
    for (const size of ev.checks) {
      const args = ev.input(size);
      const ref = hand(...args);
      const p0 = ref.primal();
      const g0 = ref.gradient();
      for (const s of systems.slice(1)) {
        const run = s.prepare(...args);
        checkRows.push(`| ${ev.name} | ${ev.label(size)} | ${s.name} | ${fmtRel(maxRel(run.primal(), p0))} | ${fmtRel(maxRel(run.gradient(), g0))} |`);
        run.dispose();
      }
    }
    for (const size of ev.sizes) {
      const args = ev.input(size);
      const runs = systems.map((s) => ({ name: s.name, run: s.prepare(...args), best: Infinity }));
      const g0 = runs[0].run.gradient();
      for (const r of runs) r.diff = maxRel(r.run.gradient(), g0);
      // A system slower than a second a call (tfjs on kmeans) gets 1 call × 2 repetitions, so one
      // eval does not take minutes; the warm-up call tells.
      for (const r of runs) r.slow = warm(r.run) > SLOW_MS;
      for (let k = 0; k < REPS; k++) {
        for (const r of runs) {
          if (r.slow && k >= 2) continue;
          r.best = Math.min(r.best, repetition(r.run, r.slow ? 1 : CALLS));
        }
      }
      // tsad's gradient / primal: the primal timed the same way.
      const ours = runs.find((r) => r.name === 'tsad');
      let primalMs = NaN;
      if (ours) {
        const primalRun = { gradient: () => ours.run.primal() };
        const slow = warm(primalRun) > SLOW_MS;
        primalMs = Infinity;
        for (let k = 0; k < (slow ? 2 : REPS); k++) primalMs = Math.min(primalMs, repetition(primalRun, slow ? 1 : CALLS));
      }
      const [fn, key] = ev.manual(size);
      const manualMs = manual.get(`${ev.name} ${fn} ${key}`);
      const by = (name) => runs.find((r) => r.name === name);
      const ms = (r) => (r ? fmtMs(r.best) : 'skipped');
      const ratio = (r) => (ours && r ? (ours.best / r.best).toFixed(2) : '—');
      const diffs = runs
        .filter((r) => r.name !== 'hand')
        .map((r) => `${r.name} ${fmtRel(r.diff)}`)
        .join(', ');
      summaryRows.push(
        `| ${ev.name} | ${ev.label(size)} | ${ms(ours)} | ${ms(by('hand'))} | ${manualMs === undefined ? '—' : fmtMs(manualMs)} | ${ms(by('jax-js'))} | ${ms(by('tfjs'))} | ${ratio(by('hand'))} | ${ours && manualMs !== undefined ? (ours.best / manualMs).toFixed(2) : '—'} | ${ratio(by('jax-js'))} | ${ratio(by('tfjs'))} | ${ours ? (ours.best / primalMs).toFixed(1) : '—'} | ${diffs} |`,
      );
      for (const r of runs) {
        timeRows.push(`| ${ev.name} | ${ev.label(size)} | ${r.name} | ${fmtMs(r.best)} | ${(r.best / runs[0].best).toFixed(2)} | ${r === runs[0] ? '(reference)' : fmtRel(r.diff)} |`);
        r.run.dispose();
      }
    }
  }
  console.log('\nCheck against the hand-written derivatives (largest difference over the largest hand-written entry, ∞-norm):\n');
  console.log('| eval | size | system | primal | gradient |');
  console.log('|---|---|---|---:|---:|');
  checkRows.forEach((r) => console.log(r));
  console.log(
    '\ntsad side by side (ms per gradient; ratios are tsad ÷ the other; manual is C++ -O3 as the runner recorded it; rel. diff from the hand-written answer, which the runner validates against manual):\n',
  );
  console.log('| eval | size | tsad | hand JS | manual | jax-js | tfjs | ÷ hand | ÷ manual | ÷ jax-js | ÷ tfjs | tsad grad ÷ primal | rel. diff |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  summaryRows.forEach((r) => console.log(r));
  console.log('\nTime per gradient:\n');
  console.log('| eval | size | system | ms per gradient | / hand | rel. diff from hand (∞-norm) |');
  console.log('|---|---|---|---:|---:|---:|');
  timeRows.forEach((r) => console.log(r));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
