// opt/ownedChains.ts: a loop's carried cotangent that only accumulations touch is claimed once
// before the loop and accumulated without checks. The interpreter checks every unchecked
// accumulation (laccumw: the array owned by the running call and dense), so each program here runs
// through it after the pass: a wrong proof is an internal error, and values equal the program's
// without the pass. Where a proof must not be made (the array read twice in the body, handed to
// something that is not an accumulation), the pass leaves the program as it was.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { proveOwnedChains } from '../../transformer/opt/ownedChains';
import { printDef } from '../../transformer/ir/print';
import type { Program } from '../../transformer/ir/syntax';
import type { Value } from '../../transformer/ir/value';

const noCallee = () => undefined;

function both(src: string): { before: Program; after: Program; printed: string } {
  const before = annotateTypes(parseProgram(src));
  const after = { defs: before.defs.map((d) => proveOwnedChains(d, noCallee)) };
  return { before, after, printed: after.defs.map((d) => printDef(d)).join('\n') };
}

const run = (p: Program, args: Value[]) => evalFn(p, 'f', args);

/** A cotangent array as its dense value of length n (the empty zero and a dense zero are the same value). */
const dense = (v: Value, n: number): number[] => Array.from({ length: n }, (_, k) => ((v as number[])[k] ?? 0) as number);

// Σ_i x_i·e_i into a cotangent that starts as the empty zero: proved.
const fromZero = `
def f(x: array<real>, n: real ;) -> (array<real> ;) {
  let zero = 0
  let empty = fill(zero, zero) []
  let acc = loop(n, x, empty) [|i: real, x1: array<real>, a: array<real> ;| {
    let v = index(x1, i) []
    let a1 = laccum(i, x1, a, v) []
    let a2 = laccum(i, x1, a1, v) []
    (a2 ;)
  }]
  (acc ;)
}`;

// The same loop starting from the caller's array g: claimed means copied, g stays.
const fromCaller = `
def f(x: array<real>, n: real, g: array<real> ;) -> (array<real> ;) {
  let acc = loop(n, x, g) [|i: real, x1: array<real>, a: array<real> ;| {
    let v = index(x1, i) []
    let a1 = laccum(i, x1, a, v) []
    (a1 ;)
  }]
  (acc ;)
}`;

// The accumulator shared before the loop: the copy returned beside the loop's result must not change.
const sharedBefore = `
def f(x: array<real>, n: real ;) -> (array<real>, array<real> ;) {
  let zero = 0
  let empty = fill(zero, zero) []
  let first = loop(n, x, empty) [|i: real, x1: array<real>, a: array<real> ;| {
    let v = index(x1, i) []
    let a1 = laccum(i, x1, a, v) []
    (a1 ;)
  }]
  let (kept, again) = share(first) []
  let second = loop(n, x, again) [|j: real, x2: array<real>, b: array<real> ;| {
    let w = index(x2, j) []
    let b1 = laccum(j, x2, b, w) []
    (b1 ;)
  }]
  (kept, second ;)
}`;

// The body reads the accumulator besides accumulating into it: no proof.
const readInBody = `
def f(x: array<real>, n: real ;) -> (array<real> ;) {
  let zero = 0
  let empty = fill(zero, zero) []
  let acc = loop(n, x, empty) [|i: real, x1: array<real>, a: array<real> ;| {
    let v = index(x1, i) []
    let (a0, a00) = share(a) []
    let s = len(a0) []
    let t = add(s, v)
    let a1 = laccum(i, x1, a00, t) []
    (a1 ;)
  }]
  (acc ;)
}`;

// Nested: the inner loop accumulates into the outer loop's carried cotangent, the inner trip count
// is the outer counter (zero on the first pass): one claim, before the outer loop.
const nested = `
def f(x: array<real>, n: real ;) -> (array<real> ;) {
  let zero = 0
  let empty = fill(zero, zero) []
  let acc = loop(n, x, empty) [|i: real, x1: array<real>, a: array<real> ;| {
    let a1 = loop(i, x1, a) [|j: real, x2: array<real>, b: array<real> ;| {
      let v = index(x2, j) []
      let b1 = laccum(j, x2, b, v) []
      (b1 ;)
    }]
    (a1 ;)
  }]
  (acc ;)
}`;

describe('claimed once before the loop, accumulated without checks', () => {
  test('from the empty zero: the accumulations become laccumw, with a claim under the trip count; values equal', () => {
    const { before, after, printed } = both(fromZero);
    expect(printed).toContain('laccumw(');
    expect(printed).not.toMatch(/\blaccum\(/);
    expect(printed).toMatch(/claim\(empty, x, n\)/);
    for (const n of [0, 1, 3]) {
      const x = [1.5, -2, 0.25];
      expect(run(after, [x, n]).nl).toEqual(run(before, [x, n]).nl);
      expect(x).toEqual([1.5, -2, 0.25]);
    }
  });

  test('a loop run zero times: no claim runs (the same work as without the pass)', () => {
    const { before, after } = both(fromZero);
    expect(run(after, [[1, 2, 3], 0]).work).toBe(run(before, [[1, 2, 3], 0]).work);
  });

  test("from the caller's array: claimed is copied, the caller's array stays as it was", () => {
    const { before, after, printed } = both(fromCaller);
    expect(printed).toContain('laccumw(');
    const g = [10, 20, 30];
    const out = run(after, [[1, 2, 3], 3, g]);
    expect(g).toEqual([10, 20, 30]);
    expect(out.nl).toEqual(run(before, [[1, 2, 3], 3, [10, 20, 30]]).nl);
    expect(out.nl[0]).toEqual([11, 22, 33]);
  });

  test('shared between two holders: the second loop copies, the first result stays as it was', () => {
    const { before, after, printed } = both(sharedBefore);
    expect(printed.match(/laccumw\(/g)?.length).toBe(2);
    const out = run(after, [[1, 2], 2]);
    expect(out.nl).toEqual(run(before, [[1, 2], 2]).nl);
    expect(out.nl).toEqual([
      [1, 2],
      [2, 4],
    ]);
  });

  test('an accumulator the body also reads: no proof, the program is unchanged', () => {
    const { before, after } = both(readInBody);
    expect(printDef(after.defs[0])).toBe(printDef(before.defs[0]));
  });

  test('nested loops: one claim before the outer loop, none inside; values equal for 0, 1 and 4 trips', () => {
    const { before, after, printed } = both(nested);
    expect(printed.match(/claim\(/g)?.length).toBe(1);
    expect(printed).toMatch(/claim\(empty, x, n\)/);
    for (const n of [0, 1, 4]) {
      const x = [1, 2, 3, 4];
      expect(dense(run(after, [x, n]).nl[0], 4)).toEqual(dense(run(before, [x, n]).nl[0], 4));
    }
  });
});

test('the interpreter refuses an unchecked accumulation into an array the running call does not own (a wrong proof is an internal error)', () => {
  const p = annotateTypes(
    parseProgram(`
def f(g: array<real> ;) -> (array<real> ;) {
  let i = 0
  let v = 1
  let r = laccumw(i, g, g, v) []
  (r ;)
}`),
  );
  const g = [1, 2];
  expect(() => evalFn(p, 'f', [g])).toThrow(/laccumw: the array is not owned/);
  expect(g).toEqual([1, 2]);
});
