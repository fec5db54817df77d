// `tsad/vite` and `tsad/esbuild`, run for real (Vite 8 and esbuild are ES modules, so each case
// is a small .mjs script in a temporary project that consumes this repository as `tsad`):
// bundles whose gradients match central differences, diagnostics at file and line, and Vite's
// dev server serving the new derivative after an edit to the file the marked function lives in.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import { project, root } from './project';

const model = `/** @differentiable */
export function energy(x: number, v: number): number {
  return 0.5 * v * v + (1 - Math.cos(x)) * 9.81;
}
`;

const main = `import { grad } from 'tsad';
import { energy } from './model';
const h = 1e-6;
export const g = grad(energy, { wrt: [0, 1] })(0.3, 1.2);
export const fd = [(energy(0.3 + h, 1.2) - energy(0.3 - h, 1.2)) / (2 * h), (energy(0.3, 1.2 + h) - energy(0.3, 1.2 - h)) / (2 * h)];
console.log(JSON.stringify({ g, fd }));
`;

const broken = `import { grad } from 'tsad';\n/** @differentiable */\nfunction f(x: number) { return x * Math.random(); }\nconsole.log(grad(f)(2));\n`;

const tsconfig = JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'esnext', moduleResolution: 'bundler', strict: true, types: [] } });

// The four builds of the first tests (a good entry and one with a tsad error, each with esbuild
// and with `vite build`) run in one Node process, each with a fresh plugin as a separate process
// would have: Node, TypeScript, tsad and the bundlers start once instead of four times.
const scripts = {
  'esbuild.mjs': `import * as esbuild from 'esbuild';
import tsad from 'tsad/esbuild';
export async function bundle(entry, outfile) {
  try {
    await esbuild.build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile, sourcemap: true, logLevel: 'silent', plugins: [tsad()] });
    return {};
  } catch (e) {
    return { errors: e.errors.map((m) => ({ text: m.text, line: m.location?.line, file: m.location?.file })) };
  }
}`,
  'vite-build.mjs': `import { build } from 'vite';
import tsad from 'tsad/vite';
export async function viteBuild(entry, outDir) {
  try {
    await build({ root: process.cwd(), configFile: false, logLevel: 'silent', plugins: [tsad()], build: { ssr: entry, outDir, emptyOutDir: true } });
    return {};
  } catch (e) {
    // Rolldown (Vite 8) gathers plugin errors in e.errors; Rollup throws the plugin's error itself.
    const first = e.errors?.[0] ?? e;
    return { error: first.message, loc: first.loc ?? null };
  }
}`,
  'builds.mjs': `import { bundle } from './esbuild.mjs';
import { viteBuild } from './vite-build.mjs';
const esbuild = { main: await bundle('main.ts', 'out/bundle.cjs'), broken: await bundle('broken.ts', 'out/broken.cjs') };
const vite = { main: await viteBuild('main.ts', 'vout'), broken: await viteBuild('broken.ts', 'vout-broken') };
console.log(JSON.stringify({ esbuild, vite }));`,
  'vite-dev.mjs': `import { createServer } from 'vite';
import tsad from 'tsad/vite';
import * as fs from 'fs';
const server = await createServer({ root: process.cwd(), configFile: false, logLevel: 'silent', plugins: [tsad()], server: { middlewareMode: true, ws: false } });
const before = (await server.ssrLoadModule('/main.ts')).g;
const changed = new Promise((resolve) => server.watcher.once('change', resolve));
fs.writeFileSync('model.ts', fs.readFileSync('model.ts', 'utf8').replace('0.5 * v * v', '0.5 * v * v * v'));
await changed;
await new Promise((r) => setTimeout(r, 500));
const after = (await server.ssrLoadModule('/main.ts')).g;
await server.close();
console.log(JSON.stringify({ before, after }));`,
};

