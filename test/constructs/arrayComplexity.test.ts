// Reverse mode through reads of arrays by index costs O(1) per read (docs/linear-a.md, "Arrays",
// "Accumulation"): the complexity programs of tensor-language-cheap-gradients.md §5 that apply to
// what exists, measured with the interpreter's work counter. For each, W(grad) ≤ C·(W(f) + the
// inputs' size) at every size from 64 to 4096, and the ratio does not grow; the gradients agree
// with central differences and with one JVP per input element.
import { parseProgram } from '../../transformer/language/parse';
import { evalFn, Value } from '../../transformer/language/interp';
import type { Program } from '../../transformer/ir/syntax';
import { gradOf, jvpOf } from '../gen/drivers';
import { rel } from './reference';
import { emitAndLoad, asReturned } from './emitted';

const source = `
// Σ_i a[i]·a[i] by a loop reading a[i] (the trace-like read: one element per iteration).
def sumsq(a: array<real> ;) -> (real ;) {
  let n = len(a) []
  let zero = 0
  loop(n, a, zero) [|i: real, u: array<real>, acc: real ;| {
    let x = index(u, i) []
    let y = mul(x, x)
    add(acc, y)
  }]
}

// Σ_i a[0]·a[i]: the first element read in every iteration (its cotangent gathers n terms).
def firstTimes(a: array<real> ;) -> (real ;) {
  let n = len(a) []
  let zero = 0
  loop(n, a, zero) [|i: real, u: array<real>, acc: real ;| {
    let z = 0
    let x0 = index(u, z) []
    let x = index(u, i) []
    let y = mul(x0, x)
    add(acc, y)
  }]
}

// P4, skip-one sum: Σ_i (i ≠ k ? x[i] : 0), the read in one branch of a conditional.
def skipOne(x: array<real>, k: real ;) -> (real ;) {
  let n = len(x) []
  let zero = 0
  loop(n, x, k, zero) [|i: real, u: array<real>, kk: real, acc: real ;| {
    let p = eq(i, kk)
    let v = cond(p, u, i) [|u1: array<real>, i1: real ;| {
      drop(u1)
      drop(i1)
      0
    }, |u2: array<real>, i2: real ;| {
      index(u2, i2) []
    }]
    add(acc, v)
  }]
}

// P5, gather in a loop: Σ_k sin(x[idx[k]]).
def gatherLoop(x: array<real>, idx: array<real> ;) -> (real ;) {
  let m = len(idx) []
  let zero = 0
  loop(m, x, idx, zero) [|k: real, u: array<real>, ix: array<real>, acc: real ;| {
    let j = index(ix, k) []
    let v = index(u, j) []
    let s = sin(v)
    add(acc, s)
  }]
}

// A map gathering through an index array: Σ_k x[idx[k]]², the gather inside the map's body.
def gatherMap(x: array<real>, idx: array<real> ;) -> (real ;) {
  let m = len(idx) []
  let g = map(m, idx, x) [|j: real, u: array<real> ;| {
    let v = index(u, j) []
    mul(v, v)
  }]
  sum(g) []
}

// P12, a recurrence with an index access: s ← s·a[t] + x[idx[t]].
def scanGather(a: array<real>, x: array<real>, idx: array<real> ;) -> (real ;) {
  let m = len(idx) []
  let zero = 0
  loop(m, a, x, idx, zero) [|t: real, ua: array<real>, ux: array<real>, ui: array<real>, s: real ;| {
    let at = index(ua, t) []
    let j = index(ui, t) []
    let xj = index(ux, j) []
    let p = mul(s, at)
    add(p, xj)
  }]
}

// P1, trace in a loop, reads inside nested loops: X is n×n row-major, y = Σ_k w[k]·Σ_i X[i·n + i].
def traceLoop(X: array<real>, w: array<real> ;) -> (real ;) {
  let n = len(w) []
  let zero = 0
  loop(n, X, w, n, zero) [|k: real, u: array<real>, ww: array<real>, nn: real, acc: real ;| {
    let z = 0
    let t = loop(nn, u, nn, z) [|i: real, v: array<real>, m: real, s: real ;| {
      let r = mul(i, m)
      let d = add(r, i)
      let x = index(v, d) []
      add(s, x)
    }]
    let wk = index(ww, k) []
    let y = mul(wk, t)
    add(acc, y)
  }]
}

// P2, first row · first column in a loop: y = Σ_k w[k]·Σ_i X[i]·X[i·n].
def rowCol(X: array<real>, w: array<real> ;) -> (real ;) {
  let n = len(w) []
  let zero = 0
  loop(n, X, w, n, zero) [|k: real, u: array<real>, ww: array<real>, nn: real, acc: real ;| {
    let z = 0
    let t = loop(nn, u, nn, z) [|i: real, v: array<real>, m: real, s: real ;| {
      let r = index(v, i) []
      let ci = mul(i, m)
      let c = index(v, ci) []
      let rc = mul(r, c)
      add(s, rc)
    }]
    let wk = index(ww, k) []
    let y = mul(wk, t)
    add(acc, y)
  }]
}
`;

