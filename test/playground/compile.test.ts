// The playground's compiler (playground/src/compile.ts) on the page's examples, in Node with the
// same in-memory files the page bundles: every stage, no diagnostics, and a gradient that matches
// central differences of the function it runs.
import { compile, runnable } from '../../playground/src/compile';
import { EXAMPLES } from '../../playground/src/examples';
import { nodeLibrary, runModule } from './library';

const lib = nodeLibrary();

/** Central differences of f at args, one entry per element of each differentiated parameter. */
function central(f: (...a: any[]) => number, args: any[], wrt: readonly number[]): number[] {
  const out: number[] = [];
  const h = 1e-6;
  const at = (i: number, path: number[], delta: number) => {
    const copy = structuredClone(args);
    let holder: any = copy;
    const keys = [i, ...path];
    for (const k of keys.slice(0, -1)) holder = holder[k];
    holder[keys[keys.length - 1]] += delta;
    return f(...copy);
  };
  const walk = (i: number, v: any, path: number[]) => {
    if (typeof v === 'number') out.push((at(i, path, h) - at(i, path, -h)) / (2 * h));
    else v.forEach((e: any, j: number) => walk(i, e, [...path, j]));
  };
  for (const i of wrt) walk(i, args[i], []);
  return out;
}

describe.each(EXAMPLES.map((e) => [e.title, e] as const))('%s', (_, example) => {
  test('every stage, no diagnostics', () => {
    const c = compile(lib, example.code, example.fn);
    expect(c.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(c.fn).toBe(example.fn);
    expect(Object.keys(c.stages)).toEqual(['linear-a', 'passes', 'jvp', 'linearize', 'transpose', 'grad', 'emit', 'wgsl']);
    expect(c.stages['linear-a']).toMatch(/def /);
    expect(c.stages.passes).toMatch(/---- transpose \(T\)/);
    expect(c.notRunnable).toBeUndefined();
  });

  test('the gradient Run computes matches central differences', () => {
    const r = runnable(lib, example.code, example.fn);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const { f, df } = runModule(r.js).tsad$playground;
    const args = JSON.parse(example.args);
    expect(r.wrt.length).toBeGreaterThan(0);
    const g = df(...args);
    const flat = (r.wrt.length === 1 ? [g] : g).flat(Infinity);
    const fd = central(f, args, r.wrt);
    expect(flat).toHaveLength(fd.length);
    flat.forEach((v: number, i: number) => expect(v).toBeCloseTo(fd[i], 5));
  });
});

test('a bad edit: a coded diagnostic at the range of the problem, with its hint', () => {
  const code = EXAMPLES[0].code.replace('0.25 * x * x', '0.25 * x * Math.random()');
  const c = compile(lib, code, 'f');
  const d = c.diagnostics.find((x) => x.code.startsWith('TSAD'));
  expect(d).toBeDefined();
  expect(code.slice(d!.from, d!.to)).toContain('Math.random');
  expect(d!.hint).toBeTruthy();
});

test("a type error is TypeScript's, at its range", () => {
  const code = EXAMPLES[0].code.replace('return x * Math.sin(x)', "return 'x' * Math.sin(x)");
  const c = compile(lib, code, 'f');
  expect(c.diagnostics.some((d) => d.code === 'TS2362' && code.slice(d.from, d.to) === "'x'")).toBe(true);
});

test('asked for the GPU: gpu(grad(f)) where tsad compiles it, the reason where it does not', () => {
  const scalar = runnable(lib, EXAMPLES[0].code, 'f', true);
  expect(scalar.noGpu).toBeUndefined();
  expect(scalar.js).toMatch(/tsad\/webgpu/);
  expect(scalar.js).toMatch(/gpuDf: tsad\$gpu\.compiled\(/);
  const matrices = EXAMPLES.find((e) => e.title === 'Matrices')!;
  const refused = runnable(lib, matrices.code, matrices.fn, true);
  expect(refused.noGpu).toMatch(/^TSAD\d{4}: /);
  expect(refused.js).not.toMatch(/tsad\/webgpu/);
});
