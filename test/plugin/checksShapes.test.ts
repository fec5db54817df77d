// Length checks in the shapes users write, beside the random nests of checksReachProperty: a loop
// in a loop over a zero-trip outer count, a loop under an `if`, a `break` before the end, a
// triangle, a fractional bound, while and do-while loops, a user's throw before the loop and
// after one, a loop in a loop under an `if` on its bound, a pushed array read past its length, and
// helpers holding a check or a throw called where nobody reads them (checks22f's keptCalls) —
// every transform (pastEnd.ts) against plain JavaScript at bounds in range, past the ends, zero,
// negative and fractional. On 75f05b2 hessian and hvp in x returned 0 where they should throw
// (fuzz12's P2), and grad in x of the helper shapes returned a number or the helper's throw in
// place of the RangeError that comes first.
import { runPlain } from './harness';
import { checkAgainstPlain, transformsOf } from './pastEnd';

const SIG = '(x: Float64Array, w: Float64Array, d: number, k: number): number';
const shapes: Record<string, string> = {
  nest: 'let s = 0;\n  for (let c = 0; c < k; c++) for (let r = 0; r < d; r++) s += w[r] * w[r] * c;\n  return s;',
  branch: 'let s = x[0];\n  if (k > 0) for (let r = 0; r < d; r++) s += w[r] * w[r];\n  return s;',
  broke: 'let s = x[0];\n  for (let r = 0; r < d; r++) {\n    if (r >= k) break;\n    s += w[r] * w[r];\n  }\n  return s;',
  triangle: 'let s = x[0];\n  for (let c = 0; c < k; c++) for (let r = 0; r < c; r++) s += w[r] * x[0];\n  return s;',
  whileLoop: 'let s = x[0];\n  let r = 0;\n  while (r < d) {\n    s += w[r] * w[r];\n    r++;\n  }\n  return s;',
  whileNest: 'let s = x[0];\n  let c = 0;\n  while (c < k) {\n    for (let r = 0; r < d + c; r++) s += w[r] * w[r];\n    c++;\n  }\n  return s;',
  doWhile: 'let s = x[0];\n  let c = 0;\n  do {\n    for (let r = 0; r < d; r++) s += w[r] * 0.5;\n    c++;\n  } while (c < k);\n  return s;',
  throwFirst: "let s = x[0];\n  if (k > 5) throw new Error('user');\n  for (let r = 0; r < d; r++) s += w[r] * w[r];\n  return s;",
  throwAfter: "let s = x[0];\n  for (let r = 0; r < k; r++) s += x[0] * r;\n  if (s > 10) throw new Error('user');\n  for (let r = 0; r < d; r++) s += w[r] * w[r];\n  return s;",
  condInLoop: 'let s = x[0];\n  for (let c = 0; c < k; c++) {\n    if (d > 1) for (let r = 0; r < d; r++) s += w[r] * w[r];\n  }\n  return s;',
  pushed: 'let s = x[0];\n  const buf: number[] = [];\n  for (let c = 0; c < k; c++) {\n    buf.push(c);\n    for (let r = 0; r < d; r++) s += buf[r] * w[0];\n  }\n  return s;',
  helperInLoop: 'let s = x[0];\n  for (let c = 0; c < k; c++) s += sumTo(w, d) * 0 + x[0] * c;\n  return s;',
  helperUnread: 'const t = sumTo(w, d);\n  return x[0] * 2 + t;',
  helperThrows: 'let s = x[0];\n  for (let i = 0; i < k; i++) s += guarded(w, d) + x[0] * i;\n  return s;',
  helpersBoth: 'let s = x[0] * x[0];\n  for (let i = 0; i < k; i++) s += sumTo(w, d - i) + guarded(w, d + i);\n  return s;',
};
const helpers = `/** @differentiable */
function sumTo(w: Float64Array, d: number): number {
  let s = 0;
  for (let r = 0; r < d; r++) s += w[r] * w[r];
  return s;
}
/** @differentiable */
function guarded(w: Float64Array, d: number): number {
  if (d > w.length + 1) throw new Error('too far');
  return w.length > 0 ? w[0] : 0;
}
`;
const text =
  helpers +
  Object.entries(shapes)
    .map(([name, body]) => `/** @differentiable */\nexport function ${name}${SIG} {\n  ${body}\n}\n`)
    .join('');

// [x.length, w.length, d, k]: past w's end, zero and fractional outer counts, in range, d = 0 and −1.
const ARGS: [number, number, number, number][] = [
  [3, 2, 3, 1],
  [3, 2, 3, 0],
  [3, 2, 2.5, 1],
  [3, 2, 2, 3],
  [3, 2, -1, 1],
  [3, 2, 0, 4],
  [3, 3, 3, 4],
  [3, 2, 3, 6],
  [3, 2, 3, 3],
  [3, 2, 2, 0.5],
  [3, 2, 1, 2],
];

describe('length checks in hand-written shapes, every transform against plain JavaScript', () => {
  const t = transformsOf(text, Object.keys(shapes));
  const plain = runPlain(text);
  for (const name of Object.keys(shapes)) {
    test(name, () => {
      let checked = 0;
      for (const [nx, nw, d, k] of ARGS) {
        const x = Float64Array.from({ length: nx }, (_, i) => 0.3 + 0.7 * i);
        const w = Float64Array.from({ length: nw }, (_, i) => 0.5 - 0.4 * i);
        if (checkAgainstPlain(t, plain[name], name, x, w, d, k)) checked++;
      }
      expect(checked).toBeGreaterThan(ARGS.length / 2);
    });
  }
});
