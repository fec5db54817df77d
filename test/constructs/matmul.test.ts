// matmul and its six linear forms (examples/ir/matmul.lina; docs/linear-a.md, "matmul"): the
// primal against a hand-written triple loop (sizes 0 and 1, non-square), the size and length
// errors (interpreter and emitted code), J and the VJP against central differences, second order
// (hvp against differences of gradients), the dot-product test and T∘T = id on every linear form,
// short and empty linear operands as zero padded, W(grad)/W(f) bounded from n = 4 to 32, the
// emitted TypeScript against the interpreter, and random sizes 0 … 5 (fast-check).
import * as fs from 'fs';
import * as path from 'path';
import fc from 'fast-check';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { evalFn, Value } from '../../transformer/language/interp';
import type { Program } from '../../transformer/ir/syntax';
import { emitAndLoad, asReturned } from './emitted';
import { gradOf, hvpOf, jvpOf, transposeOf, vjpOf } from '../gen/drivers';
import { flat } from '../gen/programs';
import { expectUnzipSplitsJvp, plain, rel } from './reference';

const source = fs.readFileSync(path.join(__dirname, '../../examples/ir/matmul.lina'), 'utf8');
const program = () => parseProgram(source, 'matmul.lina');

/** The reference product, written independently of the construct (j outermost, l innermost). */
function reference(a: readonly number[], b: readonly number[], n: number, k: number, m: number): number[] {
  const c: number[] = new Array<number>(n * m).fill(0);
  for (let j = 0; j < m; j++)
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let l = 0; l < k; l++) s += a[i * k + l] * b[l * m + j];
      c[i * m + j] = s;
    }
  return c;
}
const transposed = (a: readonly number[], rows: number, cols: number): number[] => Array.from({ length: rows * cols }, (_, q) => a[(q % rows) * cols + Math.floor(q / rows)]);

const arr = (n: number, f: (i: number) => number): number[] => Array.from({ length: n }, (_, i) => f(i));
const pad = (v: Value, n: number): number[] => arr(n, (i) => ((v as number[])[i] as number | undefined) ?? 0);
const toTs = (v: Value): unknown => (Array.isArray(v) ? Float64Array.from(v as number[]) : v);
const inner = (a: readonly number[], b: readonly number[]): number => arr(Math.max(a.length, b.length), (i) => (a[i] ?? 0) * (b[i] ?? 0)).reduce((s, x) => s + x, 0);
/** ⟨x, y⟩ over a list of values (reals and arrays of reals, arrays zero padded to the longer). */
const innerAll = (x: readonly Value[], y: readonly Value[]): number =>
  x.reduce<number>((s, v, q) => s + (Array.isArray(v) ? inner(v as number[], y[q] as number[]) : (v as number) * (y[q] as number)), 0);

const SIZES: [number, number, number][] = [
  [0, 0, 0],
  [0, 3, 2],
  [2, 0, 3],
  [3, 2, 0],
  [1, 1, 1],
  [1, 4, 1],
  [4, 1, 3],
  [2, 3, 4],
  [5, 3, 2],
];
const matrices = ([n, k, m]: [number, number, number], seed = 0): [number[], number[]] => [arr(n * k, (i) => Math.sin(1.3 * i + seed + 0.5)), arr(k * m, (i) => Math.cos(0.7 * i + 2 * seed + 0.2))];

