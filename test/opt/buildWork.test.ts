// The build's cost (issue 20 item 1): what the passes walk, counted with the walk meter, never
// with a clock. Each case failed before its change: a def that needs no dup and no drop was walked
// twice by restoreLinearity (its names were gathered before it knew it needed none), and every
// inlining walked every def of the program again to count call sites and sizes. (s11, build20:)
// the passes that rewrite only constructs walked a straight-line def to find it has none, and
// every pass that gathered a def's names, or asked whether it is typed, walked it again.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes, typeUntyped } from '../../transformer/language/check';
import { restoreLinearity } from '../../transformer/ir/linearity';
import { inlineProgram } from '../../transformer/opt/inline';
import { holdsConstruct, namesIn, visitDef, walkMeter } from '../../transformer/ir/traverse';
import { hoistInvariants } from '../../transformer/opt/licm';
import { tabulateInvariants } from '../../transformer/opt/tabulate';
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

test("a def's names are gathered in one walk however many passes ask, and typing what is untyped reuses it", () => {
  const p = annotateTypes(parseProgram(chain('f', 200)));
  const d = findDef(p, 'f');
  const once = metered(() => visitDef(d, {}));
  const names = metered(() => expect(namesIn(d).size).toBe(202));
  expect(names).toBe(once);
  expect(metered(() => expect([...namesIn(d)]).toEqual(['x', 'a0', ...Array.from({ length: 200 }, (_, k) => `a${k + 1}`)]))).toBe(0);
  expect(metered(() => expect(typeUntyped(p).defs[0]).toBe(d))).toBe(0);
});

test('the loop rewrites before J (tabulate, licm) leave a def without a construct as it is, without walking it', () => {
  const p = annotateTypes(parseProgram(chain('f', 200)));
  expect(metered(() => expect(tabulateInvariants(p).defs[0]).toBe(p.defs[0]))).toBe(0);
  expect(metered(() => expect(hoistInvariants(p).defs[0]).toBe(p.defs[0]))).toBe(0);
});

describe('holdsConstruct', () => {
  const body = (src: string) => findDef(parseProgram(src), 'f').body;
  test('finds a construct in a nested block, under a drop, and in a block result', () => {
    expect(holdsConstruct(body(chain('f', 5)))).toBe(false);
    expect(holdsConstruct(body('def f(x: real ;) -> (real ;) { let () = drop({ let t = <x, x> in let s = sin(x) in (t, s ;) }) in (x ;) }'))).toBe(false);
    const loop = `def f(y: real, n: real ;) -> (real ;) {
  let z = {
    let () = drop({ let w = loop(n, y) [|i: real, c: real ;| { drop(i)
      mul(c, c) }] in (w ;) })
    (y ;)
  }
  (z ;)
}`;
    expect(holdsConstruct(body(loop))).toBe(true);
  });
  test('blocks nested 20 000 deep cost no JavaScript stack', () => {
    let inner: import('../../transformer/ir/syntax').Block = { stmts: [], result: { tag: 'construct', op: 'len', nl: ['x'], lin: [], bodies: [] } as never };
    for (let k = 0; k < 20000; k++)
      inner = { stmts: [{ tag: 'let', nl: [{ name: `b${k}` }], lin: [], rhs: { tag: 'block', block: inner } }], result: { tag: 'var', linear: false, name: `b${k}` } } as never;
    expect(holdsConstruct(inner)).toBe(true);
  });
});
