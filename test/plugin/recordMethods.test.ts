// Array methods on arrays of records and tuples (issue 19): `.filter` of `{ x; y }[]` and of
// `[number, number][]`. The result is a gather of each column at the kept indices (constants),
// so gradients flow back to the kept records only. Values are compared with the same source run
// as plain JavaScript, gradients with central differences, at sizes 0, 1 and 4.
import { compile, load, partial, expectClose, leaves, runPlain } from './harness';

const functions = `
export interface P {
  x: number;
  y: number;
}

/** @differentiable */
export function nearMass(ps: P[], cx: number, r: number): number {
  const near = ps.filter((p, i) => i !== 1 && Math.hypot(p.x - cx, p.y) < r);
  let s = 0;
  for (const p of near) s += p.x * p.x + Math.sin(p.y) * cx;
  return s + near.length;
}

/** @differentiable */
export function positiveArea(pts: [number, number][]): number {
  const kept = pts.filter((p) => p[0] > 0 && p[1] > 0);
  return kept.reduce((s, p) => s + p[0] * p[1], 0) / (kept.length + 1);
}

/** @differentiable */
export function turning(pts: [number, number][], flip: boolean): number {
  const ordered = flip ? pts.slice().reverse() : pts;
  const closed = ordered.concat([ordered[0]]);
  let s = 0;
  for (let i = 0; i + 1 < closed.length; i++) s += closed[i][0] * closed[i + 1][1] - closed[i + 1][0] * closed[i][1] + i * closed[i][0];
  return s;
}

/** @differentiable */
export function joined(ps: P[], qs: P[], w: number): number {
  const all = ps.concat(qs, { x: w, y: 2 * w }, [{ x: 1, y: w }]).reverse();
  let s = 0;
  all.forEach((p, i) => {
    s += (i + 1) * p.x * p.y;
  });
  return s + all.length;
}
`;

const source = `
import { valueAndGrad } from 'tsad';
${functions}
export const gNear = valueAndGrad(nearMass, { wrt: [0, 1] });
export const gArea = valueAndGrad(positiveArea);
export const gTurning = valueAndGrad(turning);
export const gJoined = valueAndGrad(joined, { wrt: [0, 1, 2] });
`;

const plainModule = (): Record<string, any> => runPlain(functions);

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 1.3;
const points = (n: number) => Array.from({ length: n }, (_, i) => ({ x: rand(2 * i), y: rand(2 * i + 1) }));
const pairs = (n: number) => Array.from({ length: n }, (_, i) => [rand(5 * i + 2), rand(5 * i + 3)] as [number, number]);

describe('.filter of arrays of records and tuples', () => {
  const { exports: m, result } = load(source);
  const plain = plainModule();

  test('compiles without diagnostics', () => {
    expect(result.diagnostics.map((d) => d.messageText)).toEqual([]);
  });

  test.each([0, 1, 4])('{ x; y }[] at size %i', (n) => {
    const ps = points(n);
    for (const r of [0.5, 1.5, 10]) {
      const [value, [gps, gcx]] = m.gNear(ps, 0.2, r);
      expect(value).toBe(plain.nearMass(ps, 0.2, r));
      // Leaves of ps in order: x, y of each point (keys sorted).
      expectClose(
        leaves(gps),
        leaves(ps).map((_, k) => partial(plain.nearMass, [ps, 0.2, r], 0, k)[0]),
      );
      expectClose([gcx], partial(plain.nearMass, [ps, 0.2, r], 1, 0));
    }
  });

  test.each([0, 1, 4])('[number, number][] at size %i', (n) => {
    const pts = pairs(n);
    const [value, g] = m.gArea(pts);
    expect(value).toBe(plain.positiveArea(pts));
    expectClose(
      leaves(g),
      leaves(pts).map((_, k) => partial(plain.positiveArea, [pts], 0, k)[0]),
    );
  });
});

describe('.reverse and .concat of arrays of records and tuples', () => {
  const { exports: m } = load(source);
  const plain = plainModule();

  test.each([1, 2, 4])('a reversed copy closed with .concat([first]) at size %i', (n) => {
    const pts = pairs(n);
    for (const flip of [false, true]) {
      const [value, g] = m.gTurning(pts, flip);
      expect(value).toBe(plain.turning(pts, flip));
      expectClose(
        leaves(g),
        leaves(pts).map((_, k) => partial((p: [number, number][]) => plain.turning(p, flip), [pts], 0, k)[0]),
      );
    }
  });

  test.each([
    [0, 0],
    [1, 0],
    [0, 2],
    [3, 2],
  ])('ps.concat(qs, record, [record]).reverse() with %i and %i records', (n, k) => {
    const ps = points(n);
    const qs = points(k).map((p) => ({ x: p.y, y: p.x }));
    const [value, [gp, gq, gw]] = m.gJoined(ps, qs, 0.7);
    expect(value).toBe(plain.joined(ps, qs, 0.7));
    expectClose(
      leaves(gp),
      leaves(ps).map((_, i) => partial(plain.joined, [ps, qs, 0.7], 0, i)[0]),
    );
    expectClose(
      leaves(gq),
      leaves(qs).map((_, i) => partial(plain.joined, [ps, qs, 0.7], 1, i)[0]),
    );
    expectClose([gw], partial(plain.joined, [ps, qs, 0.7], 2, 0));
  });
});

test('.concat of a pair onto an array of pairs is refused: JavaScript would add its two numbers', () => {
  const { messages } = compile(
    `
import { grad } from 'tsad';
/** @differentiable */
export function f(pts: [number, number][], x: number): number {
  const more = pts.concat([x, 2 * x]);
  return more.length * x;
}
export const g = grad(f, { wrt: [1] });
`,
    { throwOnError: false },
  );
  expect(messages.join('\n')).toMatch(/TSAD1121: \.concat spreads an array argument: \[x, 2 \* x\] would add its elements one by one/);
});

test('.filter of records that hold arrays is refused with a coded diagnostic naming the method', () => {
  const { messages } = compile(
    `
import { grad } from 'tsad';
/** @differentiable */
export function f(ls: { w: number[]; b: number }[]): number {
  const big = ls.filter((l) => l.b > 0);
  return big.length > 0 ? big[0].b : 0;
}
export const g = grad(f);
`,
    { throwOnError: false },
  );
  expect(messages.join('\n')).toMatch(/TSAD1121: \.filter of .*, whose records hold arrays, is not supported yet/);
});

test.each(['slice()', 'filter((p) => p.x > -10)', 'slice().reverse()', 'concat([])'])(
  'a copy ps.%s of records whose fields are written is refused: JavaScript shares the records, so the write shows in the copy',
  (method) => {
    const { messages } = compile(
      `
import { grad } from 'tsad';
interface P { x: number; y: number }
/** @differentiable */
export function f(a: number): number {
  const ps: P[] = [{ x: a, y: 1 }, { x: 2 * a, y: 2 }];
  const q = ps.${method};
  ps[0].x = 5;
  return q[0].x * a;
}
export const g = grad(f);
`,
      { throwOnError: false },
    );
    expect(messages.join('\n')).toMatch(/TSAD1123: the fields of 'ps' are written, and ps\.(slice|filter|concat)\(…\) holds the same records/);
  },
);