describe('the primal against a triple loop', () => {
  test('the worked example: [[1, 2, 3], [4, 5, 6]]·[[1, 0], [0, 1], [1, 1]] = [[4, 5], [10, 11]]', () => {
    const r = evalFn(program(), 'mm', [[1, 2, 3, 4, 5, 6], [1, 0, 0, 1, 1, 1], 2, 3, 2]);
    expect(r.nl).toEqual([[4, 5, 10, 11]]);
    expect(r.work).toBe(2 * 3 * 2 + 2 * 2);
  });

  test.each(SIZES)('n = %i, k = %i, m = %i (interpreter and emitted code; work n·k·m + n·m)', (n, k, m) => {
    const [a, b] = matrices([n, k, m]);
    const r = evalFn(program(), 'mm', [a, b, n, k, m]);
    const want = reference(a, b, n, k, m);
    expect(r.nl[0]).toHaveLength(n * m);
    (r.nl[0] as number[]).forEach((v, i) => expect(rel(v, want[i])).toBeLessThan(1e-14));
    expect(r.work).toBe(n * k * m + n * m);
    const { fns } = emitAndLoad(annotateTypes(program()));
    const got = fns.get('mm')!(Float64Array.from(a), Float64Array.from(b), n, k, m);
    expect(got).toBeInstanceOf(Float64Array);
    expect(plain(got)).toEqual(r.nl[0]);
  });

  test('the checker: arrays of reals, real sizes; printing round-trips', () => {
    const text = `def f(a: array<real>, t: array<bool>, n: real ;) -> (array<real> ;) {\n  matmul(a, t, n, n, n) []\n}`;
    expect(typeErrors(parseProgram(text, 't.lina')).join('\n')).toContain('matmul needs an array<real> as its second matrix, got array<bool>');
    const bad = `def f(a: array<real>, n: real ;) -> (array<real> ;) {\n  matmul(a, a, n, n) []\n}`;
    expect(typeErrors(parseProgram(bad, 't.lina')).join('\n')).toContain('matmul takes two matrices and their sizes: matmul(a, b, n, k, m) []');
    expect(typeErrors(program())).toEqual([]);
    const printed = printProgram(program());
    expect(printProgram(parseProgram(printed))).toBe(printed);
  });
});

describe('errors: the sizes and lengths, once per call (IrError in the interpreter, RangeError in emitted code)', () => {
  const CASES: [Value[], string][] = [
    [[[1, 2, 3, 4, 5], [1, 0, 0, 1, 1, 1], 2, 3, 2], 'matmul: a has 5 elements, not n×k = 2×3 = 6'],
    [[[1, 2, 3, 4, 5, 6], [1, 0, 0, 1, 1], 2, 3, 2], 'matmul: b has 5 elements, not k×m = 3×2 = 6'],
    [[[], [1, 2], 0, 1, 1], 'matmul: b has 2 elements, not k×m = 1×1 = 1'],
    [[[1, 2, 3], [1, 2], 1.5, 2, 1], 'matmul: the size n = 1.5 is not a non-negative integer'],
    [[[1, 2], [1, 2], 1, 2, -1], 'matmul: the size m = -1 is not a non-negative integer'],
  ];
  test.each(CASES)('%j', (x, message) => {
    expect(() => evalFn(program(), 'mm', x)).toThrow(message);
    const { fns } = emitAndLoad(annotateTypes(program()));
    expect(() => fns.get('mm')!(...x.map(toTs))).toThrow(RangeError);
    expect(() => fns.get('mm')!(...x.map(toTs))).toThrow(message);
  });

  test('the gradient checks too (its forward pass runs the primal)', () => {
    const g = gradOf(program(), 'chain');
    expect(() => evalFn(g.program, g.grad, [[1, 2, 3], [1, 2], [1, 2], 1, 2, 1, 2])).toThrow('matmul: a has 3 elements, not n×k = 1×2 = 2');
    const { fns } = emitAndLoad(g.program);
    expect(() => fns.get(g.grad)!(...[[1, 2, 3], [1, 2], [1, 2], 1, 2, 1, 2].map((v) => toTs(v as Value)))).toThrow(RangeError);
  });
});

/** Central differences of ⟨ȳ, f(x)⟩ in the array parameters (the sizes are held). */
function numericVjp(p: Program, fn: string, x: Value[], yb: Value[], h = 1e-6): number[][] {
  const f = (y: Value[]) => innerAll(evalFn(p, fn, y).nl, yb);
  return x.map((v, q) => {
    if (!Array.isArray(v)) return [];
    const moved = (i: number, s: number) => x.map((w, r) => (r !== q ? w : (w as number[]).map((e, t) => (t === i ? e + s * h : e))));
    return arr(v.length, (i) => (f(moved(i, 1)) - f(moved(i, -1))) / (2 * h));
  });
}

const seedFor = (p: Program, fn: string, x: Value[]): Value[] => evalFn(p, fn, x).nl.map((y, j) => (Array.isArray(y) ? y.map((_, i) => Math.cos(i + 2 * j + 1)) : Math.cos(j + 1)));
const directionFor = (x: Value[]): Value[] => x.map((v) => (Array.isArray(v) ? v.map((_, i) => Math.sin(2 * i + 1)) : 0));

