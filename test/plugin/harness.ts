// Compiles TypeScript through tsad in memory and loads the result as a module. The generated
// code is plain JavaScript; `tsad` resolves to this package (built into dist/ by `npm test`).
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { transform, TransformOptions, TransformResult } from '../../transformer/plugin/transform';
import { tempDir } from '../temp';

const root = path.resolve(__dirname, '../..');
let dir: string | undefined;
let counter = 0;

export function workDir(): string {
  if (dir) return dir;
  dir = tempDir('tsad-test-');
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(root, path.join(dir, 'node_modules', 'tsad'), 'dir');
  return dir;
}

export function compile(source: string, options: TransformOptions = {}): TransformResult {
  return transform(source, { fileName: path.join(workDir(), `case${counter++}.ts`), ...options });
}

export function load(source: string, options: TransformOptions = {}): { exports: Record<string, any>; result: TransformResult } {
  const result = compile(source, options);
  return { exports: loadOutput(result), result };
}

/** The module a compile() emitted, loaded (a test that has checked the result runs it without compiling again). */
export function loadOutput(result: TransformResult): Record<string, any> {
  const file = path.join(workDir(), `module${counter++}.js`);
  fs.writeFileSync(file, result.outputText);
  return require(file);
}

// ---- numeric references ----

type V = number | V[] | { [k: string]: V };

function keys(o: object): string[] {
  return Object.keys(o).sort();
}

export function leaves(v: V): number[] {
  if (typeof v === 'number') return [v];
  if (Array.isArray(v)) return v.flatMap(leaves);
  return keys(v).flatMap((k) => leaves((v as Record<string, V>)[k]));
}

/** A copy of v with `f` applied to each leaf, given the leaf's index. */
export function mapLeaves(v: V, f: (x: number, i: number) => number, counter = { i: 0 }): V {
  if (typeof v === 'number') return f(v, counter.i++);
  if (Array.isArray(v)) return v.map((x) => mapLeaves(x, f, counter));
  const out: Record<string, V> = {};
  for (const k of keys(v)) out[k] = mapLeaves((v as Record<string, V>)[k], f, counter);
  return out;
}

const H = 1e-5;

/** ∂f/∂(leaf k of argument i) by central differences, for every output leaf. */
export function partial(f: (...a: any[]) => V, at: V[], i: number, k: number): number[] {
  const shifted = (s: number) => at.map((a, j) => (j === i ? mapLeaves(a, (x, idx) => (idx === k ? x + s : x)) : a));
  const up = leaves(f(...shifted(H)));
  const down = leaves(f(...shifted(-H)));
  return up.map((u, j) => (u - down[j]) / (2 * H));
}

/** Directional derivative of f at `at` along `dir` (same structure as the arguments). */
export function directional(f: (...a: any[]) => V, at: V[], dir: V[]): number[] {
  const shifted = (s: number) =>
    at.map((a, j) => {
      const d = leaves(dir[j]);
      return mapLeaves(a, (x, idx) => x + s * d[idx]);
    });
  const up = leaves(f(...shifted(H)));
  const down = leaves(f(...shifted(-H)));
  return up.map((u, j) => (u - down[j]) / (2 * H));
}

export function expectClose(actual: number[], expected: number[], rel = 1e-6): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((a, i) => {
    const e = expected[i];
    // Written so that a NaN fails: NaN compares false with everything, so `|a − e| > tol` let it
    // through. Equal values (the same infinity, or NaN against NaN) pass.
    if (!Object.is(a, e) && !(Math.abs(a - e) <= rel * Math.max(1, Math.abs(e)))) {
      throw new Error(`leaf ${i}: got ${a}, finite differences give ${e}`);
    }
  });
}

/** Runs `thunk` and checks it throws a TypeError with exactly `message`. */
export function expectTypeError(thunk: () => unknown, message: string): void {
  let caught: unknown;
  try {
    thunk();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeDefined();
  // The generated module may run in another realm than the test: compare the name, not the class.
  expect((caught as Error).name).toBe('TypeError');
  expect((caught as Error).message).toBe(message);
}

/** A module's source run as plain JavaScript (TypeScript's own output, no tsad): the reference a compiled primal must equal. */
export function runPlain(source: string): Record<string, any> {
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText;
  const module = { exports: {} as Record<string, any> };
  new Function('module', 'exports', 'require', js)(module, module.exports, require);
  return module.exports;
}
