// Arrays at the IR level (examples/ir/array.lina): syntax, the checker, the interpreter's values
// and work, J, U, T and grad against central differences and the worked examples of
// array-adjoints-map-reduce-scan.md §5, the dot-product test on every linear array construct, and
// the emitted TypeScript against the interpreter.
import * as fs from 'fs';
import * as path from 'path';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { evalFn, Value } from '../../transformer/language/interp';
import { Program, arrayType, REAL, tangentType, typeEquals } from '../../transformer/ir/syntax';
import { emitAndLoad, asReturned } from './emitted';
import { CONSTRUCTS } from '../../transformer/constructs/registry';
import { gradOf, hvpOf, jvpOf, linearizeOf, transposeOf, vjpOf } from '../gen/drivers';
import { plain, rel } from './reference';

const source = fs.readFileSync(path.join(__dirname, '../../examples/ir/array.lina'), 'utf8');
const program = () => parseProgram(source, 'array.lina');

/** Flattens values, padding sparse tangent arrays is the caller's business. */
const flat = (v: Value | readonly Value[] | Float64Array): number[] => (v instanceof Float64Array ? [...v] : Array.isArray(v) ? (v as Value[]).flatMap((x) => flat(x)) : [v as number]);
/** A sparse-at-the-end tangent array padded to length n (its missing elements are zeros). */
const pad = (v: Value, n: number): number[] => Array.from({ length: n }, (_, i) => ((v as number[])[i] as number | undefined) ?? 0);
/** Emitted values with Float64Arrays turned into plain arrays, to compare with the interpreter. */

describe('syntax and checker', () => {
  test('printing and parsing back is a fixed point, with types (array<real> in the tapes too)', () => {
    const p = program();
    const text = printProgram(p);
    expect(printProgram(parseProgram(text))).toBe(text);
    expect(text).toContain('def total(a: array<real> ;) -> (real ;) {');
    expect(text).toContain('map(n, xs, c) [|x: real, u: real ;| {');
    const v = vjpOf(p, 'scaledSum').program;
    const typed = printProgram(annotateTypes(v), { types: true });
    // n, the invariant c (passed once, not stored per element) and the elements x.
    expect(typed).toContain('type scaled.tape = <real, real, array<real>>');
    expect(printProgram(parseProgram(typed), { types: true })).toBe(typed);
    expect(typeErrors(parseProgram(typed))).toEqual([]);
    expect(typeErrors(p)).toEqual([]);
  });

  test('the tangent type of array<T> is array<tangent T>', () => {
    expect(tangentType(arrayType(REAL))).toEqual(arrayType(REAL));
    expect(tangentType(arrayType({ tag: 'bool' }))).toEqual(arrayType({ tag: 'tuple', elems: [] }));
    expect(typeEquals(arrayType(REAL), arrayType(REAL))).toBe(true);
    expect(typeEquals(arrayType(REAL), { tag: 'stack', elem: REAL })).toBe(false);
  });

  test('the registry holds the array constructs', () => {
    expect(Object.keys(CONSTRUCTS)).toEqual(expect.arrayContaining(['len', 'index', 'fill', 'sum', 'lindex', 'lonehot', 'lsum', 'lfill', 'map']));
  });

  const wrap = (body: string, params = 'a: array<real>, x: real') => `def f(${params} ;) -> (real ;) {\n${body}\n}`;
  test.each([
    ['sum of a real', wrap('  drop(a)\n  sum(x) []'), ['t.lina:3:3: in f: sum needs an array<real>, got real']],
    ['an index that is not real', wrap('  drop(x)\n  let t = true\n  index(a, t) []'), ['t.lina:4:3: in f: the index of index must be real, got bool']],
    ['len of a real', wrap('  drop(a)\n  len(x) []'), ['t.lina:3:3: in f: len needs an array, got real']],
    [
      'a map operand that fits its parameter neither as array nor as value',
      wrap('  let n = len(a) []\n  let t = true\n  let m = map(n, a, t) [|e: real, u: real ;| {\n    drop(u)\n    (e ;)\n  }]\n  drop(x)\n  sum(m) []'),
      ["t.lina:4:11: in f: map: operand 2 (bool) is neither an array of the parameter u's type real nor of that type"],
    ],
    ['a map without an array', wrap('  drop(a)\n  let n = 3\n  let m = map(n, x) [|u: real ;| {\n    (u ;)\n  }]\n  sum(m) []'), ['t.lina:4:11: in f: map needs at least one mapped array operand']],
    [
      'a free variable in a map body',
      wrap('  let n = len(a) []\n  let m = map(n, a) [|e: real ;| {\n    mul(e, x)\n  }]\n  sum(m) []'),
      ['t.lina:4:5: in f: a body of map reads x, which is bound outside it; bodies are closed: pass x as an operand'],
    ],
    [
      'a tuple invariant (not supported yet: pass its reals)',
      wrap('  let n = len(a) []\n  let t = <x, x>\n  let m = map(n, a, t) [|e: real, u: <real, real> ;| {\n    drop(u)\n    (e ;)\n  }]\n  sum(m) []'),
      ['t.lina:4:11: in f: map: an invariant operand of type <real, real> is not supported yet'],
    ],
    [
      'a map whose length is not real',
      wrap('  drop(x)\n  let t = true\n  let m = map(t, a) [|e: real ;| {\n    (e ;)\n  }]\n  sum(m) []'),
      ['t.lina:4:11: in f: the first operand of map is its length n, a real'],
    ],
  ])('rejects %s', (_, src, messages) => {
    const errs = typeErrors(parseProgram(src, 't.lina'));
    expect(errs.length).toBeGreaterThan(0);
    for (const m of messages) expect(errs.join('\n')).toContain(m);
  });
});

