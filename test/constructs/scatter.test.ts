// gather, scatter and reduceByIndex (examples/ir/combinators.lina): the worked examples of
// array-adjoints-map-reduce-scan.md §5 (10, 11, 13–15) with their exact numbers, errors naming the
// argument (interpreter and emitted code), gradients against central differences, the
// dot-product test and T∘T = id on lgather/lscatteradd, lscatter/lunscatter and lhist/lrhist,
// work bounded by a constant times the primal's at n = 64 and 4096, the emitted TypeScript
// against the interpreter, and random histogram operators (fast-check).
import * as fs from 'fs';
import * as path from 'path';
import fc from 'fast-check';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { evalFn, Value } from '../../transformer/language/interp';
import type { Program } from '../../transformer/ir/syntax';
import { emitAndLoad, asReturned } from './emitted';
import { gradOf, hvpOf, jvpOf, linearizeOf, transposeOf, vjpOf } from '../gen/drivers';
import { nonLinearProgram, choices, flat } from '../gen/programs';
import { expectUnzipSplitsJvp, plain, rel } from './reference';

const source = fs.readFileSync(path.join(__dirname, '../../examples/ir/combinators.lina'), 'utf8');
const program = () => parseProgram(source, 'combinators.lina');

const pad = (v: Value, n: number): number[] => Array.from({ length: n }, (_, i) => ((v as number[])[i] as number | undefined) ?? 0);
function inner(a: readonly Value[], b: readonly Value[]): number {
  return a.reduce<number>((s, x, k) => {
    const y = b[k];
    if (!Array.isArray(x) && !Array.isArray(y)) return s + (x as number) * (y as number);
    const n = Math.max((x as Value[]).length, (y as Value[]).length);
    return s + pad(x, n).reduce((t, v, i) => t + v * pad(y, n)[i], 0);
  }, 0);
}

function vjp(p: Program, fn: string, x: Value[], yb: Value[]): Value[] {
  const v = vjpOf(p, fn);
  const f = evalFn(v.program, v.fwd, x);
  return evalFn(v.program, v.bwd, [f.nl[yb.length]], yb).lin;
}

describe('§5 worked examples, exact', () => {
  test('10: scatter [7, 8] at [1, 3]: v̄ = [2, 4], x̄ = [1, 0, 3, 0, 5]; the input is not changed', () => {
    const xs = [10, 20, 30, 40, 50];
    expect(evalFn(program(), 'put', [xs, [1, 3], [7, 8]]).nl).toEqual([[10, 7, 30, 8, 50]]);
    expect(xs).toEqual([10, 20, 30, 40, 50]);
    const [xBar, , vBar] = vjp(program(), 'put', [xs, [1, 3], [7, 8]], [[1, 2, 3, 4, 5]]);
    expect(xBar).toEqual([1, 0, 3, 0, 5]);
    expect(vBar).toEqual([2, 4]);
  });

  test('11: gather at [0, 2, 2] with ȳ = [1, 2, 3]: ā = [1, 0, 5, 0] (repeated indices add up)', () => {
    expect(
      evalFn(program(), 'pick3', [
        [1, 2, 3, 4],
        [0, 2, 2],
      ]).nl,
    ).toEqual([[1, 3, 3]]);
    expect(
      vjp(
        program(),
        'pick3',
        [
          [1, 2, 3, 4],
          [0, 2, 2],
        ],
        [[1, 2, 3]],
      )[0],
    ).toEqual([1, 0, 5, 0]);
    // 1000+ colliding indices (the notes' test for atomics): every ȳ lands on slot 1.
    const idx = Array.from({ length: 1200 }, (_, j) => (j % 3 === 0 ? 1 : 2));
    const yb = idx.map(() => 0.5);
    expect(vjp(program(), 'pick3', [[1, 2, 3], idx], [yb])[0]).toEqual([0, 200, 400]);
  });

  test('13: histogram + with an out-of-range bin: [4, 4, 2]; h̄ = [1, 10, 100] gives v̄ = [1, 100, 1, 10, 0], d̄ = [1, 10, 100]', () => {
    const x = [
      [0, 0, 0],
      [0, 2, 0, 1, 5],
      [1, 2, 3, 4, 5],
    ];
    expect(evalFn(program(), 'histAdd', x).nl).toEqual([[4, 4, 2]]);
    const [dBar, , vBar] = vjp(program(), 'histAdd', x, [[1, 10, 100]]);
    expect(dBar).toEqual([1, 10, 100]);
    expect(vBar).toEqual([1, 100, 1, 10, 0]);
  });

  test('14: histogram * with a zero: [6, 0]; h̄ = [1, 1] gives v̄ = [3, 2, 10, 0, 0], d̄ = [6, 0]', () => {
    const x = [
      [1, 1],
      [0, 0, 1, 1, 1],
      [2, 3, 0, 5, 2],
    ];
    expect(evalFn(program(), 'histMul', x).nl).toEqual([[6, 0]]);
    const [dBar, , vBar] = vjp(program(), 'histMul', x, [[1, 1]]);
    expect(dBar).toEqual([6, 0]);
    expect(vBar).toEqual([3, 2, 10, 0, 0]);
  });

  test('15: histogram min: [1, 0]; h̄ = [1, 1] gives v̄ = [0, 1, 0], d̄ = [0, 1] (the destination won bin 1)', () => {
    const x = [
      [5, 0],
      [0, 0, 1],
      [3, 1, 2],
    ];
    expect(evalFn(program(), 'histMin', x).nl).toEqual([[1, 0]]);
    const [dBar, , vBar] = vjp(program(), 'histMin', x, [[1, 1]]);
    expect(dBar).toEqual([0, 1]);
    expect(vBar).toEqual([0, 1, 0]);
  });
});

