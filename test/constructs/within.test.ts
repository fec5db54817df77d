// within (constructs/array/checks.ts): an element read's check, one test for both ends. Its value
// (lo) and its messages in the interpreter and in emitted TypeScript (the inline fallback here:
// no runtime helper is bound), where JavaScript reads `undefined`: past the end (NaN too),
// before 0, between two elements. A gradient passes it by.
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import { emitAndLoad } from './emitted';
import { gradOf } from '../gen/drivers';
import { tsad$badRead } from '../../runtime/emitted';

const source = `
def at(a: array<real>, i: real ;) -> (real ;) {
  let m = len(a) []
  let what = "tsad: at: reads 'a[i]'"
  let j = within(i, i, m, what) []
  let x = index(a, j) []
  mul(x, x)
}
`;
const program = () => parseProgram(source, 'within.lina');

const CASES: [number, string | number][] = [
  [0, 1],
  [2, 9],
  [3, "tsad: at: reads 'a[i]' past its end (4 > 3)"],
  [Number.NaN, "tsad: at: reads 'a[i]' past its end (NaN > 3)"],
  [-1, "tsad: at: reads 'a[i]' before its start or between two elements (at -1)"],
  [1.5, "tsad: at: reads 'a[i]' before its start or between two elements (at 1.5)"],
];

test('interpreter and emitted TypeScript: the element where JavaScript reads one, the same message where it reads undefined', () => {
  const { fns } = emitAndLoad(program());
  const at = fns.get('at')!;
  for (const [i, want] of CASES) {
    if (typeof want === 'number') {
      expect(evalFn(program(), 'at', [[1, 2, 3], i]).nl).toEqual([want]);
      expect(at(Float64Array.from([1, 2, 3]), i)).toBe(want);
    } else {
      expect(() => evalFn(program(), 'at', [[1, 2, 3], i])).toThrow(want);
      expect(() => at(Float64Array.from([1, 2, 3]), i)).toThrow(want);
      expect(tsad$badRead("tsad: at: reads 'a[i]'", i, i, 3).message).toBe(want);
    }
  }
});

const guarded = `
def atIf(a: array<real>, i: real, t: real ;) -> (real ;) {
  let m = len(a) []
  let what = "tsad: atIf: reads 'a[i]'"
  let zero = 0
  let runs = gt(t, zero)
  let j = within(i, i, m, what, runs) []
  t
}
`;

test('a fifth operand says whether the read happens: where it is false no index fails', () => {
  const p = parseProgram(guarded, 'withinIf.lina');
  const atIf = emitAndLoad(p).fns.get('atIf')!;
  for (const i of [0, 5, -1, 1.5, Number.NaN]) {
    expect(evalFn(p, 'atIf', [[1, 2, 3], i, -1]).nl).toEqual([-1]);
    expect(atIf(Float64Array.from([1, 2, 3]), i, -1)).toBe(-1);
  }
  expect(evalFn(p, 'atIf', [[1, 2, 3], 2, 1]).nl).toEqual([1]);
  expect(() => evalFn(p, 'atIf', [[1, 2, 3], 5, 1])).toThrow("tsad: atIf: reads 'a[i]' past its end (6 > 3)");
  expect(() => atIf(Float64Array.from([1, 2, 3]), 5, 1)).toThrow("tsad: atIf: reads 'a[i]' past its end (6 > 3)");
  expect(() => atIf(Float64Array.from([1, 2, 3]), -1, 1)).toThrow("tsad: atIf: reads 'a[i]' before its start or between two elements (at -1)");
});

test('reverse mode passes the check by: d(a_i²)/da = 2a_i at i', () => {
  const g = gradOf(program(), 'at');
  const [ga] = evalFn(g.program, g.grad, [[1, 2, 3], 1]).nl as [number[]];
  expect(Array.from({ length: 3 }, (_, k) => ga[k] ?? 0)).toEqual([0, 4, 0]);
  expect(() => evalFn(g.program, g.grad, [[1, 2, 3], 5])).toThrow('past its end (6 > 3)');
});
