// The ways a user builds with tsad, each run for real in a temporary project that consumes this
// repository as its `tsad` package: tspc (both decorator modes, imports across files), plain tsc
// after `ts-patch install`, ESM output, `tspc --watch` rebuilds, and ts-jest through `tsad/jest`.
import { spawnSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import { nm, project, tspc } from './project';

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 120_000, env });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

// skipLibCheck as `tsc --init` writes it: checking TypeScript's lib files and tsad's declarations
// was half of each build's CPU; packed.test.ts builds the packed package without it.
const tsconfig = (extra: object = {}) =>
  JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true, skipLibCheck: true, outDir: 'dist', rootDir: 'src', types: [], plugins: [{ transform: 'tsad/transformer' }], ...extra },
    include: ['src'],
  });

const physics = `/** @differentiable */
export function energy(x: number, v: number): number {
  return 0.5 * v * v + (1 - Math.cos(x)) * 9.81;
}`;

const main = `import { grad, valueAndGrad, differentiable } from 'tsad';
import { energy } from './physics';
export class Pendulum {
  @differentiable
  static lagrangian(x: number, v: number): number { return 0.5 * v * v - (1 - Math.cos(x)) * 9.81; }
  @differentiable({ wrt: ['v'] })
  static momentumLike(x: number, v: number): number { return energy(x, v) * x; }
}
const [e, de] = valueAndGrad(energy, { wrt: [0, 1] })(0.3, 1.2);
const dl = grad(Pendulum.lagrangian)(0.3, 1.2);
const dm = grad(Pendulum.momentumLike)(0.3, 1.2);
console.log(JSON.stringify({ e, de, dl, dm }));`;

function expectPendulum(out: string): void {
  const r = JSON.parse(out.trim().split('\n').pop()!);
  expect(r.e).toBeCloseTo(0.5 * 1.44 + (1 - Math.cos(0.3)) * 9.81, 12);
  expect(r.de[0]).toBeCloseTo(Math.sin(0.3) * 9.81, 12);
  expect(r.de[1]).toBeCloseTo(1.2, 12);
  expect(r.dl).toBeCloseTo(-Math.sin(0.3) * 9.81, 12);
  expect(r.dm).toBeCloseTo(1.2 * 0.3, 12);
}

describe.each([false, true])('tspc with the tsconfig plugin entry (experimentalDecorators: %s)', (experimental) => {
  test('builds, removes the markers, and the derivatives are right', () => {
    const dir = project({ 'tsconfig.json': tsconfig({ experimentalDecorators: experimental }), 'src/physics.ts': physics, 'src/main.ts': main });
    const build = run(process.execPath, [tspc, '-p', '.'], dir);
    expect(build.out).toBe('');
    expect(build.code).toBe(0);
    const js = fs.readFileSync(path.join(dir, 'dist/main.js'), 'utf8');
    expect(js).not.toMatch(/__decorate|__esDecorate|differentiable\)/);
    expectPendulum(run(process.execPath, ['dist/main.js'], dir).out);
  });
});

test('ts-patch install, then plain tsc', () => {
  const dir = project({ 'tsconfig.json': tsconfig(), 'src/physics.ts': physics, 'src/main.ts': main }, ['ts-patch']);
  // Patch a private copy of TypeScript, never the repository's own.
  fs.cpSync(path.join(nm, 'typescript'), path.join(dir, 'node_modules', 'typescript'), { recursive: true });
  const install = run(process.execPath, [path.join(nm, 'ts-patch', 'bin', 'ts-patch.js'), 'install', '-s', '-d', path.join(dir, 'node_modules', 'typescript')], dir);
  expect(install.code).toBe(0);
  const build = run(process.execPath, [path.join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], dir);
  expect(build.out).toBe('');
  expectPendulum(run(process.execPath, ['dist/main.js'], dir).out);
});

test('ESM output', () => {
  const dir = project({
    'package.json': JSON.stringify({ type: 'module' }),
    'tsconfig.json': tsconfig({ module: 'es2022', moduleResolution: 'bundler', experimentalDecorators: true }),
    'src/physics.ts': physics,
    'src/main.ts': main.replace("'./physics'", "'./physics.js'"),
  });
  const build = run(process.execPath, [tspc, '-p', '.'], dir);
  expect(build.out).toBe('');
  expect(fs.readFileSync(path.join(dir, 'dist/main.js'), 'utf8')).toMatch(/^import /m);
  expectPendulum(run(process.execPath, ['dist/main.js'], dir).out);
});

