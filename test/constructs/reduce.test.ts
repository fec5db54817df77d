// scan and reduce with operator bodies (examples/ir/combinators.lina): the worked examples of
// array-adjoints-map-reduce-scan.md §5 with their exact numbers, gradients against central
// differences, the dot-product test and T∘T = id on the linear recurrences lscan/lfold/lrscan/
// lrfold, unzipping against J, work bounded by a constant times the primal's at n = 64 and 4096,
// and the emitted TypeScript against the interpreter.
import * as fs from 'fs';
import * as path from 'path';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { evalFn, Value } from '../../transformer/language/interp';
import { findDef } from '../../transformer/ir/program';
import type { Program } from '../../transformer/ir/syntax';
import { emitAndLoad, asReturned } from './emitted';
import { gradOf, hvpOf, jvpOf, transposeOf, vjpOf } from '../gen/drivers';
import { expectUnzipSplitsJvp, plain, rel } from './reference';

const source = fs.readFileSync(path.join(__dirname, '../../examples/ir/combinators.lina'), 'utf8');
const program = () => parseProgram(source, 'combinators.lina');

const pad = (v: Value, n: number): number[] => Array.from({ length: n }, (_, i) => ((v as number[])[i] as number | undefined) ?? 0);
/** ⟨a, b⟩ over reals and arrays of reals (sparse arrays padded with zeros). */
function inner(a: readonly Value[], b: readonly Value[]): number {
  return a.reduce<number>((s, x, k) => {
    const y = b[k];
    if (!Array.isArray(x) && !Array.isArray(y)) return s + (x as number) * (y as number);
    const n = Math.max((x as Value[]).length, (y as Value[]).length);
    return s + pad(x, n).reduce((t, v, i) => t + v * pad(y, n)[i], 0);
  }, 0);
}

/** f.fwd then f.bwd with the cotangents ȳ: the gradient of ⟨ȳ, f⟩. */
function vjp(p: Program, fn: string, x: Value[], yb: Value[]): Value[] {
  const v = vjpOf(p, fn);
  const f = evalFn(v.program, v.fwd, x);
  return evalFn(v.program, v.bwd, [f.nl[yb.length]], yb).lin;
}

