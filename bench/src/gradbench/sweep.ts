// Runs GradBench evals for several tools through ../shared/gradbench/run.sh, repeating each
// (eval, tool) pair and interleaving the tools, then prints report.js's table per eval. On a
// shared machine the fastest of the repeated medians is the least disturbed sample.
// usage: node bench/dist/gradbench/sweep.js [--evals lse,llsq,...] [--tools hand,manual,tsad]
//          [--repeats N] [--out DIR] [--small | --args 'EVAL ARGS']
// (--small: a few small sizes per eval; --args: the same eval arguments for every eval listed)
// `manual` runs GradBench's C++ reference as a tool (cpp.py rebuilds it with -march=native on
// `define`), in a work folder of its own so that other runs' validators are left alone.
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const SMALL: Record<string, string[]> = {
  hello: [],
  lse: ['-n', '1000', '100000', '--min-seconds', '0.2'],
  llsq: ['-n', '1024', '4096', '--min-seconds', '0.2'],
  gmm: ['-d', '2', '10', '-k', '5', '25', '--min-seconds', '0.2'],
  kmeans: ['-k', '10', '100', '-n', '1000', '-d', '8', '--min-seconds', '0.2'],
  lstm: ['-l', '2', '-c', '1024', '--min-seconds', '0.2'],
  ba: ['--min', '1', '--max', '3', '--min-seconds', '0.2'],
};

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const repo = path.resolve(__dirname, '../../..');
const gradbench = process.env.GRADBENCH_DIR ?? path.resolve(repo, '../shared/gradbench');
const evals = option('evals', 'lse,llsq,gmm,kmeans,lstm,ba').split(',');
const tools = option('tools', 'hand,manual').split(',');
const repeats = Number(option('repeats', '2'));
const out = path.resolve(option('out', fs.mkdtempSync(path.join(os.tmpdir(), 'tsad-sweep-'))));
const small = process.argv.includes('--small');
const evalArgs = option('args', '');
const manualWork = path.join(os.tmpdir(), 'gradbench-work-manual');
fs.mkdirSync(out, { recursive: true });

function command(tool: string): { cmd: string; env: NodeJS.ProcessEnv } {
  if (tool === 'manual') {
    return { cmd: `cd ${manualWork} && python3 python/gradbench/gradbench/cpp.py manual`, env: { ...process.env, GRADBENCH_WORK: manualWork } };
  }
  return { cmd: `node ${path.join(__dirname, 'tool.js')} ${tool}`, env: process.env };
}

for (const ev of evals) {
  const files: Record<string, string[]> = {};
  for (let rep = 1; rep <= repeats; rep++) {
    for (const tool of tools) {
      const file = path.join(out, `${tool}-${ev}-${rep}.txt`);
      const { cmd, env } = command(tool);
      const extra = evalArgs !== '' ? evalArgs.split(/\s+/) : small ? (SMALL[ev] ?? []) : [];
      const args = [path.join(gradbench, 'run.sh'), ev, cmd, ...(extra.length > 0 ? ['--', ...extra] : [])];
      const run = spawnSync('bash', args, { cwd: repo, env, encoding: 'utf8', maxBuffer: 1 << 26 });
      fs.writeFileSync(file, run.stdout + run.stderr);
      const outcome = /^outcome (\w+)$/m.exec(run.stdout)?.[1] ?? 'failure';
      console.error(`${ev} ${tool} #${rep}: outcome ${outcome} (${file})`);
      (files[tool] ??= []).push(file);
    }
  }
  const report = execFileSync('node', [path.join(__dirname, 'report.js'), ...tools.map((t) => `${t}=${files[t].join(',')}`)], { encoding: 'utf8' });
  console.log(`\n### ${ev}\n\n${report}`);
}
