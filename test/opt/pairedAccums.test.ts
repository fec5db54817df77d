// opt/pairedAccums.ts: two adds into one element in a row (`a[i] += y1; a[i] += y2`, T of a
// body reading x[i] twice) become one laccumw of both values, read and stored once. The values
// must be those of the two adds bit for bit: each program runs through the interpreter before and
// after the pass, with an accumulator of 1 and adds of 2⁻⁵³, where (1 + 2⁻⁵³) + 2⁻⁵³ is 1 but one
// add of 2·2⁻⁵³ would give 1 + 2⁻⁵². Where moving the first add down to the second could show (a
// read of the array or of the first's result in between, a construct in between, another index)
// the program is left as it was.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { proveOwnedChains } from '../../transformer/opt/ownedChains';
import { pairAccums } from '../../transformer/opt/pairedAccums';
import { printDef } from '../../transformer/ir/print';
import type { Program } from '../../transformer/ir/syntax';
import type { Value } from '../../transformer/ir/value';

const noCallee = () => undefined;

function passes(src: string): { owned: Program; after: Program; printed: string } {
  const before = annotateTypes(parseProgram(src));
  const owned = { defs: before.defs.map((d) => proveOwnedChains(d, noCallee)) };
  const after = { defs: owned.defs.map((d) => pairAccums(d)) };
  return { owned, after, printed: after.defs.map((d) => printDef(d)).join('\n') };
}

const run = (p: Program, args: Value[]) => evalFn(p, 'f', args);

/** A loop over x adding into b (copied, then owned) with `body` (statements binding the result a2 from a and the element v). */
const program = (body: string) => `
def f(x: array<real>, b: array<real>, n: real ;) -> (array<real> ;) {
  let acc = loop(n, x, b) [|i: real, x1: array<real>, a: array<real> ;| {
    let v = index(x1, i) []
    ${body}
    (a2 ;)
  }]
  (acc ;)
}`;

const tiny = 2 ** -53;
const cases: [string, Value[]][] = [
  ['no run', [[tiny, 3], [1, 1], 0]],
  ['one run', [[tiny, 3], [1, 1], 1]],
  ['two runs', [[tiny, 3], [1, 1], 2]],
  ['signed zeros', [[-0, -0], [-0, 0], 2]],
  ['NaN and infinities', [[NaN, Infinity], [-Infinity, 1], 2]],
];

function expectSameValues(owned: Program, after: Program): void {
  for (const [, args] of cases) {
    const want = run(owned, args);
    const got = run(after, args);
    expect(got.nl).toEqual(want.nl);
    expect(Object.is((got.nl[0] as number[])[0], (want.nl[0] as number[])[0])).toBe(true);
    expect(got.work).toBe(want.work);
  }
}

describe('adds into one element in a row become one update', () => {
  test('two adds at the counter: one laccumw of both values; (1 + 2⁻⁵³) + 2⁻⁵³ stays 1, as two adds give', () => {
    const { owned, after, printed } = passes(program('let a1 = laccum(i, x1, a, v) []\n    let a2 = laccum(i, x1, a1, v) []'));
    expect(printed).toMatch(/laccumw\(i, x1, a, v, v\)/);
    expect(printed.match(/laccumw\(/g)).toHaveLength(1);
    expectSameValues(owned, after);
    expect((run(after, [[tiny], [1], 1]).nl[0] as number[])[0]).toBe(1);
    expect(1 + 2 * tiny).not.toBe(1);
  });

  test('three adds, a product computed between them: one laccumw of three values, in order', () => {
    const { owned, after, printed } = passes(program('let a0 = laccum(i, x1, a, v) []\n    let y = mul(v, v)\n    let a1 = laccum(i, x1, a0, y) []\n    let a2 = laccum(i, x1, a1, v) []'));
    expect(printed).toMatch(/laccumw\(i, x1, a, v, y, v\)/);
    expectSameValues(owned, after);
  });

  // Written with the owned forms directly (a claim before the loop), as ownedChains would leave
  // them, so that only the pass's own conditions keep them apart.
  const owned = (body: string) => `
def f(x: array<real>, b: array<real>, n: real ;) -> (array<real> ;) {
  let c = claim(b, x) []
  let acc = loop(n, x, c) [|i: real, x1: array<real>, a: array<real> ;| {
    let v = index(x1, i) []
    ${body}
    (a2 ;)
  }]
  (acc ;)
}`;

  test('the owned forms written directly pair too', () => {
    const { owned: o, after, printed } = passes(owned('let a1 = laccumw(i, x1, a, v) []\n    let a2 = laccumw(i, x1, a1, v) []'));
    expect(printed).toMatch(/laccumw\(i, x1, a, v, v\)/);
    expectSameValues(o, after);
  });

  test.each([
    ['another index', 'let one = 1\n    let j = add(i, one)\n    let a1 = laccumw(i, x1, a, v) []\n    let a2 = laccumw(j, x1, a1, v) []'],
    ['another witness', 'let l = len(x1) []\n    let a1 = laccumw(i, x1, a, v) []\n    let a2 = laccumw(i, l, a1, v) []'],
    ['the first result read after the second', 'let a1 = laccumw(i, x1, a, v) []\n    let a2 = laccumw(i, x1, a1, v) []\n    let l = len(a1) []\n    drop(l)'],
    ['a read of the first result in between', 'let a1 = laccumw(i, x1, a, v) []\n    let w = index(a1, i) []\n    let a2 = laccumw(i, x1, a1, w) []'],
    ["a read of the first's array in between", 'let a1 = laccumw(i, x1, a, v) []\n    let l = len(a) []\n    let y = mul(l, v)\n    let a2 = laccumw(i, x1, a1, y) []'],
    ['a construct in between', 'let a1 = laccumw(i, x1, a, v) []\n    let u = index(x1, i) []\n    let a2 = laccumw(i, x1, a1, u) []'],
    ['a first write (linitw) first', 'let a1 = linitw(i, x1, a, v) []\n    let a2 = laccumw(i, x1, a1, v) []'],
  ])('left alone: %s', (_, body) => {
    const before = annotateTypes(parseProgram(owned(body)));
    const after = pairAccums(before.defs[0]);
    expect(after).toBe(before.defs[0]);
    expect(printDef(after).match(/(laccumw|linitw)\(/g)).toHaveLength(2);
  });
});
