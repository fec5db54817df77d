// opt/firstWrites.ts: a loop adding once per run into a carried array of zeros, at an index that
// differs in every run, stores instead (linitw: a[i] = y + 0). The interpreter checks every linitw
// (the element is +0 when it is written), so each program here runs through it after the pass: a
// wrong proof is an internal error, and values equal the program's without the pass, −0 included.
// Where a store would differ (two adds at one index, an index the same in every run, an array
// that does not start as zeros) the pass leaves the program as it was.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { proveOwnedChains } from '../../transformer/opt/ownedChains';
import { storeFirstWrites } from '../../transformer/opt/firstWrites';
import { printDef } from '../../transformer/ir/print';
import type { Program } from '../../transformer/ir/syntax';
import type { Value } from '../../transformer/ir/value';

const noCallee = () => undefined;

function passes(src: string): { owned: Program; after: Program; printed: string } {
  const before = annotateTypes(parseProgram(src));
  const owned = { defs: before.defs.map((d) => proveOwnedChains(d, noCallee)) };
  const after = { defs: owned.defs.map((d) => storeFirstWrites(d, noCallee)) };
  return { owned, after, printed: after.defs.map((d) => printDef(d)).join('\n') };
}

const run = (p: Program, args: Value[]) => evalFn(p, 'f', args);

/** A loop over x adding f(x_i) at index `at` (a statement list computing `k` from the counter i and the trip count n). */
const oneAdd = (at: string, start = `let zero = 0\n  let acc0 = fill(zero, zero) []`) => `
def f(x: array<real>, n: real ;) -> (array<real> ;) {
  ${start}
  let acc = loop(n, n, x, acc0) [|i: real, m: real, x1: array<real>, a: array<real> ;| {
    ${at}
    drop(i)
    drop(m)
    let v = index(x1, k) []
    let y = mul(v, v)
    let a1 = laccum(k, x1, a, y) []
    (a1 ;)
  }]
  (acc ;)
}`;

const forward = oneAdd('let k = i');
// As T writes a reversed loop: k = m − i − 1.
const reversed = oneAdd('let one = 1\n    let left = sub(m, i)\n    let k = sub(left, one)');
// As a reversed read x[x.length − 1 − i] transposes: a length read of an invariant is invariant.
const viaLen = oneAdd('let l = len(x1) []\n    let left = sub(l, i)\n    let one = 1\n    let k = sub(left, one)');
const viaNeg = oneAdd('let ni = neg(i)\n    let left = add(m, ni)\n    let one = 1\n    let k = sub(left, one)');

describe('an add that is the first write of its element becomes a store', () => {
  test.each([
    ['at the counter', forward],
    ['at n − 1 − i (a reversed loop)', reversed],
    ['at n + (−i) − 1', viaNeg],
    ['at len(x) − i − 1', viaLen],
  ])('%s: linitw, no laccumw; values equal for 0, 1 and 4 runs (the interpreter checks each element was +0)', (_, src) => {
    const { owned, after, printed } = passes(src);
    expect(printed).toContain('linitw(');
    expect(printed).not.toContain('laccumw(');
    for (const n of [0, 1, 4]) {
      const x = [1.5, -2, -0, 0.25];
      const got = run(after, [x, n]);
      const want = run(owned, [x, n]);
      expect(got.nl).toEqual(want.nl);
      expect(got.work).toBe(want.work);
      expect(x).toEqual([1.5, -2, -0, 0.25]);
    }
  });

  test('a −0 added to +0 is +0: the store keeps those bits', () => {
    const src = `
def f(x: array<real>, n: real ;) -> (array<real> ;) {
  let zero = 0
  let acc0 = fill(n, zero) []
  let acc = loop(n, x, acc0) [|i: real, x1: array<real>, a: array<real> ;| {
    let v = index(x1, i) []
    let a1 = laccum(i, x1, a, v) []
    (a1 ;)
  }]
  (acc ;)
}`;
    const { after, printed } = passes(src);
    expect(printed).toContain('linitw(');
    const out = run(after, [[-0, -1], 2]).nl[0] as number[];
    expect(Object.is(out[0], 0)).toBe(true);
    expect(out[1]).toBe(-1);
  });
});