describe('§5 worked examples, exact', () => {
  test('1: reduce + of [1, 2, 3, 4] is 10, gradient [1, 1, 1, 1] (the broadcast)', () => {
    expect(evalFn(program(), 'rsum', [[1, 2, 3, 4]]).nl).toEqual([10]);
    expect(vjp(program(), 'rsum', [[1, 2, 3, 4]], [1])).toEqual([[1, 1, 1, 1]]);
  });

  test('2–4: reduce * with no zero, one zero and two zeros: exact, no division, no NaN', () => {
    const p = program();
    expect(evalFn(p, 'rprod', [[2, 3, 4]]).nl).toEqual([24]);
    expect(vjp(p, 'rprod', [[2, 3, 4]], [1])).toEqual([[12, 8, 6]]);
    const j = jvpOf(p, 'rprod');
    expect(evalFn(j.program, j.jvp, [[2, 3, 4]], [[1, 0, 0]]).lin).toEqual([12]);
    expect(evalFn(p, 'rprod', [[2, 0, 4]]).nl).toEqual([0]);
    expect(vjp(p, 'rprod', [[2, 0, 4]], [1])).toEqual([[0, 8, 0]]);
    expect(evalFn(p, 'rprod', [[0, 3, 0]]).nl).toEqual([0]);
    expect(vjp(p, 'rprod', [[0, 3, 0]], [1])).toEqual([[0, 0, 0]]);
  });

  test('5: reduce min with a tie: [3, 1, 2, 1] gives 1, gradient [0, 1, 0, 0] (the lowest index wins)', () => {
    expect(evalFn(program(), 'rmin', [[3, 1, 2, 1]]).nl).toEqual([1]);
    // One update at the arg-minimum: a one-hot, sparse at the end (the missing elements are zeros).
    const [g] = vjp(program(), 'rmin', [[3, 1, 2, 1]], [1]);
    expect(pad(g, 4)).toEqual([0, 1, 0, 0]);
    expect((g as number[]).length).toBe(2);
    // The neutral element wins a tie with the elements (it is the accumulator), as min's own JVP decides.
    const withE = parseProgram(`def f(a: array<real>, e: real ;) -> (real ;) {\n  let n = len(a) []\n  reduce(n, e, a) [|u: real, v: real ;| {\n    max(u, v)\n  }]\n}`);
    expect(vjp(withE, 'f', [[3, 5, 5], 5], [1]).map((v) => (Array.isArray(v) ? pad(v, 3) : v))).toEqual([[0, 0, 0], 1]);
    expect(vjp(withE, 'f', [[3, 5, 7, 7], 5], [1]).map((v) => (Array.isArray(v) ? pad(v, 4) : v))).toEqual([[0, 0, 1, 0], 0]);
    expect(vjp(withE, 'f', [[], 5], [1]).map((v) => (Array.isArray(v) ? pad(v, 0) : v))).toEqual([[], 1]);
  });

  test('5, over no elements: the gradient of min/max is as long as the input (0), not a one-hot at index 0', () => {
    // reduce(n, Infinity, a)[min] of [] is Infinity; no element won, so no element gets a cotangent.
    for (const fn of ['rmin']) {
      const [g] = vjp(program(), fn, [[]], [1]);
      expect(g).toEqual([]);
      const gr = gradOf(program(), fn, { simplify: true });
      expect(evalFn(gr.program, gr.grad, [[]]).nl).toEqual([[]]);
    }
    const withE = parseProgram(`def f(a: array<real>, e: real ;) -> (real ;) {\n  let n = len(a) []\n  reduce(n, e, a) [|u: real, v: real ;| {\n    max(u, v)\n  }]\n}`);
    expect(vjp(withE, 'f', [[], 5], [1])).toEqual([[], 1]);
    const j = jvpOf(withE, 'f');
    expect(evalFn(j.program, j.jvp, [[], 5], [[], 2]).lin).toEqual([2]);
    // With elements the one-hot stays within the array, and second order goes through.
    expect(pad(vjp(withE, 'f', [[3, 7, 7], 5], [1])[0], 3)).toEqual([0, 1, 0]);
    const h = hvpOf(withE, 'f');
    expect(evalFn(h.program, h.hvp, [[], 5, [], 1]).nl).toEqual([[], 0]);
  });

  test('5, the special cases: the gradient of min/max costs O(1) after the forward pass, of + the broadcast only', () => {
    const p = program();
    const bwdWork = (fn: string, n: number) => {
      const v = vjpOf(p, fn);
      const x = [Array.from({ length: n }, (_, i) => Math.cos(i))];
      const f = evalFn(v.program, v.fwd, x);
      return evalFn(v.program, v.bwd, [f.nl[1]], [1]).work;
    };
    expect(bwdWork('rmin', 4096)).toBe(bwdWork('rmin', 64));
    expect(bwdWork('rsum', 4096)).toBe(4096);
    expect(printProgram(vjpOf(p, 'rsum').program)).toContain('lfill(');
    expect(printProgram(vjpOf(p, 'rmin').program)).toContain('lonehot(');
  });

  test('6: the non-commutative reduce of affine maps gives (3, 3); ȳ = (1, 1) gives ā = [(1.5, 1.5), (1.5, 0.5), (8, 1)]', () => {
    const x = [
      [2, 3, 0.5],
      [1, -1, 2],
    ];
    expect(evalFn(program(), 'affine', x).nl).toEqual([3, 3]);
    expect(vjp(program(), 'affine', x, [1, 1])).toEqual([
      [1.5, 1.5, 8],
      [1.5, 0.5, 1],
    ]);
    // The operands swapped in the body (⊙ flipped) give a different answer: the order is kept.
    const flipped = parseProgram(
      source.replace(
        'let ac = mul(a, c)\n    let bc = mul(b, c)\n    let bcd = add(bc, d)\n    (ac, bcd ;)\n  }]\n}\n\n// Prefix sums',
        'let ac = mul(c, a)\n    let bc = mul(d, a)\n    let bcd = add(bc, b)\n    (ac, bcd ;)\n  }]\n}\n\n// Prefix sums',
      ),
    );
    expect(evalFn(flipped, 'affine', x).nl).not.toEqual([3, 3]);
  });

  test('7: scan + of [1, 2, 3, 4] is [1, 3, 6, 10]; its transpose is the suffix sums', () => {
    const p = program();
    expect(evalFn(p, 'cumsum', [[1, 2, 3, 4]]).nl).toEqual([[1, 3, 6, 10]]);
    expect(vjp(p, 'cumsum', [[1, 2, 3, 4]], [[1, 1, 1, 1]])).toEqual([[4, 3, 2, 1]]);
    expect(vjp(p, 'cumsum', [[1, 2, 3, 4]], [[0, 0, 0, 1]])).toEqual([[1, 1, 1, 1]]);
    expect(vjp(p, 'cumsum', [[1, 2, 3, 4]], [[1, 0, 0, 0]])).toEqual([[1, 0, 0, 0]]);
  });

  test('8: scan * of [2, 3, 4] is [2, 6, 24]; r̄s = [1, 1, 1] gives [16, 10, 6], ẋ = [1, 1, 1] gives [1, 5, 26]', () => {
    const p = program();
    expect(evalFn(p, 'cumprod', [[2, 3, 4]]).nl).toEqual([[2, 6, 24]]);
    expect(vjp(p, 'cumprod', [[2, 3, 4]], [[1, 1, 1]])).toEqual([[16, 10, 6]]);
    const j = jvpOf(p, 'cumprod');
    expect(evalFn(j.program, j.jvp, [[2, 3, 4]], [[1, 1, 1]]).lin).toEqual([[1, 5, 26]]);
    // the dot test of the notes: 1 + 5 + 26 = 32 = 16 + 10 + 6
    expect(1 + 5 + 26).toBe(16 + 10 + 6);
  });

  test('9: the general scan of affine maps: [(2, 1), (6, 2), (3, 3)]; all (1, 1) gives ā = [(5.5, 5.5), (4.5, 1.5), (8, 1)]', () => {
    const x = [
      [2, 3, 0.5],
      [1, -1, 2],
    ];
    expect(evalFn(program(), 'affineScan', x).nl).toEqual([
      [2, 6, 3],
      [1, 2, 3],
    ]);
    expect(
      vjp(program(), 'affineScan', x, [
        [1, 1, 1],
        [1, 1, 1],
      ]),
    ).toEqual([
      [5.5, 4.5, 8],
      [5.5, 1.5, 1],
    ]);
  });
});