describe('errors name the argument, in the interpreter and in emitted code', () => {
  const CASES: [string, Value[], string][] = [
    [
      'put',
      [
        [1, 2, 3],
        [0, 2, 0],
        [4, 5, 6],
      ],
      'scatter: idx repeats the index 0',
    ],
    ['put', [[1, 2, 3], [3], [4]], 'scatter: idx[0] = 3 is not an index of xs (length 3)'],
    ['put', [[1, 2, 3], [0, 1], [4]], 'scatter: vs has 1 elements, idx has 2'],
    [
      'pick3',
      [
        [1, 2, 3],
        [0, -1],
      ],
      'gather: idx[1] = -1 is not an index of a (length 3)',
    ],
    ['pick3', [[1, 2, 3], [0.5]], 'gather: idx[0] = 0.5 is not an index of a (length 3)'],
    [
      'histAdd',
      [
        [0, 0],
        [0, 1.5],
        [1, 2],
      ],
      'reduceByIndex: idx[1] = 1.5 is not an integer',
    ],
    ['histAdd', [[0, 0], [0, 1], [1]], 'reduceByIndex: vs has 1 elements, idx has 2'],
  ];
  test.each(CASES)('%s %j', (fn, x, message) => {
    expect(() => evalFn(program(), fn, x)).toThrow(message);
    const { fns } = emitAndLoad(annotateTypes(program()));
    expect(() => fns.get(fn)!(...x.map((a) => (Array.isArray(a) ? Float64Array.from(a as number[]) : a)))).toThrow(RangeError);
    expect(() => fns.get(fn)!(...x.map((a) => (Array.isArray(a) ? Float64Array.from(a as number[]) : a)))).toThrow(message);
  });

  test('the checker: index arrays of reals, values of the destination type', () => {
    const text = `def f(a: array<real>, t: array<bool> ;) -> (array<real> ;) {\n  drop(t)\n  let u = true\n  let b = fill(u, u) []\n  drop(b)\n  gather(a, t) []\n}`;
    expect(typeErrors(parseProgram(text, 't.lina')).join('\n')).toContain('the index array of gather must be an array<real> of integers, got array<bool>');
    expect(typeErrors(program())).toEqual([]);
    const printed = printProgram(program());
    expect(printProgram(parseProgram(printed))).toBe(printed);
  });
});

/** Central differences of ⟨ȳ, f(x)⟩ in the active (array or real) parameters. */
function numericVjp(p: Program, fn: string, x: Value[], yb: Value[], active: readonly boolean[], h = 1e-6): number[][] {
  const f = (y: Value[]) => inner(evalFn(p, fn, y).nl, yb);
  return x.map((v, k) => {
    if (!active[k]) return [];
    const moved = (i: number, s: number) => x.map((w, j) => (j !== k ? w : Array.isArray(w) ? w.map((e, q) => (q === i ? (e as number) + s * h : e)) : (w as number) + s * h));
    const len = Array.isArray(v) ? v.length : 1;
    return Array.from({ length: len }, (_, i) => (f(moved(i, 1)) - f(moved(i, -1))) / (2 * h));
  });
}

