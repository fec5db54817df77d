// The build's cost (issue 20 item 1): what the passes walk, counted with the walk meter, never
// with a clock. Each case failed before its change: a def that needs no dup and no drop was walked
// twice by restoreLinearity (its names were gathered before it knew it needed none), and every
// inlining walked every def of the program again to count call sites and sizes.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';
import { restoreLinearity } from '../../transformer/ir/linearity';
import { inlineProgram } from '../../transformer/opt/inline';
import { visitDef, walkMeter } from '../../transformer/ir/traverse';
import { findDef } from '../../transformer/ir/program';
import { FnDef } from '../../transformer/ir/syntax';

const metered = (f: () => unknown): number => {
  const before = walkMeter.exprs;
  f();
  return walkMeter.exprs - before;
};

/** A straight-line def of n statements. */
const chain = (name: string, n: number): string => {
  const lines = Array.from({ length: n }, (_, k) => `  let a${k + 1} = mul(a${k}, x)`);
  return `def ${name}(x: real ;) -> (real ;) {\n  let a0 = sin(x)\n${lines.join('\n')}\n  (a${n} ;)\n}`;
};

test('restoring linearity walks a def that needs no dup and no drop once', () => {
  const d: FnDef = findDef(annotateTypes(parseProgram(chain('f', 200))), 'f');
  const once = metered(() => visitDef(d, {}));
  expect(metered(() => expect(restoreLinearity(d)).toBe(d))).toBe(once);
});

test('inlining again walks none of the defs it walked before (call sites and sizes are remembered per body)', () => {
  // `big` is in the program but nobody inlines into it; `f` calls the small `g` twice.
  const src = `${chain('big', 500)}
${chain('g', 3)}
def f(x: real ;) -> (real ;) {
  let u = g(x)
  let v = g(u)
  (v ;)
}`;
  const p = annotateTypes(parseProgram(src));
  const first = inlineProgram(p, ['f']);
  expect(findDef(first, 'f').body.stmts.some((s) => s.tag === 'let' && s.rhs.tag === 'call')).toBe(false);
  // A second inlining of the same program (the drivers inline after every pass that adds a def)
  // walks far less than `big`.
  expect(metered(() => inlineProgram(p, ['f']))).toBeLessThan(50);
});
