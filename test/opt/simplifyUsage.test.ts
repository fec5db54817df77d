// The simplifier keeps Linear A's usage discipline itself (issue 20 item 1): its dead-code pass,
// which counts every use anyway, settles each block where it reaches the block's first statement
// (a drop for a variable whose last reader died, a dup's chain for one read twice, a dup one of
// whose copies nobody reads removed), so no whole-def repair (restoreLinearity) runs after it.
// restoreLinearity returns a def unchanged (the same object) exactly when it needs nothing.
import * as linearity from '../../transformer/ir/linearity';
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { simplifyDef } from '../../transformer/opt/simplify';
import { printDef } from '../../transformer/ir/print';
import { FnDef, Program } from '../../transformer/ir/syntax';

const repairs = jest.spyOn(linearity, 'restoreLinearity');
beforeEach(() => repairs.mockClear());

/** The def simplified, typed, after checking that the simplifier did not call the repair and left nothing to repair. */
function simplified(source: string): { before: Program; after: Program; def: FnDef } {
  const before = annotateTypes(parseProgram(source));
  const def = simplifyDef(before.defs[0]);
  expect(repairs).not.toHaveBeenCalled();
  const after = annotateTypes({ defs: [def] });
  expect(typeErrors(after)).toEqual([]);
  const repaired = linearity.restoreLinearity(after.defs[0]);
  expect(repaired === after.defs[0] ? '' : printDef(repaired)).toBe('');
  return { before, after, def: after.defs[0] };
}

test('a dup one of whose copies only dead code read is gone: the other copy reads its source', () => {
  const { before, after, def } = simplified(`
def f(c: real ; x: real) -> (; real) {
  let (; a, b) = dup(x)
  let (; y) = scale(c ; a)
  drop(y)
  let (; z) = scale(c ; b)
  (; z)
}`);
  expect(printDef(def)).toBe(`def f(c: real ; x: real) -> (; real) {
  let (; z) = scale(c ; x)
  (; z)
}`);
  // z = c·x; the dead scale and the drop of its copy cost nothing any more.
  const r = evalFn(after, 'f', [3], [2]);
  expect(r.lin[0]).toBe(6);
  expect(evalFn(before, 'f', [3], [2]).lin[0]).toBe(6);
  expect(r.work).toBeLessThan(evalFn(before, 'f', [3], [2]).work);
});

test('dead code leaves a linear parameter and a coefficient unread: the simplifier writes their drops', () => {
  const { after, def } = simplified(`
def f(c: real ; x: real, w: real) -> (; real) {
  let (; y) = scale(c ; x)
  drop(y)
  (; w)
}`);
  expect(printDef(def)).toBe(`def f(c: real ; x: real, w: real) -> (; real) {
  drop(c)
  drop(x)
  (; w)
}`);
  expect(evalFn(after, 'f', [3], [2, 5]).lin[0]).toBe(5);
});

test('a loop body settles its own parameters: the counter only dead code read gets its drop there', () => {
  const { after, def } = simplified(`
def f(x: real ;) -> (real ;) {
  let n = 3
  let y = loop(n, x) [|i: real, c: real ;| {
    let k = mul(i, i)
    drop(k)
    let d = mul(c, c)
    (d ;)
  }]
  (y ;)
}`);
  expect(printDef(def)).toBe(`def f(x: real ;) -> (real ;) {
  let n = 3
  let y = loop(n, x) [|i: real, c: real ;| {
    drop(i)
    let d = mul(c, c)
    (d ;)
  }]
  (y ;)
}`);
  // Squared three times: x⁸.
  expect(evalFn(after, 'f', [1.5]).nl[0]).toBe(1.5 ** 8);
});