describe('checker and run-time errors', () => {
  const wrap = (body: string) => `def f(a: array<real>, x: real ;) -> (real ;) {\n  let n = len(a) []\n${body}\n}`;
  test.each([
    [
      'an even number of operands',
      wrap('  drop(x)\n  reduce(n, a) [|u: real ;| {\n    (u ;)\n  }]'),
      'reduce takes its length n, then k neutral elements and k arrays (k ≥ 1), got 2 non-linear operands',
    ],
    [
      'an array of another type than its neutral element',
      wrap('  let t = true\n  drop(x)\n  reduce(n, t, a) [|u: bool, v: bool ;| {\n    drop(v)\n    (u ;)\n  }]'),
      "reduce: operand 2 must be an array of the neutral element t's type array<bool>, got array<real>",
    ],
    ['a body with too few parameters', wrap('  reduce(n, x, a) [|u: real ;| {\n    (u ;)\n  }]'), 'the body of reduce takes 1 accumulator(s) and 1 element(s), got 1 non-linear parameters'],
  ])('%s', (_name, text, message) => {
    expect(typeErrors(parseProgram(text, 't.lina')).join('\n')).toContain(message);
  });

  test('the arrays must hold n elements; n must be a non-negative integer', () => {
    const p = program();
    expect(() =>
      evalFn(p, 'affine', [
        [1, 2, 3],
        [1, 2],
      ]),
    ).toThrow('reduce: the array q has 2 elements, the length is 3');
    const q = parseProgram(wrap('  let m = 2.5\n  drop(n)\n  reduce(m, x, a) [|u: real, v: real ;| {\n    add(u, v)\n  }]'));
    expect(() => evalFn(q, 'f', [[1, 2], 0])).toThrow('reduce: the length 2.5 is not a non-negative integer');
  });

  test('the example file has no type errors and prints back to itself', () => {
    const p = program();
    expect(typeErrors(p)).toEqual([]);
    const text = printProgram(p);
    expect(printProgram(parseProgram(text))).toBe(text);
  });
});