test('tspc --watch rebuilds the derivative when the function changes in another file, edit after edit', async () => {
  const f = (k: number) => `/** @differentiable */\nexport function f(x: number, y: number): number {\n  return Math.exp(x)${' * y'.repeat(k)};\n}\n`;
  const dir = project({
    'tsconfig.json': tsconfig(),
    'src/a.ts': f(1),
    'src/main.ts': `import { grad } from 'tsad';\nimport { f } from './a';\nconsole.log(JSON.stringify(grad(f, { wrt: [0, 1] })(1, 2)));\n`,
  });
  const child = spawn(process.execPath, [tspc, '-p', '.', '--watch', '--preserveWatchOutput'], { cwd: dir });
  let output = '';
  const waiting: { n: number; resolve: () => void }[] = [];
  const builds = () => (output.match(/Found 0 errors/g) ?? []).length;
  child.stdout.on('data', (d) => {
    output += d;
    for (const w of waiting.splice(0)) (builds() >= w.n ? w.resolve : () => waiting.push(w))();
  });
  const waitFor = (n: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`watch output so far:\n${output}`)), 60_000);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      if (builds() >= n) done();
      else waiting.push({ n, resolve: done });
    });
  const gradient = () => JSON.parse(run(process.execPath, ['dist/main.js'], dir).out.trim()) as number[];
  try {
    await waitFor(1);
    expect(gradient()).toEqual([2 * Math.E, Math.E]);
    // The repro: the first edit was picked up, the second was not.
    for (const [k, want] of [
      [2, [4 * Math.E, 4 * Math.E]],
      [3, [8 * Math.E, 12 * Math.E]],
    ] as const) {
      fs.writeFileSync(path.join(dir, 'src/a.ts'), f(k));
      await waitFor(k);
      const got = gradient();
      expect(got[0]).toBeCloseTo(want[0], 12);
      expect(got[1]).toBeCloseTo(want[1], 12);
    }
  } finally {
    child.kill();
  }
}, 150_000);

test('ts-jest through the tsad/jest adapter', () => {
  const dir = project(
    {
      'jest.config.js': `module.exports = { testEnvironment: 'node', transform: { '^.+\\\\.ts$': ['ts-jest', { tsconfig: { strict: true, types: [] , experimentalDecorators: true }, astTransformers: { before: ['tsad/jest'] } }] } };`,
      'sum.test.ts': `import { test, expect } from '@jest/globals';
import { grad, differentiable } from 'tsad';
const f = differentiable((x: number, y: number) => x * Math.exp(y));
test('compiled gradient', () => { const g = grad(f, { wrt: [0, 1] })(2, 0.5); expect(g[0]).toBeCloseTo(Math.exp(0.5), 12); expect(g[1]).toBeCloseTo(2 * Math.exp(0.5), 12); });`,
    },
    ['typescript', 'ts-jest', 'jest', '@jest/globals'],
  );
  // ts-jest resolves 'tsad/jest' from its own location; here that is the repository's
  // node_modules (a symlink), so point Node at the project's node_modules as an installed app would have.
  const env = { ...process.env, NODE_PATH: path.join(dir, 'node_modules') };
  const r = run(process.execPath, [path.join(nm, 'jest', 'bin', 'jest.js'), '--rootDir', dir, '--ci'], dir, env);
  expect(r.out).toMatch(/Tests:\s+1 passed/);
  expect(r.code).toBe(0);
}, 120_000);

// One tspc build of a project with both problems (a process with TypeScript in it costs seconds):
// a marked function of main.ts that calls Math.random, and a helper with the same problem that two
// other files differentiate.
describe('tspc on a project with tsad errors', () => {
  let dir: string;
  let build: ReturnType<typeof run>;

  beforeAll(() => {
    dir = project({
      'tsconfig.json': tsconfig(),
      'src/main.ts': `import { grad } from 'tsad';\n/** @differentiable */\nfunction f(x: number) { return x * Math.random(); }\nexport const d = grad(f);\n`,
      'src/helper.ts': `// A helper with a problem.\n/** @differentiable */\nexport function noisy(x: number): number {\n  return x * Math.random();\n}\n`,
      'src/bad.ts': `import { grad } from 'tsad';\nimport { noisy } from './helper';\n// grad of a function that calls something random\nexport const d1 = grad(noisy);\n`,
      'src/worse.ts': `import { valueAndGrad } from 'tsad';\nimport { noisy } from './helper';\nexport const d2 = valueAndGrad(noisy);\n`,
    });
    build = run(process.execPath, [tspc, '-p', '.', '--pretty', 'false'], dir);
  }, 120_000);

  test('tspc prints tsad diagnostics and fails the build', () => {
    expect(build.code).not.toBe(0);
    expect(build.out).toContain("src/main.ts(3,36): error TS901103: TSAD1103: cannot differentiate through a call to 'Math.random'");
  });

  test('tspc reports a problem in the file that has it, once, with the call sites that needed it', () => {
    const errors = build.out.split('\n').filter((l) => /error TS/.test(l));
    // main.ts's own problem, and the helper's once (not at either call site), in any order.
    expect([...errors].sort()).toEqual([
      expect.stringContaining("src/helper.ts(4,14): error TS901103: TSAD1103: cannot differentiate through a call to 'Math.random'"),
      expect.stringContaining("src/main.ts(3,36): error TS901103: TSAD1103: cannot differentiate through a call to 'Math.random'"),
    ]);
    // The emitted call site says what failed instead of claiming the plugin is missing.
    const r = spawnSync(process.execPath, ['-e', "try { require('./dist/bad.js').d1(1) } catch (e) { console.log(e.message) }"], { cwd: dir, encoding: 'utf8' });
    expect(r.stdout).toContain('grad(noisy) was not compiled: the build reported TSAD1103 at helper.ts:4:14');
  });
});