const POINTS: [string, Value[], boolean[]][] = [
  [
    'pick3',
    [
      [0.5, -1, 2, 3],
      [3, 0, 3, 1],
    ],
    [true, false],
  ],
  ['pick3', [[0.5], []], [true, false]],
  [
    'put',
    [
      [0.5, -1, 2, 3],
      [2, 0],
      [1.5, -0.5],
    ],
    [true, false, true],
  ],
  ['put', [[0.5, -1], [], []], [true, false, true]],
  [
    'histAdd',
    [
      [0.5, -1, 2],
      [2, 0, 2, 7, -1],
      [1.5, -0.5, 0.25, 2, 3],
    ],
    [true, false, true],
  ],
  [
    'histMul',
    [
      [0.5, -1, 2],
      [2, 0, 2, 1, 0],
      [1.5, -0.5, 0.25, 2, 3],
    ],
    [true, false, true],
  ],
  [
    'histMul',
    [
      [0.5, -1, 2],
      [2, 0, 2, 1, 0],
      [1.5, 0, 0.25, 2, 0],
    ],
    [true, false, true],
  ],
  [
    'histMin',
    [
      [0.5, -1, 2],
      [2, 0, 2, 1, 0],
      [1.5, -0.5, 0.25, 2, 3],
    ],
    [true, false, true],
  ],
  ['histAdd', [[0.5], [0], [1.5]], [true, false, true]],
  ['mixed', [[0.5, -1, 2, 3], [2, 0, 3], 0.7], [true, false, true]],
];

const seedFor = (p: Program, fn: string, x: Value[]): Value[] => evalFn(p, fn, x).nl.map((y, j) => (Array.isArray(y) ? y.map((_, i) => Math.cos(i + 2 * j + 1)) : Math.cos(j + 1)));

describe('derivatives against central differences', () => {
  test.each(POINTS)('%s at %j: the VJP and the JVP', (fn, x, active) => {
    const p = program();
    const yb = seedFor(p, fn, x);
    const got = vjp(p, fn, x, yb);
    const want = numericVjp(p, fn, x, yb, active);
    want.forEach((w, k) => (Array.isArray(got[k]) ? pad(got[k], w.length) : [got[k] as number]).forEach((v, i) => expect(rel(v, w[i])).toBeLessThan(1e-6)));
    const j = jvpOf(p, fn);
    const xd = x.map((a, k) => (!active[k] ? (Array.isArray(a) ? [] : 0) : Array.isArray(a) ? a.map((_, i) => Math.sin(i + 1)) : 0.3));
    const r = evalFn(j.program, j.jvp, x, xd);
    expect(r.nl).toEqual(evalFn(p, fn, x).nl);
    expect(rel(inner(r.lin, yb), inner(got, xd))).toBeLessThan(1e-12);
    // unzipping: W(fwd) + W(lin) = W(jvp)
    expectUnzipSplitsJvp(p, fn, x, xd);
  });
});

const LINEAR = `
def lg(n: real, idx: array<real> ; a: array<real>) -> (; array<real>) {
  lgather(n, idx ; a) []
}
def lsc(n: real, idx: array<real> ; d: array<real>, v: array<real>) -> (; array<real>) {
  lscatter(n, idx ; d, v) []
}
def lh(m: real, idx: array<real>, s: array<real> ; d: array<real>, v: array<real>) -> (; array<real>) {
  lhist(m, idx, s ; d, v) [|w: real ; h: real, x: real| {
    let (; p) = scale(w ; h)
    ladd(; p, x)
  }]
}
`;

