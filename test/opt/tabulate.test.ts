// Loop-invariant code motion with expansion (transformer/opt/tabulate.ts): a costly primitive an
// inner loop nest computes from its counters and from values the outer loop does not change is
// computed once into a table before the outer loop. GradBench gmm's shape: exp(q[c·d + r]) inside
// the loops over the points i, the components c and the coordinates r. The work counter (with its
// breakdown by primitive) shows exp run k·d times instead of n·k·d, in the primal the pass
// rewrites and in the gradient; values and gradients are checked against the source program and
// central differences. Through the plugin: test/plugin/tabulate.test.ts.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import type { Program } from '../../transformer/ir/syntax';
import { tabulateInvariants } from '../../transformer/opt/tabulate';
import { gradOf } from '../gen/drivers';

// Σ_i Σ_c Σ_r exp(q[c·d + r]) · x[i·d + r]
const SRC = `def f(q: array<real>, x: array<real>, n: real, k: real, d: real ;) -> (real ;) {
  let zero = 0
  loop(n, q, x, k, d, zero) [|i: real, q1: array<real>, x1: array<real>, k1: real, d1: real, t: real ;| {
    loop(k1, q1, x1, i, d1, t) [|c: real, q2: array<real>, x2: array<real>, i2: real, d2: real, t2: real ;| {
      loop(d2, q2, x2, i2, c, d2, t2) [|r: real, q3: array<real>, x3: array<real>, i3: real, c3: real, d3: real, t3: real ;| {
        let cd = mul(c3, d3)
        let j = add(cd, r)
        let qj = index(q3, j) []
        let e = exp(qj)
        let id = mul(i3, d3)
        let ix = add(id, r)
        let xi = index(x3, ix) []
        let ex = mul(e, xi)
        add(t3, ex)
      }]
    }]
  }]
}

def g(q: array<real>, x: array<real>, n: real, k: real, d: real ;) -> (real ;) {
  let zero = 0
  loop(n, q, x, k, d, zero) [|i: real, q1: array<real>, x1: array<real>, k1: real, d1: real, t: real ;| {
    loop(k1, q1, x1, i, d1, t) [|c: real, q2: array<real>, x2: array<real>, i2: real, d2: real, t2: real ;| {
      let z0 = 0
      let s = loop(d2, q2, c, d2, z0) [|r: real, q3: array<real>, c3: real, d3: real, acc: real ;| {
        let cd = mul(c3, d3)
        let j = add(cd, r)
        let qj = index(q3, j) []
        add(acc, qj)
      }]
      let ss = mul(s, s)
      let l = log1p(ss)
      let xi = index(x2, i2) []
      let lx = mul(l, xi)
      add(t2, lx)
    }]
  }]
}`;

const program = (): Program => annotateTypes(parseProgram(SRC, 'tabulate.lina'));
const K = 2;
const D = 3;
const q = Array.from({ length: K * D }, (_, i) => 0.1 * Math.sin(i + 1));
const xs = (n: number) => Array.from({ length: n * D }, (_, i) => Math.cos(0.3 * i));

/** How many times a run applies each primitive. */
function prims(p: Program, fn: string, args: unknown[]): { counts: Map<string, number>; value: unknown[] } {
  const counts = new Map<string, number>();
  const r = evalFn(p, fn, args as never[], [], { prims: counts });
  return { counts, value: r.nl };
}

describe('tabulating what every run of an outer loop recomputes', () => {
  test('the primal: exp runs k·d times, not n·k·d, with the same value', () => {
    const p = program();
    const t = annotateTypes(tabulateInvariants(p));
    expect(typeErrors(t)).toEqual([]);
    for (const n of [64, 4096]) {
      const args = [q, xs(n), n, K, D];
      const before = prims(p, 'f', args);
      const after = prims(t, 'f', args);
      expect(before.counts.get('exp')).toBe(n * K * D);
      expect(after.counts.get('exp')).toBe(K * D);
      expect(after.value[0]).toBeCloseTo(before.value[0] as number, 8);
    }
  });

  test('the gradient inherits the table: exp runs O(k·d) times as n grows 64 → 4096', () => {
    const g = gradOf(program(), 'f', { simplify: true });
    const exps = (n: number) => prims(g.program, 'f.grad', [q, xs(n), n, K, D]).counts.get('exp') ?? 0;
    expect(exps(64)).toBeLessThanOrEqual(2 * K * D);
    expect(exps(4096)).toBe(exps(64));
  });

  test('zero-trip loops: no table is computed, the value is 0 and the gradient 0', () => {
    const g = gradOf(program(), 'f', { simplify: true });
    for (const [n, k, d] of [
      [0, K, D],
      [5, 0, D],
      [5, K, 0],
    ]) {
      const { counts, value } = prims(g.program, 'f.grad', [q, xs(n), n, k, d]);
      expect(counts.get('exp') ?? 0).toBe(0);
      expect((value[0] as number[]).every((v) => v === 0)).toBe(true);
    }
  });

  test('a reduction (Σ_r q[c·d + r]) and what is computed from it: tables of k entries', () => {
    const p = program();
    const t = annotateTypes(tabulateInvariants(p));
    const g = gradOf(p, 'g', { simplify: true });
    for (const n of [64, 1024]) {
      const args = [q, xs(n), n, K, D];
      const before = prims(p, 'g', args);
      const after = prims(t, 'g', args);
      expect(before.counts.get('log1p')).toBe(n * K);
      expect(after.counts.get('log1p')).toBe(K);
      // Per point and component the sum's d additions (and its index's) are gone: one add for t.
      expect(after.counts.get('add')).toBeLessThanOrEqual(n * K + 2 * K * D + K);
      expect(after.value[0]).toBeCloseTo(before.value[0] as number, 8);
      expect(prims(g.program, 'g.grad', args).counts.get('log1p')).toBe(K);
    }
    const n = 4;
    const got = evalFn(g.program, 'g.grad', [q, xs(n), n, K, D]).nl[0] as number[];
    const h = 1e-6;
    q.forEach((_v, j) => {
      const at = (s: number) => evalFn(p, 'g', [q.map((v, m) => (m === j ? v + s : v)), xs(n), n, K, D]).nl[0] as number;
      expect(got[j]).toBeCloseTo((at(h) - at(-h)) / (2 * h), 6);
    });
  });

  test('the gradient equals central differences', () => {
    const p = program();
    const g = gradOf(p, 'f', { simplify: true });
    const n = 5;
    const got = g.program && (evalFn(g.program, 'f.grad', [q, xs(n), n, K, D]).nl[0] as number[]);
    const h = 1e-6;
    q.forEach((_v, j) => {
      const at = (s: number) => evalFn(p, 'f', [q.map((v, m) => (m === j ? v + s : v)), xs(n), n, K, D]).nl[0] as number;
      expect(got[j]).toBeCloseTo((at(h) - at(-h)) / (2 * h), 6);
    });
  });
});