describe('interpreter: values and work', () => {
  test('values', () => {
    const p = program();
    expect(evalFn(p, 'total', [[1, 2, 3, 4]]).nl).toEqual([10]);
    expect(evalFn(p, 'scaled', [[1, 2, 3], 2]).nl).toEqual([[2, 4, 6]]);
    expect(
      evalFn(p, 'dot', [
        [1, 2, 3],
        [4, 5, 6],
      ]).nl,
    ).toEqual([32]);
    expect(evalFn(p, 'pick', [[1, 2, 3], 0, 2]).nl).toEqual([3]);
    expect(evalFn(p, 'sines', [0.5, 3]).nl[0]).toBeCloseTo(Math.sin(0.5) + Math.sin(1), 14);
    expect(evalFn(p, 'scaled', [[], 2]).nl).toEqual([[]]);
  });

  test('work: an element operation costs 1, a map the work of its bodies, sum and fill one per element', () => {
    const p = program();
    for (const n of [0, 1, 7]) {
      const xs = Array.from({ length: n }, (_, i) => i + 1);
      expect(evalFn(p, 'total', [xs]).work).toBe(n);
      expect(evalFn(p, 'scaled', [xs, 2]).work).toBe(n);
      // n products, n additions
      expect(evalFn(p, 'dot', [xs, xs]).work).toBe(2 * n);
      // fill n, then per element drop(e) + mul + sin, then the sum
      expect(evalFn(p, 'sines', [0.5, n]).work).toBe(n + 3 * n + n);
    }
    expect(evalFn(p, 'pick', [[1, 2, 3], 0, 2]).work).toBe(3);
  });

  test('out-of-range reads and mismatched lengths are clear errors', () => {
    const p = program();
    expect(() => evalFn(p, 'pick', [[1, 2, 3], 0, 3])).toThrow('index: index 3 outside an array of 3');
    expect(() => evalFn(p, 'pick', [[1, 2, 3], 0.5, 1])).toThrow('index: index 0.5 outside an array of 3');
    expect(() =>
      evalFn(p, 'dot', [
        [1, 2, 3],
        [4, 5],
      ]),
    ).toThrow('map: an array of 2 elements mapped over a length of 3');
    expect(() => evalFn(p, 'sines', [0.5, -1])).toThrow('fill: the length -1 is not a non-negative integer');
  });
});

