// Transposing twice costs what the function costs (issue 18, item 27), measured with the
// interpreter's work counter. T of a loop runs it backwards, computing i = ⌈n⌉ − j − 1; T of that
// loop used to count down again, adding the index arithmetic a second time (W(T∘T) 15 → 26 → 38
// for T², T⁴, T⁶ of a loop), and a map's transposed loop read its element cotangents without a
// witness, so T∘T of a gathering map added one-hots at O(n) each. Now a loop T made transposes to a
// loop over its own counter, and the map's loop reads with a witness (an in-place accumulation).
import { parseProgram } from '../../transformer/language/parse';
import { evalFn, Value } from '../../transformer/language/interp';
import type { Program } from '../../transformer/ir/syntax';
import { transposeOf } from '../gen/drivers';
import { rel } from './reference';

const source = `
// c ← a[i]·c, n times: a linear loop reading an invariant array by its counter.
def scan(n: real, a: array<real> ; x: real) -> (; real) {
  loop(n, a ; x) [|i: real, u: array<real> ; c: real| {
    let ai = index(u, i) []
    let (; d) = scale(ai ; c)
    (; d)
  }]
}

// y_k = x[idx[k]]: a linear map gathering through an index array (w the witness: x's length).
def gather(idx: array<real>, w: real ; x: array<real>) -> (; array<real>) {
  let m = len(idx) []
  map(m, idx, w ; x) [|j: real, ww: real ; u: array<real>| {
    let (; v) = lindex(j, ww ; u) []
    (; v)
  }]
}
`;

const program = (): Program => parseProgram(source, 'transposeCost.lina');

/** f, f.T, f.T.T, … (k transposes), simplified or not. */
function transposes(fn: string, k: number, simplify: boolean): { p: Program; names: string[] } {
  let p = program();
  const names = [fn];
  for (let t = 0; t < k; t++) {
    const r = transposeOf(p, names[names.length - 1], { simplify });
    p = r.program;
    names.push(r.transposed);
  }
  return { p, names };
}

const values = (n: number, seed: number): number[] => Array.from({ length: n }, (_, i) => 0.9 + 0.1 * Math.sin(seed + 1.7 * i));
const indices = (m: number, n: number): number[] => Array.from({ length: m }, (_, k) => (k * 7 + 3) % n);

describe('T∘T of a loop does the loop’s work, and transposing more never adds more (item 27)', () => {
  test('scan: W(T²) = W(T⁴) = W(f), W(T³) = W(T) at n = 0, 16, 256 (simplified); at most 2 more unsimplified', () => {
    for (const simplify of [true, false]) {
      const { p, names } = transposes('scan', 4, simplify);
      for (const n of [0, 16, 256]) {
        const nl: Value[] = [n, values(n, 1)];
        const w = names.map((f) => evalFn(p, f, nl, [1.5]).work);
        const slack = simplify ? 0 : 2;
        expect(w[2]).toBeLessThanOrEqual(w[0] + slack);
        expect(w[4]).toBeLessThanOrEqual(w[0] + 2 * slack);
        expect(w[3]).toBeLessThanOrEqual(w[1] + 2 * slack);
        // T∘T = id in value; the dot-product test ⟨f(x), y⟩ = ⟨x, fᵀ(y)⟩.
        const fx = evalFn(p, 'scan', nl, [1.5]).lin[0] as number;
        expect(evalFn(p, names[2], nl, [1.5]).lin[0]).toBe(fx);
        expect(rel(fx * 0.7, 1.5 * (evalFn(p, names[1], nl, [0.7]).lin[0] as number))).toBeLessThan(1e-12);
      }
    }
  });

  test('gather: W(T²)/W(f) is flat from m = 16 to 1024 and W(T⁴) = W(T²), W(T³) ≤ W(T) + m (was 10 → 21 × W(f) from m = 4 to 16)', () => {
    const { p, names } = transposes('gather', 4, true);
    const ratios = [16, 128, 1024].map((m) => {
      const n = Math.max(4, m >> 2);
      const nl: Value[] = [indices(m, n), n];
      const x = values(n, 2);
      const w = names.map((f, k) => evalFn(p, f, nl, [k % 2 === 0 ? x : values(m, 3)]).work);
      expect(w[4]).toBe(w[2]);
      // T³ drops the zero cotangent of T²'s unused accumulator once: one array, not per element.
      expect(w[3]).toBeLessThanOrEqual(w[1] + m);
      const fx = evalFn(p, 'gather', nl, [x]).lin[0] as number[];
      expect(evalFn(p, names[2], nl, [x]).lin[0]).toEqual(fx);
      return w[2] / w[0];
    });
    for (const r of ratios) expect(r).toBeLessThan(8);
    expect(Math.max(...ratios) / Math.min(...ratios)).toBeLessThan(1.2);
  });
});
