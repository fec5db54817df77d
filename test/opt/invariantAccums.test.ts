// opt/invariantAccums.ts: a loop whose body adds to its carried array only at an index that is the
// same in every run sums the adds in a local and adds once after the loop, when the loop ran.
// Programs run through the interpreter before and after the pass (and after opt/ownedChains.ts,
// whose unchecked twins the interpreter checks): the values must be equal; where the rule must
// not fire (the index varies, the body reads the array, two adds) the program stays as it was.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { promoteInvariantAccums } from '../../transformer/opt/invariantAccums';
import { proveOwnedChains } from '../../transformer/opt/ownedChains';
import { printDef } from '../../transformer/ir/print';
import type { Block, Program } from '../../transformer/ir/syntax';
import type { Value } from '../../transformer/ir/value';

const noCallee = () => undefined;

function both(src: string): { before: Program; after: Program; owned: Program } {
  const before = annotateTypes(parseProgram(src));
  const after = { defs: before.defs.map((d) => promoteInvariantAccums(d, noCallee)) };
  const owned = { defs: after.defs.map((d) => proveOwnedChains(d, noCallee)) };
  return { before, after, owned };
}

const run = (p: Program, args: Value[]) => (evalFn(p, 'f', args) as unknown as { values: Value[] }).values;
const printed = (p: Program) => p.defs.map((d) => printDef(d)).join('\n');

/** The ops of the constructs inside the bodies of every loop of a block. */
function opsInLoops(b: Block, inLoop = false, out: string[] = []): string[] {
  for (const s of b.stmts) {
    if (s.tag !== 'let' || s.rhs.tag !== 'construct') continue;
    if (inLoop) out.push(s.rhs.op);
    for (const l of s.rhs.bodies) opsInLoops(l.body, inLoop || s.rhs.op === 'loop', out);
  }
  return out;
}

// Σ_i x_i added at index c of the caller's array g.
const atInvariant = `
def f(x: array<real>, n: real, c: real, g: array<real> ;) -> (array<real> ;) {
  let acc = loop(n, x, c, g) [|i: real, x1: array<real>, c1: real, a: array<real> ;| {
    let v = index(x1, i) []
    let a1 = laccum(c1, x1, a, v) []
    (a1 ;)
  }]
  (acc ;)
}`;

// The index is the counter: varies.
const atCounter = `
def f(x: array<real>, n: real, c: real, g: array<real> ;) -> (array<real> ;) {
  let acc = loop(n, x, c, g) [|i: real, x1: array<real>, c1: real, a: array<real> ;| {
    let () = drop(c1)
    let v = index(x1, i) []
    let a1 = laccum(i, x1, a, v) []
    (a1 ;)
  }]
  (acc ;)
}`;

// The body reads the array (its element c) besides adding to it.
const readInBody = `
def f(x: array<real>, n: real, c: real, g: array<real> ;) -> (array<real> ;) {
  let acc = loop(n, x, c, g) [|i: real, x1: array<real>, c1: real, a: array<real> ;| {
    let () = drop(i)
    let (a0, a00) = share(a) []
    let u = index(a0, c1) []
    let a1 = laccum(c1, x1, a00, u) []
    (a1 ;)
  }]
  (acc ;)
}`;

// Nested: the inner loop over j adds at the outer counter i.
const nested = `
def f(x: array<real>, n: real, m: real, g: array<real> ;) -> (array<real> ;) {
  let acc = loop(n, x, m, g) [|i: real, x1: array<real>, m1: real, a: array<real> ;| {
    let inner = loop(m1, x1, i, a) [|j: real, x2: array<real>, i2: real, b: array<real> ;| {
      let v = index(x2, j) []
      let w = mul(v, i2)
      let b1 = laccum(i2, x2, b, w) []
      (b1 ;)
    }]
    (inner ;)
  }]
  (acc ;)
}`;

const x = [0.5, -1.25, 2, 0.75];

describe('adds at a loop-invariant index summed in a local', () => {
  test('the add leaves the loop: the body sums a real, the array is added to once after it', () => {
    const { before, after } = both(atInvariant);
    expect(opsInLoops(before.defs[0].body)).toContain('laccum');
    expect(opsInLoops(after.defs[0].body)).not.toContain('laccum');
    expect(printed(after)).toContain('cond(');
  });

  test.each([0, 1, 3, 4])('values equal the program without the pass at %i trips (caller array unchanged)', (n) => {
    const { before, after, owned } = both(atInvariant);
    const g = () => [1, 2, 3, 4];
    const want = run(before, [x, n, 2, g()]);
    const gAfter = g();
    expect(run(after, [x, n, 2, gAfter])).toEqual(want);
    const gOwned = g();
    expect(run(owned, [x, n, 2, gOwned])).toEqual(want);
    expect(gAfter).toEqual(g());
    expect(gOwned).toEqual(g());
  });

  test('zero trips with an index outside the array: nothing added, no error (as without the pass)', () => {
    const { before, after, owned } = both(atInvariant);
    expect(run(after, [x, 0, 7, [1, 2]])).toEqual(run(before, [x, 0, 7, [1, 2]]));
    expect(run(owned, [x, 0, -1, [1, 2]])).toEqual(run(before, [x, 0, -1, [1, 2]]));
  });

  test('one trip with an index outside the array: an error, as without the pass', () => {
    const { before, after } = both(atInvariant);
    expect(() => run(before, [x, 1, 7, [1, 2]])).toThrow();
    expect(() => run(after, [x, 1, 7, [1, 2]])).toThrow();
  });

  test.each([
    ['the index varies', atCounter],
    ['the body reads the array', readInBody],
  ])('left alone where %s', (_, src) => {
    const { before, after } = both(src);
    expect(printed(after)).toBe(printed(before));
  });

  test.each([
    [0, 3],
    [3, 0],
    [1, 1],
    [4, 3],
  ])('nested loops (inner adds at the outer counter), n = %i, m = %i: values equal, the inner add leaves the inner loop', (n, m) => {
    const { before, after, owned } = both(nested);
    const want = run(before, [x, n, m, [0, 0, 0, 0]]);
    expect(run(after, [x, n, m, [0, 0, 0, 0]])).toEqual(want);
    expect(run(owned, [x, n, m, [0, 0, 0, 0]])).toEqual(want);
    const inner = opsInLoops(after.defs[0].body);
    expect(inner).toContain('cond');
  });
});