function vjp(p: Program, fn: string, x: Value[], yb: Value[]): Value[] {
  const v = vjpOf(p, fn);
  const f = evalFn(v.program, v.fwd, x);
  return evalFn(v.program, v.bwd, [f.nl[yb.length]], yb).lin;
}

const POINTS: [string, Value[]][] = [
  ['mm', [...matrices([2, 3, 4]), 2, 3, 4]],
  ['mm', [...matrices([1, 1, 1]), 1, 1, 1]],
  ['mm', [...matrices([3, 1, 2], 1), 3, 1, 2]],
  ['mm', [...matrices([0, 2, 3]), 0, 2, 3]],
  ['mm', [...matrices([2, 0, 3]), 2, 0, 3]],
  ['chain', [...matrices([2, 3, 2]), arr(2 * 3, (i) => 0.3 * i - 0.7), 2, 3, 2, 3]],
  ['chain', [...matrices([1, 2, 1], 2), arr(1, () => 1.5), 1, 2, 1, 1]],
  ['quad', [arr(9, (i) => Math.sin(i + 0.3)), [0.5, -1, 2], 3]],
  ['quad', [[2], [0.7], 1]],
];

describe('derivatives against central differences', () => {
  test.each(POINTS)('%s at %j: the VJP, the JVP, unzipping (W(fwd) + W(lin) = W(jvp))', (fn, x) => {
    const p = program();
    const yb = seedFor(p, fn, x);
    const got = vjp(p, fn, x, yb);
    const want = numericVjp(p, fn, x, yb);
    want.forEach((w, q) => {
      if (!Array.isArray(x[q])) return;
      const g = got[q] as number[];
      expect(g.length).toBeLessThanOrEqual(w.length);
      pad(g, w.length).forEach((v, i) => expect(rel(v, w[i])).toBeLessThan(1e-6));
    });
    const xd = directionFor(x);
    const j = jvpOf(p, fn);
    const r = evalFn(j.program, j.jvp, x, xd);
    expect(r.nl).toEqual(evalFn(p, fn, x).nl);
    // the JVP against a central difference along ẋ
    const h = 1e-6;
    const along = (s: number) =>
      evalFn(
        p,
        fn,
        x.map((v, q) => (Array.isArray(v) ? (v as number[]).map((e, i) => e + s * h * (xd[q] as number[])[i]) : v)),
      ).nl;
    const plus = along(1);
    const minus = along(-1);
    r.lin.forEach((t, q) => {
      const fd = flat(plus[q]).map((v, i) => (v - flat(minus[q])[i]) / (2 * h));
      pad(flat(t), fd.length).forEach((v, i) => expect(rel(v, fd[i])).toBeLessThan(1e-6));
    });
    expect(rel(innerAll(r.lin, yb), innerAll(got, xd))).toBeLessThan(1e-12);
    expectUnzipSplitsJvp(p, fn, x, xd);
  });

  test('closed forms: ∇ Σ(A·B) is (1·Bᵀ, Aᵀ·1); ∇ₓ xᵀAx = (A + Aᵀ)x, ∇_A = x xᵀ', () => {
    const [n, k, m] = [2, 3, 4];
    const [a, b] = matrices([n, k, m]);
    const ones = arr(n * m, () => 1);
    const [aBar, bBar] = vjp(program(), 'mm', [a, b, n, k, m], [ones]);
    pad(aBar, n * k).forEach((v, i) => expect(rel(v, reference(ones, transposed(b, k, m), n, m, k)[i])).toBeLessThan(1e-14));
    pad(bBar, k * m).forEach((v, i) => expect(rel(v, reference(transposed(a, n, k), ones, k, n, m)[i])).toBeLessThan(1e-14));
    const A = [1, 2, 3, 4];
    const g = gradOf(program(), 'quad');
    expect(evalFn(g.program, g.grad, [A, [1, -1], 2]).nl).toEqual([[1, -1, -1, 1], [-3, -3], 0]);
  });
});

