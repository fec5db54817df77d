// Reads past an array's end that no loop bound checks (s13's P3): at an enclosing loop's counter
// inside an inner loop, at an offset (x[r + 1], x[i − 1], x[2i], x[d − 1 − r]), under an `if`,
// in while and for…of loops, in a callback, at a negative or fractional index, at c·d + r. Plain
// JavaScript reads `undefined` there and its value is NaN; every transform must throw the
// RangeError (grad returned finite numbers), and where JavaScript reads nothing past an end
// (an inner loop that runs no iteration) none may throw, the numbers equal to central
// differences (pastEnd.ts, strict). frontend/readChecks.ts checks each read, hoisted out of
// the loops where the index is affine in their counters.
import { load, runPlain } from './harness';
import { checkAgainstPlain, transformsOf } from './pastEnd';

const SIG = '(x: Float64Array, w: Float64Array, d: number, k: number): number';
const shapes: Record<string, string> = {
  outerCounter: 'let s = 0;\n  for (let c = 0; c < k; c++) for (let r = 0; r < 2; r++) s += x[c] * r * w[0];\n  return s;',
  outerZeroInner: 'let s = w[0];\n  for (let c = 0; c < k; c++) for (let r = 0; r < d; r++) s += x[c] * w[0];\n  return s;',
  next: 'let s = 0;\n  for (let r = 0; r < d; r++) s += x[r + 1] * w[0];\n  return s;',
  previous: 'let s = w[0];\n  for (let i = 0; i < d; i++) s += x[i - 1] * x[0];\n  return s;',
  doubled: 'let s = w[0];\n  for (let i = 0; i < d; i++) s += x[2 * i] * x[2 * i];\n  return s;',
  reversed: 'let s = w[0];\n  for (let r = 0; r < d; r++) s += x[d - 1 - r] * w[0];\n  return s;',
  flat: 'let s = 0;\n  for (let c = 0; c < k; c++) for (let r = 0; r < d; r++) s += x[c * d + r] * w[0];\n  return s;',
  fromOne: 'let s = w[0];\n  for (let i = 1; i <= d; i++) s += x[i] * x[i - 1];\n  return s;',
  underIf: 'let s = w[0];\n  for (let i = 0; i < d; i++) if (i > k) s += x[i] * w[0];\n  return s;',
  triangle: 'let s = w[0];\n  for (let c = 0; c < k; c++) for (let r = 0; r < c; r++) s += x[c] * w[r];\n  return s;',
  whileNext: 'let s = w[0];\n  let i = 0;\n  while (i < d) {\n    s += x[i + 1] * w[0];\n    i++;\n  }\n  return s;',
  forOf: 'let s = 0;\n  let i = 0;\n  for (const v of w) {\n    s += v * x[i + k];\n    i++;\n  }\n  return s;',
  callback: 'return w.reduce((a, v, i) => a + v * x[i + k], 0);',
  mapped: 'const y = w.map((v, i) => v * x[i * k]);\n  return y[0] + w[0];',
  negative: 'return x[d - 3] * w[0] + x[0];',
  fractional: 'return x[d / 2] * w[0] + x[0];',
  sideOfTest: 'return d > 2 ? x[2] * w[0] : w[0] * w[0];',
  sideInLoop: 'let s = w[0];\n  for (let i = 0; i < d; i++) s += i < k ? x[i + 1] * w[0] : w[0];\n  return s;',
  unreadInner: 'let s = w[0] * w[0];\n  for (let c = 0; c < k; c++) for (let r = 0; r < 2; r++) s += x[c] * r;\n  return s;',
  // s15: one position read in a map only where a test of the element holds (the check stays in
  // the body, under the test: it was copied out with the element unbound, an internal error).
  mappedUnderTest: 'const y = w.map((v) => (v > 0 ? v * x[d] : v));\n  return y[0] + w[0];',
  // s15: a NaN index (d < 2), a fraction (2.5) and a whole one: NaN reads past the end.
  nanIndex: 'return x[Math.sqrt(d - 2)] * w[0] + x[0];',
  whileGuarded: 'let s = w[0];\n  let i = 0;\n  while (i < d && x[i + k] > 0) {\n    s += x[i + k] * w[0];\n    i++;\n  }\n  return s;',
};
const text = Object.entries(shapes)
  .map(([name, body]) => `/** @differentiable */\nexport function ${name}${SIG} {\n  ${body}\n}\n`)
  .join('');

// [x.length, w.length, d, k]
const ARGS: [number, number, number, number][] = [
  [3, 2, 3, 1],
  [3, 2, 3, 0],
  [3, 2, 2.5, 1],
  [3, 2, 2, 3],
  [3, 2, -1, 1],
  [3, 2, 0, 4],
  [4, 3, 3, 4],
  [3, 2, 3, 6],
  [6, 2, 2, 3],
  [3, 2, 2, 0.5],
  [3, 2, 1, 2],
  [5, 3, 2, 2],
  [5, 2, 4, 1],
  [2, 2, 1, 1],
  [2, 2, 3, 0],
  [2, 6, 1, 3],
];

describe('reads past an end at offsets, outer counters, under ifs, in while loops and callbacks: every transform throws where JavaScript reads one', () => {
  const t = transformsOf(text, Object.keys(shapes));
  const plain = runPlain(text);
  for (const name of Object.keys(shapes)) {
    test(name, () => {
      for (const [nx, nw, d, k] of ARGS) {
        const x = Float64Array.from({ length: nx }, (_, i) => 0.3 + 0.7 * i);
        const w = Float64Array.from({ length: nw }, (_, i) => 0.5 - 0.4 * i);
        checkAgainstPlain(t, plain[name], name, x, w, d, k, true);
      }
    });
  }
});

// A hole in a number[] is read at an index that is whole and below the length, so no index check
// sees it (JavaScript reads `undefined` there: the value is NaN, and the gradient came back finite,
// [0, 3, 0]). The wrapper refuses such an argument (`Array.isArray(x) && x.includes(void 0)`: free
// for V8's packed double arrays): a TypeError naming it (s15; holeyArguments.test.ts has the rest).
test('a hole in a number[]: grad throws where JavaScript reads it', () => {
  const { exports: m } = load(`import { grad } from 'tsad';
/** @differentiable */
export function tripled(x: number[], j: number): number {
  return x[j] * 3;
}
export const g = grad(tripled);
`);
  const holey = [1, 2, 3];
  delete holey[1];
  expect(Number.isNaN(m.tripled(holey, 1))).toBe(true);
  expect(() => m.g(holey, 1)).toThrow(TypeError);
});
