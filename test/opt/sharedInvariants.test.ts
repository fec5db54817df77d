// A loop given the same invariant operand twice binds it once (opt/simplify.ts
// `sharedInvariants`), so the body's common subexpressions see one value: a loop fused from two
// (constructs/loop/fuseFill.ts) takes both halves' invariants, and read t[i] once for each half
// (the demo's Fit Hessian: `const t_i_1 = t[k]` beside `const t_i = t[k]`).
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { printDef } from '../../transformer/ir/print';
import { simplifyDef } from '../../transformer/opt/simplify';
import { findDef } from '../../transformer/ir/program';

const SRC = `
def f(t: array<real>, y: real, n: real ;) -> (real ;) {
  let zero = 0
  loop(n, t, y, t, zero) [|i: real, u: array<real>, w: real, v: array<real>, s: real ;| {
    let a = index(u, i) []
    let b = index(v, i) []
    let c = mul(a, w)
    let d = sin(b)
    let e = add(c, d)
    add(s, e)
  }]
}
`;

test('t passed twice is one parameter, read once per iteration', () => {
  const p = annotateTypes(parseProgram(SRC, 'sharedInvariants.lina'));
  const after = simplifyDef(findDef(p, 'f'));
  const text = printDef(after);
  expect(text).toMatch(/loop\(n, t, y, zero\)/);
  expect(text.match(/index\(/g)).toHaveLength(1);
  const q = annotateTypes({ defs: [after] });
  for (const [t, y, n] of [
    [[0.5, 1.5, -2], 0.7, 3],
    [[1, 2], 2, 0],
  ] as [number[], number, number][]) {
    const a = evalFn(p, 'f', [t, y, n], []);
    const b = evalFn(q, 'f', [t, y, n], []);
    expect(b.nl).toEqual(a.nl);
    if (n > 0) expect(b.work).toBeLessThan(a.work);
  }
});