function scratch(files: Record<string, string>): string {
  const dir = project({ 'tsconfig.json': tsconfig, ...scripts, ...files }, ['typescript', 'vite', 'esbuild'], 'tsad-bundlers-');
  return dir;
}

function node(args: string[], cwd: string): any {
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  expect(r.stderr).toBe('');
  const lines = r.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

function expectGradient({ g, fd }: { g: number[]; fd: number[] }): void {
  expect(g[0]).toBeCloseTo(9.81 * Math.sin(0.3), 12);
  expect(g[1]).toBeCloseTo(1.2, 12);
  for (let i = 0; i < 2; i++) expect(Math.abs(g[i] - fd[i])).toBeLessThan(1e-6);
}

describe('one project built by esbuild and by `vite build`: an entry with a gradient, and one with a tsad error', () => {
  let dir: string;
  let built: { esbuild: Record<'main' | 'broken', any>; vite: Record<'main' | 'broken', any> };

  beforeAll(() => {
    dir = scratch({ 'model.ts': model, 'main.ts': main, 'broken.ts': broken });
    const r = spawnSync(process.execPath, ['builds.mjs'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    expect(r.stderr).toBe('');
    // Nothing but the results: a build that succeeds prints nothing.
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    built = JSON.parse(r.stdout);
  }, 120_000);

  test('esbuild: a bundle whose compiled gradient matches central differences, with a source map', () => {
    expect(built.esbuild.main).toEqual({});
    expectGradient(node(['out/bundle.cjs'], dir));
    const map = JSON.parse(fs.readFileSync(`${dir}/out/bundle.cjs.map`, 'utf8'));
    expect(map.sources.some((s: string) => s.endsWith('main.ts'))).toBe(true);
  });

  test("esbuild: tsad's diagnostic is a build error at its file and line", () => {
    const { errors } = built.esbuild.broken;
    expect(errors).toHaveLength(1);
    expect(errors[0].text).toContain("error TSAD1103: cannot differentiate through a call to 'Math.random'");
    expect(errors[0].line).toBe(3);
    expect(errors[0].file).toMatch(/broken\.ts$/);
  });

  test('vite build: the bundle of an SSR entry gets compiled derivatives', () => {
    expect(built.vite.main).toEqual({});
    expectGradient(node(['vout/main.mjs'], dir));
  });

  test("vite build: tsad's diagnostic fails the build with its file, line and code", () => {
    const { error, loc } = built.vite.broken;
    expect(error).toContain("error TSAD1103: cannot differentiate through a call to 'Math.random'");
    expect(loc).toMatchObject({ line: 3 });
  });
});

test("vite dev server: an edit to the marked function's file re-transforms the call site in another file", () => {
  const dir = scratch({ 'model.ts': model, 'main.ts': main });
  const { before, after } = node(['vite-dev.mjs'], dir);
  expect(before[1]).toBeCloseTo(1.2, 12);
  expect(after[1]).toBeCloseTo(1.5 * 1.44, 12);
  expect(after[0]).toBeCloseTo(9.81 * Math.sin(0.3), 12);
});

/** The files of an example folder, as `project` takes them. */
function example(name: string): Record<string, string> {
  const base = path.join(root, 'examples', name);
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(base, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    if (!full.includes(`${path.sep}node_modules${path.sep}`) && !full.includes(`${path.sep}dist${path.sep}`)) files[path.relative(base, full)] = fs.readFileSync(full, 'utf8');
  }
  return files;
}

test('examples/esbuild builds with its build script and prints a gradient that matches central differences', () => {
  const dir = project(example('esbuild'), ['typescript', 'esbuild'], 'tsad-example-');
  const build = spawnSync(process.execPath, ['build.mjs'], { cwd: dir, encoding: 'utf8' });
  expect(build.stderr + build.stdout).toBe('');
  const { gradient, centralDifferences } = node(['dist/main.cjs'], dir);
  expectGradient({ g: gradient, fd: centralDifferences });
});

test('examples/vite builds with `vite build`, and its page script shows a gradient that matches central differences', () => {
  const dir = project(example('vite'), ['typescript', 'vite'], 'tsad-example-');
  const build = spawnSync(process.execPath, [path.join(dir, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'error'], { cwd: dir, encoding: 'utf8' });
  expect(build.stderr).toBe('');
  const script = fs.readdirSync(path.join(dir, 'dist', 'assets')).find((f) => f.endsWith('.js'))!;
  // The page script, run against a stand-in for its one DOM element (and for the link element
  // Vite's module preload check creates).
  const page = `globalThis.document = { createElement: () => ({ relList: { supports: () => true } }), querySelector: () => (globalThis.result = {}) }; await import('./dist/assets/${script}'); console.log(JSON.stringify(globalThis.result.textContent));`;
  const text: string = node(['--input-type=module', '-e', page], dir);
  const [g, fd] = [...text.matchAll(/\(([^)]*)\)/g)].slice(-2).map((m) => m[1].split(', ').map(Number));
  expectGradient({ g, fd });
});

test('examples/webpack builds through tsad/webpack and prints a gradient that matches central differences', () => {
  const dir = project(example('webpack'), ['typescript', 'webpack'], 'tsad-example-');
  const build = spawnSync(process.execPath, ['build.cjs'], { cwd: dir, encoding: 'utf8' });
  expect(build.stderr + build.stdout).toBe('');
  const { gradient, centralDifferences } = node(['dist/main.cjs'], dir);
  expectGradient({ g: gradient, fd: centralDifferences });
});

test("webpack: tsad's diagnostic fails the module's build with file, line and code; watch mode rebuilds a call site after an edit in another file", () => {
  const broken = project(
    { ...example('webpack'), 'src/main.ts': `import { grad } from 'tsad';\n/** @differentiable */\nfunction f(x: number) { return x * Math.random(); }\nconsole.log(grad(f)(2));\n` },
    ['typescript', 'webpack'],
    'tsad-example-',
  );
  const failed = spawnSync(process.execPath, ['build.cjs'], { cwd: broken, encoding: 'utf8' });
  expect(failed.status).not.toBe(0);
  expect(failed.stderr).toMatch(/src\/main\.ts:3:36 - error TSAD1103: cannot differentiate through a call to 'Math\.random'/);

  const watch = `const webpack = require('webpack');
const fs = require('fs');
const { execFileSync } = require('child_process');
const run = () => JSON.parse(execFileSync(process.execPath, ['dist/main.cjs'], { encoding: 'utf8' })).gradient;
// Files written just before the watch starts are all rebuilt by webpack's timestamp heuristics:
// date them back so that only what an edit invalidates is rebuilt.
const past = new Date(Date.now() - 3600_000);
for (const f of fs.readdirSync('src')) fs.utimesSync('src/' + f, past, past);
let builds = 0;
const seen = [];
// Development mode, as under \`webpack --watch\`: modules are rebuilt one by one, not concatenated.
const watching = webpack({ ...require('./webpack.config.cjs'), mode: 'development' }).watch({ aggregateTimeout: 100 }, (err, stats) => {
  if (err || stats.hasErrors()) throw err || new Error(stats.toString('errors-only'));
  seen.push(run());
  if (++builds === 1) fs.writeFileSync('src/model.ts', fs.readFileSync('src/model.ts', 'utf8').replace('0.5 * v * v', '0.5 * v * v * v'));
  else watching.close(() => console.log(JSON.stringify(seen)));
});`;
  const dir = project({ ...example('webpack'), 'watch.cjs': watch }, ['typescript', 'webpack'], 'tsad-example-');
  const [before, after] = node(['watch.cjs'], dir);
  expect(before[1]).toBeCloseTo(1.2, 12);
  expect(after[1]).toBeCloseTo(1.5 * 1.44, 12);
});
