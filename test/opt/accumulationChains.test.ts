// The simplifier's fusion of an addition through a chain of accumulating loops
// (constructs/loop/fuseAdd.ts): `ladd(; a, c₂)` where loop 2 only adds to what it carries and
// starts from loop 1's result, which starts from zero, becomes loop 1 starting from a. Checked on
// Linear A written by hand, against the interpreter before the simplification (every trip count,
// zero included), and refused where the second loop does not only add to the array it carries.
import { parseProgram } from '../../transformer/language/parse';
import { printDef } from '../../transformer/ir/print';
import { evalFn } from '../../transformer/language/interp';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { simplifyProgram } from '../../transformer/opt/simplify';

/** Loop 1 accumulates y at every index of w from zero; loop 2 (`SECOND`) then runs on its result; a is added last. */
const program = (second: string) => `
def f(n: real, w: array<real> ; a: array<real>, y: real) -> (; array<real>) {
  let (; z) = zero(array<real>)
  let (; y1, y2) = dup(y)
  let (; c1, s1) = loop(n, w ; z, y1) [|i: real, w1: array<real> ; acc: array<real>, s: real| {
    let (; s2, s3) = dup(s)
    let (; acc1) = laccum(i, w1 ; acc, s2) []
    (; acc1, s3)
  }]
  drop(s1)
  let (; c2, s4) = loop(n, w ; c1, y2) [|i2: real, w2: array<real> ; acc2: array<real>, t: real| {
${second}
  }]
  drop(s4)
  let (; r) = ladd(; a, c2)
  (; r)
}
`;

/** Loop 2 adds 3·y at index n−1−i: an accumulation. */
const ADDS = `    let (; t2, t3) = dup(t)
    let three = 3
    let one = 1
    let n2 = len(w2) []
    let back = sub(n2, i2)
    let j = sub(back, one)
    let (; u) = scale(three ; t2)
    let (; acc3) = laccum(j, w2 ; acc2, u) []
    (; acc3, t3)`;

/** Loop 2 takes element 0 out and puts back twice it: it scales what it carries, it does not only add. */
const SCALES = `    drop(i2)
    let zero = 0
    let two = 2
    let n2 = len(w2) []
    let (; rest, e) = ltake(zero, n2 ; acc2) []
    let (; e2) = scale(two ; e)
    let (; acc3) = laccum(zero, w2 ; rest, e2) []
    (; acc3, t)`;

describe('an addition pushed through a chain of accumulating loops', () => {
  test.each([
    ['only adds', ADDS, false],
    ['scales what it carries', SCALES, true],
  ])('the second loop %s: the same values at every trip count; the addition stays only where it must', (_, second, stays) => {
    const p = annotateTypes(parseProgram(program(second)));
    expect(typeErrors(p)).toEqual([]);
    const q = simplifyProgram(p);
    expect(typeErrors(q)).toEqual([]);
    const text = printDef(q.defs[0]);
    expect(text.includes('ladd')).toBe(stays);
    if (!stays) expect(text).not.toContain('zero(array<real>)');
    for (const n of [0, 1, 3]) {
      const w = [0.5, -1, 2];
      const lin = [[1, 2, 3], 0.7];
      expect(evalFn(q, 'f', [n, w], lin).lin).toEqual(evalFn(p, 'f', [n, w], lin).lin);
    }
  });
});
