// An element written as itself plus something (`z[r] += e`) transposes to a take of the written
// element's cotangent (read and zero it) and an accumulation of a copy of it back at the same
// index: the array ends as it was, so the pair is one read that hands the array on (lpeek), with
// no zeroing, no second update and no ownership check (ad/untake.ts, through ltake's `putBack`).
// Checked on the printed backward pass, the work counter, central differences and the emitted
// TypeScript (GradBench gmm's `z[r] += L·(x − μ)` runs about 13% faster for it).
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import { findDef } from '../../transformer/ir/program';
import { printDef } from '../../transformer/ir/print';
import type { Program } from '../../transformer/ir/syntax';
import { gradOf, hvpOf } from '../gen/drivers';
import { rel } from './reference';
import { emitAndLoad } from './emitted';

// Σ_r z_r² with z_r = Σ_i a_i·w_r·c, accumulated element by element (`z[r] += a[i]·w[r]·c`), and
// the same with the old element scaled (`z[r] = ½·z[r] + …`: what is put back is not what was
// taken, so the take stays).
const source = (old: string) => `
def f(a: array<real>, w: array<real>, c: real ;) -> (real ;) {
  let n = len(a) []
  let m = len(w) []
  let zero = 0
  let z = fill(m, zero) []
  let zf = loop(n, a, w, m, c, z) [|i: real, u: array<real>, v: array<real>, mm: real, cc: real, o: array<real> ;| {
    loop(mm, u, v, i, cc, o) [|r: real, u2: array<real>, v2: array<real>, i2: real, c2: real, o2: array<real> ;| {
      let zr = index(o2, r) []
      ${old}
      let ai = index(u2, i2) []
      let wr = index(v2, r) []
      let p = mul(ai, wr)
      let pc = mul(p, c2)
      let s = add(zo, pc)
      update(o2, r, s) []
    }]
  }]
  let acc = 0
  loop(m, zf, acc) [|j: real, q: array<real>, t: real ;| {
    let y = index(q, j) []
    let yy = mul(y, y)
    add(t, yy)
  }]
}`;
const ADD = source('let zo = zr');
const SCALED = source('let half = 0.5\n      let zo = mul(half, zr)');

const bwdText = (p: Program): string => printDef(findDef(p, 'f.bwd'));
const a = [0.5, -1.25, 2];
const w = [1.5, 0.25, -0.75, 2];
const c = 0.8;

/** The gradient of f by central differences, in the order (a, w, c). */
function reference(p: Program): number[] {
  const x = [a, w, c];
  const out: number[] = [];
  const sizes = [a.length, w.length];
  for (let arg = 0; arg < 3; arg++) {
    const len = arg < 2 ? sizes[arg] : 1;
    for (let k = 0; k < len; k++) {
      const at = (s: number) => {
        const moved = x.map((v, j) => (j !== arg ? v : Array.isArray(v) ? v.map((e, i) => (i === k ? e + s : e)) : v + s));
        return evalFn(p, 'f', moved).nl[0] as number;
      };
      const h = 1e-6;
      out.push((at(h) - at(-h)) / (2 * h));
    }
  }
  return out;
}

const pad = (v: unknown, n: number): number[] => Array.from({ length: n }, (_, i) => ((v as ArrayLike<number>)[i] as number | undefined) ?? 0);
const gradient = (r: unknown[]): number[] => [...pad(r[0], a.length), ...pad(r[1], w.length), r[2] as number];

describe('a take put back is a peek (ad/untake.ts)', () => {
  test('z[r] += e: the backward pass reads z̄_r without taking it, and the gradient is central differences', () => {
    const g = gradOf(parseProgram(ADD), 'f', { simplify: true });
    const text = bwdText(g.program);
    expect(text).not.toMatch(/\bltake\(/);
    expect(text).toMatch(/\blpeek\(/);
    const got = gradient(evalFn(g.program, 'f.grad', [a, w, c]).nl);
    reference(g.program).forEach((v, k) => expect(rel(got[k], v)).toBeLessThan(1e-7));
    // The emitted code agrees with the interpreter.
    const fns = emitAndLoad(g.program).fns;
    const emitted = gradient(fns.get('f.grad')!(Float64Array.from(a), Float64Array.from(w), c) as unknown[]);
    got.forEach((v, k) => expect(rel(emitted[k], v)).toBeLessThan(1e-14));
  });

  test('z[r] += e: one unit of work per inner iteration for z̄_r, not two (the take and the update it is put back by)', () => {
    const values = (n: number, seed: number) => Array.from({ length: n }, (_, i) => Math.sin(seed + 1.3 * i));
    const p = gradOf(parseProgram(ADD), 'f', { simplify: true }).program;
    // The work per inner iteration (n·m of them) beyond the primal's, as n·m grows.
    const extra = (n: number) => {
      const x = [values(n, 1), values(n, 2), c];
      return evalFn(p, 'f.grad', x).work - evalFn(p, 'f', x).work;
    };
    const perIteration = (extra(64) - extra(32)) / (64 * 64 - 32 * 32);
    // 11.1 with the take and the accumulation (one unit each), 10.1 with the one read.
    expect(perIteration).toBeLessThan(10.5);
  });

  test('z[r] = ½·z[r] + e puts back something else: the take stays, the gradient is still central differences', () => {
    const g = gradOf(parseProgram(SCALED), 'f', { simplify: true });
    expect(bwdText(g.program)).toMatch(/\bltake\(/);
    const got = gradient(evalFn(g.program, 'f.grad', [a, w, c]).nl);
    reference(g.program).forEach((v, k) => expect(rel(got[k], v)).toBeLessThan(1e-7));
  });

  test('second order through the read: hvp (E ∘ J ∘ grad) is central differences of the gradient', () => {
    const prog = parseProgram(ADD);
    const g = gradOf(prog, 'f', { simplify: true });
    const h = hvpOf(prog, 'f', { simplify: true });
    const va = [0.3, -0.2, 0.5];
    const vw = [-0.1, 0.4, 0.2, -0.3];
    const vc = 0.7;
    const hv = evalFn(h.program, h.hvp, [a, w, c, va, vw, vc]).nl;
    const got = gradient(hv);
    const eps = 1e-6;
    const at = (sgn: number) => gradient(evalFn(g.program, 'f.grad', [a.map((v, i) => v + sgn * eps * va[i]), w.map((v, i) => v + sgn * eps * vw[i]), c + sgn * eps * vc]).nl);
    const plus = at(1);
    const minus = at(-1);
    plus.forEach((v, k) => expect(rel(got[k], (v - minus[k]) / (2 * eps))).toBeLessThan(1e-6));
  });
});
