// `new Array(n)` without `.fill`, followed by writes of every element (issue 18 item 20) or of
// every row (`const L: number[][] = new Array(n); L[i] = new Array(n).fill(0)`, issue 19): the
// first row written gives the matrix its width. Values are compared with the same source run
// as plain JavaScript, gradients with central differences, at sizes 0, 1 and 3.
import { load, partial, expectClose, leaves, runPlain } from './harness';

const functions = `
/** @differentiable */
export function cholLogDet(a: number[][]): number {
  const n = a.length;
  const L: number[][] = new Array(n);
  for (let i = 0; i < n; i++) {
    L[i] = new Array(n).fill(0);
    for (let j = 0; j <= i; j++) {
      let s = a[i][j];
      for (let k = 0; k < j; k++) s -= L[i][k] * L[j][k];
      L[i][j] = i === j ? Math.sqrt(s) : s / L[j][j];
    }
  }
  let d = 0;
  for (let i = 0; i < n; i++) d += 2 * Math.log(L[i][i]);
  return d;
}

/** @differentiable */
export function outer(u: number[], v: number[]): Float64Array[] {
  const m: Float64Array[] = new Array(u.length);
  for (let i = 0; i < u.length; i++) {
    m[i] = new Float64Array(v.length);
    for (let j = 0; j < v.length; j++) m[i][j] = Math.sin(u[i]) * v[j];
  }
  return m;
}

/** @differentiable */
export function copyRows(a: number[][]): number {
  const rows: number[][] = new Array(a.length);
  for (let i = a.length - 1; i >= 0; i--) rows[i] = a[i].map((x) => x * x);
  let s = 0;
  for (let i = 0; i < rows.length; i++) for (let j = 0; j < rows[i].length; j++) s += rows[i][j] * (rows[i].length + 1);
  return s;
}

/** @differentiable */
export function outerLoss(u: number[], v: number[]): number {
  const m = outer(u, v);
  let s = 0;
  for (let i = 0; i < m.length; i++) for (let j = 0; j < m[i].length; j++) s += m[i][j] * m[i][j] * (i + 1);
  return s;
}

/** @differentiable */
export function prefix(xs: number[]): number[] {
  const out = new Array<number>(xs.length);
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    s += xs[i] * xs[i];
    out[i] = s;
  }
  return out;
}

/** @differentiable */
export function ragged(xs: number[]): number {
  const m: number[][] = new Array(xs.length);
  for (let i = 0; i < xs.length; i++) m[i] = new Array(i + 1).fill(xs[i]);
  return m[0][0];
}
`;

const source = `
import { valueAndGrad, jacobian } from 'tsad';
${functions}
export const gChol = valueAndGrad(cholLogDet);
export const gCopy = valueAndGrad(copyRows);
export const gOuter = valueAndGrad(outerLoss, { wrt: [0, 1] });
export const jPrefix = jacobian(prefix);
export const gRagged = valueAndGrad(ragged);
`;

const plainModule = (): Record<string, any> => runPlain(functions);

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 0.5;
const spd = (n: number) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? n + 1 : 0) + rand(i + j)));
const vector = (n: number, s = 1) => Array.from({ length: n }, (_, i) => rand(3 * i + s) + 0.3);

describe('new Array(n) filled by writes', () => {
  const { exports: m, result } = load(source);
  const plain = plainModule();

  test('compiles without diagnostics', () => {
    expect(result.diagnostics.map((d) => d.messageText)).toEqual([]);
  });

  test.each([0, 1, 3])('rows written later (L[i] = new Array(n).fill(0)) at size %i', (n) => {
    const a = spd(n);
    const [value, g] = m.gChol(a);
    expect(value).toBe(plain.cholLogDet(a));
    expectClose(
      leaves(g),
      leaves(a).map((_, k) => partial(plain.cholLogDet, [a], 0, k)[0]),
    );
    const b = Array.from({ length: n }, (_, i) => vector(2, i));
    const [v2, g2] = m.gCopy(b);
    expect(v2).toBe(plain.copyRows(b));
    expectClose(
      leaves(g2),
      leaves(b).map((_, k) => partial(plain.copyRows, [b], 0, k)[0]),
    );
  });

  test.each([
    [0, 2],
    [1, 1],
    [3, 2],
    [2, 0],
  ])('Float64Array rows of a %i × %i matrix, returned', (r, c) => {
    const u = vector(r);
    const v = vector(c, 7);
    expect(m.outer(u, v)).toEqual(plain.outer(u, v));
    const [value, [gu, gv]] = m.gOuter(u, v);
    expect(value).toBe(plain.outerLoss(u, v));
    expectClose(
      gu,
      u.map((_, i) => partial(plain.outerLoss, [u, v], 0, i)[0]),
    );
    expectClose(
      gv,
      v.map((_, i) => partial(plain.outerLoss, [u, v], 1, i)[0]),
    );
  });

  test.each([0, 1, 3])('a vector new Array<number>(n) written element by element at size %i', (n) => {
    const xs = vector(n);
    expect(m.prefix(xs)).toEqual(plain.prefix(xs));
    const J = m.jPrefix(xs);
    xs.forEach((_, i) =>
      expectClose(
        J.map((row: number[]) => row[i]),
        partial(plain.prefix, [xs], 0, i),
      ),
    );
  });

  test('rows of different lengths are a RangeError (tsad matrices are rectangular), never a silent value', () => {
    expect(m.ragged([2])).toBe(plain.ragged([2]));
    // The function itself runs as written (JavaScript's ragged rows); its derivative refuses them.
    expect(m.ragged([2, 3])).toBe(2);
    expect(() => m.gRagged([2, 3])).toThrow(RangeError);
  });
});
