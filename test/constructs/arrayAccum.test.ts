// In-place accumulation of reads' cotangents (constructs/array/accum.ts; docs/linear-a.md,
// "Arrays", "Accumulation"): laccum's value, work and adjoint (the dot-product test, T∘T = id),
// the simplifier's fusions, gathers inside map, and the safety of updating in place (a caller's
// cotangent, a loop invariant and a fanned-out array are never changed), in the interpreter and
// in the emitted TypeScript.
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import { evalFn, Value } from '../../transformer/language/interp';
import { eraseProgram } from '../../transformer/ad/erase';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { emitAndLoad, asReturned } from './emitted';
import { gradOf, hvpOf, jvpOf, transposeOf, vjpOf } from '../gen/drivers';
import { rel } from './reference';

const plain = (v: unknown): unknown => (v instanceof Float64Array ? [...v] : Array.isArray(v) ? v.map(plain) : v);
const pad = (v: Value, n: number): number[] => Array.from({ length: n }, (_, i) => ((v as number[])[i] as number | undefined) ?? 0);
const inner = (a: Value, b: Value, n: number): number => (typeof a === 'number' ? a * (b as number) : pad(a, n).reduce((s, v, i) => s + v * pad(b, n)[i], 0));

const LINEAR = `
def acc(i: real, w: array<real> ; a: array<real>, y: real) -> (; array<real>) {
  laccum(i, w ; a, y) []
}
def accn(i: real, n: real ; a: array<real>, y: real) -> (; array<real>) {
  laccum(i, n ; a, y) []
}
// Two reads of one array: the fan-in of their one-hots.
def two(i: real, j: real, w: array<real> ; a: array<real>) -> (; real) {
  let (; a1, a2) = dup(a)
  let (; x) = lindex(i, w ; a1) []
  let (; y) = lindex(j, w ; a2) []
  ladd(; x, y)
}
`;