/** Central differences of ⟨ȳ, f(x)⟩ in every element of every array parameter. */
function numericVjp(p: Program, fn: string, x: Value[], yb: Value[], h = 1e-6): number[][] {
  const at = (k: number, i: number, s: number): number => {
    const y = x.map((w) => [...(w as number[])]);
    y[k][i] += s * h;
    return inner(evalFn(p, fn, y).nl, yb);
  };
  return x.map((v, k) => (v as number[]).map((_, i) => (at(k, i, 1) - at(k, i, -1)) / (2 * h)));
}

const POINTS: [string, number[][]][] = [
  ['rsum', [[1.5, -2, 0.25]]],
  ['rsum', [[]]],
  ['rprod', [[1.5, -2, 0.25, 3]]],
  ['rprod', [[0.7]]],
  ['rprod', [[]]],
  ['rmin', [[1.5, -2, 0.25, 3]]],
  [
    'affine',
    [
      [1.5, -2, 0.25],
      [0.5, 1, -1],
    ],
  ],
  ['affine', [[], []]],
  ['cumsum', [[1.5, -2, 0.25]]],
  ['cumprod', [[1.5, -2, 0.25, 0.5]]],
  ['cumprod', [[0.3]]],
  [
    'affineScan',
    [
      [1.5, -2, 0.25],
      [0.5, 1, -1],
    ],
  ],
  ['softScan', [[0.5, -1, 2, 0.1]]],
  ['softScan', [[]]],
];

const seedFor = (p: Program, fn: string, x: Value[]): Value[] => evalFn(p, fn, x).nl.map((y, j) => (Array.isArray(y) ? y.map((_, i) => Math.cos(i + 2 * j + 1)) : Math.cos(j + 1)));

describe('derivatives against central differences', () => {
  test.each(POINTS)('%s at %j: the VJP and the JVP', (fn, x) => {
    const p = program();
    const yb = seedFor(p, fn, x);
    const got = vjp(p, fn, x, yb);
    const want = numericVjp(p, fn, x, yb);
    got.forEach((g, k) => pad(g, want[k].length).forEach((v, i) => expect(rel(v, want[k][i])).toBeLessThan(1e-6)));
    // JVP along a direction: ⟨ȳ, J ẋ⟩ = ⟨Jᵀ ȳ, ẋ⟩ = the VJP's projection.
    const j = jvpOf(p, fn);
    const xd = x.map((a) => a.map((_, i) => Math.sin(i + 1)));
    const r = evalFn(j.program, j.jvp, x, xd);
    expect(r.nl).toEqual(evalFn(p, fn, x).nl);
    expect(rel(inner(r.lin, yb), inner(got, xd))).toBeLessThan(1e-12);
  });

  test.each(POINTS)('%s at %j: unzipping, W(fwd) + W(lin) = W(jvp)', (fn, x) => {
    expectUnzipSplitsJvp(
      program(),
      fn,
      x,
      x.map((a) => a.map((_, i) => 0.5 + i)),
    );
  });

  test('grad of a real-valued fold equals the VJP with ȳ = 1', () => {
    const g = gradOf(program(), 'rprod', { simplify: true });
    expect(evalFn(g.program, g.grad, [[2, 3, 4]]).nl).toEqual([[12, 8, 6]]);
  });
});

