// The 'cheap' checkpoint policy (what the plugin uses): inside a loop body, adds, multiplies and
// element reads are recomputed in the backward pass instead of stacked, so the tape keeps only
// what is expensive to redo. Same gradients as 'save'; the tape meter shows the difference.
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import { valueAndGradOf } from '../gen/drivers';
import { rel } from './reference';

// Σ_i Σ_j (a[i·m + j] − b[j])²·exp(b[j]): the inner differences are recomputed from the reads,
// only exp(b[j]) (not cheap) is stacked.
const program = () =>
  parseProgram(
    `
def f(b: array<real>, a: array<real>, n: real ;) -> (real ;) {
  let m = len(b) []
  let zero = 0
  loop(n, b, a, m, zero) [|i: real, bb: array<real>, aa: array<real>, mm: real, s: real ;| {
    let base = mul(i, mm)
    loop(mm, bb, aa, base, s) [|j: real, u: array<real>, v: array<real>, o: real, t: real ;| {
      let k = add(o, j)
      let x = index(v, k) []
      let y = index(u, j) []
      let d = sub(x, y)
      let e = exp(y)
      let dd = mul(d, d)
      let w = mul(dd, e)
      add(t, w)
    }]
  }]
}
`,
    'cheap.lina',
  );

test("'cheap' stacks only exp(b[j]); the gradient equals 'save' and central differences", () => {
  const m = 3;
  const n = 5;
  const b = [0.3, -0.2, 0.5];
  const a = Array.from({ length: n * m }, (_, k) => Math.sin(k));
  const run = (policy: 'save' | 'cheap') => {
    const v = valueAndGradOf(program(), 'f', { wrt: [0], value: false, policy });
    return evalFn(v.program, v.valueAndGrad, [b, a, n], [], { tape: true });
  };
  const saved = run('save');
  const cheap = run('cheap');
  const gs = saved.nl[0] as number[];
  const gc = cheap.nl[0] as number[];
  gc.forEach((g, j) => expect(rel(g, gs[j])).toBeLessThan(1e-14));
  // Central differences along each b_j.
  b.forEach((_, j) => {
    const at = (h: number) => evalFn(program(), 'f', [b.map((x, q) => (q === j ? x + h : x)), a, n]).nl[0] as number;
    expect(rel(gc[j], (at(1e-6) - at(-1e-6)) / 2e-6)).toBeLessThan(1e-7);
  });
  // 'save' stacks k, d (or x, y) and e per inner iteration; 'cheap' only e.
  expect(cheap.peakTape!).toBeLessThan(saved.peakTape!);
  expect(cheap.peakTape!).toBeLessThanOrEqual(n * m + 2 * n);
});
