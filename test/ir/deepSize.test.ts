// The size of a gradient's program grows linearly with the nesting depth (issue 18, item 10): a
// cond's unzipped residuals travel packed past a few slots (constructs/cond/unzip.ts), a loop packs
// the stacks of the loops inside it once their types grow deep (constructs/loop/pack.ts), and a
// placeholder of a packed type is `absent`, O(1). Before, every cond forwarded the residual slots of
// every cond inside it and padded them all in its untaken branch, and every loop's stacks were
// typed stack<stack<…>> as deep as the nest and built empty one level at a time: 0.16, 0.59 and
// 2.3 MB of printed IR at depths 25, 50 and 100 for conds (0.09, 0.30, 0.97 MB for loops), each
// doubling of the depth about 4× (3×) the size. Sizes are counted in tokens of the printed program
// (indentation and the length of generated names aside), never in time.
import { parseProgram } from '../../transformer/language/parse';
import { checkProgram } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { printProgram } from '../../transformer/ir/print';
import { gradOf } from '../../transformer/ad/drivers';
import { nestedConds, nestedLoops, type LongProgram } from '../gen/long';
import { emitAndLoad } from '../constructs/emitted';

const tokens = (text: string): number => text.split(/\s+/).filter((t) => t.length > 0).length;

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * (1 + Math.abs(b));

/** Tokens of the printed gradient program and W(grad)/W(f), after checking the gradient. */
function measure(g: LongProgram): { size: number; workRatio: number } {
  const p = parseProgram(g.text);
  const r = gradOf(p, g.fn, { simplify: true, recheck: false });
  const x = 0.8;
  const grad = evalFn(r.program, r.grad, [x]);
  expect(close(grad.nl[0] as number, g.reference(x).derivative)).toBe(true);
  return { size: tokens(printProgram(r.program)), workRatio: grad.work / evalFn(p, g.fn, [x]).work };
}

describe.each([
  ['conditionals', nestedConds, 600],
  ['loops', nestedLoops, 400],
])('%s nested inside each other', (_, gen, tokensPerLevel) => {
  test('the gradient program grows by a bounded amount per level (25, 50, 100 deep), its work by a constant factor', () => {
    const [a, b, c] = [25, 50, 100].map((d) => measure(gen(d)));
    const perLevel = [(b.size - a.size) / 25, (c.size - b.size) / 50];
    // Quadratic, the growth per level from 50 to 100 is about twice that from 25 to 50 (measured
    // 1.74 for conds and 1.5 for loops before packing).
    expect(perLevel[1] / perLevel[0]).toBeLessThan(1.2);
    // The constant, in tokens per level (the source function is about 30).
    expect(perLevel[1]).toBeLessThan(tokensPerLevel);
    for (const m of [b, c]) expect(Math.abs(m.workRatio - a.workRatio)).toBeLessThan(0.05);
  }, 120_000);
});

describe('conditionals nested inside each other, packed', () => {
  test('the packed gradient prints with named slot types and parses back to a program that checks, on both sides of every branch', () => {
    const g = nestedConds(30);
    const r = gradOf(parseProgram(g.text), g.fn, { simplify: true, recheck: true });
    const text = printProgram(r.program, { types: true });
    expect(text).toMatch(/^type f\.slots\w* = </m);
    expect(text).toMatch(/absent\(\) \[\|\w+: f\.slots\w* ;\|/);
    const q = parseProgram(text);
    checkProgram(q);
    expect(printProgram(q, { types: true })).toBe(text);
    // x < 0 takes the outermost else branch: the tape holds an absent slot.
    for (const x of [0.8, -0.5]) {
      const want = x > 0 ? g.reference(x).derivative : Math.cos(x) + 1;
      expect(close(evalFn(q, r.grad, [x]).nl[0] as number, want)).toBe(true);
    }
  }, 120_000);
});

test.each([
  ['conditionals', 30, nestedConds, /^type f\.slots\w* = </m, /\w+ = undefined;/],
  // The inner loops' runs share one flat stack of reals (constructs/loop/flatten.ts): each run extends it.
  ['loops', 12, nestedLoops, /= extend\(/, /room\w* = /],
])(
  '%s nested %i deep: the packed gradient as emitted TypeScript equals the interpreter on both sides of the outer branch',
  (_, depth, gen, packed, emitted) => {
    const g = gen(depth);
    const r = gradOf(parseProgram(g.text), g.fn, { simplify: true, recheck: true });
    expect(printProgram(r.program)).toMatch(packed);
    const { code, fns } = emitAndLoad(r.program);
    // A cond's slot the taken branch does not fill is left undefined (it is only ever dropped); a
    // loop's packed stacks are plain arrays of tuples.
    expect(code).toMatch(emitted);
    for (const x of [0.8, -0.5]) expect(fns.get(r.grad)!(x)).toEqual(evalFn(r.program, r.grad, [x]).nl[0]);
  },
  120_000,
);
