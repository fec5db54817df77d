// A method that changes its array and returns it (`.reverse()`, `.sort(f)`, `.fill(v)`) used as
// a value, `const smooth = backward.reverse()` (issue 19): JavaScript's result is the receiver
// itself, a second name, which is harmless where the receiver is never read again. Values are
// compared with the same source run as plain JavaScript, gradients with central differences.
import { compile, load, partial, expectClose, runPlain } from './harness';

const functions = `
/** @differentiable */
export function smooth(x: Float64Array, a: number): Float64Array {
  const y = new Float64Array(x.length);
  let s = x.length > 0 ? x[0] : 0;
  for (let i = 0; i < x.length; i++) {
    s = a * x[i] + (1 - a) * s;
    y[i] = s;
  }
  return y;
}

/** @differentiable */
export function backAndForth(x: Float64Array, a: number): number {
  const backward = smooth(smooth(x, a).slice().reverse(), a);
  const out = backward.reverse();
  let e = 0;
  for (let i = 0; i < out.length; i++) e += (i + 1) * out[i] * out[i];
  return e;
}

/** @differentiable */
export function lowest(xs: number[], k: number): number {
  const copy = xs.map((x) => x * k);
  const sorted = copy.sort((p, q) => p - q);
  return sorted.length > 0 ? sorted[0] + 2 * sorted[sorted.length - 1] : 0;
}
`;

const source = `
import { valueAndGrad } from 'tsad';
${functions}
export const gBack = valueAndGrad(backAndForth, { wrt: [0, 1] });
export const gLowest = valueAndGrad(lowest, { wrt: [0, 1] });
`;

const plainModule = (): Record<string, any> => runPlain(functions);

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 1.3;

describe('a changed receiver used as a value where it is never read again', () => {
  const { exports: m } = load(source);
  const plain = plainModule();

  test.each([0, 1, 5])('smooth(...).reverse() at size %i', (n) => {
    const x = Float64Array.from({ length: n }, (_, i) => rand(i));
    const [value, [gx, ga]] = m.gBack(x, 0.4);
    expect(value).toBe(plain.backAndForth(x, 0.4));
    expectClose(
      Array.from(gx),
      Array.from(x, (_, k) => partial((v: number[]) => plain.backAndForth(Float64Array.from(v), 0.4), [Array.from(x)], 0, k)[0]),
    );
    expectClose(
      [ga],
      partial((s: number) => plain.backAndForth(x, s), [0.4], 0, 0),
    );
  });

  test.each([0, 1, 4])('const sorted = copy.sort(f) at size %i', (n) => {
    const xs = Array.from({ length: n }, (_, i) => rand(3 * i));
    const [value, [gx, gk]] = m.gLowest(xs, 1.5);
    expect(value).toBe(plain.lowest(xs, 1.5));
    expectClose(
      gx,
      xs.map((_, k) => partial(plain.lowest, [xs, 1.5], 0, k)[0]),
    );
    expectClose([gk], partial(plain.lowest, [xs, 1.5], 1, 0));
  });
});

test('the receiver read after the call is still refused (both names would see the change)', () => {
  const { messages } = compile(
    `
import { grad } from 'tsad';
/** @differentiable */
export function f(xs: number[]): number {
  const b = xs.slice();
  const r = b.reverse();
  return r[0] * b[0];
}
export const g = grad(f);
`,
    { throwOnError: false },
  );
  expect(messages.join('\n')).toMatch(/TSAD1123: b\.reverse\(…\) changes 'b' and returns 'b' itself/);
});
