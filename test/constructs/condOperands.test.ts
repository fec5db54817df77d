// A cond's operand that no branch reads goes (constructs/prune.ts `bodyOperandsPartly`), and with
// it whatever only that operand needed: a loop's carried value read by nothing else. The shape is
// a Hessian's last lines: the cond on `n > 0` that finishes the gradient gets the primal cotangent
// and its tangent, the caller keeps only the tangent, and before, the primal cotangent's loop
// accumulation (`neg_bar += …` in the demo's Fit Hessian) ran for nothing.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { printDef } from '../../transformer/ir/print';
import { simplifyDef } from '../../transformer/opt/simplify';
import { findDef } from '../../transformer/ir/program';

const SRC = `
def f(x: real, n: real ;) -> (real ;) {
  let zero = 0
  let (s, t) = loop(n, x, zero, zero) [|i: real, u: real, a: real, b: real ;| {
    let m = mul(u, i)
    let sn = sin(m)
    let a1 = add(a, sn)
    let cs = cos(m)
    let b1 = add(b, cs)
    (a1, b1 ;)
  }]
  let c = gt(n, zero)
  let (y, w) = cond(c, s, t, x) [|p: real, q: real, r: real ;| {
    let p1 = neg(p)
    let q1 = mul(q, r)
    (p1, q1 ;)
  }, |p2: real, q2: real, r2: real ;| {
    drop(p2)
    drop(q2)
    (r2, r2 ;)
  }]
  drop(y)
  (w ;)
}
`;

test('an operand no branch reads leaves the cond, and the loop stops carrying it', () => {
  const p = annotateTypes(parseProgram(SRC, 'condOperands.lina'));
  const before = findDef(p, 'f');
  const after = simplifyDef(before);
  const text = printDef(after);
  expect(text).not.toMatch(/sin\(/);
  expect(text).toMatch(/cond\(c, t, x\)/);
  // The result and the work: the same value, less work (no sine and no sum per iteration).
  for (const at of [
    [0.7, 5],
    [0.3, 0],
    [1.1, 2.5],
  ]) {
    const q = annotateTypes({ defs: [after] });
    const a = evalFn(p, 'f', at, []);
    const b = evalFn(q, 'f', at, []);
    expect(b.nl).toEqual(a.nl);
    if (at[1] > 0) expect(b.work).toBeLessThan(a.work);
  }
});

test('an operand one branch still reads stays', () => {
  const src = SRC.replace('drop(p2)\n    drop(q2)\n    (r2, r2 ;)', 'drop(q2)\n    (p2, r2 ;)');
  const p = annotateTypes(parseProgram(src, 'condOperands2.lina'));
  const text = printDef(simplifyDef(findDef(p, 'f')));
  // y is dropped, so p2 is not needed: s goes with it; q (t) is read by the first branch.
  expect(text).toMatch(/cond\(c, t, x\)/);
  const kept = src.replace('drop(y)\n  (w ;)', 'let yw = add(y, w)\n  (yw ;)');
  const text2 = printDef(simplifyDef(findDef(annotateTypes(parseProgram(kept, 'condOperands3.lina')), 'f')));
  expect(text2).toMatch(/cond\(c, s, t, x\)/);
  expect(text2).toMatch(/sin\(/);
});
