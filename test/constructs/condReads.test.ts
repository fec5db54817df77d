// Reads under a branch inside a loop, under the plugin's 'cheap' policy (kmeans: the distances to the nearest centroid, summed in
// an `if` of the point loop). A branch that neither writes nor hands on an array it is given
// leaves it as it was (cond's `overwrites` asks the branches), so U recomputes the reads in the
// linear half instead of storing each one, and the array the linear branch reads again is the
// cond's operand (cond/hoistLengths.ts): a loop around the cond passes it once, where it used to
// stack a stack of reads per iteration (an object per run) or a reference per iteration.
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import { printType } from '../../transformer/ir/printType';
import { findDef } from '../../transformer/ir/program';
import type { Program } from '../../transformer/ir/syntax';
import { gradOf, hvpOf, linearizeOf } from '../gen/drivers';
import { rel } from './reference';
import { emitAndLoad } from './emitted';

// Σ_i [p_{i·d} > ½] · Σ_j (p_{i·d+j} − c_j)²; with `write`, the branch then overwrites its copy
// of p (p_{i·d} doubled, read back and added), which must keep the reads stored: recomputed, they
// would keep the version before the write alive, and the write could not run in place.
const source = (write: boolean) => `
def f(c: array<real>, p: array<real>, d: real ;) -> (real ;) {
  let n = len(p) []
  let m = div(n, d)
  let cost = 0
  loop(m, d, p, c, cost) [|i: real, d1: real, p1: array<real>, c1: array<real>, acc: real ;| {
    let dist = 0
    let at = mul(i, d1)
    let head = index(p1, at) []
    let half = 0.5
    let gt = gt(head, half)
    let dist2 = cond(gt, c1, d1, at, p1, dist) [|c2: array<real>, d2: real, at2: real, p2: array<real>, s0: real ;| {
      let s2 = loop(d2, at2, p2, c2, s0) [|j: real, at3: real, p4: array<real>, c3: array<real>, s: real ;| {
        let k = add(at3, j)
        let pk = index(p4, k) []
        let cj = index(c3, j) []
        let e = sub(pk, cj)
        let ee = mul(e, e)
        add(s, ee)
      }]
      ${write ? 'let h2 = index(p2, at2) []\n      let two = 2\n      let h3 = mul(h2, two)\n      let p3 = update(p2, at2, h3) []\n      let q = index(p3, at2) []\n      add(s2, q)' : '(s2 ;)'}
    }, |c4: array<real>, d4: real, at4: real, p5: array<real>, s1: real ;| {
      drop(c4)
      drop(d4)
      drop(at4)
      drop(p5)
      (s1 ;)
    }]
    add(acc, dist2)
  }]
}`;

const d = 3;
const c = [0.2, -0.4, 0.9];
const p = [0.7, 0.1, -0.3, 0.2, 0.5, 0.5, 0.9, -1.2, 0.4, 0.55, 2, -0.75];

/** ∂f/∂c by central differences. */
function reference(prog: Program): number[] {
  const h = 1e-6;
  return c.map((_, k) => {
    const at = (s: number) => evalFn(prog, 'f', [c.map((v, i) => (i === k ? v + s : v)), p, d]).nl[0] as number;
    return (at(h) - at(-h)) / (2 * h);
  });
}

const tapeOf = (prog: Program): string => printType(findDef(prog, 'f.fwd').nlResults[1]);
const pad = (v: unknown, n: number): number[] => Array.from({ length: n }, (_, i) => ((v as ArrayLike<number>)[i] as number | undefined) ?? 0);

describe('reads under a branch in a loop (cond overwrites, operands as residuals)', () => {
  test('a branch that only reads: no stack of reads per iteration, and the gradient is central differences', () => {
    const prog = parseProgram(source(false));
    const tape = tapeOf(linearizeOf(prog, 'f', { policy: 'cheap' }).program);
    // Before: the inner loop's reads on a stack per run, stacked per iteration (stack<stack<real>>).
    expect(tape).not.toMatch(/stack<stack|stack<array/);
    const g = gradOf(prog, 'f', { simplify: true, policy: 'cheap' });
    const got = pad(evalFn(g.program, 'f.grad', [c, p, d]).nl[0], c.length);
    reference(prog).forEach((v, k) => expect(rel(got[k], v)).toBeLessThan(1e-7));
    const emitted = emitAndLoad(g.program).fns.get('f.grad')!(Float64Array.from(c), Float64Array.from(p), d) as unknown[];
    got.forEach((v, k) => expect(rel(pad(emitted[0], c.length)[k], v)).toBeLessThan(1e-14));
  });

  test("f.lin on f.fwd's tape gives the JVP's tangent", () => {
    const prog = parseProgram(source(false));
    const lz = linearizeOf(prog, 'f', { policy: 'cheap' });
    const dir = [c.map((_, i) => i + 1), p.map((_, i) => 0.1 * i), 0];
    const tape = evalFn(lz.program, lz.fwd, [c, p, d]).nl[1];
    const lin = evalFn(lz.program, lz.lin, [tape], dir).lin[0] as number;
    const jvp = evalFn(lz.program, 'f.jvp', [c, p, d], dir).lin[0] as number;
    expect(rel(lin, jvp)).toBeLessThan(1e-12);
  });

  test('a branch that overwrites the array keeps its reads stored, and the gradient is still central differences', () => {
    const prog = parseProgram(source(true));
    expect(tapeOf(linearizeOf(prog, 'f', { policy: 'cheap' }).program)).toMatch(/stack<stack<real>>/);
    const g = gradOf(prog, 'f', { simplify: true, policy: 'cheap' });
    const got = pad(evalFn(g.program, 'f.grad', [c, p, d]).nl[0], c.length);
    reference(prog).forEach((v, k) => expect(rel(got[k], v)).toBeLessThan(1e-7));
  });

  test('second order (as kmeans asks it): hvp is central differences of the gradient', () => {
    const prog = parseProgram(source(false));
    const g = gradOf(prog, 'f', { simplify: true, policy: 'cheap' });
    const h = hvpOf(prog, 'f', { simplify: true, policy: 'cheap' });
    const v = [0.5, -1, 0.25];
    const got = pad(evalFn(h.program, h.hvp, [c, p, d, v, p.map(() => 0), 0]).nl[0], c.length);
    const eps = 1e-6;
    const at = (sgn: number) => pad(evalFn(g.program, 'f.grad', [c.map((x, i) => x + sgn * eps * v[i]), p, d]).nl[0], c.length);
    const plus = at(1);
    const minus = at(-1);
    plus.forEach((x, k) => expect(rel(got[k], (x - minus[k]) / (2 * eps))).toBeLessThan(1e-6));
  });
});