const program = (): Program => parseProgram(source, 'complexity.lina');
const grads = (() => {
  let p = program();
  for (const fn of ['sumsq', 'firstTimes', 'skipOne', 'gatherLoop', 'gatherMap', 'scanGather', 'traceLoop', 'rowCol']) p = gradOf(p, fn, { simplify: true }).program;
  return p;
})();

/** Deterministic inputs: values in (−1, 1), indices spread over the array with repeats. */
const values = (n: number, seed: number): number[] => Array.from({ length: n }, (_, i) => Math.sin(seed + 1.7 * i));
const indices = (m: number, n: number): number[] => Array.from({ length: m }, (_, k) => (k * 7 + 3) % n);

interface Case {
  readonly fn: string;
  /** The arguments at size N (a vector's length; a matrix's side is √N), and which are differentiable arrays. */
  readonly args: (size: number) => Value[];
}

const side = (size: number) => Math.round(Math.sqrt(size));
const CASES: readonly Case[] = [
  { fn: 'sumsq', args: (n) => [values(n, 1)] },
  { fn: 'firstTimes', args: (n) => [values(n, 2)] },
  { fn: 'skipOne', args: (n) => [values(n, 11), 3] },
  { fn: 'gatherLoop', args: (n) => [values(n, 3), indices(n, n)] },
  { fn: 'gatherMap', args: (n) => [values(n, 4), indices(n, n)] },
  { fn: 'scanGather', args: (n) => [values(n, 5).map((v) => 0.5 * v), values(n, 6), indices(n, n)] },
  { fn: 'traceLoop', args: (n) => [values(side(n) ** 2, 7), values(side(n), 8)] },
  { fn: 'rowCol', args: (n) => [values(side(n) ** 2, 9), values(side(n), 10)] },
];

const inputSize = (args: readonly Value[]): number => args.reduce<number>((s, a) => s + (Array.isArray(a) ? a.length : 1), 0);

describe('gradient work is within a constant factor of primal work (sizes 64, 512, 4096)', () => {
  test.each(CASES.map((c) => [c.fn, c] as const))('%s', (_, c) => {
    const ratios = [64, 512, 4096].map((size) => {
      const args = c.args(size);
      const f = evalFn(grads, c.fn, args).work;
      const g = evalFn(grads, `${c.fn}.grad`, args).work;
      return g / (f + inputSize(args));
    });
    for (const r of ratios) expect(r).toBeLessThan(8);
    // Flat: reads cost O(1) each (before, a loop of n reads cost O(n²): the ratio grew with n).
    expect(ratios[2]).toBeLessThan(ratios[0] * 1.2);
  });

  test.each([['sqrt'], [{ every: 16 }]] as const)('checkpointed loops reading an array (%j): the segments accumulate into one array too', (checkpoint) => {
    let p = program();
    for (const fn of ['sumsq', 'gatherLoop']) p = gradOf(p, fn, { simplify: true, checkpoint }).program;
    for (const c of CASES.filter((x) => x.fn === 'sumsq' || x.fn === 'gatherLoop')) {
      const ratios = [64, 512, 4096].map((size) => {
        const args = c.args(size);
        return evalFn(p, `${c.fn}.grad`, args).work / (evalFn(p, c.fn, args).work + inputSize(args));
      });
      for (const r of ratios) expect(r).toBeLessThan(8);
      expect(ratios[2]).toBeLessThan(ratios[0] * 1.2);
    }
  });

  test('sumsq: W(grad) = 9n + 3 exactly (W(f) = 3n; was 1 009 003 at n = 1000)', () => {
    for (const n of [10, 100, 1000]) {
      expect(evalFn(grads, 'sumsq', [values(n, 1)]).work).toBe(3 * n);
      expect(evalFn(grads, 'sumsq.grad', [values(n, 1)]).work).toBe(9 * n + 3);
    }
  });
});

