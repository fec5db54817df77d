// A matrix's column past its row, and a field of a record element past the end (s15, fuzz24's M1
// and R1): the flat data of a matrix holds the next row's first element where JavaScript reads
// `undefined` in a short row, and a record array's columns likewise; `m[r][c]` (read or written)
// and `ps[i].x` returned finite values and gradients, some of them wrong, where JavaScript's
// value is NaN (or it throws a TypeError). Every transform must throw the RangeError; in range,
// the value is JavaScript's and the gradient central differences'.
import { load, runPlain } from './harness';

const text = `
interface P { a: number; b: number }
/** @differentiable */
export function invariantPair(x: Float64Array, k: number): number {
  let s = 0;
  for (let r = 0; r < 3; r++) s += x[k] * 2 + x[0];
  return s;
}
/** @differentiable */
export function cell(x: number[][], j: number): number {
  return x[0][j] * 2;
}
/** @differentiable */
export function diag(x: number[][], k: number): number {
  let s = 0;
  for (let r = 0; r < x.length; r++) s += x[r][r + k];
  return s;
}
/** @differentiable */
export function col(x: number[][], k: number): number {
  let s = 0;
  for (let r = 0; r < x.length; r++) s += x[r][k] * x[r][0];
  return s;
}
/** @differentiable */
export function written(x: number[][], j: number): number {
  const m = x.map((r) => r.map((v) => v));
  m[0][j] = 7 * m[0][0];
  return m[1][0] + m[0][1] * 3;
}
/** @differentiable */
export function recAt(ps: P[], k: number): number {
  return ps[k].a * ps[0].b;
}
/** @differentiable */
export function recLoop(ps: P[], d: number): number {
  let s = 0;
  for (let i = 0; i < d; i++) s += ps[i].a * ps[i].b;
  return s;
}
`;
const names = ['invariantPair', 'cell', 'diag', 'col', 'written', 'recAt', 'recLoop'];
const exported = names
  .map(
    (f) =>
      `export const g_${f} = grad(${f});\nexport const vg_${f} = valueAndGrad(${f});\nexport const h_${f} = (a: any, b: number) => hvp(${f}, { wrt: [0] })(a, b, a);\nexport const vjp_${f} = (a: any, b: number) => vjp(${f}, a, b)[1](1);\n`,
  )
  .join('');

const matrix = () => [
  [1, 2],
  [3, 4],
  [5, 6],
];
const records = () => [
  { a: 1, b: 2 },
  { a: 3, b: 4 },
];
// [function, first argument, the number argument]
const cases: [string, () => unknown, number][] = [
  // Two reads of one array beside each other in a loop, checked as one range: x[k] at k = 1.5 too.
  ...[0, 1, 2, 3, 1.5, -1].map((k): [string, () => unknown, number] => ['invariantPair', () => Float64Array.from([1, 2, 3]), k]),
  ...[0, 1, 2, 3, -1, 0.5].map((j): [string, () => unknown, number] => ['cell', matrix, j]),
  ...[0, 1, -1].map((k): [string, () => unknown, number] => ['diag', matrix, k]),
  ...[0, 1, 2, -1, 1.5].map((k): [string, () => unknown, number] => ['col', matrix, k]),
  ...[0, 1, 2, 3].map((j): [string, () => unknown, number] => ['written', matrix, j]),
  ...[0, 1, 2, -1, 0.5].map((k): [string, () => unknown, number] => ['recAt', records, k]),
  ...[0, 2, 3].map((d): [string, () => unknown, number] => ['recLoop', records, d]),
];

const flat = (v: unknown): number[] => (Array.isArray(v) ? v.flatMap(flat) : typeof v === 'number' ? [v] : Object.values(v as object).flatMap(flat));

describe("a matrix's column past its row and a record element's field past the end: every transform throws where JavaScript reads undefined", () => {
  const { exports: m } = load(`import { grad, valueAndGrad, hvp, vjp } from 'tsad';\n${text}\n${exported}`);
  const plain = runPlain(text);
  for (const [f, first, n] of cases) {
    test(`${f}(…, ${n})`, () => {
      let js: number;
      try {
        js = plain[f](first(), n);
      } catch {
        js = Number.NaN; // JavaScript's TypeError: a field of undefined
      }
      const transforms = [m[`g_${f}`], m[`vg_${f}`], m[`h_${f}`], m[`vjp_${f}`]];
      // JavaScript makes the row longer (a ragged matrix); tsad's matrices stay rectangular, so the
      // write is refused with the RangeError, never written into the next row.
      const refused = f === 'written' && n >= 2;
      if (Number.isNaN(js) || refused) {
        for (const t of transforms) expect(() => t(first(), n)).toThrow(RangeError);
        return;
      }
      const [value, g] = m[`vg_${f}`](first(), n);
      expect(value).toBe(js);
      // Central differences of plain JavaScript, element by element of the first argument.
      const at = flat(first());
      const h = 1e-6;
      const fd = at.map((_, i) => {
        const moved = (s: number) => {
          let q = 0;
          const bump = (v: unknown): unknown =>
            Array.isArray(v) ? v.map(bump) : typeof v === 'number' ? v + (q++ === i ? s : 0) : Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, bump(x)]));
          return plain[f](bump(first()), n);
        };
        return (moved(h) - moved(-h)) / (2 * h);
      });
      flat(g).forEach((x, i) => expect(x).toBeCloseTo(fd[i], 5));
    });
  }
});