describe('the linear constructs: the dot-product test and T∘T = id', () => {
  const arr = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));
  test.each([
    ['lg', [5, [4, 0, 4, 2]], [arr(5, (i) => Math.sin(i + 1))], [arr(4, (i) => Math.cos(i))], 'lscatteradd('],
    ['lg', [3, []], [arr(3, (i) => i)], [[]], 'lscatteradd('],
    ['lsc', [5, [3, 1]], [arr(5, (i) => Math.sin(i + 1)), [0.5, -2]], [arr(5, (i) => Math.cos(i))], 'lunscatter('],
    ['lsc', [4, []], [[1, 2], []], [arr(4, (i) => i + 1)], 'lunscatter('],
    ['lh', [3, [2, 0, 2, 9, -1], arr(5, (i) => 1 + 0.5 * i)], [arr(3, (i) => Math.sin(i + 1)), arr(5, (i) => Math.cos(i))], [arr(3, (i) => i - 1)], 'lrhist('],
    ['lh', [2, [], []], [[1, 2], []], [[0.5, 3]], 'lrhist('],
  ] as [string, Value[], Value[], Value[], string][])('%s %j', (fn, nl, xd, yb, transposed) => {
    const t = transposeOf(parseProgram(LINEAR), fn);
    expect(printProgram(t.program)).toContain(transposed);
    const lx = evalFn(t.program, fn, nl, xd).lin;
    const ty = evalFn(t.program, `${fn}.T`, nl, yb).lin;
    expect(rel(inner(lx, yb), inner(ty, xd))).toBeLessThan(1e-12);
    const tt = transposeOf(t.program, `${fn}.T`);
    expect(plain(evalFn(tt.program, `${fn}.T.T`, nl, xd).lin)).toEqual(plain(lx));
  });
});

describe('work: W(grad) ≤ c·W(f), the same constant at n = 64 and 4096', () => {
  const arr = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));
  test.each(['pick3', 'put', 'histAdd', 'histMul', 'histMin', 'mixed'])('%s', (fn) => {
    const p = program();
    const ratios = [64, 4096].map((n) => {
      const x: Value[] =
        fn === 'pick3'
          ? [arr(n, (i) => 1 + i / n), arr(n, (i) => (i * 7) % n)]
          : fn === 'put'
            ? [arr(n, (i) => 1 + i / n), arr(n / 2, (i) => 2 * i), arr(n / 2, (i) => i / n)]
            : fn === 'mixed'
              ? [arr(n, (i) => 1 + i / n), arr(n, (i) => (i * 5) % n), 0.5]
              : [arr(n / 4, () => 1), arr(n, (i) => (i * 3) % (n / 4 + 2)), arr(n, (i) => 1 + (i % 5) / 10)];
      const wf = evalFn(p, fn, x).work;
      const v = vjpOf(p, fn);
      const f = evalFn(v.program, v.fwd, x);
      const b = evalFn(v.program, v.bwd, [f.nl[1]], seedFor(p, fn, x));
      return (f.work + b.work) / wf;
    });
    expect(ratios[0]).toBeLessThan(16);
    expect(ratios[1]).toBeLessThan(16);
    expect(ratios[1]).toBeLessThanOrEqual(ratios[0] * 1.05);
  });
});

describe('emitted TypeScript', () => {
  test('the primal, jvp, fwd, lin, bwd and grad agree with the interpreter', () => {
    let p = program();
    const fns = ['pick3', 'put', 'histAdd', 'histMul', 'histMin', 'mixed'];
    for (const fn of fns) p = vjpOf(p, fn).program;
    for (const fn of fns) p = jvpOf(p, fn).program;
    p = gradOf(p, 'mixed').program;
    for (const fn of ['lg', 'lsc', 'lh']) p = transposeOf({ defs: [...p.defs, ...parseProgram(LINEAR).defs.filter((d) => d.name === fn)] }, fn).program;
    const { code, fns: emitted } = emitAndLoad(p);
    expect(code).toContain('new Uint8Array(');
    const toTs = (v: Value): unknown => (Array.isArray(v) ? Float64Array.from(v as number[]) : v);
    const calls: [string, Value[], Value[]][] = [];
    for (const [fn, x, active] of POINTS) {
      const xd = x.map((a, k) => (!active[k] ? (Array.isArray(a) ? [] : 0) : Array.isArray(a) ? a.map((_, i) => i + 0.5) : 0.25));
      const tape = evalFn(p, `${fn}.fwd`, x).nl[1];
      calls.push([fn, x, []], [`${fn}.jvp`, x, xd], [`${fn}.fwd`, x, []], [`${fn}.lin`, [tape], xd], [`${fn}.bwd`, [tape], seedFor(p, fn, x)]);
    }
    calls.push(['mixed.grad', POINTS[POINTS.length - 1][1], []]);
    calls.push(
      ['lg.T', [5, [4, 0, 4]], [[1, 2, 3]]],
      ['lsc.T', [5, [3, 1]], [[1, 2, 3, 4, 5]]],
      ['lh.T', [3, [2, 0, 2, 9], [1, 2, 3, 4]], [[1, 2, 3]]],
      ['lh', [3, [2, 0, 2, 9], [1, 2, 3, 4]], [[1], [1, 2, 3, 4]]],
    );
    for (const [name, nl, lin] of calls) {
      const want = plain(asReturned(evalFn(p, name, nl, lin)));
      const tape = name.endsWith('.lin') || name.endsWith('.bwd');
      const got = plain(emitted.get(name)!(...(tape ? nl : nl.map(toTs)), ...lin.map(toTs)));
      // Sparse tangents: the interpreter's may be shorter (missing elements are zeros).
      const a = flat(got as Value);
      const b = flat(want as Value);
      if (a.length === b.length) expect(a).toEqual(b);
      else expect(JSON.stringify(got)).toBe(JSON.stringify(want));
    }
  });
});

