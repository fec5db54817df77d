// `.flat()` of a matrix (issue 19 item 5): its rows one after another, a copy of its flat data.
// Values against the same source run as plain JavaScript, gradients against central differences,
// at 0 × 0, 1 × 1, 3 × 2 and 2 × 0.
import * as ts from 'typescript';
import { compile, load, partial, expectClose, leaves } from './harness';

const functions = `
/** @differentiable */
export function flatWeighted(m: number[][], s: number): number {
  const all = m.flat();
  const again = all.flat(1);
  return all.reduce((acc, x, i) => acc + (i + 1) * x * x * s, 0) + again.length;
}

/** @differentiable */
export function flattened(m: number[][]): number[] {
  return m.map((r) => r.map((x) => Math.sin(x))).flat();
}
`;

const source = `
import { valueAndGrad, vjp } from 'tsad';
${functions}
export const gFlat = valueAndGrad(flatWeighted, { wrt: [0, 1] });
export const vFlat = (m: number[][], ct: number[]) => vjp(flattened, m)[1](ct);
`;

function plainModule(): Record<string, any> {
  const js = ts.transpileModule(functions, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const module = { exports: {} as Record<string, any> };
  new Function('module', 'exports', 'require', js)(module, module.exports, require);
  return module.exports;
}

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 1.3;
const matrix = (r: number, c: number) => Array.from({ length: r }, (_, i) => Array.from({ length: c }, (_, j) => rand(7 * i + j)));

describe('.flat() of a matrix', () => {
  const { exports: m, result } = load(source);
  const plain = plainModule();

  test('compiles without diagnostics', () => {
    expect(result.diagnostics.map((d) => d.messageText)).toEqual([]);
  });

  test.each([
    [0, 0],
    [1, 1],
    [3, 2],
    [2, 0],
  ])('%i × %i', (r, c) => {
    const a = matrix(r, c);
    const [value, [g, gs]] = m.gFlat(a, 0.7);
    expect(value).toBe(plain.flatWeighted(a, 0.7));
    expectClose(
      leaves(g),
      leaves(a).map((_, k) => partial(plain.flatWeighted, [a, 0.7], 0, k)[0]),
    );
    expectClose([gs], partial(plain.flatWeighted, [a, 0.7], 1, 0));
    expect(m.flattened(a)).toEqual(plain.flattened(a));
    // vjp with the cotangent e_k: row k of the Jacobian.
    const out = plain.flattened(a) as number[];
    out.forEach((_, k) => {
      const row = m.vFlat(
        a,
        out.map((_, i) => (i === k ? 1 : 0)),
      );
      expectClose(
        leaves(row),
        leaves(a).map((_, i) => partial(plain.flattened, [a], 0, i)[k]),
      );
    });
  });
});

test('.flat(0) is refused with the depths tsad takes', () => {
  const { messages } = compile(
    `
import { grad } from 'tsad';
/** @differentiable */
export function f(m: number[][]): number {
  return m.flat(0).length * m[0][0];
}
export const g = grad(f);
`,
    { throwOnError: false },
  );
  expect(messages.join('\n')).toMatch(/TSAD1121: \.flat takes no argument or a depth written as a number ≥ 1/);
});