describe('laccum', () => {
  test('value ā + e_i·ẏ, dense of the witness length (an array or a length); work 1 per update plus the one dense copy', () => {
    const p = parseProgram(LINEAR);
    expect(typeErrors(p)).toEqual([]);
    expect(evalFn(p, 'acc', [1, [0, 0, 0, 0]], [[5], 2])).toEqual({ nl: [], lin: [[5, 2, 0, 0]], work: 5 });
    expect(evalFn(p, 'accn', [3, 4], [[], 2]).lin[0]).toEqual([0, 0, 0, 2]);
    expect(() => evalFn(p, 'acc', [4, [0, 0, 0, 0]], [[], 2])).toThrow(/laccum: index 4 outside an array of 4/);
  });

  test.each([
    ['acc', [2, [9, 9, 9, 9]], [[0.5, -1, 3], 0.7], [0.25, -1, 3, 2], 4],
    ['accn', [0, 3], [[], 1.5], [2, 3, 4], 3],
    ['two', [1, 1, [0, 0, 0]], [[0.5, -1, 3]], 0.7, 3],
  ] as [string, Value[], Value[], Value, number][])('%s: the dot-product test, and T∘T = id', (fn, nl, xd, yb, n) => {
    const t = transposeOf(parseProgram(LINEAR), fn, { simplify: true });
    const lx = evalFn(t.program, fn, nl, xd).lin[0];
    const ty = evalFn(t.program, `${fn}.T`, nl, [yb]).lin;
    expect(
      rel(
        inner(lx, yb, n),
        xd.reduce<number>((s, x, k) => s + inner(x, ty[k], n), 0),
      ),
    ).toBeLessThan(1e-12);
    const tt = transposeOf(t.program, `${fn}.T`, { simplify: true });
    expect(pad(evalFn(tt.program, `${fn}.T.T`, nl, xd).lin[0], n)).toEqual(pad(lx, n));
  });

  test('the fan-in of two reads is an accumulation into the first one-hot (no arrays added)', () => {
    const t = transposeOf(parseProgram(LINEAR), 'two', { simplify: true });
    const text = printProgram(t.program).split('def two.T')[1];
    expect(text.match(/laccum\(/g)).toHaveLength(1);
    expect(text).not.toContain('ladd');
    expect(evalFn(t.program, 'two.T', [1, 1, [0, 0, 0]], [2]).lin[0]).toEqual([0, 4, 0]);
  });

  test('second order through accumulations: hvp of Σ_i a[0]·a[i] by a loop is the closed form', () => {
    const src = `def f(a: array<real> ;) -> (real ;) {
  let n = len(a) []
  let zero = 0
  loop(n, a, zero) [|i: real, u: array<real>, s: real ;| {
    let z = 0
    let x0 = index(u, z) []
    let x = index(u, i) []
    let y = mul(x0, x)
    add(s, y)
  }]
}`;
    // f = a0·Σ a_i, so H·v = (Σ v_i + v_0, v_0, …, v_0) + e_0·v_0.
    const h = hvpOf(parseProgram(src), 'f', { simplify: true });
    const a = [0.5, -1, 2, 3];
    const v = [1, 2, -1, 0.5];
    const hv = pad(evalFn(h.program, h.hvp, [a, v]).nl[0], 4);
    const sum = v.reduce((s, x) => s + x, 0);
    expect(hv.map((x) => +x.toFixed(12))).toEqual([sum + v[0], v[0], v[0], v[0]]);
  });
});

const PROGRAMS = `
def gather(x: array<real>, idx: array<real>, c: real ;) -> (array<real> ;) {
  let m = len(idx) []
  map(m, idx, x, c) [|j: real, u: array<real>, k: real ;| {
    let v = index(u, j) []
    let s = sin(v)
    mul(s, k)
  }]
}
def gatherSum(x: array<real>, idx: array<real>, c: real ;) -> (real ;) {
  let g = gather(x, idx, c)
  sum(g) []
}
// A caller's cotangent ȳ and the result read together: f(a) = (a, a[1]·a[1]).
def both(a: array<real> ;) -> (array<real>, real ;) {
  let one = 1
  let x = index(a, one) []
  let y = mul(x, x)
  (a, y ;)
}
`;

describe('gathers inside map', () => {
  test('T of a map reading a free array is a loop accumulating its cotangent in place; values against central differences', () => {
    const v = vjpOf(parseProgram(PROGRAMS), 'gather', { simplify: true });
    const bwd = printProgram(v.program).split('def gather.bwd(')[1].split('\ndef ')[0];
    expect(bwd).toContain('loop(');
    expect(bwd).toMatch(/laccum\(j, u ; /);
    const g = gradOf(parseProgram(PROGRAMS), 'gatherSum', { simplify: true });
    const x = [0.3, -1.2, 2, 0.7];
    const idx = [3, 0, 3, 3, 1];
    const [xBar, , cBar] = evalFn(g.program, g.grad, [x, idx, 1.5]).nl as [number[], number[], number];
    const f = (xs: number[], c: number) => evalFn(g.program, 'gatherSum', [xs, idx, c]).nl[0] as number;
    const h = 1e-6;
    x.forEach((_, i) => {
      const fd =
        (f(
          x.map((v, k) => (k === i ? v + h : v)),
          1.5,
        ) -
          f(
            x.map((v, k) => (k === i ? v - h : v)),
            1.5,
          )) /
        (2 * h);
      expect(rel(pad(xBar, 4)[i], fd)).toBeLessThan(1e-7);
    });
    expect(rel(cBar, (f(x, 1.5 + h) - f(x, 1.5 - h)) / (2 * h))).toBeLessThan(1e-7);
    // The scatter-add equals the sum of the per-element contributions: x̄_k = c·Σ_{j: idx_j = k} cos x_k.
    expect(pad(xBar, 4)).toEqual(x.map((v, k) => idx.reduce((s, ix) => s + (ix === k ? 1.5 * Math.cos(v) : 0), 0)));
  });

  test('second order through the scatter-add: hvp of Σ_k x[idx_k]² is 2·count_k·v_k', () => {
    const src = `def f(x: array<real>, idx: array<real> ;) -> (real ;) {
  let m = len(idx) []
  let g = map(m, idx, x) [|j: real, u: array<real> ;| {
    let v = index(u, j) []
    mul(v, v)
  }]
  sum(g) []
}`;
    const h = hvpOf(parseProgram(src), 'f', { simplify: true });
    const x = [0.5, -1, 2, 3];
    const idx = [3, 0, 3, 1, 3];
    const v = [1, 2, -1, 0.5];
    const hv = pad(evalFn(h.program, h.hvp, [x, idx, v, [0, 0, 0, 0, 0]]).nl[0], 4);
    const count = x.map((_, k) => idx.filter((i) => i === k).length);
    expect(hv.map((z) => z + 0)).toEqual(v.map((vk, k) => 2 * count[k] * vk + 0));
  });

  test('a map with its index reading the array it maps: Σ_i x_i·x_{n−1−i}, gradient 2·reverse(x)', () => {
    const src = `def f(x: array<real> ;) -> (real ;) {
  let n = len(x) []
  let one = 1
  let last = sub(n, one)
  let p = map(n, x, x, last) [|i: real, xi: real, u: array<real>, l: real ;| {
    let j = sub(l, i)
    let y = index(u, j) []
    mul(xi, y)
  }]
  sum(p) []
}`;
    const g = gradOf(parseProgram(src), 'f', { simplify: true });
    const { fns } = emitAndLoad(g.program);
    for (const x of [[], [2], [0.5, -1, 2, 3, 7]]) {
      const want = [...x].reverse().map((v) => 2 * v);
      expect(pad(evalFn(g.program, g.grad, [x]).nl[0], x.length)).toEqual(want);
      expect(pad(plain(fns.get(g.grad)!(Float64Array.from(x))) as number[], x.length)).toEqual(want);
    }
    expect(printProgram(g.program).split('def f.bwd(')[1]).toMatch(/laccum\(j, u/);
  });

  test('the JVP agrees with the gradient along every direction of x', () => {
    const g = gradOf(parseProgram(PROGRAMS), 'gatherSum', { simplify: true });
    const j = jvpOf(parseProgram(PROGRAMS), 'gatherSum');
    const x = [0.3, -1.2, 2];
    const idx = [2, 2, 0, 1];
    const xBar = pad(evalFn(g.program, g.grad, [x, idx, 0.5]).nl[0], 3);
    x.forEach((_, i) => {
      const d = evalFn(j.program, j.jvp, [x, idx, 0.5], [x.map((_, k) => (k === i ? 1 : 0)), [0, 0, 0, 0], 0]).lin[0] as number;
      expect(rel(xBar[i], d)).toBeLessThan(1e-12);
    });
  });
});

describe('updating in place is safe', () => {
  test("a caller's cotangent array is never changed (interpreter and emitted code)", () => {
    const v = vjpOf(parseProgram(PROGRAMS), 'both', { simplify: true });
    // The bwd accumulates a[1]'s cotangent into the array's cotangent ȳ the caller handed in.
    expect(printProgram(v.program).split('def both.bwd(')[1]).toContain('laccum(');
    const tape = evalFn(v.program, v.fwd, [[1, 3, 5]]).nl[2];
    const yBar = [10, 20, 30];
    expect(evalFn(v.program, v.bwd, [tape], [yBar, 1]).lin[0]).toEqual([10, 26, 30]);
    expect(yBar).toEqual([10, 20, 30]);
    const { fns } = emitAndLoad(v.program);
    const yBarF = Float64Array.from([10, 20, 30]);
    const emittedTape = fns.get(v.fwd)!(Float64Array.from([1, 3, 5])) as unknown[];
    expect(plain(fns.get(v.bwd)!(emittedTape[2], yBarF, 1))).toEqual([10, 26, 30]);
    expect([...yBarF]).toEqual([10, 20, 30]);
  });

  // Hand-written: an array accumulated by this function, then a loop invariant whose every
  // iteration adds to it (a copy each time: the next iteration must see the invariant unchanged),
  // and a dup of it, one half then accumulated into, the other read.
  const HAND = `
def inv(w: array<real> ; a: array<real>) -> (; real) {
  let n = len(w) []
  let z = 0
  let (; one) = zero(real)
  let (; b) = laccum(z, w ; a, one) []
  let (; s0) = zero(real)
  loop(n, w ; b, s0) [|i: real, v: array<real> ; u: array<real>, s: real| {
    drop(i)
    let z0 = 0
    let (; u2) = laccum(z0, v ; u, s) []
    let (; t) = lindex(z0, v ; u2) []
    (; t)
  }]
}
def fan(w: array<real> ; a: array<real>, y: real) -> (; array<real>, real) {
  let z = 0
  let (; zr) = zero(real)
  let (; b) = laccum(z, w ; a, zr) []
  let (; b1, b2) = dup(b)
  let (; c) = laccum(z, w ; b1, y) []
  let (; r) = lindex(z, w ; b2) []
  (; c, r)
}
`;
  test('a loop invariant and a fanned-out array are copied before an update, in the interpreter and in emitted code', () => {
    const p = annotateTypes(parseProgram(HAND));
    // inv: s ← (u + e_0·s)[0] = a_0 + s, so s = n·a_0; were u updated in place, s would double.
    const want = (a: number[]) => a.length * a[0];
    const a = [1, 2, 3, 4];
    const r = evalFn(p, 'inv', [[0, 0, 0, 0]], [a]).lin[0] as number;
    expect(r).toBe(want(a));
    expect(evalFn(p, 'fan', [[0, 0]], [[5, 6], 2]).lin).toEqual([[7, 6], 5]);
    const { fns } = emitAndLoad(p);
    expect(fns.get('inv')!(new Float64Array(4), Float64Array.from(a))).toBe(want(a));
    expect(plain(fns.get('fan')!(new Float64Array(2), Float64Array.from([5, 6]), 2))).toEqual([[7, 6], 5]);
    // Erased (dup becomes share, which releases the array), the same values.
    const e = annotateTypes(eraseProgram(annotateTypes(parseProgram(HAND)), ['fan', 'inv']));
    const erased = printProgram(e).split('def fan.E')[1];
    expect(erased).toContain('share(b) []');
    expect(evalFn(e, 'fan.E', [[0, 0], [5, 6], 2]).nl).toEqual([[7, 6], 5]);
    expect(evalFn(e, 'inv.E', [[0, 0, 0, 0], a]).nl).toEqual([want(a)]);
    const emitted = emitAndLoad(e).fns;
    expect(plain(emitted.get('fan.E')!(new Float64Array(2), Float64Array.from([5, 6]), 2))).toEqual([[7, 6], 5]);
    expect(emitted.get('inv.E')!(new Float64Array(4), Float64Array.from(a))).toBe(want(a));
  });
});

describe('emitted TypeScript agrees with the interpreter (gathers, accumulations)', () => {
  test('gather, gatherSum and both, with their derivatives', () => {
    let p = parseProgram(PROGRAMS);
    for (const fn of ['gather', 'both']) p = vjpOf(p, fn, { simplify: true }).program;
    p = gradOf(p, 'gatherSum', { simplify: true }).program;
    const { code, fns } = emitAndLoad(p);
    expect(code).toContain('const $own = new Set();');
    const F = (xs: number[]) => Float64Array.from(xs);
    const run = (fn: string, nl: unknown[], lin: unknown[], interp: Value[], interpLin: Value[] = []) => {
      expect([fn, plain(fns.get(fn)!(...nl, ...lin))]).toEqual([fn, plain(asReturned(evalFn(p, fn, interp, interpLin)))]);
    };
    for (const [x, idx] of [
      [
        [0.3, -1.2, 2, 0.7],
        [3, 0, 3, 3, 1],
      ],
      [[1.5], []],
      [[], []],
    ] as [number[], number[]][]) {
      run('gather', [F(x), F(idx), 1.5], [], [x, idx, 1.5]);
      run('gatherSum.grad', [F(x), F(idx), 1.5], [], [x, idx, 1.5]);
      const tape = evalFn(p, 'gather.fwd', [x, idx, 1.5]).nl[1];
      const yb = idx.map((_, k) => k + 0.5);
      run('gather.bwd', [tape], [F(yb)], [tape], [yb]);
    }
  });
});