/** Central differences of a real-valued fn in every real of its active parameters (indices and lengths are not). */
function numericGradient(p: Program, fn: string, x: Value[], active: readonly boolean[], h = 1e-6): number[][] {
  return x.map((v, k) => {
    if (!active[k]) return [0];
    const at = (i: number, s: number) => {
      const y = x.map((w) => (Array.isArray(w) ? [...w] : w));
      if (Array.isArray(v)) (y[k] as number[])[i] += s * h;
      else y[k] = (v as number) + s * h;
      return evalFn(p, fn, y).nl[0] as number;
    };
    const len = Array.isArray(v) ? v.length : 1;
    return Array.from({ length: len }, (_, i) => (at(i, 1) - at(i, -1)) / (2 * h));
  });
}

const POINTS: [string, Value[], boolean[]][] = [
  ['total', [[1, 2, 3, 4]], [true]],
  ['pick', [[1, 2, 3], 0, 2], [true, false, false]],
  ['pick', [[1.5, -2, 3], 1, 1], [true, false, false]],
  ['scaledSum', [[1, 2, 3], 2], [true, true]],
  [
    'dot',
    [
      [1, 2, 3],
      [4, -5, 6],
    ],
    [true, true],
  ],
  ['sines', [0.5, 4], [true, false]],
  ['sines', [0.5, 0], [true, false]],
  ['sumsq', [[1, -2, 3]], [true]],
  ['sumsq', [[]], [true]],
  ['maybeScale', [[0.5, -1, 2], 1.5], [true, true]],
  ['maybeScale', [[0.5, -1, 2], -1.5], [true, true]],
  [
    'gathered',
    [
      [1, 2, 3],
      [2, 2, 0],
    ],
    [true, false],
  ],
  [
    'gathered',
    [
      [0.5, -1.5],
      [1, 1, 1, 0],
    ],
    [true, false],
  ],
];

