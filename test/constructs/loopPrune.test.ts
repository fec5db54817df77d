// A gradient with respect to some parameters computes nothing for the others: the reversed
// loop drops the cotangent of a parameter outside `wrt` (a carried value that only feeds itself),
// and the forward loop then drops the residual only that cotangent read (constructs/loop/prune.ts).
// Checked with the interpreter's work counter and tape meter, and against central differences.
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import { evalFn } from '../../transformer/language/interp';
import { valueAndGradOf } from '../gen/drivers';
import { basis, centralDifference, rel } from './reference';

// Σ_{i<n} sin(x·i)·y: ∂/∂x = Σ i·cos(x·i)·y, ∂/∂y = Σ sin(x·i).
const source = `
def f(x: real, y: real, n: real ;) -> (real ;) {
  let zero = 0
  loop(n, x, y, zero) [|i: real, u: real, v: real, s: real ;| {
    let m = mul(u, i)
    let sn = sin(m)
    let t = mul(sn, v)
    add(s, t)
  }]
}

def g(x: real, y: real, n: real ;) -> (real ;) {
  let zero = 0
  let (a, b) = loop(n, x, y, zero, zero) [|i: real, u: real, v: real, s: real, w: real ;| {
    let m = mul(u, i)
    let c = cos(m)
    let sn = sin(m)
    let s1 = add(s, c)
    let q = mul(v, sn)
    let w1 = add(w, q)
    (s1, w1 ;)
  }]
  mul(a, b)
}
`;
const program = () => parseProgram(source, 'prune.lina');

const grad = (fn: string, wrt: number[]) => {
  const v = valueAndGradOf(program(), fn, { wrt, value: false });
  return { text: printProgram(v.program), run: (args: number[]) => evalFn(v.program, v.valueAndGrad, args, [], { tape: true }) };
};

describe('a gradient with respect to some parameters', () => {
  test('the reversed loop carries no cotangent for y, the forward loop stacks no sin for it', () => {
    const all = grad('f', [0, 1]);
    const onlyX = grad('f', [0]);
    const at = [0.7, 1.3, 50];
    const [gx, gy] = all.run(at).nl as number[];
    const [hx] = onlyX.run(at).nl as number[];
    expect(hx).toBe(gx);
    expect(rel(hx, centralDifference(program(), 'f', at, basis(3, 0))[0])).toBeLessThan(1e-8);
    expect(rel(gy, centralDifference(program(), 'f', at, basis(3, 1))[0])).toBeLessThan(1e-8);
    // Less work per iteration, and no sin for ∂/∂y. Nothing is stored either way: the backward
    // loop's sums commute, so it runs forward fused with the loop filling its stacks (loop/fuseFill.ts).
    expect(onlyX.run(at).peakTape).toBe(0);
    expect(all.run(at).peakTape).toBe(0);
    expect(onlyX.run(at).work).toBeLessThan(all.run(at).work - 50);
    expect(onlyX.text.slice(onlyX.text.indexOf('as vg(f)'))).not.toMatch(/sin\(/);
  });

  test('a carried value another kept one needs stays (the product couples a and b)', () => {
    const at = [0.4, 2.1, 20];
    for (const wrt of [[0], [1], [0, 1]]) {
      const gr = grad('g', wrt).run(at).nl as number[];
      wrt.forEach((p, k) => {
        const [fd] = centralDifference(program(), 'g', at, basis(3, p));
        expect(rel(gr[k], fd)).toBeLessThan(1e-7);
      });
    }
  });
});

// A cotangent carried through nested loops goes at every level: Σ_i Σ_j a[j]·b[i·m + j] with
// respect to a only. Before, the reversed outer loop carried b's cotangent (an array as long as
// b, allocated afresh each outer iteration: quadratic in the data).
const nested = parseProgram(
  `
def h(a: array<real>, b: array<real>, n: real ;) -> (real ;) {
  let m = len(a) []
  let zero = 0
  loop(n, a, b, m, zero) [|i: real, u: array<real>, v: array<real>, mm: real, s: real ;| {
    let base = mul(i, mm)
    let inner = loop(mm, u, v, base, s) [|j: real, uu: array<real>, vv: array<real>, bb: real, t: real ;| {
      let x = index(uu, j) []
      let k = add(bb, j)
      let y = index(vv, k) []
      let p = mul(x, y)
      add(t, p)
    }]
    (inner ;)
  }]
}
`,
  'nested.lina',
);

test('nested loops: no cotangent for b at any level, work linear in the data', () => {
  const work = (n: number) => {
    const m = 4;
    const a = Array.from({ length: m }, (_, j) => j + 1);
    const b = Array.from({ length: n * m }, (_, k) => Math.sin(k));
    const v = valueAndGradOf(nested, 'h', { wrt: [0], value: false });
    const r = evalFn(v.program, v.valueAndGrad, [a, b, n]);
    const want = a.map((_, j) => Array.from({ length: n }, (_, i) => b[i * m + j]).reduce((s, x) => s + x, 0));
    (r.nl[0] as number[]).forEach((g, j) => expect(g).toBeCloseTo(want[j], 12));
    return { work: r.work, text: printProgram(v.program) };
  };
  const small = work(64);
  const large = work(1024);
  expect(large.work / small.work).toBeLessThan(1024 / 64 + 1);
  expect(small.text.slice(small.text.indexOf('as vg(h)'))).not.toMatch(/v_bar|vv_bar|b_bar/);
});
