// Forward mode costs a constant factor of the function (issue 18, items 24 and 25), measured with
// the interpreter's work counter on the programs the backend runs (writes marked in place,
// opt/inplace.ts):
// - a read-modify-write loop `h[j] = f(h[j], x[j])` reads the tangent ḣ and then updates it; the
//   read used to take a dup of ḣ, a second holder, so every update copied the whole tangent
//   (W(jvp)/W(f) 11, 39, 148 at n = 64, 256, 1024). The read now hands ḣ on (lpeek, ad/peek.ts).
// - a loop reading x[i] only to compare it: J reads ẋ and drops the read; the simplifier removed
//   the read and left the whole ẋ to drop, one unit per element per iteration (W(jvp) 4 352,
//   66 560, 1 052 672 for 384, 1 536, 6 144 unsimplified). It now keeps the read.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { defArity } from '../../transformer/language/arity';
import { markInPlace } from '../../transformer/opt/inplace';
import { printProgram } from '../../transformer/ir/print';
import type { Program } from '../../transformer/ir/syntax';
import { gradOf, jvpOf } from '../gen/drivers';
import { rel } from './reference';
import { emitAndLoad } from './emitted';

const source = `
// h[j] = h[j]·x[j] + x[j] over a zero h, then Σ h.
def rmw(x: array<real> ;) -> (real ;) {
  let n = len(x) []
  let zero = 0
  let h = fill(n, zero) []
  let out = loop(n, x, h) [|j: real, u: array<real>, o: array<real> ;| {
    let hj = index(o, j) []
    let xj = index(u, j) []
    let s = mul(hj, xj)
    let t = add(s, xj)
    update(o, j, t) []
  }]
  sum(out) []
}

// h[j] = h[j]·h[j] + x[j] over h = x: the tangent read twice, then updated (a chain of dups).
def rmw2(x: array<real> ;) -> (real ;) {
  let n = len(x) []
  let zero = 0
  let h = fill(n, zero) []
  let h2 = loop(n, x, h) [|k: real, u: array<real>, o: array<real> ;| {
    let xk = index(u, k) []
    update(o, k, xk) []
  }]
  let out = loop(n, x, h2) [|j: real, u: array<real>, o: array<real> ;| {
    let a = index(o, j) []
    let b = index(o, j) []
    let s = mul(a, b)
    let xj = index(u, j) []
    let t = add(s, xj)
    update(o, j, t) []
  }]
  sum(out) []
}

// Counts the x[i] > 0: x is read only to compare (its tangent is read and dropped).
def positives(x: array<real> ;) -> (real ;) {
  let n = len(x) []
  let zero = 0
  loop(n, x, zero) [|i: real, u: array<real>, acc: real ;| {
    let v = index(u, i) []
    let z = 0
    let p = gt(v, z)
    let one = 1
    cond(p, acc, one) [|a: real, o: real ;| {
      add(a, o)
    }, |a: real, o: real ;| {
      drop(o)
      (a ;)
    }]
  }]
}
`;

const program = (): Program => parseProgram(source, 'forwardCost.lina');
/** The program as the backend runs it: writes in place where nobody can tell. */
const marked = (p0: Program): Program => {
  const p = annotateTypes(p0);
  const arity = defArity(new Map(p.defs.map((d) => [d.name, d])));
  return { defs: p.defs.map((d) => markInPlace(d, arity)) };
};
const values = (n: number, seed: number): number[] => Array.from({ length: n }, (_, i) => 0.5 + 0.4 * Math.sin(seed + 1.7 * i));
const SIZES = [64, 256, 1024];