describe('derivatives', () => {
  test('§5 example 1: sum([1, 2, 3, 4]) = 10 with gradient [1, 1, 1, 1]', () => {
    const g = gradOf(program(), 'total');
    expect(evalFn(g.program, g.grad, [[1, 2, 3, 4]]).nl).toEqual([[1, 1, 1, 1]]);
  });

  test('§5 example 12: map(x ↦ x·c) over [1, 2, 3] with c = 2 and ȳ = [1, 1, 1]: x̄ = [2, 2, 2], c̄ = 6', () => {
    const v = vjpOf(program(), 'scaled');
    const tape = evalFn(v.program, v.fwd, [[1, 2, 3], 2]).nl[1];
    expect(evalFn(v.program, v.bwd, [tape], [[1, 1, 1]]).lin).toEqual([[2, 2, 2], 6]);
    const g = gradOf(program(), 'scaledSum', { simplify: true });
    expect(evalFn(g.program, g.grad, [[1, 2, 3], 2]).nl).toEqual([[2, 2, 2], 6]);
  });

  test('E10: dot(a, b) has gradient (b, a); a one-hot for an index, and two one-hots add', () => {
    const g = gradOf(program(), 'dot');
    expect(
      evalFn(g.program, g.grad, [
        [1, 2, 3],
        [4, 5, 6],
      ]).nl,
    ).toEqual([
      [4, 5, 6],
      [1, 2, 3],
    ]);
    const q = gradOf(program(), 'pick');
    expect(evalFn(q.program, q.grad, [[1, 2, 3], 0, 2]).nl).toEqual([[3, 0, 1], 0, 0]);
    // a[1]² : 2·a[1] at 1. The first read hands ȧ on (lpeek), whose transpose accumulates into a
    // dense array of a's length (a gradient array may also stop early: trailing zeros).
    expect(evalFn(q.program, q.grad, [[1, 2, 3], 1, 1]).nl[0]).toEqual([0, 4, 0]);
  });

  test.each(POINTS)('jvp, linearize, vjp and grad of %s at %j against central differences', (fn, x, active) => {
    const p = program();
    const fd = numericGradient(p, fn, x, active);
    const dir: Value[] = x.map((v, k) => (Array.isArray(v) ? v.map((_, i) => 0.5 + i - k) : active[k] ? 0.7 : 0));
    const want = fd.reduce((s, g, k) => s + (active[k] ? g.reduce((t, gi, i) => t + gi * flat(dir[k])[i], 0) : 0), 0);
    const j = jvpOf(p, fn);
    const r = evalFn(j.program, j.jvp, x, dir);
    expect(r.nl).toEqual(evalFn(p, fn, x).nl);
    expect(rel(r.lin[0] as number, want)).toBeLessThan(1e-7);
    const lz = linearizeOf(p, fn);
    const f = evalFn(lz.program, lz.fwd, x);
    expect(f.nl[0]).toEqual(r.nl[0]);
    const l = evalFn(lz.program, lz.lin, [f.nl[1]], dir);
    expect(l.lin[0]).toBeCloseTo(r.lin[0] as number, 12);
    // U splits J: W(fwd) + W(lin) = W(jvp), plus, through a cond, the drop of the residual slots
    // the taken branch does not use (maybeScale's else branch: the then branch's array of x and
    // its invariant k, 1 unit each).
    expect(f.work + l.work).toBe(r.work + (fn === 'maybeScale' && (x[1] as number) <= 0 ? 2 : 0));
    const g = gradOf(p, fn, { simplify: true });
    const grad = evalFn(g.program, g.grad, x).nl;
    grad.forEach((gk, k) => {
      // An inactive array (an index array) has a zero gradient: empty, or zeros.
      if (!active[k]) return expect(flat(gk).every((v) => v === 0)).toBe(true);
      const want = fd[k];
      const got = Array.isArray(x[k]) ? pad(gk, want.length) : [gk as number];
      got.forEach((v, i) => expect(rel(v, want[i])).toBeLessThan(1e-7));
    });
  });

  test('arrays of booleans: reads and fills have zero tangents, and the real parts still differentiate', () => {
    const src = `def f(a: array<real>, x: real ;) -> (real ;) {
  let n = len(a) []
  let zero = 0
  let p = gt(x, zero)
  let flags = fill(n, p) []
  let k = 0
  let q = index(flags, k) []
  let s = sum(a) []
  let y = mul(s, x)
  select(q, y, s)
}`;
    const p = parseProgram(src);
    const g = gradOf(p, 'f');
    expect(evalFn(g.program, g.grad, [[1, 2], 3]).nl).toEqual([[3, 3], 3]);
    expect(evalFn(g.program, g.grad, [[1, 2], -3]).nl).toEqual([[1, 1], 0]);
  });

  test('second order (hvp = E ∘ J ∘ grad) through arrays: closed-form Hessian-vector products', () => {
    const p = program();
    // a·b: H·(v_a, v_b) = (v_b, v_a)
    const h = hvpOf(p, 'dot');
    expect(
      evalFn(h.program, h.hvp, [
        [1, 2, 3],
        [4, 5, 6],
        [1, 0, 0],
        [0, 1, 0],
      ]).nl,
    ).toEqual([
      [0, 1, 0],
      [1, 0, 0],
    ]);
    // a₀·a₂: ∂²/∂a₀∂a₂ = 1
    const q = hvpOf(p, 'pick');
    expect(evalFn(q.program, q.hvp, [[1, 2, 3], 0, 2, [1, 1, 1], 0, 0]).nl).toEqual([[1, 0, 1], 0, 0]);
    // d²/dx² Σ_{i<3} sin(i·x) = −Σ i² sin(i·x)
    const s = hvpOf(p, 'sines');
    expect(evalFn(s.program, s.hvp, [0.5, 3, 1, 0]).nl[0]).toBeCloseTo(-(Math.sin(0.5) + 4 * Math.sin(1)), 12);
  });

  test('U stores per element only what varies: the index and invariant parameters are not stored', () => {
    const lz = linearizeOf(program(), 'sines');
    const tape = printProgram(annotateTypes(lz.program), { types: true }).match(/type sines\.tape = (.*)/)![1];
    // the length (twice: the map's and the sum's), and one array, cos(i·x) per element: the index
    // is the linear map's own, and the invariant x is not needed (only its tangent is)
    expect(tape).toBe('<real, array<real>, real>');
    expect(printProgram(lz.program)).toContain('map(n, res ; zero_1, x_dot) [|i: real, cos: real ; e_dot: real, u_dot: real| {');
    // scaled's tape: n, the invariant c passed once, and the elements x
    const sc = linearizeOf(program(), 'scaled');
    expect(printProgram(annotateTypes(sc.program), { types: true })).toContain('type scaled.tape = <real, real, array<real>>');
  });

  test('the dot-product test on .lin and .bwd of every example', () => {
    for (const [fn, x] of POINTS) {
      const v = vjpOf(program(), fn);
      const tape = evalFn(v.program, v.fwd, x).nl[1];
      for (let trial = 0; trial < 3; trial++) {
        const xd: Value[] = x.map((w, k) => (Array.isArray(w) ? w.map((_, i) => Math.sin(3 * trial + i + k + 1)) : Math.sin(3 * trial + k + 1)));
        const yb = Math.cos(5 * trial + 2);
        const lx = evalFn(v.program, `${fn}.lin`, [tape], xd).lin[0] as number;
        const ty = evalFn(v.program, v.bwd, [tape], [yb]).lin;
        const back = ty.reduce<number>((s, t, k) => s + (Array.isArray(x[k]) ? pad(t, (x[k] as number[]).length) : [t as number]).reduce((u, ti, i) => u + ti * flat(xd[k])[i], 0), 0);
        expect(rel(yb * lx, back)).toBeLessThan(1e-12);
      }
    }
  });
});