/** The gradient, padded to each array's length (a gradient array may stop early: trailing zeros). */
function gradient(fn: string, args: readonly Value[]): number[][] {
  const r = evalFn(grads, `${fn}.grad`, [...args]).nl;
  return args.map((a, k) => (Array.isArray(a) ? Array.from({ length: a.length }, (_, i) => ((r[k] as number[])[i] as number | undefined) ?? 0) : []));
}

describe('the gradients agree with independent references (small sizes)', () => {
  const differentiable = (c: Case, args: readonly Value[]): number[] =>
    // Index arrays are piecewise constant: only the value arrays are moved.
    args.flatMap((_, k) => (c.fn === 'skipOne' ? (k === 0 ? [k] : []) : c.fn === 'gatherLoop' || c.fn === 'gatherMap' ? (k === 0 ? [k] : []) : c.fn === 'scanGather' ? (k < 2 ? [k] : []) : [k]));

  test.each(CASES.map((c) => [c.fn, c] as const))('%s: central differences and one JVP per element', (_, c) => {
    const args = c.args(9);
    const g = gradient(c.fn, args);
    const jv = jvpOf(program(), c.fn);
    for (const k of differentiable(c, args)) {
      const a = args[k] as number[];
      for (let i = 0; i < a.length; i++) {
        const h = 1e-6;
        const moved = (s: number) => args.map((x, j) => (j === k ? a.map((v, l) => (l === i ? v + s * h : v)) : x));
        const fd = ((evalFn(program(), c.fn, moved(1)).nl[0] as number) - (evalFn(program(), c.fn, moved(-1)).nl[0] as number)) / (2 * h);
        expect(rel(g[k][i], fd)).toBeLessThan(1e-6);
        // The JVP along element i of array k (other tangents zero).
        const dirs = args.map((x, j) => (Array.isArray(x) ? x.map((_, l) => (j === k && l === i ? 1 : 0)) : 0));
        const jvp = evalFn(jv.program, jv.jvp, args, dirs).lin[0] as number;
        expect(rel(g[k][i], jvp)).toBeLessThan(1e-12);
      }
    }
  });

  test('gather worked example: x = [1, 2, 3], idx = [2, 2, 0]: Σ x[idx]² has gradient [2, 0, 12]', () => {
    expect(
      gradient('gatherMap', [
        [1, 2, 3],
        [2, 2, 0],
      ])[0],
    ).toEqual([2, 0, 12]);
    expect(
      gradient('gatherLoop', [
        [1, 2, 3],
        [2, 2, 0],
      ])[0],
    ).toEqual([Math.cos(1), 0, 2 * Math.cos(3)]);
  });
});

describe('emitted TypeScript', () => {
  test.each(CASES.map((c) => [c.fn, c] as const))('%s: the emitted gradient agrees with the interpreter and leaves its inputs unchanged', (_, c) => {
    const { fns } = emitAndLoad(grads);
    const plain = (v: unknown): unknown => (v instanceof Float64Array ? [...v] : Array.isArray(v) ? v.map(plain) : v);
    for (const size of [9, 64]) {
      const args = c.args(size);
      const inputs = args.map((a) => (Array.isArray(a) ? Float64Array.from(a as number[]) : a));
      const got = fns.get(`${c.fn}.grad`)!(...inputs);
      expect(plain(got)).toEqual(plain(asReturned(evalFn(grads, `${c.fn}.grad`, args))));
      expect(inputs.map(plain)).toEqual(args);
    }
  });
});