describe('forward mode through a read-modify-write loop updates the tangent in place (item 24)', () => {
  test.each(['rmw', 'rmw2'])('%s: W(jvp)/W(f) is below 3 and flat from n = 64 to 1024 (was 11 → 148)', (fn) => {
    for (const simplify of [false, true]) {
      const j = jvpOf(program(), fn, { simplify });
      const m = marked(j.program);
      const ratios = SIZES.map((n) => evalFn(m, j.jvp, [values(n, 1)], [values(n, 2)]).work / evalFn(marked(program()), fn, [values(n, 1)]).work);
      for (const r of ratios) expect(r).toBeLessThan(3);
      expect(Math.max(...ratios) / Math.min(...ratios)).toBeLessThan(1.05);
    }
  });

  test.each(['rmw', 'rmw2'])('%s: the read hands the tangent on (lpeek, no dup of it); the JVP agrees with central differences and the gradient', (fn) => {
    const j = jvpOf(program(), fn);
    const text = printProgram(j.program).split(`def ${fn}.jvp`)[1];
    expect(text).toMatch(/lpeek\(j, o(_1)? ; o(_1)?_dot(_1)?\)/);
    expect(text).not.toMatch(/dup\(o(_1)?_dot/);
    const g = gradOf(program(), fn, { simplify: true });
    const x = values(6, 3);
    const dx = values(6, 4);
    const h = 1e-6;
    const f = (s: number) => evalFn(program(), fn, [x.map((v, k) => v + s * h * dx[k])]).nl[0] as number;
    const tangent = evalFn(j.program, j.jvp, [x], [dx]).lin[0] as number;
    expect(rel(tangent, (f(1) - f(-1)) / (2 * h))).toBeLessThan(1e-6);
    const grad = evalFn(g.program, g.grad, [x]).nl[0] as number[];
    expect(
      rel(
        tangent,
        grad.reduce((s, v, k) => s + v * dx[k], 0),
      ),
    ).toBeLessThan(1e-12);
    // Marked in place, the same values.
    expect(evalFn(marked(j.program), j.jvp, [x], [dx]).lin).toEqual(evalFn(j.program, j.jvp, [x], [dx]).lin);
  });

  test('the emitted TypeScript of the JVP agrees with the interpreter and leaves its inputs alone', () => {
    let p = program();
    for (const fn of ['rmw', 'rmw2']) p = jvpOf(p, fn, { simplify: true }).program;
    const { fns } = emitAndLoad(p);
    for (const fn of ['rmw', 'rmw2']) {
      for (const n of [0, 1, 5]) {
        const [x, dx] = [values(n, 5), values(n, 6)];
        const [xa, dxa] = [Float64Array.from(x), Float64Array.from(dx)];
        const got = fns.get(`${fn}.jvp`)!(xa, dxa) as [number, number];
        const want = evalFn(p, `${fn}.jvp`, [x], [dx]);
        expect(rel(got[0], want.nl[0] as number)).toBeLessThan(1e-12);
        expect(rel(got[1], want.lin[0] as number)).toBeLessThan(1e-12);
        expect([...xa, ...dxa]).toEqual([...x, ...dx]);
      }
    }
  });
});

describe('the simplifier never makes forward mode cost more (item 25)', () => {
  test('positives: W(simplified jvp) ≤ W(jvp), both 2·W(f) at every n (was 22.7 → 343 × W(f))', () => {
    const plain = jvpOf(program(), 'positives');
    const simple = jvpOf(program(), 'positives', { simplify: true });
    for (const n of SIZES) {
      const [x, dx] = [values(n, 7).map((v, k) => (k % 3 === 0 ? -v : v)), values(n, 8)];
      const wf = evalFn(program(), 'positives', [x]).work;
      const w0 = evalFn(plain.program, plain.jvp, [x], [dx]).work;
      const w1 = evalFn(simple.program, simple.jvp, [x], [dx]).work;
      expect(w1).toBeLessThanOrEqual(w0);
      expect(w1 / wf).toBeLessThanOrEqual(2);
      expect(evalFn(simple.program, simple.jvp, [x], [dx]).lin).toEqual([0]);
    }
  });
});