/** A histogram whose operator comes from a random program g (as foldProperties.test.ts builds folds). */
function histProgram(xs: readonly number[]): Program | undefined {
  const p = nonLinearProgram(xs);
  const g = p.defs[p.defs.length - 1];
  if (g.nlResults.length === 0 || g.nlResults[0].tag !== 'real' || g.nlParams.length < 2) return undefined;
  if (!g.nlParams.every((b) => b.type!.tag === 'real')) return undefined;
  const rs = g.nlResults.map((_, k) => `r${k}`);
  return parseProgram(
    `${printProgram(p, { types: true })}
def f(d: array<real>, idx: array<real>, v: array<real> ;) -> (array<real> ;) {
  reduceByIndex(d, idx, v) [|a: real, b: real ;| {
    let (${rs.join(', ')}) = ${g.name}(${g.nlParams.map((_, i) => (i % 2 === 0 ? 'a' : 'b')).join(', ')})
${rs
  .slice(1)
  .map((r) => `    drop(${r})\n`)
  .join('')}    (r0 ;)
  }]
}
`,
    'generated.lina',
  );
}

describe('reduceByIndex over random operator bodies (bins 0 … 3, some out of range; lengths 0, 1, 6)', () => {
  const unit = fc.double({ min: -1, max: 1, noNaN: true });
  const arb = fc
    .tuple(choices, fc.constantFrom(0, 1, 6))
    .map(([xs, n]): { p: Program | undefined; n: number } => ({ p: histProgram(xs), n }))
    .filter((x): x is { p: Program; n: number } => x.p !== undefined)
    .chain(({ p, n }) =>
      fc.tuple(
        fc.constant(p),
        fc.array(unit, { minLength: 3, maxLength: 3 }),
        fc.array(fc.integer({ min: -1, max: 4 }), { minLength: n, maxLength: n }),
        fc.array(unit, { minLength: n, maxLength: n }),
        fc.array(unit, { minLength: 3, maxLength: 3 }),
        fc.array(unit, { minLength: n, maxLength: n }),
        fc.array(unit, { minLength: 3, maxLength: 3 }),
      ),
    );
  const finite = (v: Value[]) => flat(v).every((x) => Number.isFinite(x));
  test('unzip vs J (exact work), the dot-product test, the emitted code', () => {
    fc.assert(
      fc.property(arb, ([p, d, idx, v, dd, vd, hb]) => {
        const x = [d, idx, v];
        const xd = [dd, [], vd];
        const { program, fwd, bwd } = vjpOf(p, 'f');
        const lz = linearizeOf(p, 'f');
        const j = evalFn(lz.program, 'f.jvp', x, xd);
        fc.pre(finite(j.nl) && finite(j.lin));
        const r = evalFn(lz.program, lz.fwd, x);
        const l = evalFn(lz.program, lz.lin, [r.nl[1]], xd);
        expect(flat(l.lin).map((a, i) => Math.abs(a - flat(j.lin)[i]) <= 1e-9 * (1 + Math.abs(a)))).not.toContain(false);
        expect(r.work + l.work).toBe(j.work);
        const tape = evalFn(program, fwd, x).nl[1];
        const lx = evalFn(program, 'f.lin', [tape], xd).lin;
        const ty = evalFn(program, bwd, [tape], [hb]).lin;
        fc.pre(finite(lx) && finite(ty));
        expect(Math.abs(inner(lx, [hb]) - inner(ty, xd))).toBeLessThanOrEqual(1e-8 * (1 + Math.abs(inner(lx, [hb]))));
        const { fns } = emitAndLoad(program);
        const got = flat(plain(fns.get('f.bwd')!(tape, Float64Array.from(hb))) as Value);
        const want = flat(asReturned(evalFn(program, bwd, [tape], [hb])) as Value);
        expect(got.length).toBe(want.length);
        got.forEach((a, i) => expect(Math.abs(a - want[i])).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(a))));
      }),
      { numRuns: 25 },
    );
  });
});

