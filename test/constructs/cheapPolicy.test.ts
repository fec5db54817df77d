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

// A logistic 1/(1 + e^{−x_i}) per iteration: only e^{−x_i} is expensive to redo. The division and
// its derivative's −σ/(1 + e) (one divide each) are recomputed from it in the backward pass, where
// stacking them cost two tape slots per iteration written and read back (lstm's gates).
const logistic = () =>
  parseProgram(
    `
def g(x: array<real>, n: real ;) -> (real ;) {
  let zero = 0
  loop(n, x, zero) [|i: real, xx: array<real>, s: real ;| {
    let v = index(xx, i) []
    let nv = neg(v)
    let e = exp(nv)
    let one = 1
    let a = add(one, e)
    let sg = div(one, a)
    let w = mul(sg, v)
    add(s, w)
  }]
}
`,
    'logistic.lina',
  );

test("'cheap' recomputes a division in a loop body: one stacked number (the exp) per iteration, not three; gradient against 'save' and central differences, zero trips", () => {
  for (const n of [0, 1, 6]) {
    const x = Array.from({ length: 6 }, (_, k) => Math.sin(k + 0.3) * 2);
    const run = (policy: 'save' | 'cheap') => {
      const v = valueAndGradOf(logistic(), 'g', { wrt: [0], value: false, policy });
      return evalFn(v.program, v.valueAndGrad, [x, n], [], { tape: true });
    };
    const saved = run('save');
    const cheap = run('cheap');
    const gs = saved.nl[0] as number[];
    const gc = cheap.nl[0] as number[];
    // Zero trips: the cotangent may come back as an empty array (all zeros).
    x.forEach((_, j) => expect(rel(gc[j] ?? 0, gs[j] ?? 0)).toBeLessThan(1e-14));
    x.forEach((_, j) => {
      const at = (h: number) => evalFn(logistic(), 'g', [x.map((v, q) => (q === j ? v + h : v)), n]).nl[0] as number;
      expect(rel(gc[j] ?? 0, (at(1e-6) - at(-1e-6)) / 2e-6)).toBeLessThan(1e-7);
    });
    // 'save' stacks e, σ and σ/(1 + e) at least; 'cheap' e alone.
    expect(cheap.peakTape!).toBeLessThanOrEqual(n + 2);
    if (n > 0) expect(saved.peakTape!).toBeGreaterThanOrEqual(3 * n);
  }
});