describe('second order: hvp = J of the gradient through the erased linear forms', () => {
  test.each([
    ['quad', [arr(9, (i) => Math.sin(i + 0.3)), [0.5, -1, 2], 3]],
    ['chain', [...matrices([2, 3, 2]), arr(2 * 3, (i) => 0.3 * i - 0.7), 2, 3, 2, 3]],
    ['chain', [...matrices([3, 2, 1], 1), arr(1 * 2, (i) => i + 1), 3, 2, 1, 2]],
  ] as [string, Value[]][])('%s at %j: against differences of the gradient, emitted code agrees', (fn, x) => {
    const p = program();
    const v = x.map((a, q) => (Array.isArray(a) ? a.map((_, i) => Math.cos(i + q)) : 0));
    const h = hvpOf(p, fn);
    const got = evalFn(h.program, h.hvp, [...x, ...v]).nl;
    const g = gradOf(p, fn);
    const eps = 1e-5;
    const at = (s: number) =>
      evalFn(
        g.program,
        g.grad,
        x.map((a, q) => (Array.isArray(a) ? (a as number[]).map((e, i) => e + s * eps * (v[q] as number[])[i]) : a)),
      ).nl;
    const plus = at(1);
    const minus = at(-1);
    x.forEach((a, q) => {
      if (!Array.isArray(a)) return;
      const want = pad(plus[q], a.length).map((w, i) => (w - pad(minus[q], a.length)[i]) / (2 * eps));
      pad(got[q], a.length).forEach((w, i) => expect(rel(w, want[i])).toBeLessThan(1e-6));
    });
    // the quadratic form's Hessian in x is A + Aᵀ exactly (with Ȧ = 0)
    if (fn === 'quad') {
      const A = x[0] as number[];
      const xd = v[1] as number[];
      const r = evalFn(h.program, h.hvp, [...x, arr(9, () => 0), xd, 0]).nl;
      pad(r[1], 3).forEach((w, i) =>
        expect(
          rel(
            w,
            arr(3, (l) => (A[i * 3 + l] + A[l * 3 + i]) * xd[l]).reduce((s, t) => s + t, 0),
          ),
        ).toBeLessThan(1e-14),
      );
    }
    const { fns } = emitAndLoad(h.program);
    const emitted = fns.get(h.hvp)!(...[...x, ...v].map(toTs)) as unknown[];
    x.forEach((a, q) => {
      if (Array.isArray(a)) expect(pad(plain(emitted[q]) as number[], a.length)).toEqual(pad(got[q], a.length));
    });
  });
});

// Each linear form as a def: lmatmul_xy(w, n, k, m ; u), u in role x (a: n×k, b: k×m, c: n×m), w in the third.
const FORMS = ['ac', 'ca', 'bc', 'cb', 'ab', 'ba'] as const;
const LINEAR = FORMS.map((xy) => `def f_${xy}(w: array<real>, n: real, k: real, m: real ; u: array<real>) -> (; array<real>) {\n  lmatmul_${xy}(w, n, k, m ; u) []\n}\n`).join('');
const roleSize = (r: string, n: number, k: number, m: number): number => (r === 'a' ? n * k : r === 'b' ? k * m : n * m);
const thirdRole = (xy: string): string => ['a', 'b', 'c'].find((r) => !xy.includes(r))!;

/** The form by its definition, from the reference product: C = A·B, A = C·Bᵀ, B = Aᵀ·C. */
function formReference(xy: string, w: number[], u: number[], n: number, k: number, m: number): number[] {
  const mats: Record<string, number[]> = { [thirdRole(xy)]: w, [xy[0]]: u };
  const { a, b, c } = { a: pad(mats.a ?? [], n * k), b: pad(mats.b ?? [], k * m), c: pad(mats.c ?? [], n * m) };
  if (xy[1] === 'c') return reference(a, b, n, k, m);
  if (xy[1] === 'a') return reference(c, transposed(b, k, m), n, m, k);
  return reference(transposed(a, n, k), c, k, n, m);
}