// Hand-written linear functions: each linear array construct and a linear map, transposed.
const LINEAR = `
def li(i: real ; a: array<real>) -> (; real) {
  lindex(i ; a) []
}
def oh(i: real ; y: real) -> (; array<real>) {
  lonehot(i ; y) []
}
def ls(n: real ; a: array<real>) -> (; real) {
  lsum(n ; a) []
}
def lf(n: real ; y: real) -> (; array<real>) {
  lfill(n ; y) []
}
def lm(n: real, w: array<real>, k: real ; a: array<real>, c: real) -> (; array<real>) {
  map(n, w, k ; a, c) [|wi: real, kk: real ; ai: real, cc: real| {
    let (; p) = scale(wi ; ai)
    let (; q) = scale(kk ; cc)
    ladd(; p, q)
  }]
}
`;

describe('linear array constructs', () => {
  const inner = (a: Value, b: Value, n: number) => (typeof a === 'number' ? a * (b as number) : pad(a, n).reduce((s, v, i) => s + v * pad(b, n)[i], 0));

  test.each([
    ['li', [2], [[0.5, -1, 3, 2]], 0.7, 4],
    ['oh', [2], [1.5], [0.25, -1, 3, 2], 4],
    ['ls', [3], [[0.5, -1, 3]], 0.7, 3],
    ['lf', [3], [1.5], [0.25, -1, 3], 3],
    ['lf', [0], [1.5], [], 0],
  ] as [string, Value[], Value[], Value, number][])('%s: the dot-product test, and T∘T = id', (fn, nl, xd, yb, n) => {
    const t = transposeOf(parseProgram(LINEAR), fn);
    const lx = evalFn(t.program, fn, nl, xd).lin[0];
    const ty = evalFn(t.program, `${fn}.T`, nl, [yb]).lin[0];
    expect(rel(inner(lx, yb, n), inner(xd[0], ty, n))).toBeLessThan(1e-12);
    const tt = transposeOf(t.program, `${fn}.T`);
    expect(plain(evalFn(tt.program, `${fn}.T.T`, nl, xd).lin[0])).toEqual(lx);
  });

  test('work: lonehot and lindex cost 1 whatever the length (the cost model; lonehot allocates i + 1 zeros, see docs), lsum and lfill the length', () => {
    const t = transposeOf(parseProgram(LINEAR), 'li');
    expect(evalFn(t.program, 'li.T', [0], [2]).work).toBe(1);
    expect(evalFn(t.program, 'li', [3], [Array.from({ length: 1000 }, () => 1)]).work).toBe(1);
    const s = transposeOf(parseProgram(LINEAR), 'ls');
    expect(evalFn(s.program, 'ls.T', [1000], [2]).work).toBe(1000);
  });

  test('a linear map: the dot-product test, the invariant cotangent summed (lsum), mapped ones per element', () => {
    const t = transposeOf(parseProgram(LINEAR), 'lm');
    const text = printProgram(t.program);
    expect(text).toContain('lsum(n ; ');
    for (const n of [0, 1, 5]) {
      const w = Array.from({ length: n }, (_, i) => 1 + i);
      const a = Array.from({ length: n }, (_, i) => Math.sin(i + 1));
      const yb = Array.from({ length: n }, (_, i) => Math.cos(i + 2));
      const lx = evalFn(t.program, 'lm', [n, w, 1.5], [a, 0.3]).lin[0];
      const [aBar, cBar] = evalFn(t.program, 'lm.T', [n, w, 1.5], [yb]).lin;
      expect(rel(inner(lx, yb, n), inner(a, aBar, n) + 0.3 * (cBar as number))).toBeLessThan(1e-12);
      // c̄ = k·Σ ȳ, ā = w ⊙ ȳ
      expect(cBar).toBeCloseTo(1.5 * yb.reduce((s, v) => s + v, 0), 12);
      expect(aBar).toEqual(yb.map((v, i) => w[i] * v));
    }
    // A zero tangent array (empty) is mapped as zeros.
    expect(evalFn(t.program, 'lm', [3, [1, 2, 3], 2], [[], 1]).lin[0]).toEqual([2, 2, 2]);
  });
});