describe('second order through gather and scatter (hvp = J of the gradient; the linear forms are linear again)', () => {
  const SQ = `
def gsq(a: array<real>, idx: array<real> ;) -> (real ;) {
  let g = gather(a, idx) []
  let n = len(g) []
  let p = map(n, g) [|x: real ;| {
    mul(x, x)
  }]
  sum(p) []
}
def ssq(a: array<real>, idx: array<real>, v: array<real> ;) -> (real ;) {
  let t = scatter(a, idx, v) []
  let n = len(t) []
  let p = map(n, t) [|x: real ;| {
    mul(x, x)
  }]
  sum(p) []
}
`;
  test('Σ (a[idx_j])²: (H·ȧ)_k = 2·(how often k is in idx)·ȧ_k', () => {
    const h = hvpOf(parseProgram(SQ), 'gsq');
    const r = evalFn(h.program, h.hvp, [[0.5, -1, 2, 3], [3, 0, 3, 1], [1, 2, 3, 4], []]);
    expect(pad(r.nl[0], 4)).toEqual([2 * 1, 2 * 2 * 1, 0, 2 * 4 * 2]);
  });

  test('Σ scatter(a, idx, v)²: H·(ȧ, v̇) = (2ȧ off the idx slots, 2v̇)', () => {
    const h = hvpOf(parseProgram(SQ), 'ssq');
    const r = evalFn(h.program, h.hvp, [[0.5, -1, 2, 3], [2, 0], [1.5, -0.5], [1, 2, 3, 4], [], [5, 6]]);
    expect(pad(r.nl[0], 4)).toEqual([0, 4, 0, 8]);
    expect(r.nl[2]).toEqual([10, 12]);
  });
});

describe('second order through reduceByIndex (J of the erased lhist/lrhist)', () => {
  const HS = (op: string) => `
def f(d: array<real>, idx: array<real>, v: array<real> ;) -> (real ;) {
  let h = reduceByIndex(d, idx, v) [|a: real, b: real ;| {
    ${op}
  }]
  let m = len(h) []
  let sq = map(m, h) [|x: real ;| {
    sin(x)
  }]
  sum(sq) []
}
`;
  test.each([
    [
      'mul(a, b)',
      [
        [0.5, -1, 2],
        [2, 0, 2, 7, 1, 0],
        [1.5, -0.5, 0.25, 2, 3, 0.7],
      ],
    ],
    [
      'mul(a, b)',
      [
        [0.5, -1, 2],
        [2, 0, 2, 1, 1, 0],
        [1.5, 0, 0.25, 2, 0, 0.7],
      ],
    ],
    [
      'add(a, b)',
      [
        [0.5, -1, 2],
        [2, 0, -1, 1],
        [1.5, -0.5, 0.25, 2],
      ],
    ],
    [
      'min(a, b)',
      [
        [0.5, -1, 2],
        [2, 0, 2, 1],
        [1.5, -0.5, 0.25, -2],
      ],
    ],
  ] as [string, number[][]][])('hvp with %s at %j against differences of the gradient', (op, x) => {
    const p = parseProgram(HS(op));
    const v = x.map((a, k) => (k === 1 ? a.map(() => 0) : a.map((_, i) => Math.cos(i + k))));
    const h = hvpOf(p, 'f');
    const got = evalFn(h.program, h.hvp, [...x, ...v]).nl;
    const g = gradOf(p, 'f');
    const eps = 1e-5;
    const at = (s: number) =>
      evalFn(
        g.program,
        g.grad,
        x.map((a, k) => a.map((e, i) => e + s * eps * v[k][i])),
      ).nl;
    const plus = at(1);
    const minus = at(-1);
    [0, 2].forEach((k) => {
      const len = x[k].length;
      const want = pad(plus[k], len).map((a, i) => (a - pad(minus[k], len)[i]) / (2 * eps));
      pad(got[k], len).forEach((a, i) => expect(rel(a, want[i])).toBeLessThan(1e-6));
    });
    const { fns } = emitAndLoad(h.program);
    const emitted = fns.get(h.hvp)!(...[...x, ...v].map((a) => Float64Array.from(a))) as Float64Array[];
    [0, 2].forEach((k) => expect(pad(plain(emitted[k]) as number[], x[k].length)).toEqual(pad(got[k], x[k].length)));
  });
});