describe('the linear forms: values, the dot-product test, T∘T = id, short operands as zero padded', () => {
  const cases = FORMS.flatMap((xy) => SIZES.map(([n, k, m]) => [xy, n, k, m] as [string, number, number, number]));
  test.each(cases)('lmatmul_%s at n = %i, k = %i, m = %i', (xy, n, k, m) => {
    const t = transposeOf(parseProgram(LINEAR), `f_${xy}`);
    expect(printProgram(t.program)).toContain(`lmatmul_${xy[1]}${xy[0]}(`);
    const z = thirdRole(xy);
    const w = arr(roleSize(z, n, k, m), (i) => Math.sin(i + 0.4));
    const u = arr(roleSize(xy[0], n, k, m), (i) => Math.cos(1.7 * i));
    const yb = arr(roleSize(xy[1], n, k, m), (i) => Math.sin(0.9 * i + 2));
    const nl = [w, n, k, m];
    const lx = evalFn(t.program, `f_${xy}`, nl, [u]);
    expect(lx.lin[0]).toHaveLength(yb.length);
    (lx.lin[0] as number[]).forEach((v, i) => expect(rel(v, formReference(xy, w, u, n, k, m)[i])).toBeLessThan(1e-14));
    expect(lx.work).toBe(n * k * m + yb.length);
    const ty = evalFn(t.program, `f_${xy}.T`, nl, [yb]).lin;
    expect(ty[0]).toHaveLength(u.length);
    expect(rel(inner(lx.lin[0] as number[], yb), inner(ty[0] as number[], u))).toBeLessThan(1e-12);
    const tt = transposeOf(t.program, `f_${xy}.T`);
    expect(plain(evalFn(tt.program, `f_${xy}.T.T`, nl, [u]).lin)).toEqual(plain(lx.lin));
    // short and empty linear operands (and, erased, short fixed matrices) read as zero padded
    const short = u.slice(0, Math.floor(u.length / 2));
    const full = evalFn(t.program, `f_${xy}`, nl, [pad(short, u.length)]).lin;
    expect(evalFn(t.program, `f_${xy}`, nl, [short]).lin).toEqual(full);
    expect(evalFn(t.program, `f_${xy}`, nl, [[]]).lin).toEqual([arr(yb.length, () => 0)]);
    // emitted code: the form and its transpose, dense, short and empty operands
    const { fns } = emitAndLoad(t.program);
    const run = (name: string, lin: number[]) => plain(fns.get(name)!(...nl.map(toTs), Float64Array.from(lin)));
    expect(run(`f_${xy}`, u)).toEqual(lx.lin[0]);
    expect(run(`f_${xy}`, short)).toEqual(full[0]);
    expect(run(`f_${xy}`, [])).toEqual(arr(yb.length, () => 0));
    expect(run(`f_${xy}.T`, yb)).toEqual(ty[0]);
    const shortW = w.slice(0, Math.ceil(w.length / 3));
    const erased = fns.get(`f_${xy}`)!(Float64Array.from(shortW), n, k, m, Float64Array.from(u));
    expect(plain(erased)).toEqual(evalFn(t.program, `f_${xy}`, [pad(shortW, w.length), n, k, m], [u]).lin[0]);
    expect(evalFn(t.program, `f_${xy}`, [shortW, n, k, m], [u]).lin).toEqual(evalFn(t.program, `f_${xy}`, [pad(shortW, w.length), n, k, m], [u]).lin);
  });

  test('an operand longer than its matrix is an error', () => {
    const t = parseProgram(LINEAR);
    expect(() => evalFn(t, 'f_ac', [[1, 2], 1, 1, 2], [[1, 2]])).toThrow('lmatmul_ac: the linear operand has 2 elements, more than the 1 of its matrix');
  });
});

describe('work: W(grad) ≤ c·W(f) from n = k = m = 4 to 32', () => {
  test.each(['mm', 'chain'])('%s', (fn) => {
    const p = program();
    const ratios = [4, 8, 16, 32].map((n) => {
      const [a, b] = matrices([n, n, n]);
      const x: Value[] = fn === 'mm' ? [a, b, n, n, n] : [a, b, arr(n * n, (i) => 1 / (i + 1)), n, n, n, n];
      const wf = evalFn(p, fn, x).work;
      const v = vjpOf(p, fn);
      const f = evalFn(v.program, v.fwd, x);
      const bw = evalFn(v.program, v.bwd, [f.nl[1]], seedFor(p, fn, x));
      return (f.work + bw.work) / wf;
    });
    ratios.forEach((r) => expect(r).toBeLessThan(3.5));
    expect(ratios[3]).toBeLessThanOrEqual(ratios[0] * 1.05);
  });
});

