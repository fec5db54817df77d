// Build-cost benchmark: `tspc` on the generated project with the tsad plugin against `tspc`
// without it (same TypeScript, same files; without the plugin the transform calls stay calls).
// Prints the median of several runs of each and their ratio.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { generate, FILES, PER_FILE, CALLS_PER_FILE } = require('./generate');

const root = path.resolve(__dirname, '../..');
const tspc = path.join(root, 'node_modules', 'ts-patch', 'bin', 'tspc.js');
const runs = Number(process.argv[2] ?? 5);

function setUp(withPlugin) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tsad-build-${withPlugin ? 'with' : 'without'}-`));
  generate(dir, withPlugin);
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(root, path.join(dir, 'node_modules', 'tsad'), 'dir');
  return dir;
}

// CPU time (user + system) of the build process, through /usr/bin/time where it exists: on a
// shared machine it moves far less than wall time. Wall time is reported beside it.
const timeTool = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

function time(dir) {
  fs.rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
  const stats = path.join(dir, 'time.txt');
  const [cmd, args] = timeTool ? [timeTool, ['-f', '%U %S', '-o', stats, process.execPath, tspc, '-p', '.']] : [process.execPath, [tspc, '-p', '.']];
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`build failed in ${dir}:\n${`${r.stdout}${r.stderr}`.slice(0, 2000)}`);
  const cpu = timeTool
    ? fs
        .readFileSync(stats, 'utf8')
        .trim()
        .split(/\s+/)
        .map(Number)
        .reduce((a, b) => a + b, 0) * 1000
    : wall;
  return { wall, cpu };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const withDir = setUp(true);
const withoutDir = setUp(false);
const check = () => {
  const out = spawnSync(process.execPath, ['dist/main.js'], { cwd: withDir, encoding: 'utf8' });
  if (out.status !== 0 || !Number.isFinite(Number(out.stdout.trim()))) throw new Error(`generated program failed: ${out.stdout}${out.stderr}`);
};
const without = [];
const withPlugin = [];
for (let k = 0; k < runs; k++) {
  without.push(time(withoutDir));
  withPlugin.push(time(withDir));
}
check();
const line = (label, xs) => `  ${label.padEnd(18)} cpu ${(median(xs.map((x) => x.cpu)) / 1000).toFixed(2)} s   wall ${(median(xs.map((x) => x.wall)) / 1000).toFixed(2)} s   (medians)`;
console.log(`build cost: ${FILES} files, ${FILES * PER_FILE} marked functions, ${FILES * CALLS_PER_FILE} call sites, ${runs} runs`);
console.log(line('tspc without tsad', without));
console.log(line('tspc with tsad', withPlugin));
const ratio = (k) => (median(withPlugin.map((x) => x[k])) / median(without.map((x) => x[k]))).toFixed(2);
console.log(`  ratio              cpu ${ratio('cpu')}x   wall ${ratio('wall')}x`);
