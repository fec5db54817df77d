// Two everyday patterns of issue 19's attention program: `out = out.concat(head)` of a written
// array of numbers (concat copies head's numbers: no second name), and a `.map` callback that
// reads another array whole (`W[0].map((_, k) => x.reduce((s, xi, i) => s + xi * W[i][k], 0))`),
// which runs as a counted loop rather than the map combinator. Values are compared with the same
// source run as plain JavaScript, gradients with central differences.
import { compile, load, partial, expectClose, runPlain } from './harness';

const functions = `
/** @differentiable */
export function project(x: number[], W: number[][]): number[] {
  return W[0].map((_, k) => x.reduce((s, xi, i) => s + xi * W[i][k], 0));
}

/** @differentiable */
export function heads(x: number[], W: number[][], parts: number): number {
  let out: number[] = [];
  for (let h = 0; h < parts; h++) {
    const head = new Array<number>(x.length).fill(0);
    for (let i = 0; i < head.length; i++) head[i] += (h + 1) * x[i] * x[i];
    out = out.concat(head);
  }
  const p = project(x, W);
  const norm = (v: number[]) => v.map((y) => y * x.length).reduce((a, b) => a + b * b, 0);
  return out.reduce((a, b) => a + Math.sin(b), 0) + norm(p);
}
`;

const source = `
import { valueAndGrad } from 'tsad';
${functions}
export const gHeads = valueAndGrad(heads, { wrt: [0, 1] });
`;

const plainModule = (): Record<string, any> => runPlain(functions);

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 1.3;

describe('concat of a written array, and a map reading another array whole', () => {
  const { exports: m, result } = load(source);
  const plain = plainModule();

  test('builds with no diagnostics', () => {
    expect(result.messages).toEqual([]);
  });

  test.each([
    [0, 0],
    [0, 2],
    [1, 1],
    [3, 2],
  ])('x of %i, W of %i columns', (n, c) => {
    const x = Array.from({ length: n }, (_, i) => rand(i));
    const W = Array.from({ length: Math.max(n, 1) }, (_, i) => Array.from({ length: c }, (_, j) => rand(10 + 3 * i + j)));
    const [value, [gx, gW]] = m.gHeads(x, W, 3) as [number, [number[], number[][]]];
    expect(value).toBe(plain.heads(x, W, 3));
    expectClose(
      gx,
      x.map((_, k) => partial(plain.heads, [x, W, 3], 0, k)[0]),
    );
    expectClose(
      gW.flat(),
      W.flat().map((_, k) => partial(plain.heads, [x, W, 3], 1, k)[0]),
    );
  });
});

describe('what stays refused', () => {
  test('a matrix that takes a written row by concat shares it', () => {
    const r = compile(
      `
/** @differentiable */
export function f(x: number[]): number {
  const row = x.slice();
  const m: number[][] = [x.slice()];
  const more = m.concat([row]);
  row[0] = 5;
  return more[1][0];
}`,
      { throwOnError: false },
    );
    expect(r.messages.join('\n')).toMatch(/TSAD1123/);
  });
});