const LINEAR = `
def ls(n: real, s: array<real> ; c: real, x: array<real>) -> (; array<real>) {
  lscan(n, s ; c, x) [|w: real ; a: real, b: real| {
    let (; p) = scale(w ; a)
    ladd(; p, b)
  }]
}
def lf(n: real, s: array<real> ; c: real, x: array<real>) -> (; real) {
  lfold(n, s ; c, x) [|w: real ; a: real, b: real| {
    let (; p) = scale(w ; a)
    ladd(; p, b)
  }]
}
def lf2(n: real, s: array<real>, t: array<real> ; c: real, d: real, x: array<real>, y: array<real>) -> (; real, real) {
  lfold(n, s, t ; c, d, x, y) [|w: real, v: real ; a: real, b: real, e: real, f: real| {
    let (; p) = scale(w ; a)
    let (; b1, b2) = dup(b)
    let (; q) = scale(v ; b1)
    let (; r) = ladd(; p, e)
    let (; u) = ladd(; q, f)
    let (; z) = ladd(; u, b2)
    (; r, z)
  }]
}
`;

describe('the linear recurrences', () => {
  const arr = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));
  test.each([0, 1, 4])('lscan, lfold (k = 1, 2): the dot-product test with their transposes lrscan, lrfold, and T∘T = id; n = %d', (n) => {
    const cases: [string, Value[], Value[], Value[]][] = [
      ['ls', [n, arr(n, (i) => 1 + 0.5 * i)], [0.7, arr(n, (i) => Math.sin(i + 1))], [arr(n, (i) => Math.cos(i))]],
      ['lf', [n, arr(n, (i) => 1 - 0.3 * i)], [0.7, arr(n, (i) => Math.sin(i + 1))], [1.3]],
      ['lf2', [n, arr(n, (i) => 1 - 0.3 * i), arr(n, (i) => 0.5 + i)], [0.7, -0.2, arr(n, (i) => Math.sin(i + 1)), arr(n, (i) => i - 1)], [1.3, -0.4]],
    ];
    for (const [fn, nl, xd, yb] of cases) {
      const t = transposeOf(parseProgram(LINEAR), fn);
      expect(printProgram(t.program)).toContain(fn === 'ls' ? 'lrscan(' : 'lrfold(');
      const lx = evalFn(t.program, fn, nl, xd).lin;
      const ty = evalFn(t.program, `${fn}.T`, nl, yb).lin;
      expect(rel(inner(lx, yb), inner(ty, xd))).toBeLessThan(1e-12);
      const tt = transposeOf(t.program, `${fn}.T`);
      expect(printProgram(tt.program)).toContain(fn === 'ls' ? 'lscan(' : 'lfold(');
      const back = evalFn(tt.program, `${fn}.T.T`, nl, xd).lin;
      back.forEach((v, k) => expect(inner([v], [v])).toBeCloseTo(inner([lx[k]], [lx[k]]), 12));
      expect(plain(back)).toEqual(plain(lx));
    }
  });

  test('work: a step costs its body; lrscan adds the step cotangent (k per step)', () => {
    const t = transposeOf(parseProgram(LINEAR), 'ls');
    const n = 100;
    expect(evalFn(t.program, 'ls', [n, arr(n, () => 2)], [1, arr(n, () => 1)]).work).toBe(2 * n);
    // Bᵀ is one scale per step (ḃ's cotangent is the carried one itself), plus the addition of ȳ_i.
    expect(evalFn(t.program, 'ls.T', [n, arr(n, () => 2)], [arr(n, () => 1)]).work).toBe(2 * n);
  });
});

