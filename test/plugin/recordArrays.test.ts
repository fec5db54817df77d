// Arrays of records that hold arrays or matrices, built inside a marked function by `push` or
// `.map`, and written element by element (issue 19, item 2; docs/frontend.md, "Arrays of
// records"). Each primal is checked against the same source run as plain JavaScript, each
// gradient against central finite differences.
import { compile, leaves, load, mapLeaves, runPlain } from './harness';

const functions = `
import { differentiable } from 'tsad';

/** @differentiable */
export function pushedLayers(x: number[], scale: number): number {
  const layers: { W: number[][]; b: number[] }[] = [];
  for (let l = 0; l < 2; l++) {
    const W = x.map((xi) => [scale * xi + l, xi * xi]);
    layers.push({ W, b: new Array(2).fill(0) });
  }
  let e = 0;
  for (const { W, b } of layers) {
    for (let i = 0; i < W.length; i++) e += W[i][0] * W[i][1] + b[i % 2];
  }
  return e + layers.length;
}

/** @differentiable */
export function mappedRecords(xs: number[]): number {
  const ps = xs.map((x) => ({ w: [x, 2 * x], s: x }));
  let e = 0;
  for (const p of ps) e += p.s * p.w[1] + Math.sin(p.w[0]);
  return e;
}

/** @differentiable */
export function writtenLeaf(xs: number[]): number {
  const ps = xs.map((x) => ({ w: [x, 2 * x], s: x }));
  for (let i = 0; i < ps.length; i++) {
    ps[i].w[1] = ps[i].s * 3;
    ps[i].w[0] += Math.cos(ps[i].s);
  }
  let e = 0;
  for (const p of ps) e += p.w[0] * p.w[1];
  return e;
}

/** @differentiable */
export function writtenMatrix(xs: number[], g: number): number {
  const q: { W: number[][]; s: number }[] = [];
  for (const x of xs) q.push({ W: [[x, 1], [2, x * x], [x, 0]], s: x });
  for (let i = 0; i < q.length; i++) {
    q[i].W[1][0] = q[i].s * g;
    q[i].W[2][1] += g * q[i].W[0][0];
  }
  let e = 0;
  for (const { W } of q) for (const row of W) e += row[0] * row[1];
  return e;
}

/** @differentiable */
export function literalRecords(xs: number[]): number {
  const q: { w: number[]; s: number }[] = [{ w: [xs[0], 1], s: 2 }, { w: [3, xs[1], xs[0]], s: xs[1] }];
  q[1].w[2] *= q[0].s + xs[xs.length - 1];
  let e = 0;
  for (const p of q) for (const v of p.w) e += v * p.s;
  return e;
}

/** @differentiable */
export function returned(xs: number[]): { W: number[][]; b: number[] }[] {
  const out: { W: number[][]; b: number[] }[] = [];
  for (let i = 0; i < xs.length; i++) {
    out.push({ W: Array.from({ length: i + 1 }, (_, r) => [xs[i] * r, Math.sin(xs[i])]), b: [xs[i] * xs[i]] });
    out[i].W[0][1] *= 2;
  }
  return out;
}
`;

const derivatives = `
import { jvp, valueAndGrad, vjp } from 'tsad';
export const gPushedLayers = valueAndGrad(pushedLayers, { wrt: [0, 1] });
export const gMappedRecords = valueAndGrad(mappedRecords);
export const gWrittenLeaf = valueAndGrad(writtenLeaf);
export const gWrittenMatrix = valueAndGrad(writtenMatrix, { wrt: [0, 1] });
export const gLiteralRecords = valueAndGrad(literalRecords);
export const jWrittenMatrix = (xs: number[], g: number, dx: number[], dg: number) => jvp(writtenMatrix, [xs, g], [dx, dg]);
export const vReturned = (xs: number[]) => vjp(returned, xs);
`;

const plain = runPlain(functions.replace(/^import .*$/m, ''));

/** Central differences of f at args with respect to every number of args[i] (a number or an array of numbers). */
function fd(f: (...a: any[]) => number, args: any[], i: number): number | number[] {
  const h = 1e-6;
  const at = (k: number, s: number) => f(...args.map((a, j) => (j !== i ? a : Array.isArray(a) ? a.map((y: number, m: number) => (m === k ? y + s : y)) : a + s)));
  if (!Array.isArray(args[i])) return (at(0, h) - at(0, -h)) / (2 * h);
  return args[i].map((_: number, k: number) => (at(k, h) - at(k, -h)) / (2 * h));
}

function close(actual: number | number[], expected: number | number[]): void {
  const a = [actual].flat();
  const e = [expected].flat();
  expect(a.length).toBe(e.length);
  a.forEach((x, k) => expect(Math.abs(x - e[k])).toBeLessThanOrEqual(1e-6 * (1 + Math.abs(e[k]))));
}

