// Checkpointing a loop that carries an array (issue 18, item 26), measured with the work counter
// and the tape meter on the programs the backend runs (writes marked in place). A snapshot of a
// carried array is a copy of it, so segments of a fixed k cost n·⌈n/k⌉ values for a loop writing
// into a carried n-array (`{ every: 16 }` at n = 4096: W(grad)/W(f) = 132, a peak tape of 1 048 864
// values). Segments are now at least as long as the carried arrays (constructs/loop/segment.ts):
// O(n) in work and tape, the same gradient bit for bit; a short carried array keeps its k.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { defArity } from '../../transformer/language/arity';
import { markInPlace } from '../../transformer/opt/inplace';
import type { LoopCheckpoint } from '../../transformer/ad/checkpoint';
import type { Program } from '../../transformer/ir/syntax';
import { gradOf } from '../gen/drivers';

const source = `
// p_i = p_{i-1}·x_i + x_i into a carried array, then Σ p.
def prefix(x: array<real> ;) -> (real ;) {
  let n = len(x) []
  let zero = 0
  let p = fill(n, zero) []
  let one = 1
  let (q, last) = loop(n, x, p, one) [|i: real, u: array<real>, o: array<real>, prev: real ;| {
    let v = index(u, i) []
    let m = mul(prev, v)
    let s = add(m, v)
    let o2 = update(o, i, s) []
    (o2, s)
  }]
  drop(last)
  sum(q) []
}

// h[j] = sin(h[j] + x[j]) over h = x: each step reads the element it overwrites.
def rmw(x: array<real> ;) -> (real ;) {
  let n = len(x) []
  let out = loop(n, x, x) [|j: real, u: array<real>, o: array<real> ;| {
    let hj = index(o, j) []
    let xj = index(u, j) []
    let s = add(hj, xj)
    let t = sin(s)
    update(o, j, t) []
  }]
  sum(out) []
}

// A two-element state (c, s) rotated n times by the angle x: a short carried array.
def rotate(x: real, n: real ;) -> (real ;) {
  let zero = 0
  let one = 1
  let two = 2
  let z = fill(two, zero) []
  let st = update(z, zero, one) []
  let out = loop(n, x, st) [|i: real, a: real, v: array<real> ;| {
    drop(i)
    let o = 0
    let l = 1
    let c = index(v, o) []
    let s = index(v, l) []
    let ca = cos(a)
    let sa = sin(a)
    let p = mul(c, ca)
    let q = mul(s, sa)
    let c2 = sub(p, q)
    let r = mul(c, sa)
    let t = mul(s, ca)
    let s2 = add(r, t)
    let v1 = update(v, o, c2) []
    update(v1, l, s2) []
  }]
  let o = 0
  index(out, o) []
}
`;

const program = (): Program => parseProgram(source, 'checkpointArrays.lina');
const marked = (p0: Program): Program => {
  const p = annotateTypes(p0);
  const arity = defArity(new Map(p.defs.map((d) => [d.name, d])));
  return { defs: p.defs.map((d) => markInPlace(d, arity)) };
};
const values = (n: number, seed: number): number[] => Array.from({ length: n }, (_, i) => 0.5 + 0.4 * Math.sin(seed + 1.7 * i));
const grad = (fn: string, checkpoint: LoopCheckpoint): Program => marked(gradOf(program(), fn, { simplify: true, inlinePrimal: true, policy: 'cheap', checkpoint }).program);

describe('checkpointed loops carrying an array cost O(n) (item 26)', () => {
  test.each([
    ['prefix', { every: 16 }],
    ['prefix', 'sqrt'],
    ['prefix', { levels: 3 }],
    ['rmw', { every: 16 }],
    ['rmw', 'sqrt'],
  ] as [string, LoopCheckpoint][])('%s %j: W(grad)/W(f) below 8 and flat from n = 256 to 4096, peak tape at most 4n + 16, the gradient of store bit for bit', (fn, checkpoint) => {
    const g = grad(fn, checkpoint);
    const store = grad(fn, 'store');
    const f = marked(program());
    const ratios = [256, 1024, 4096].map((n) => {
      const x = values(n, 1);
      const r = evalFn(g, `${fn}.grad`, [x], [], { tape: true });
      expect(r.peakTape!).toBeLessThanOrEqual(4 * n + 16);
      expect(r.nl).toEqual(evalFn(store, `${fn}.grad`, [x]).nl);
      return r.work / evalFn(f, fn, [x]).work;
    });
    for (const r of ratios) expect(r).toBeLessThan(8);
    expect(Math.max(...ratios) / Math.min(...ratios)).toBeLessThan(1.1);
  });

  test('a short carried array keeps its segments: rotate under { every: 16 } holds ⌈n/16⌉ snapshots, far below store', () => {
    const g = grad('rotate', { every: 16 });
    const store = grad('rotate', 'store');
    for (const n of [256, 4096]) {
      const at = [0.3, n];
      const r = evalFn(g, 'rotate.grad', at, [], { tape: true });
      const s = evalFn(store, 'rotate.grad', at, [], { tape: true });
      // The invariant x's cotangent is summed per segment, then over the segments: the last bits may differ.
      expect(Math.abs((r.nl[0] as number) - (s.nl[0] as number))).toBeLessThan(1e-12 * n * n);
      expect(r.peakTape!).toBeLessThan(s.peakTape! / 4);
      // d/dx cos(n·x) = −n·sin(n·x)
      expect(Math.abs((r.nl[0] as number) + n * Math.sin(n * 0.3))).toBeLessThan(1e-9 * n);
    }
  });
});
