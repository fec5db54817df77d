// opt/zeroAdds.ts: an add of +0 into an array that never holds −0 (it starts as +0s and is only
// added to), and an add of −0 into any array, change no bit, and go (the Hessian of z[r]·z[r]·c
// in z printed `z_bar_dot[r] + 0 + t + t`). Each program runs through the interpreter before and
// after the pass, with signed zeros, NaN and infinities, and must give the same bits (−0 told
// apart from +0); where an element could be −0 (the caller's array, a fill of −0, an array a
// loop replaces), the +0 add stays: −0 + 0 is +0. So does one that may make the array longer (an
// add into a shorter array makes it dense): only one followed by an add as dense goes.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { dropZeroAdds } from '../../transformer/opt/zeroAdds';
import { printDef } from '../../transformer/ir/print';
import type { Program } from '../../transformer/ir/syntax';
import type { Value } from '../../transformer/ir/value';

const noCallee = () => undefined;

function passes(src: string): { before: Program; after: Program; printed: string } {
  const before = annotateTypes(parseProgram(src));
  const after = { defs: before.defs.map((d) => dropZeroAdds(d, noCallee)) };
  return { before, after, printed: after.defs.map((d) => printDef(d)).join('\n') };
}

const adds = (printed: string) => (printed.match(/laccum\(/g) ?? []).length;

/** The same bits (−0 and +0 apart) in every leaf. */
function expectSameBits(got: unknown, want: unknown): void {
  if (Array.isArray(want)) {
    expect(Array.isArray(got)).toBe(true);
    expect((got as unknown[]).length).toBe(want.length);
    want.forEach((w, i) => expectSameBits((got as unknown[])[i], w));
  } else expect(Object.is(got, want) || (typeof got === 'number' && typeof want === 'number' && Number.isNaN(got) && Number.isNaN(want))).toBe(true);
}

const inputs: Value[][] = [
  [[-0, -0, -0], [-0, -0, -0], 3],
  [[-0, 1, -1], [0, -0, 2], 2],
  [[NaN, Infinity, -Infinity], [-0, -Infinity, 1], 3],
  [[1, 2, 3], [4, 5, 6], 0],
];

function expectSameValues(before: Program, after: Program): void {
  for (const args of inputs) {
    // The interpreter may write into array arguments: each run gets its own copies.
    const copy = () => args.map((a) => (Array.isArray(a) ? [...a] : a));
    expectSameBits(evalFn(after, 'f', copy()).nl, evalFn(before, 'f', copy()).nl);
  }
}

describe('adds of a zero that change no bit go', () => {
  test('+0 into an accumulator that starts as +0s (fill), beside the adds of a value', () => {
    const { before, after, printed } = passes(`
def f(x: array<real>, g: array<real>, n: real ;) -> (array<real> ;) {
  drop(g)
  let zero = 0
  let acc0 = fill(n, zero) []
  let acc = loop(n, x, acc0) [|i: real, x1: array<real>, a: array<real> ;| {
    let v = index(x1, i) []
    let z = 0
    let a1 = laccum(i, x1, a, z) []
    let a2 = laccum(i, x1, a1, v) []
    let a3 = laccum(i, x1, a2, v) []
    (a3 ;)
  }]
  (acc ;)
}`);
    expect(adds(printDef(before.defs[0]))).toBe(3);
    expect(adds(printed)).toBe(2);
    expectSameValues(before, after);
  });

  test('+0 in an inner loop of an outer loop that carries the accumulator (the Hessian of z[r]·z[r]·c)', () => {
    const { before, after, printed } = passes(`
def f(x: array<real>, g: array<real>, n: real ;) -> (array<real> ;) {
  drop(g)
  let zero = 0
  let acc0 = fill(zero, zero) []
  let three = 3
  let acc = loop(three, x, n, acc0) [|k: real, x1: array<real>, m: real, a: array<real> ;| {
    drop(k)
    let inner = loop(m, x1, a) [|i: real, x2: array<real>, b: array<real> ;| {
      let v = index(x2, i) []
      let z = 0
      let b1 = laccum(i, x2, b, z) []
      let b2 = laccum(i, x2, b1, v) []
      (b2 ;)
    }]
    (inner ;)
  }]
  let last = 0
  let acc1 = laccum(last, x, acc, last) []
  (acc1 ;)
}`);
    // The last add stays: into an array of no element it makes one as long as x.
    expect(adds(printed)).toBe(2);
    expect(printed).toContain('laccum(last, x, acc, last)');
    expectSameValues(before, after);
  });

  test('−0 into any array, the caller’s included', () => {
    const { before, after, printed } = passes(`
def f(x: array<real>, g: array<real>, n: real ;) -> (array<real> ;) {
  let acc = loop(n, x, g) [|i: real, x1: array<real>, a: array<real> ;| {
    let v = index(x1, i) []
    let z = -0
    let a1 = laccum(i, x1, a, z) []
    let a2 = laccum(i, x1, a1, v) []
    (a2 ;)
  }]
  (acc ;)
}`);
    expect(adds(printed)).toBe(1);
    expectSameValues(before, after);
  });
});

describe('left as they are where an element may be −0', () => {
  const unchanged = (src: string) => {
    const { before, after, printed } = passes(src);
    expect(printed).toBe(printDef(before.defs[0]));
    expectSameValues(before, after);
  };
  const plusZeroInto = (init: string, acc0: string) => `
def f(x: array<real>, g: array<real>, n: real ;) -> (array<real> ;) {
  ${init}
  let acc = loop(n, x, ${acc0}) [|i: real, x1: array<real>, a: array<real> ;| {
    let v = index(x1, i) []
    let z = 0
    let a1 = laccum(i, x1, a, v) []
    let a2 = laccum(i, x1, a1, z) []
    (a2 ;)
  }]
  (acc ;)
}`;

  test("the caller's array", () => unchanged(plusZeroInto('', 'g')));
  test('a fill of −0', () => unchanged(plusZeroInto('drop(g)\n  let mz = -0\n  let acc0 = fill(n, mz) []', 'acc0')));
  test('a fill of 1', () => unchanged(plusZeroInto('drop(g)\n  let one = 1\n  let acc0 = fill(n, one) []', 'acc0')));

  test('an add no add as dense follows (the array could come out shorter)', () => {
    unchanged(`
def f(x: array<real>, g: array<real>, n: real ;) -> (array<real> ;) {
  drop(g)
  let zero = 0
  let acc0 = fill(zero, zero) []
  let acc = loop(n, x, acc0) [|i: real, x1: array<real>, a: array<real> ;| {
    let v = index(x1, i) []
    let z = 0
    let a1 = laccum(i, x1, a, v) []
    let a2 = laccum(i, x1, a1, z) []
    (a2 ;)
  }]
  (acc ;)
}`);
    unchanged(`
def f(x: array<real>, g: array<real>, n: real ;) -> (array<real> ;) {
  drop(g)
  let zero = 0
  let acc0 = fill(zero, zero) []
  let acc = loop(n, x, acc0) [|i: real, x1: array<real>, a: array<real> ;| {
    let v = index(x1, i) []
    let z = 0
    let four = 4
    let a1 = laccum(i, four, a, z) []
    let a2 = laccum(i, x1, a1, v) []
    (a2 ;)
  }]
  (acc ;)
}`);
  });

  test('an accumulator a loop replaces by the caller’s array in a run', () => {
    unchanged(`
def f(x: array<real>, g: array<real>, n: real ;) -> (array<real> ;) {
  let zero = 0
  let acc0 = fill(n, zero) []
  let acc = loop(n, x, g, acc0) [|i: real, x1: array<real>, g1: array<real>, a: array<real> ;| {
    drop(a)
    let z = 0
    let a1 = laccum(i, x1, g1, z) []
    (a1 ;)
  }]
  let last = 0
  let acc1 = laccum(last, x, acc, last) []
  (acc1 ;)
}`);
  });
});