describe('emitted TypeScript agrees with the interpreter', () => {
  test('every def and its derived functions, lengths 0 and more', () => {
    let p = program();
    for (const fn of ['total', 'pick', 'scaled', 'scaledSum', 'dot', 'sines', 'sumsq', 'maybeScale', 'gathered']) p = vjpOf(p, fn).program;
    for (const fn of ['total', 'pick', 'scaledSum', 'dot', 'sines', 'sumsq', 'maybeScale', 'gathered']) p = gradOf(p, fn).program;
    for (const fn of ['li', 'oh', 'ls', 'lf', 'lm']) p = transposeOf({ defs: [...p.defs, ...parseProgram(LINEAR).defs.filter((d) => d.name === fn)] }, fn).program;
    const { code, fns } = emitAndLoad(p);
    expect(code).toContain('new Float64Array(n)');
    expect(code).toMatch(/for \(let k = 0; k < n; k\+\+\) \{/);
    const calls: [string, Value[], Value[]][] = [];
    const F = (xs: number[]) => xs;
    for (const [fn, x] of [...POINTS, ['dot', [[], []], []] as [string, Value[], boolean[]], ['scaledSum', [[], 3], []] as [string, Value[], boolean[]]]) {
      const dir: Value[] = x.map((v) => (Array.isArray(v) ? v.map((_, i) => i + 0.5) : 0.25));
      calls.push([fn, x, []], [`${fn}.jvp`, x, dir], [`${fn}.fwd`, x, []]);
      const tape = evalFn(p, `${fn}.fwd`, x).nl[1];
      calls.push([`${fn}.lin`, [tape], dir], [`${fn}.bwd`, [tape], [1.5]], [`${fn}.grad`, x, []]);
    }
    calls.push(['scaled', [F([1, 2, 3]), 2], []], ['li.T', [2], [3]], ['oh.T', [1], [F([1, 2, 3])]], ['ls.T', [3], [2]], ['lf.T', [3], [F([1, 2, 3])]]);
    calls.push(['lm', [3, F([1, 2, 3]), 2], [F([1, 1]), 1]], ['lm.T', [3, F([1, 2, 3]), 2], [F([1, 2, 3])]]);
    const toEmitted = (v: Value): unknown => (Array.isArray(v) && v.every((e) => typeof e === 'number') ? Float64Array.from(v as number[]) : v);
    for (const [name, nl, lin] of calls) {
      const want = asReturned(evalFn(p, name, nl, lin));
      const got = fns.get(name)!(...[...nl, ...lin].map((v) => (Array.isArray(v) && !name.endsWith('.lin') && !name.endsWith('.bwd') ? toEmitted(v) : v)));
      expect([name, plain(got)]).toEqual([name, want]);
    }
  });
});
