// stagesOf (transformer/stages.ts): every stage of each marked function as text, from a program
// built in memory as a page would build it, with no file system behind the compiler.
import * as ts from 'typescript';
import { stagesOf, STAGES } from '../../transformer/stages';
import { nodeHost, runtimeEntry } from '../../transformer/plugin/host';
import { transform } from '../../transformer/plugin/transform';

const source = `import { grad } from 'tsad';
/** @differentiable */
export function f(x: number, y: number): number { return x * Math.sin(y) + (x - 1) ** 2; }
/** @differentiable */
export function noisy(x: number): number { return x * Math.random(); }
export const df = grad(f, { wrt: [0, 1] });
`;

function inMemory(text: string) {
  const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) => (name === '/page/input.ts' ? ts.createSourceFile(name, text, version, true) : read(name, version, onError, create));
  const program = ts.createProgram(['/page/input.ts'], options, host);
  return { checker: program.getTypeChecker(), sf: program.getSourceFile('/page/input.ts')! };
}

test('each stage of a marked function, and the emitted gradient is the code the plugin emits', () => {
  const { checker, sf } = inMemory(source);
  const { functions, marked } = stagesOf(nodeHost(ts), checker, sf, { fn: 'f', stages: STAGES });
  expect(marked).toEqual(['f', 'noisy']);
  expect(functions).toHaveLength(1);
  const [{ name, stages, error }] = functions;
  expect(name).toBe('f');
  expect(error).toBeUndefined();
  expect(stages.map(([s]) => s)).toEqual([...STAGES]);
  const text = Object.fromEntries(stages);
  expect(text['linear-a']).toMatch(/def f\(/);
  expect(text.jvp).toMatch(/x_dot|dot/);
  expect(text.transpose).toMatch(/def f\S*bwd/);
  expect(text.emit).toMatch(/function f\$grad\w*\(x, y\)/);
  // What the page shows as "emitted" is what the plugin builds into the module for grad(f).
  const plugin = transform(source.replace(/\/\*\* @differentiable \*\/\nexport function noisy[^\n]*\n/, '').replace('grad(f, { wrt: [0, 1] })', 'grad(f)'), { fileName: 'input.ts' }).outputText;
  const body = text.emit.slice(text.emit.indexOf('{', text.emit.indexOf('function f$grad')));
  expect(plugin.replace(/\s+/g, ' ')).toContain(body.slice(0, body.indexOf('}') + 1).replace(/\s+/g, ' '));
});

test('a function that does not compile: its diagnostic with a code and a range, no stage text', () => {
  const { checker, sf } = inMemory(source);
  const [{ stages, error }] = stagesOf(nodeHost(ts), checker, sf, { fn: 'noisy', stages: STAGES }).functions;
  expect(stages).toEqual([]);
  expect(error?.code).toBe(1103);
  expect(sf.text.slice(error!.node!.getStart(sf), error!.node!.getEnd())).toContain('Math.random');
});

test('the passes stage: reverse mode pass by pass, each section showing what its pass changed', () => {
  const loopy = `/** @differentiable */
export function g(x: number, y: number): number {
  let s = 0;
  for (let i = 0; i < 4; i++) s += Math.exp(y) * x * i;
  return s;
}
`;
  const { checker, sf } = inMemory(loopy);
  const [{ stages, error }] = stagesOf(nodeHost(ts), checker, sf, { fn: 'g', stages: ['passes'] }).functions;
  expect(error).toBeUndefined();
  const text = stages[0][1];
  const titles = [...text.matchAll(/^\/\/ ---- (\w+)/gm)].map((m) => m[1]);
  // The drivers' order for grad: preparation, J, U, T, E, the seeded gradient, fusion; the
  // simplifier after each pass that adds defs.
  expect(titles.filter((t) => t !== 'simplify')).toEqual(['inline', 'tabulate', 'licm', 'jvp', 'unzip', 'transpose', 'erase', 'g', 'fuse']);
  expect(titles.filter((t) => t === 'simplify').length).toBeGreaterThanOrEqual(3);
  const section = (name: string) => text.slice(text.indexOf(`// ---- ${name}`), text.indexOf('// ----', text.indexOf(`// ---- ${name}`) + 1));
  // Before licm exp(y) is computed in the loop body; licm computes it once, before the loop.
  const inlined = section('inline');
  expect(inlined.indexOf('exp(')).toBeGreaterThan(inlined.indexOf('loop('));
  const hoisted = section('licm');
  expect(hoisted.indexOf('exp(')).toBeGreaterThan(-1);
  expect(hoisted.indexOf('exp(')).toBeLessThan(hoisted.indexOf('loop('));
  expect(section('transpose')).toMatch(/def g\S*bwd/);
  expect(section('jvp')).not.toMatch(/def g\S*bwd/);
});
