// U keeps Linear A's usage discipline as it builds (issue 20 item 1): each half it finishes gets
// the drops and copies that splitting leaves it needing (a residual slot one branch of a cond
// does not use, a value only linear code read), from its own reads (ir/usageBuilder.ts
// settledBody), so no whole-def repair (restoreLinearity) runs after U. These tests take U's
// output as it comes and check values and tangents against hand derivations.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { jvpProgram } from '../../transformer/ad/jvp';
import { unzipProgram } from '../../transformer/ad/unzip';
import * as linearity from '../../transformer/ir/linearity';
import { findDef } from '../../transformer/ir/program';
import { fwdName, jvpName, linName } from '../../transformer/ir/names';
import { printDef } from '../../transformer/ir/print';

function unzipAsBuilt(source: string, policy: 'save' | 'recompute' | 'cheap') {
  const p = annotateTypes(jvpProgram(annotateTypes(parseProgram(source)), ['f']));
  const repair = jest.spyOn(linearity, 'restoreLinearity');
  try {
    const program = annotateTypes(unzipProgram(p, [jvpName('f')], { policy }));
    return { program, repairs: repair.mock.calls.length };
  } finally {
    repair.mockRestore();
  }
}

// A cond whose branches keep different residuals (the else branch none: its slots go unused in
// its linear half), then a loop whose counter only the primal reads.
const source = `
def f(x: real ;) -> (real ;) {
  let zero = 0
  let pos = gt(x, zero)
  let y = cond(pos, x) [|a: real ;| { let s = mul(a, a) in let c = sin(s) in (c ;) }, |a: real ;| { drop(a) let c = 0 in (c ;) }]
  let n = 3
  let z = loop(n, x, y) [|i: real, u: real, c: real ;| {
    drop(i)
    let d = mul(c, u)
    (d ;)
  }]
  (z ;)
}`;

test.each(['save', 'recompute', 'cheap'] as const)('U under %s: both halves as built need no dup or drop, and compute f and its tangent', (policy) => {
  const { program, repairs } = unzipAsBuilt(source, policy);
  expect(repairs).toBe(0);
  expect(typeErrors(program)).toEqual([]);
  for (const name of [fwdName('f'), linName('f')]) {
    const d = findDef(program, name);
    expect(linearity.restoreLinearity(d) === d ? '' : printDef(linearity.restoreLinearity(d))).toBe('');
  }
  // z = sin(x²)·x³ for x > 0, 0 otherwise; dz/dx = 2x·cos(x²)·x³ + 3x²·sin(x²).
  for (const x of [1.3, -0.8]) {
    const fwd = evalFn(program, fwdName('f'), [x]);
    const tape = fwd.nl[1];
    const lin = evalFn(program, linName('f'), [tape], [1]);
    const z = x > 0 ? Math.sin(x * x) * x ** 3 : 0;
    const dz = x > 0 ? 2 * x * Math.cos(x * x) * x ** 3 + 3 * x * x * Math.sin(x * x) : 0;
    expect(fwd.nl[0]).toBeCloseTo(z, 12);
    expect(lin.lin[0]).toBeCloseTo(dz, 12);
  }
});
