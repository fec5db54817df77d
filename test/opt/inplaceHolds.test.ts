// A loop's results hold only what its body can hand back (ConstructRule.holds, opt/inplace.ts):
// a loop that only reads an array by index leaves it unshared, so a later write runs in place
// (issue 22: gmm's diff computed once per row was copied before every row). Where a body does
// hand the array back (carried, returned, through a tuple, a branch, a nested loop, or a loop
// running zero times), the write must stay a copy: each program's result is checked on the
// emitted code, where a wrong verdict overwrites the loop's result, against the interpreter.
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import type { Program } from '../../transformer/ir/syntax';
import { defArity } from '../../transformer/language/arity';
import { markInPlace } from '../../transformer/opt/inplace';
import { printProgram } from '../../transformer/ir/print';
import { emitAndLoad } from '../constructs/emitted';

const marked = (p: Program): Program => ({ defs: p.defs.map((d) => markInPlace(d, defArity(new Map(p.defs.map((x) => [x.name, x]))))) });

/** a = 1…, z = what the loop makes of a, then a[0] = 9: returns z[0]·10 + (updated a)[0]. */
const around = (name: string, loop: string, zType = 'array<real>') => `
def ${name}(x: array<real>, m: real ;) -> (real ;) {
  let n = len(x) []
  let a = map(n, x) [|v: real ;| {
    let one = 1
    add(v, one)
  }]
  let zero = 0
  let z0 = fill(n, zero) []
${loop}
  let k = 0
  let nine = 9
  let b = update(a, k, nine) []
  let bk = index(b, k) []
${zType === 'array<real>' ? '  let zk = index(z, k) []' : zType}
  let ten = 10
  let zs = mul(zk, ten)
  add(zs, bk)
}`;

const READS_ONLY = around(
  'readsOnly',
  `  let z = loop(n, a, z0) [|i: real, u: array<real>, o: array<real> ;| {
    let v = index(u, i) []
    let w = mul(v, v)
    update(o, i, w) []
  }]`,
);

const CARRIES_READ = around(
  'returnsRead',
  `  let z = loop(m, a, z0) [|i: real, u: array<real>, o: array<real> ;| {
    drop(i)
    drop(o)
    (u ;)
  }]`,
);

const THROUGH_TUPLE = around(
  'throughTuple',
  `  let t0 = <z0, z0>
  let t = loop(m, a, t0) [|i: real, u: array<real>, s: <array<real>, array<real>> ;| {
    drop(i)
    let <p, q> = s
    drop(p)
    let r = <u, q>
    (r ;)
  }]
  let <z, z1> = t
  drop(z1)`,
);

const THROUGH_BRANCH = around(
  'throughBranch',
  `  let z = loop(m, a, z0) [|i: real, u: array<real>, o: array<real> ;| {
    let half = 0.5
    let p = gt(i, half)
    cond(p, u, o) [|u1: array<real>, o1: array<real> ;| {
      drop(o1)
      (u1 ;)
    }, |u2: array<real>, o2: array<real> ;| {
      drop(u2)
      (o2 ;)
    }]
  }]`,
);

const NESTED = around(
  'nested',
  `  let z = loop(m, m, a, z0) [|i: real, mm: real, u: array<real>, o: array<real> ;| {
    drop(i)
    loop(mm, u, o) [|j: real, u1: array<real>, o1: array<real> ;| {
      drop(j)
      drop(o1)
      (u1 ;)
    }]
  }]`,
);

const ZERO_TRIP = around(
  'zeroTrip',
  `  let none = 0
  let z = loop(none, a) [|i: real, o: array<real> ;| {
    let v = index(o, i) []
    update(o, i, v) []
  }]
  drop(z0)`,
);

const program = (src: string): Program => parseProgram(src, 'holds.lina');
const x = [0.5, -1.25, 2];

describe('a loop holds what its body hands back, not what it only reads', () => {
  test('a loop that reads an array by index leaves it unshared: the later write runs in place', () => {
    const p = program(READS_ONLY);
    const text = printProgram(marked(p));
    expect(text).toContain('write(a, k, nine)');
    expect(text).not.toContain('update(a, k, nine)');
    const want = evalFn(p, 'readsOnly', [x, 2]).nl[0] as number;
    // z[0] = (x0+1)² = 2.25, b[0] = 9.
    expect(want).toBeCloseTo(2.25 * 10 + 9, 12);
    expect(emitAndLoad(marked(p)).fns.get('readsOnly')!(x, 2)).toEqual(want);
  });

  test.each([
    ['returnsRead', CARRIES_READ, 2],
    ['throughTuple', THROUGH_TUPLE, 2],
    ['throughBranch', THROUGH_BRANCH, 3],
    ['nested', NESTED, 2],
    ['zeroTrip', ZERO_TRIP, 2],
  ])('%s: the loop hands the array back, so the write stays a copy and the result is the loop’s', (fn, src, m) => {
    const p = program(src);
    const text = printProgram(marked(p));
    expect(text).toContain('update(a, k, nine)');
    const want = evalFn(p, fn, [x, m]).nl[0] as number;
    // z is a (a[0] = x0 + 1 = 1.5) as it was before the write: 15 + 9.
    expect(want).toBeCloseTo(1.5 * 10 + 9, 12);
    expect(emitAndLoad(marked(p)).fns.get(fn)!(x, m)).toEqual(want);
  });
});
