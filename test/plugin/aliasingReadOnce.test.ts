// An array computed once per row and then only read (issue 22: gmm's `diff = x − μ` kept in a
// local array): the loop over columns that reads it returns another array, which must not make
// `diff` look shared, or the gradient copies it before every row (opt/inplace.ts,
// ConstructRule.holds). Gradients against central differences of the same source run as plain
// JavaScript.
import { load, expectClose, runPlain } from './harness';

const functions = `
/** @differentiable */
export function rows(x: Float64Array, mu: Float64Array, l: Float64Array, n: number, d: number): number {
  const diff = new Float64Array(d);
  const z = new Float64Array(d);
  let s = 0;
  for (let i = 0; i < n; i++) {
    for (let r = 0; r < d; r++) {
      diff[r] = x[i * d + r] - mu[r];
      z[r] = Math.exp(mu[r]) * diff[r];
    }
    for (let col = 0; col < d; col++) {
      const dc = diff[col];
      for (let r = col + 1; r < d; r++) z[r] += l[col * d + r] * dc;
    }
    for (let r = 0; r < d; r++) s += z[r] * z[r] + diff[r];
  }
  return s;
}
`;

const source = `
import { grad } from 'tsad';
${functions}
export const gRows = grad(rows, { wrt: [0, 1, 2] });
`;

const data = (len: number, seed: number) => Float64Array.from({ length: len }, (_, i) => 0.8 * Math.sin(seed + 1.3 * i));

describe('a per-row array only read afterwards', () => {
  const { exports: m, result } = load(source);
  const plain = runPlain(functions);

  test('the gradient has no copy inside a loop (no per-row slice)', () => {
    const text = result.outputText;
    const start = text.indexOf('function rows$grad') >= 0 ? text.indexOf('function rows$grad') : text.indexOf('rows');
    const grad = text.slice(start);
    // Every copy or allocation that sits inside a for/while loop of the emitted code.
    const inLoops: string[] = [];
    let depth = 0;
    const loopDepths: number[] = [];
    for (const line of grad.split('\n')) {
      if (/^\s*(for|while) \(/.test(line)) loopDepths.push(depth);
      if (loopDepths.length > 0 && /\.slice\(\)|new Float64Array/.test(line)) inLoops.push(line.trim());
      depth += (line.match(/{/g) ?? []).length - (line.match(/}/g) ?? []).length;
      while (loopDepths.length > 0 && depth <= loopDepths[loopDepths.length - 1]) loopDepths.pop();
    }
    expect(inLoops.filter((l) => /diff/.test(l))).toEqual([]);
    expect(grad).not.toMatch(/diff\w*\.slice\(\)/);
  });

  test.each([
    [3, 4],
    [1, 1],
    [0, 3],
  ])('gradient against central differences, n = %i rows of d = %i', (n, d) => {
    const x = data(n * d, 1);
    const mu = data(d, 2);
    const l = data(d * d, 3);
    const [gx, gmu, gl] = m.gRows(x, mu, l, n, d);
    const args = [x, mu, l];
    const h = 1e-6;
    args.forEach((a, which) => {
      const fd = Array.from(a, (_, k) => {
        const at = (s: number) => plain.rows(...args.map((b, j) => (j === which ? b.map((v: number, q: number) => (q === k ? v + s : v)) : b.slice())), n, d);
        return (at(h) - at(-h)) / (2 * h);
      });
      expectClose(Array.from([gx, gmu, gl][which] as Float64Array), fd, 1e-5);
    });
  });
});