describe('arrays of records holding arrays, built by push or .map and written inside', () => {
  const result = compile(functions + derivatives, { throwOnError: false });
  test('compiles without a diagnostic', () => {
    expect(result.messages).toEqual([]);
  });
  const m = result.messages.length === 0 ? load(functions + derivatives).exports : {};
  const cases: [string, string, (n: number) => any[], number[]][] = [
    ['pushedLayers', 'gPushedLayers', (n) => [Array.from({ length: n }, (_, k) => 0.3 * k - 0.4), 0.7], [0, 1]],
    ['mappedRecords', 'gMappedRecords', (n) => [Array.from({ length: n }, (_, k) => 0.5 * k - 0.6)], [0]],
    ['writtenLeaf', 'gWrittenLeaf', (n) => [Array.from({ length: n }, (_, k) => 0.4 * k - 0.3)], [0]],
    ['literalRecords', 'gLiteralRecords', (n) => [Array.from({ length: n + 2 }, (_, k) => 0.3 * k + 0.2)], [0]],
    ['writtenMatrix', 'gWrittenMatrix', (n) => [Array.from({ length: n }, (_, k) => 0.6 * k - 0.5), 1.3], [0, 1]],
  ];
  for (const [fn, g, args, wrt] of cases) {
    for (const n of [0, 1, 4]) {
      test(`${fn} at size ${n}`, () => {
        const at = args(n);
        // valueAndGrad's value is tsad's primal (calling m[fn] would run the source itself).
        const [value, grads] = m[g](...at);
        expect(value).toBe(plain[fn](...at));
        const expected = wrt.map((i) => fd(plain[fn], at, i));
        if (wrt.length === 1) close(grads, expected[0]);
        else wrt.forEach((_, k) => close(grads[k], expected[k]));
      });
    }
  }
  test('jvp of writtenMatrix is <grad, v>', () => {
    const xs = [0.3, -0.8, 1.1];
    const dx = [0.5, 0.2, -0.4];
    const [y, ydot] = m.jWrittenMatrix(xs, 1.3, dx, 0.7);
    const [value, [gx, gg]] = m.gWrittenMatrix(xs, 1.3);
    expect(y).toBe(value);
    close(ydot, gx.reduce((s2: number, x: number, k: number) => s2 + x * dx[k], 0) + gg * 0.7);
  });
  for (const n of [0, 1, 3]) {
    test(`returned records of matrices of their own sizes at size ${n}: value as plain JavaScript, pullback by central differences`, () => {
      const xs = Array.from({ length: n }, (_, k) => 0.7 * k - 0.2);
      const [value, pullback] = m.vReturned(xs);
      expect(value).toEqual(plain.returned(xs));
      // A cotangent laid out like the value; the pullback is the gradient of <ct, returned(xs)>.
      const ct = mapLeaves(value, (_x, k) => 0.3 + 0.1 * k);
      const inner = (a: number[]) => leaves(plain.returned(a)).reduce((s2, x, k) => s2 + x * leaves(ct)[k], 0);
      close(pullback(ct)[0], fd(inner, [xs], 0));
    });
  }
});

describe('arrays of records holding arrays: what would differ from JavaScript is a diagnostic with a code', () => {
  const refused = (body: string): string => compile(`import { differentiable, grad } from 'tsad';\n${body}\nexport const g = grad(f);\n`, { throwOnError: false }).messages.join('\n');
  test.each([
    [
      'an array another name holds, pushed in a record and then written',
      '/** @differentiable */ function f(x: number): number { const w = [x, 2]; const q: { w: number[] }[] = []; q.push({ w }); q[0].w[0] = 5; return w[0]; }',
      'TSAD1123',
      'w may be an array another name holds',
    ],
    [
      "a parameter's arrays put in new records, then written",
      '/** @differentiable */ function f(ls: { w: number[] }[]): number { const q = ls.map((l) => ({ w: l.w })); q[0].w[0] = 5; return ls[0].w[0]; }',
      'TSAD1123',
      'l.w may be an array another name holds',
    ],
    [
      "a parameter's tuples put in new records, then written (JavaScript writes into the parameter's tuple)",
      '/** @differentiable */ function f(bs: { pos: [number, number]; m: number }[]): number { const q = bs.map((b) => ({ pos: b.pos, m: b.m })); q[0].pos[0] = 5; return bs[0].pos[0]; }',
      'TSAD1123',
      'b.pos may be an array another name holds',
    ],
    [
      'a row of a matrix field written whole',
      '/** @differentiable */ function f(x: number): number { const q: { W: number[][] }[] = []; q.push({ W: [[x, 1], [2, x]] }); q[0].W[1] = [x, x]; return q[0].W[1][0]; }',
      'TSAD1120',
      'cannot write number[]',
    ],
  ])('%s', (_what, source, code, words) => {
    const messages = refused(source);
    expect(messages).toContain(code);
    expect(messages).toContain(words);
    expect(messages).not.toContain('TSAD9');
  });
});
