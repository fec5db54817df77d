// `node --import tsad/register` and `node -r tsad/register`: TypeScript run without a build, in
// temporary projects that consume this repository as their `tsad` package, checked against
// central differences, with tsad's diagnostics, edits between runs and ES module conventions.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import { project } from './project';

function scratch(files: Record<string, string>): string {
  const dir = project(files, ['typescript'], 'tsad-register-');
  return dir;
}

function node(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const model = (power: number) => `/** @differentiable */
export function energy(x: number, v: number): number {
  return 0.5 * v ** ${power} + (1 - Math.cos(x)) * 9.81;
}
`;

const main = (from: string) => `import { grad } from 'tsad';
import { energy } from '${from}';
const h = 1e-6;
const g = grad(energy, { wrt: [0, 1] })(0.3, 1.2);
const fd = [(energy(0.3 + h, 1.2) - energy(0.3 - h, 1.2)) / (2 * h), (energy(0.3, 1.2 + h) - energy(0.3, 1.2 - h)) / (2 * h)];
console.log(JSON.stringify({ g, fd }));
`;

function gradient(stdout: string): { g: number[]; fd: number[] } {
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

const tsconfig = JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true, types: [] } });

/** A run of main.ts over model(2): no error output, and a gradient that matches central differences. */
function expectGradientRun(r: ReturnType<typeof node>): void {
  expect(r.stderr).toBe('');
  const { g, fd } = gradient(r.stdout);
  expect(g[0]).toBeCloseTo(9.81 * Math.sin(0.3), 12);
  expect(g[1]).toBeCloseTo(1.2, 12);
  for (let i = 0; i < 2; i++) expect(Math.abs(g[i] - fd[i])).toBeLessThan(1e-6);
}

test('node -r tsad/register runs a marked function imported from another file, with a gradient that matches central differences', () => {
  const dir = scratch({ 'tsconfig.json': tsconfig, 'model.ts': model(2), 'main.ts': main('./model') });
  expectGradientRun(node(['-r', 'tsad/register', 'main.ts'], dir));
});

// The edit's first run is the --import case's run (a run costs a Node process with TypeScript in it).
test('node --import tsad/register runs a marked function imported from another file, with a gradient that matches central differences; an edit to it is seen by the next run: nothing stale is cached', () => {
  const dir = scratch({ 'tsconfig.json': tsconfig, 'model.ts': model(2), 'main.ts': main('./model') });
  expectGradientRun(node(['--import', 'tsad/register', 'main.ts'], dir));
  fs.writeFileSync(path.join(dir, 'model.ts'), model(3));
  expect(gradient(node(['--import', 'tsad/register', 'main.ts'], dir).stdout).g[1]).toBeCloseTo(1.5 * 1.44, 12);
});

test('without a tsconfig.json, and in an ES module package that imports ./model.js', () => {
  const noConfig = scratch({ 'model.ts': model(2), 'main.ts': main('./model') });
  expect(gradient(node(['--import', 'tsad/register', 'main.ts'], noConfig).stdout).g[1]).toBeCloseTo(1.2, 12);
  const esm = scratch({
    'package.json': JSON.stringify({ type: 'module' }),
    'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'nodenext', strict: true, verbatimModuleSyntax: true, types: [] } }),
    'model.ts': model(2),
    'main.ts': main('./model.js'),
  });
  const r = node(['--import', 'tsad/register', 'main.ts'], esm);
  expect(r.stderr).toBe('');
  expect(gradient(r.stdout).g[0]).toBeCloseTo(9.81 * Math.sin(0.3), 12);
});

test("tsad's diagnostics stop the program with file, line, column, code and hint, and no internal stack", () => {
  const dir = scratch({
    'tsconfig.json': tsconfig,
    'main.ts': `import { grad } from 'tsad';\n/** @differentiable */\nfunction f(x: number) { return x * Math.random(); }\nconsole.log(grad(f)(2));\n`,
  });
  const r = node(['--import', 'tsad/register', 'main.ts'], dir);
  expect(r.code).not.toBe(0);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain("main.ts:3:36 - error TSAD1103: cannot differentiate through a call to 'Math.random'");
  expect(r.stderr).toContain('hint:');
  expect(r.stderr).not.toMatch(/\n\s+at /);
});

test('a syntax error is reported as TypeScript reports it', () => {
  const dir = scratch({ 'tsconfig.json': tsconfig, 'main.ts': 'const x: number = (1 + ;\nconsole.log(x);\n' });
  const r = node(['--import', 'tsad/register', 'main.ts'], dir);
  expect(r.code).not.toBe(0);
  expect(r.stderr).toMatch(/main\.ts:1:\d+ - error TS1109: Expression expected\./);
});

test('a recursive function runs taped: its note is printed, not an error, and the gradient matches central differences', () => {
  const dir = scratch({
    'tsconfig.json': tsconfig,
    'main.ts': `import { grad } from 'tsad';
/** @differentiable */
function f(x: number, n: number): number {
  if (n === 0) return x;
  return Math.sin(f(x, n - 1)) * x + 0.5 * x;
}
const h = 1e-6;
console.log(JSON.stringify({ g: [grad(f)(1.3, 5)], fd: [(f(1.3 + h, 5) - f(1.3 - h, 5)) / (2 * h)] }));
`,
  });
  const r = node(['--import', 'tsad/register', 'main.ts'], dir);
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/main\.ts:\d+:\d+ - note TSAD2001/);
  const { g, fd } = gradient(r.stdout);
  expect(Math.abs(g[0] - fd[0])).toBeLessThan(1e-6);
});