describe('emitted TypeScript', () => {
  test('the primal, jvp, fwd, lin, bwd and grad agree with the interpreter', () => {
    let p = program();
    const names = ['mm', 'chain', 'quad'];
    for (const fn of names) p = vjpOf(p, fn).program;
    for (const fn of names) p = jvpOf(p, fn).program;
    for (const fn of ['chain', 'quad']) p = gradOf(p, fn).program;
    const { code, fns: emitted } = emitAndLoad(p);
    expect(code).toContain('new Float64Array(');
    const calls: [string, Value[], Value[]][] = [];
    for (const [fn, x] of POINTS) {
      const xd = directionFor(x);
      const tape = evalFn(p, `${fn}.fwd`, x).nl[1];
      calls.push([fn, x, []], [`${fn}.jvp`, x, xd], [`${fn}.fwd`, x, []], [`${fn}.lin`, [tape], xd], [`${fn}.bwd`, [tape], seedFor(p, fn, x)]);
      if (fn !== 'mm') calls.push([`${fn}.grad`, x, []]);
    }
    for (const [name, nl, lin] of calls) {
      const want = plain(asReturned(evalFn(p, name, nl, lin)));
      const tape = name.endsWith('.lin') || name.endsWith('.bwd');
      const got = plain(emitted.get(name)!(...(tape ? nl : nl.map(toTs)), ...lin.map(toTs)));
      const a = flat(got as Value);
      const b = flat(want as Value);
      if (a.length === b.length) a.forEach((v, i) => expect(rel(v, b[i])).toBeLessThan(1e-14));
      else expect(JSON.stringify(got)).toBe(JSON.stringify(want));
    }
  });

  test('the loops: i-l-j, the inner loop contiguous, the lengths checked before the loops', () => {
    const { code } = emitAndLoad(annotateTypes(program()));
    const mm = code.slice(code.indexOf('function mm'), code.indexOf('function chain'));
    expect(mm).toMatch(/\+= s\w* \* b\[lb\w* \+ j\w*\]/);
    expect(mm.indexOf('RangeError')).toBeLessThan(mm.indexOf('for ('));
    expect(mm.match(/new Float64Array/g)).toHaveLength(1);
  });
});

describe('random sizes 0 … 5 and values (fast-check)', () => {
  const unit = fc.double({ min: -2, max: 2, noNaN: true });
  const arb = fc
    .tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 }))
    .chain(([n, k, m, q]) => fc.tuple(fc.constant([n, k, m, q]), ...[n * k, k * m, m * q, n * k, k * m, m * q].map((len) => fc.array(unit, { minLength: len, maxLength: len }))));
  test('the primal against the triple loop; grad of Σ((A·B)·C) against JVPs; emitted grad against the interpreter', () => {
    const p = program();
    const g = gradOf(p, 'chain');
    const j = jvpOf(p, 'chain');
    const { fns } = emitAndLoad(g.program);
    fc.assert(
      fc.property(arb, ([[n, k, m, q], a, b, c, ad, bd, cd]) => {
        const prim = evalFn(p, 'mm', [a, b, n, k, m]).nl[0] as number[];
        reference(a, b, n, k, m).forEach((v, i) => expect(Math.abs(prim[i] - v)).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(v))));
        const x = [a, b, c, n, k, m, q];
        const grad = evalFn(g.program, g.grad, x).nl;
        const jv = evalFn(j.program, j.jvp, x, [ad, bd, cd, 0, 0, 0, 0]).lin[0] as number;
        const gj = inner(grad[0] as number[], ad) + inner(grad[1] as number[], bd) + inner(grad[2] as number[], cd);
        expect(Math.abs(jv - gj)).toBeLessThanOrEqual(1e-10 * (1 + Math.abs(jv)));
        const emitted = fns.get(g.grad)!(...x.map(toTs)) as unknown[];
        [0, 1, 2].forEach((r) => expect(pad(plain(emitted[r]) as number[], (x[r] as number[]).length)).toEqual(pad(grad[r], (x[r] as number[]).length)));
      }),
      { numRuns: 60 },
    );
  });
});
