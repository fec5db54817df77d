// When the rules of issue 22 item 4 fire and when they must not, on Linear A programs: a cheap
// carried value (a power) is recomputed by the linear half (loop/recompute.ts), and a backward
// loop whose sums commute runs forward, fused with the loop recomputing it (loop/fuseFill.ts).
// A cotangent with a recurrence of its own (the power's, when t's gradient is wanted) or an
// accumulator read by other code (s = sin(s) + …) keeps the reversed loop. Checked on the
// printed gradient, with the tape meter, and against central differences.
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import { evalFn } from '../../transformer/language/interp';
import { valueAndGradOf } from '../gen/drivers';
import { basis, centralDifference, rel } from './reference';

// pow: Σ_{i<n} x·t^i; sinRec: s_{i+1} = sin(s_i) + x·t^i, s_0 = 0.
const source = `
def pow(x: real, t: real, n: real ;) -> (real ;) {
  let zero = 0
  let one = 1
  let (s, p) = loop(n, x, t, zero, one) [|i: real, u: real, v: real, s: real, p: real ;| {
    drop(i)
    let a = mul(u, p)
    let s1 = add(s, a)
    let p1 = mul(p, v)
    (s1, p1 ;)
  }]
  drop(p)
  s
}

def hold(x: real, t: real, n: real ;) -> (real ;) {
  let zero = 0
  let one = 1
  let (s, p) = loop(n, x, t, zero, one) [|i: real, u: real, v: real, s: real, p: real ;| {
    drop(i)
    let a = mul(u, p)
    let s1 = add(s, a)
    (s1, v ;)
  }]
  drop(p)
  s
}

def sinRec(x: real, t: real, n: real ;) -> (real ;) {
  let zero = 0
  let one = 1
  let (s, p) = loop(n, x, t, zero, one) [|i: real, u: real, v: real, s: real, p: real ;| {
    drop(i)
    let a = mul(u, p)
    let sn = sin(s)
    let s1 = add(sn, a)
    let p1 = mul(p, v)
    (s1, p1 ;)
  }]
  drop(p)
  s
}
`;
const program = () => parseProgram(source, 'fuseFill.lina');

const grad = (fn: string, wrt: number[]) => {
  const v = valueAndGradOf(program(), fn, { wrt, value: false });
  const text = printProgram(v.program);
  return { text: text.slice(text.indexOf(`as vg(${fn})`)), run: (args: number[]) => evalFn(v.program, v.valueAndGrad, args, [], { tape: true }) };
};

describe('recomputed powers, commuting backward loops fused forward', () => {
  test('∂/∂x of Σ x·t^i: one forward loop, nothing stored, for 0, 1 and many trips', () => {
    const g = grad('pow', [0]);
    expect(g.text).not.toMatch(/stack\(|put\(|at\(|ceil\(/);
    for (const n of [0, 1, 7, 2.5]) {
      const at = [0.8, 1.1, n];
      const r = g.run(at);
      expect(r.peakTape).toBe(0);
      const want = Array.from({ length: Math.max(0, Math.ceil(n)) }, (_, i) => 1.1 ** i).reduce((a, b) => a + b, 0);
      expect(rel(r.nl[0] as number, want)).toBeLessThan(1e-14);
    }
  });

  test('a carried value set to an invariant (p = t after the first iteration) recomputes from it', () => {
    for (const wrt of [[0], [0, 1]]) {
      const g = grad('hold', wrt);
      for (const n of [0, 1, 4]) {
        const at = [0.8, 1.7, n];
        const r = g.run(at).nl as number[];
        wrt.forEach((p, k) => expect(rel(r[k], centralDifference(program(), 'hold', at, basis(3, p))[0])).toBeLessThan(1e-7));
      }
    }
  });

  test("with t's gradient too, the power's cotangent has a recurrence: the backward loop stays reversed and stays right", () => {
    const g = grad('pow', [0, 1]);
    expect(g.text).toMatch(/ceil\(/);
    for (const n of [0, 1, 6]) {
      const at = [0.8, 1.1, n];
      const r = g.run(at).nl as number[];
      [0, 1].forEach((p) => expect(rel(r[p], centralDifference(program(), 'pow', at, basis(3, p))[0])).toBeLessThan(1e-7));
    }
  });

  test('an accumulator read by other code (s = sin(s) + x·t^i) keeps the reversed loop, right', () => {
    const g = grad('sinRec', [0]);
    expect(g.text).toMatch(/ceil\(/);
    for (const n of [0, 1, 5]) {
      const at = [0.7, 0.9, n];
      const [gx] = g.run(at).nl as number[];
      expect(rel(gx, centralDifference(program(), 'sinRec', at, basis(3, 0))[0])).toBeLessThan(1e-7);
    }
  });
});
