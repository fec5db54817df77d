// Strong zeros in branches: only values that feed nothing but an alternative of a select switch
// to the strong-zero variant; the gradient of an untaken branch with an infinite local
// derivative is 0, not NaN; and the variants agree with the originals on finite values.
import { parseProgram } from '../../transformer/ir/parse';
import { printDef } from '../../transformer/ir/print';
import { strongZeroBranches } from '../../transformer/ad/branches';
import { gradOf } from '../gen/drivers';
import { evalFn } from '../../transformer/ir/interp';

test('only the values that feed nothing but a branch alternative change', () => {
  const p = parseProgram(`
def f(c: bool, u: real, w: real ; x: real) -> (; real, real) {
  let (; x1, x2) = dup(x)
  let (; a) = scale(u ; x1)
  let (; x3, x4) = dup(x2)
  let (; b) = scale(w ; x3)
  let (; n) = lneg(; b)
  let (; s) = lselect(c ; a, n)
  let (; k) = scale(u ; x4)
  (; s, k)
}`);
  const text = printDef(strongZeroBranches(p.defs[0]));
  expect(text).toContain("let (; a) = scale0(u ; x1)");
  expect(text).toContain("let (; b) = scale0(w ; x3)");
  // k is a result, not a branch: it keeps the ordinary scaling.
  expect(text).toContain("let (; k) = scale(u ; x4)");
});

test('reverse mode through a select: an infinite derivative in the untaken branch gives 0', () => {
  const p = parseProgram(`
def f(x: real ;) -> (real ;) {
  let zero = 0
  let nz = ne(x, zero)
  let one = 1
  let r = div(one, x)
  let y = select(nz, r, zero)
  (y ;)
}`);
  const { program, grad } = gradOf(p, 'f', { simplify: true });
  expect(evalFn(program, grad, [0]).nl[0]).toBe(0);
  expect(evalFn(program, grad, [2]).nl[0]).toBe(-0.25);
});

test('a select inside a cond body gets strong zeros too (each body is its own block)', () => {
  const p = parseProgram(`
def f(x: real ;) -> (real ;) {
  let yes = true
  let y = cond(yes, x) [|a: real ;| {
    let zero = 0
    let nz = ne(a, zero)
    let one = 1
    let r = div(one, a)
    select(nz, r, zero)
  }, |a: real ;| {
    (a ;)
  }]
  (y ;)
}`);
  for (const simplify of [false, true]) {
    const { program, grad } = gradOf(p, 'f', { simplify });
    expect(evalFn(program, grad, [0]).nl[0]).toBe(0);
    expect(evalFn(program, grad, [2]).nl[0]).toBe(-0.25);
  }
});
