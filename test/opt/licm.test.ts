// Loop-invariant code motion (transformer/opt/licm.ts): statements of a loop body that read only
// invariants leave the loop, so the primal computes them once and U saves them once instead of
// stacking them every iteration. Values and derivatives are checked against the program before
// the pass and against central differences; the work counter shows the saving.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { Expr, FnDef, Program } from '../../transformer/ir/syntax';
import { visitDef } from '../../transformer/ir/traverse';
import { findDef } from '../../transformer/ir/program';
import { hoistInvariants } from '../../transformer/opt/licm';
import { gradOf, vjpOf } from '../gen/drivers';
import { emitAndLoad } from '../constructs/emitted';

/** y ← y·cos(θ)·s + θ, n times; cos(θ)·s (s = 2, a literal) is invariant, so is its product. */
const SRC = `def f(y: real, theta: real, n: real ;) -> (real ;) {
  loop(n, theta, y) [|i: real, u: real, c: real ;| {
    drop(i)
    let two = 2
    let k = cos(u)
    let k2 = mul(k, two)
    let p = mul(c, k2)
    add(p, u)
  }]
}

def g(y: real, theta: real, n: real, m: real ;) -> (real ;) {
  loop(n, theta, m, y) [|i: real, u: real, m1: real, c: real ;| {
    let s = sin(u)
    let inner = loop(m1, s, i, c) [|j: real, v: real, k: real, d: real ;| {
      let e = exp(v)
      let w = mul(d, e)
      let kj = mul(k, j)
      let t = mul(kj, 0.001)
      add(w, t)
    }]
    (inner ;)
  }]
}
`.replace('mul(kj, 0.001)', 'mul(kj, kj)');

const program = () => annotateTypes(parseProgram(SRC, 'licm.lina'));

function constructsIn(d: FnDef): Extract<Expr, { tag: 'construct' }>[] {
  const out: Extract<Expr, { tag: 'construct' }>[] = [];
  visitDef(d, { expr: (e) => void (e.tag === 'construct' && out.push(e)) });
  return out;
}

/** The primitive operations a def's loop bodies run, by name. */
function primsInLoops(p: Program, fn: string): string[] {
  const ops: string[] = [];
  for (const c of constructsIn(findDef(p, fn)).filter((e) => e.op === 'loop')) {
    const { stmts, result } = c.bodies[0].body;
    for (const e of [...stmts.map((s) => (s.tag === 'let' ? s.rhs : undefined)), result]) if (e?.tag === 'prim') ops.push(e.op);
  }
  return ops;
}

const fdGrad = (p: Program, fn: string, x: number[], wrt: number[], h = 1e-6) =>
  wrt.map((i) => {
    const at = (s: number) =>
      evalFn(
        p,
        fn,
        x.map((v, j) => (j === i ? v + s : v)),
      ).nl[0] as number;
    return (at(h) - at(-h)) / (2 * h);
  });

/** z(y, θ[, n]) = y + n·log(θ): log(θ) is invariant, and its partial 1/θ infinite at θ = 0. */
const logLoop = (tripParam: string, tripLet: string) => `def z(y: real, theta: real${tripParam ? `, ${tripParam}` : ''} ;) -> (real ;) {
${tripLet}  loop(n, theta, y) [|i: real, u: real, c: real ;| {
    drop(i)
    let k = log(u)
    add(c, k)
  }]
}`;

