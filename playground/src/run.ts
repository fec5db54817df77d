// Run: the emitted module imported from a Blob URL (tsad itself never evaluates code), its
// function and gradient called at the user's inputs, the gradient on WebGPU when the page has it
// and tsad compiles gpu(grad(f)), always on the CPU too; and the data of the plot.
import * as runtime from '../../runtime/index';
import * as webgpu from '../../runtime/webgpu/index';
import type { Library } from './compile';
import { runnable } from './compile';
import type { Plot, Ran } from './protocol';

type Tree = number | readonly Tree[] | ArrayLike<number>;

// The emitted module imports `tsad` and `tsad/webgpu`: modules of the runtime this bundle holds.
function moduleOf(global: string, value: Record<string, unknown>): string {
  (globalThis as Record<string, unknown>)[global] = value;
  const exports = Object.keys(value).map((k) => `export const ${k} = r.${k};`);
  return URL.createObjectURL(new Blob([`const r = globalThis.${global};\n${exports.join('\n')}\n`], { type: 'text/javascript' }));
}
const RUNTIME_URL = moduleOf('tsad$runtime', runtime);
const WEBGPU_URL = moduleOf('tsad$webgpu', webgpu);

/** Why this page cannot run kernels (undefined: it can); asked once, the answer does not change. */
const gpuHere: Promise<string | undefined> =
  typeof navigator !== 'undefined' && 'gpu' in navigator ? webgpu.gpu.unavailableReason().catch((e: Error) => e.message) : Promise.resolve('this browser has no navigator.gpu');

async function importModule(js: string): Promise<Record<string, any>> {
  const linked = js.replace(/from\s*(['"])tsad\/webgpu\1/g, `from '${WEBGPU_URL}'`).replace(/from\s*(['"])tsad\1/g, `from '${RUNTIME_URL}'`);
  const url = URL.createObjectURL(new Blob([linked], { type: 'text/javascript' }));
  try {
    return await import(/* @vite-ignore */ url);
  } finally {
    URL.revokeObjectURL(url);
  }
}

export async function run(lib: Library, code: string, fn: string, argsText: string): Promise<Ran> {
  const args = JSON.parse(argsText) as Tree[];
  if (!Array.isArray(args)) throw new Error('inputs: a JSON array with one entry per parameter, e.g. [1.5, [1, 2]]');
  const noDevice = await gpuHere;
  const r = runnable(lib, code, fn, noDevice === undefined);
  if (r.diagnostics.some((d) => d.severity === 'error')) return { value: undefined, backend: 'CPU', diagnostics: r.diagnostics, why: 'the module does not compile' };
  const exported = (await importModule(r.js)).tsad$playground as { f: (...a: Tree[]) => unknown; df?: (...a: Tree[]) => unknown; gpuDf?: (...a: Tree[]) => Promise<unknown> };
  const { f, df, gpuDf } = exported;
  const value = f(...args);
  if (!df) return { value: plain(value), backend: 'CPU', diagnostics: r.diagnostics, ...(r.why ? { why: r.why } : {}) };
  const gradient = df(...args);
  const grads = (r.wrt.length === 1 ? [gradient] : gradient) as Tree[];
  const plot = plotOf(f as (...a: Tree[]) => number, df, args, r.wrt, grads);
  const common = { value: plain(value), cpuGradient: plain(gradient), diagnostics: r.diagnostics, plot };
  if (gpuDf) return { ...common, gradient: plain(await gpuDf(...args)), backend: 'WebGPU' };
  return { ...common, gradient: plain(gradient), backend: 'CPU', backendWhy: noDevice ?? `gpu(grad(${fn})) is not compiled to kernels: ${r.noGpu}` };
}

function plotOf(f: (...a: Tree[]) => number, df: (...a: Tree[]) => unknown, args: Tree[], wrt: readonly number[], grads: Tree[]): Plot | undefined {
  const first = wrt.indexOf(0);
  if (typeof args[0] === 'number' && first >= 0 && typeof grads[first] === 'number') {
    // The function of its first parameter around the input, and the tangent the gradient gives.
    const x0 = args[0];
    const span = Math.max(2, Math.abs(x0));
    const xs = Array.from({ length: 121 }, (_, i) => x0 - span + (2 * span * i) / 120);
    const ys = xs.map((x) => f(x, ...args.slice(1)));
    return { kind: 'tangent', xs, ys, x0, y0: f(...args), slope: grads[first] as number };
  }
  // Gradient descent on the differentiated parameters, with a step that halves when the loss grows.
  let at = args;
  let loss = f(...at);
  let step = 0.1;
  const losses = [loss];
  for (let k = 0; k < 60 && Number.isFinite(loss); k++) {
    const g = (wrt.length === 1 ? [df(...at)] : df(...at)) as Tree[];
    for (let tries = 0; tries < 30; tries++) {
      const next = at.map((a, i) => (wrt.includes(i) ? descend(a, g[wrt.indexOf(i)], step) : a));
      const l = f(...next);
      if (l <= loss) {
        [at, loss] = [next, l];
        step *= 1.5;
        break;
      }
      step /= 2;
    }
    losses.push(loss);
  }
  return { kind: 'descent', losses };
}

function descend(a: Tree, g: Tree, step: number): Tree {
  if (typeof a === 'number') return a - step * (g as number);
  return Array.from(a as ArrayLike<Tree>, (e, i) => descend(e, (g as ArrayLike<Tree>)[i], step));
}

/** Typed arrays and tuples as plain arrays, for the page's JSON. */
function plain(v: unknown): unknown {
  if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<number>);
  if (Array.isArray(v)) return v.map(plain);
  return v;
}