describe('work: W(grad) ≤ c·W(f), the same constant at n = 64 and 4096', () => {
  test.each(['rsum', 'rprod', 'rmin', 'affine', 'cumsum', 'cumprod', 'affineScan', 'softScan'])('%s', (fn) => {
    const p = program();
    const ratios = [64, 4096].map((n) => {
      const x = findDef(p, fn).nlParams.map((_, k) => arr(n, (i) => 1 + 0.001 * ((i * 7 + k) % 13)));
      const wf = evalFn(p, fn, x).work;
      const v = vjpOf(p, fn);
      const f = evalFn(v.program, v.fwd, x);
      const yb = seedFor(p, fn, x);
      const b = evalFn(v.program, v.bwd, [f.nl[yb.length]], yb);
      return (f.work + b.work) / wf;
    });
    expect(ratios[0]).toBeLessThan(16);
    expect(ratios[1]).toBeLessThan(16);
    expect(ratios[1]).toBeLessThanOrEqual(ratios[0] * 1.05);
  });
  const arr = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));
});

describe('emitted TypeScript', () => {
  test('the primal, jvp, fwd, lin, bwd and grad of every example agree with the interpreter', () => {
    let p = program();
    const fns = ['rsum', 'rprod', 'rmin', 'affine', 'cumsum', 'cumprod', 'affineScan', 'softScan'];
    for (const fn of fns) p = vjpOf(p, fn).program;
    for (const fn of fns) p = jvpOf(p, fn).program;
    for (const fn of ['rsum', 'rprod', 'rmin', 'softScan']) p = gradOf(p, fn).program;
    const { code, fns: emitted } = emitAndLoad(p);
    expect(code).toMatch(/for \(let i = \w+ - 1; i >= 0; i--\) \{/);
    expect(code).toContain('new Float64Array(n)');
    const toTs = (v: Value): unknown => (Array.isArray(v) ? Float64Array.from(v as number[]) : v);
    for (const [fn, x] of POINTS) {
      const m = findDef(p, fn).nlResults.length;
      const xd = x.map((a) => a.map((_, i) => i + 0.5));
      const yb = seedFor(p, fn, x);
      const tape = evalFn(p, `${fn}.fwd`, x).nl[m];
      const calls: [string, Value[], Value[]][] = [
        [fn, x, []],
        [`${fn}.jvp`, x, xd],
        [`${fn}.fwd`, x, []],
        [`${fn}.lin`, [tape], xd],
        [`${fn}.bwd`, [tape], yb],
      ];
      if (['rsum', 'rprod', 'rmin', 'softScan'].includes(fn)) calls.push([`${fn}.grad`, x, []]);
      for (const [name, nl, lin] of calls) {
        const want = plain(asReturned(evalFn(p, name, nl, lin)));
        // Inputs as Float64Arrays where the function takes arrays of reals; the tape as the interpreter built it.
        const args = name.endsWith('.lin') || name.endsWith('.bwd') ? [...nl, ...lin.map(toTs)] : [...nl, ...lin].map(toTs);
        const got = plain(emitted.get(name)!(...args));
        expect(JSON.stringify(got)).toBe(JSON.stringify(want));
      }
    }
  });
});

describe('second order', () => {
  test('through the special cases (+, min): their J is ordinary code, so hvp runs (the Hessian is zero)', () => {
    for (const fn of ['rsum', 'rmin']) {
      const h = hvpOf(program(), fn);
      const r = evalFn(h.program, h.hvp, [
        [3, 1, 2],
        [1, 2, 3],
      ]);
      expect(pad(r.nl[0], 3)).toEqual([0, 0, 0]);
    }
    // (min a)²: H = 2·e_k e_kᵀ at the arg-minimum k, so H·v = 2·v_k·e_k.
    const sq = parseProgram(
      `def f(a: array<real> ;) -> (real ;) {\n  let n = len(a) []\n  let top = Infinity\n  let m = reduce(n, top, a) [|u: real, v: real ;| {\n    min(u, v)\n  }]\n  mul(m, m)\n}`,
    );
    const h = hvpOf(sq, 'f');
    expect(
      pad(
        evalFn(h.program, h.hvp, [
          [3, -1, 2, -1],
          [1, 2, 3, 4],
        ]).nl[0],
        4,
      ),
    ).toEqual([0, 4, 0, 0]);
  });
});

describe('second order through the general rule (J of the erased recurrences)', () => {
  /** H·v by central differences of the gradient. */
  function fdHvp(p: Program, fn: string, x: number[][], v: number[][], eps = 1e-5): number[] {
    const g = gradOf(p, fn);
    const at = (s: number) =>
      evalFn(
        g.program,
        g.grad,
        x.map((a, k) => a.map((e, i) => e + s * eps * v[k][i])),
      ).nl[0] as number[];
    const plus = at(1);
    const minus = at(-1);
    return plus.map((a, i) => (a - minus[i]) / (2 * eps));
  }
  test.each([
    ['rprod', [[2, 3, 4]], [[1, 0, 0]]],
    ['rprod', [[2, 0, 4, 0.5]], [[1, -1, 0.5, 2]]],
    ['rprod', [[]], [[]]],
    ['softScan', [[0.5, -1, 2]], [[1, 0.5, -1]]],
    ['softScan', [[0.3]], [[2]]],
  ] as [string, number[][], number[][]][])('hvp of %s at %j along %j against differences of the gradient', (fn, x, v) => {
    const p = program();
    const h = hvpOf(p, fn);
    const got = pad(evalFn(h.program, h.hvp, [...x, ...v]).nl[0], x[0].length);
    const want = fdHvp(p, fn, x, v);
    got.forEach((a, i) => expect(rel(a, want[i])).toBeLessThan(1e-6));
    // and the emitted hvp agrees with the interpreter
    const { fns } = emitAndLoad(h.program);
    const emitted = plain(fns.get(h.hvp)!(...[...x, ...v].map((a) => Float64Array.from(a)))) as number[];
    expect(pad(emitted, x[0].length)).toEqual(got);
  });

  test('an operator that calls a function: its tape (a tuple residual) is stored leaf by leaf, and hvp goes through', () => {
    const text = `def g(u: real, v: real ;) -> (real ;) {\n  let w = mul(u, v)\n  sin(w)\n}\ndef f(a: array<real> ;) -> (real ;) {\n  let n = len(a) []\n  let one = 1\n  reduce(n, one, a) [|u: real, v: real ;| {\n    g(u, v)\n  }]\n}`;
    const p = parseProgram(text);
    // The tape of f holds arrays of reals only (the call's tape unpacked into its leaves).
    const typed = printProgram(annotateTypes(vjpOf(p, 'f').program), { types: true });
    expect(typed).toMatch(/type f\.tape = <[^\n]*>/);
    expect(typed.match(/type f\.tape = <[^\n]*>/)![0]).not.toContain('array<<');
    const g = gradOf(p, 'f');
    const at = (s: number) => evalFn(g.program, g.grad, [[0.5 + s * 1e-5, 2]]).nl[0] as number[];
    const want = at(1).map((v, i) => (v - at(-1)[i]) / 2e-5);
    for (const o of [{}, { inlinePrimal: true }]) {
      const h = hvpOf(p, 'f', o);
      const got = pad(
        evalFn(h.program, h.hvp, [
          [0.5, 2],
          [1, 0],
        ]).nl[0],
        2,
      );
      got.forEach((v, i) => expect(rel(v, want[i])).toBeLessThan(1e-6));
    }
  });

  test('Π a: the Hessian is the products of all but two elements, exact with zeros', () => {
    const h = hvpOf(program(), 'rprod');
    // H_ij = Π_{l ≠ i, j} a_l; with a = [2, 0, 4] and v = e_0: H·v = [0, 4, 0]; v = e_1: [4, 0, 2].
    expect(
      pad(
        evalFn(h.program, h.hvp, [
          [2, 0, 4],
          [1, 0, 0],
        ]).nl[0],
        3,
      ),
    ).toEqual([0, 4, 0]);
    expect(
      pad(
        evalFn(h.program, h.hvp, [
          [2, 0, 4],
          [0, 1, 0],
        ]).nl[0],
        3,
      ),
    ).toEqual([4, 0, 2]);
  });
});