describe('hoisting invariants out of loops', () => {
  test('the invariant statements leave the body: same values, the work of n − 1 of their runs saved', () => {
    const p = program();
    const q = annotateTypes(hoistInvariants(p));
    expect(typeErrors(q)).toEqual([]);
    expect(primsInLoops(q, 'f')).toEqual(['mul', 'add']);
    // In g, sin(u) leaves the outer loop and exp(v) (v = sin(u)) both loops.
    expect(primsInLoops(q, 'g').sort()).toEqual(['add', 'mul', 'mul', 'mul']);
    const extra = (n: number) => {
      const before = evalFn(p, 'f', [0.7, 0.3, n]);
      const after = evalFn(q, 'f', [0.7, 0.3, n]);
      expect(after.nl).toEqual(before.nl);
      return after.work - before.work;
    };
    // cos and one mul per iteration become one of each before the loop, under n > 0 (a test and
    // a branch: a small constant, also where n = 0).
    expect(extra(5) - extra(1)).toBe(-2 * 4);
    for (const n of [0, 1]) {
      expect(extra(n)).toBeGreaterThan(0);
      expect(extra(n)).toBeLessThanOrEqual(4);
    }
    const [b, a] = [evalFn(p, 'g', [0.7, 0.3, 4, 3]), evalFn(q, 'g', [0.7, 0.3, 4, 3])];
    expect(a.nl[0]).toBeCloseTo(b.nl[0] as number, 12);
    expect(a.work).toBeLessThan(b.work);
  });

  test('reverse mode saves a hoisted residual once: the forward loop stores only what varies', () => {
    const { program: v, fwd } = vjpOf(program(), 'f');
    // A counted loop stores its residuals with put (room reserved for its trip count), others push.
    const pushes = constructsIn(findDef(v, fwd))
      .flatMap((c) => c.bodies.flatMap((l) => l.body.stmts))
      .filter((s) => s.tag === 'let' && s.rhs.tag === 'construct' && (s.rhs.op === 'push' || s.rhs.op === 'put'));
    // The carried value c is the only residual of p = c·k2 that changes; k2 is saved once.
    expect(pushes.length).toBe(1);
  });

  test('gradients through hoisted loops equal central differences (and the emitted code the interpreter)', () => {
    for (const [fn, x, wrt] of [
      ['f', [0.7, 0.3, 5], [0, 1]],
      ['g', [0.7, 0.3, 4, 3], [0, 1]],
    ] as const) {
      const { program: q, grad } = gradOf(parseProgram(SRC, 'licm.lina'), fn);
      const got = evalFn(q, grad, [...x]).nl.slice(0, 2) as number[];
      fdGrad(parseProgram(SRC), fn, [...x], [...wrt]).forEach((d, i) => expect(got[i]).toBeCloseTo(d, 6));
      const { fns } = emitAndLoad(q);
      expect((fns.get(grad)!(...x) as number[]).slice(0, 2)).toEqual(got);
    }
  });

  test('hoisted code runs under n > 0: a loop that runs zero times adds an exact 0 to the gradient, never 0·∞', () => {
    // log(u) at u = 0 has the partial 1/0; JavaScript never computes it when n = 0.
    const src = logLoop('n: real', '');
    const q = annotateTypes(hoistInvariants(annotateTypes(parseProgram(src))));
    expect(typeErrors(q)).toEqual([]);
    expect(constructsIn(q.defs[0]).map((e) => e.op)).toEqual(['cond', 'loop']);
    const { program: g, grad } = gradOf(parseProgram(src), 'z');
    expect(evalFn(g, grad, [1.5, 0, 0]).nl.slice(0, 2)).toEqual([1, 0]);
    expect(evalFn(g, grad, [1.5, 2, 3]).nl.slice(0, 2)).toEqual([1, 1.5]);
    const { fns } = emitAndLoad(g);
    expect((fns.get(grad)!(1.5, 0, 0) as number[]).slice(0, 2)).toEqual([1, 0]);
  });

  test('a positive literal trip count needs no guard', () => {
    const src = logLoop('', '  let n = 3\n');
    const q = annotateTypes(hoistInvariants(annotateTypes(parseProgram(src))));
    expect(constructsIn(q.defs[0]).map((e) => e.op)).toEqual(['loop']);
    expect(primsInLoops(q, 'z')).toEqual(['add']);
  });

  test('a loop with nothing invariant is left as it is', () => {
    const src = `def h(x: real, n: real ;) -> (real ;) {
  loop(n, x) [|i: real, c: real ;| {
    let s = sin(c)
    add(s, i)
  }]
}`;
    const p = annotateTypes(parseProgram(src));
    expect(hoistInvariants(p).defs[0]).toEqual(p.defs[0]);
  });
});

test('the same invariant computation written twice is hoisted once and passed as one invariant', () => {
  const src = `def r(x: real, h: real, n: real ;) -> (real ;) {
  loop(n, h, x) [|i: real, u: real, c: real ;| {
    drop(i)
    let two = 2
    let a = div(u, two)
    let b = div(u, two)
    let ca = mul(c, a)
    let cb = mul(ca, b)
    add(cb, c)
  }]
}`;
  const p = annotateTypes(parseProgram(src));
  const q = annotateTypes(hoistInvariants(p));
  expect(typeErrors(q)).toEqual([]);
  const [loop] = constructsIn(q.defs[0]).filter((e) => e.op === 'loop');
  // The counter, one invariant (h / 2) and the carried value.
  expect(loop.bodies[0].nlParams.length).toBe(3);
  expect(loop.nl.length).toBe(3);
  for (const n of [0, 3]) expect(evalFn(q, 'r', [0.9, 0.4, n]).nl).toEqual(evalFn(p, 'r', [0.9, 0.4, n]).nl);
});