describe('left as adds', () => {
  // Each program's adds are proved owned (laccumw), so only this pass can leave them so.
  const unchanged = (src: string) => {
    const { owned, after } = passes(src);
    expect(printDef(owned.defs[0])).toContain('laccumw(');
    expect(printDef(after.defs[0])).toBe(printDef(owned.defs[0]));
  };

  test('two adds at one index in a run', () => {
    unchanged(`
def f(x: array<real>, n: real ;) -> (array<real> ;) {
  let zero = 0
  let acc0 = fill(zero, zero) []
  let acc = loop(n, x, acc0) [|i: real, x1: array<real>, a: array<real> ;| {
    let v = index(x1, i) []
    let a1 = laccum(i, x1, a, v) []
    let a2 = laccum(i, x1, a1, v) []
    (a2 ;)
  }]
  (acc ;)
}`);
  });

  test('an index the same in every run (a loop invariant), or a multiple of the counter by an invariant that may be 0', () => {
    unchanged(oneAdd('let k = m'));
    unchanged(oneAdd('let zero2 = 0\n    let z = mul(m, zero2)\n    let k = add(z, i)'));
    unchanged(oneAdd('let j = sub(i, i)\n    let k = add(j, m)'));
  });

  test('an index built from two invariants, or from a large literal (rounding could make it the same in two runs)', () => {
    // (i + m) − m with m = 2^60 is 0 for every small i; so is (i + 2^60) − 2^60.
    unchanged(oneAdd('let left = add(i, m)\n    let k = sub(left, m)'));
    unchanged(oneAdd('let big = 1152921504606846976\n    let left = add(i, big)\n    let k = sub(left, big)'));
    const { owned, after } = passes(oneAdd('let left = add(i, m)\n    let k = sub(left, m)'));
    expect(run(after, [[1, 2, 3, 4], 3]).nl).toEqual(run(owned, [[1, 2, 3, 4], 3]).nl);
  });

  test("an array that does not start as zeros (the caller's, a fill of −0 or of 1)", () => {
    unchanged(`
def f(x: array<real>, n: real, g: array<real> ;) -> (array<real> ;) {
  let acc = loop(n, x, g) [|i: real, x1: array<real>, a: array<real> ;| {
    let v = index(x1, i) []
    let a1 = laccum(i, x1, a, v) []
    (a1 ;)
  }]
  (acc ;)
}`);
    unchanged(oneAdd('let k = i', 'let z = -0\n  let acc0 = fill(n, z) []'));
    unchanged(oneAdd('let k = i', 'let one = 1\n  let acc0 = fill(n, one) []'));
  });

  test('the array read in the body after the add', () => {
    unchanged(`
def f(x: array<real>, n: real ;) -> (array<real>, real ;) {
  let zero = 0
  let acc0 = fill(zero, zero) []
  let (acc, t) = loop(n, x, acc0, zero) [|i: real, x1: array<real>, a: array<real>, s: real ;| {
    let v = index(x1, i) []
    let a1 = laccum(i, x1, a, v) []
    let (a2, r) = lpeek(i, x1, a1) []
    let s1 = add(s, r)
    (a2, s1 ;)
  }]
  (acc, t ;)
}`);
  });

  test("an inner loop's adds (the outer loop's array is not zeros in the inner one's second run)", () => {
    const { printed } = passes(`
def f(x: array<real>, n: real ;) -> (array<real> ;) {
  let zero = 0
  let acc0 = fill(zero, zero) []
  let acc = loop(n, x, acc0) [|i: real, x1: array<real>, a: array<real> ;| {
    let a1 = loop(i, x1, a) [|j: real, x2: array<real>, b: array<real> ;| {
      let v = index(x2, j) []
      let b1 = laccum(j, x2, b, v) []
      (b1 ;)
    }]
    (a1 ;)
  }]
  (acc ;)
}`);
    expect(printed).not.toContain('linitw(');
  });
});

test('the interpreter refuses a store into an element that is not +0 (a wrong proof is an internal error)', () => {
  const p = annotateTypes(
    parseProgram(`
def f(n: real ;) -> (array<real> ;) {
  let one = 1
  let a0 = fill(n, one) []
  let a = claim(a0, n) []
  let i = 0
  let r = linitw(i, n, a, one) []
  (r ;)
}`),
  );
  expect(() => evalFn(p, 'f', [2])).toThrow(/linitw: element 0 is 1, not \+0/);
});
