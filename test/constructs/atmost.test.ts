// atmost (constructs/array/checks.ts): the front end's once-per-loop length check. Its value and
// error in the interpreter and in emitted TypeScript, and derivatives that pass it by (no tangent).
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import { emitAndLoad } from './emitted';
import { gradOf } from '../gen/drivers';

const source = `
def firstN(a: array<real>, n: real ;) -> (real ;) {
  let m = len(a) []
  let what = "tsad: firstN: reads past the end"
  let k = atmost(n, m, what) []
  let zero = 0
  loop(k, a, zero) [|i: real, u: array<real>, acc: real ;| {
    let x = index(u, i) []
    let y = mul(x, x)
    add(acc, y)
  }]
}
`;
const program = () => parseProgram(source, 'atmost.lina');

test('the value is n when n ≤ limit; otherwise an error with the message and both numbers', () => {
  expect(evalFn(program(), 'firstN', [[1, 2, 3], 2]).nl).toEqual([5]);
  expect(() => evalFn(program(), 'firstN', [[1, 2], 3])).toThrow('tsad: firstN: reads past the end (3 > 2)');
});

test('emitted TypeScript: a RangeError once, before the loop', () => {
  const { fns, code } = emitAndLoad(program());
  const firstN = fns.get('firstN')!;
  expect(firstN(Float64Array.from([1, 2, 3]), 2)).toBe(5);
  expect(() => firstN(Float64Array.from([1, 2]), 3)).toThrow(RangeError);
  expect(code.match(/RangeError/g)?.length).toBe(1);
});

test('reverse mode passes the check by: the gradient of Σ_{i<n} a_i² is 2a_i below n', () => {
  const g = gradOf(program(), 'firstN');
  const [ga] = evalFn(g.program, g.grad, [[1, 2, 3], 2]).nl as [number[]];
  expect(Array.from({ length: 3 }, (_, i) => ga[i] ?? 0)).toEqual([2, 4, 0]);
  expect(() => evalFn(g.program, g.grad, [[1, 2], 3])).toThrow('reads past the end');
});
