// The counted loop construct at the IR level (examples/ir/loop.lina): syntax, the checker,
// the interpreter's values and work, J, U, T and grad against finite differences and each other,
// the dot-product test, the emitted TypeScript against the interpreter, and work linear in the
// trip count.
import * as fs from 'fs';
import * as path from 'path';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { evalFn, Value } from '../../transformer/language/interp';
import { emitAndLoad, asReturned } from './emitted';
import { findDef } from '../../transformer/ir/program';
import { CONSTRUCTS } from '../../transformer/constructs/registry';
import { gradOf, jvpOf, linearizeOf, transposeOf, vjpOf } from '../gen/drivers';
import { rel, dot, basis, centralDifference, expectDotProduct } from './reference';

const source = fs.readFileSync(path.join(__dirname, '../../examples/ir/loop.lina'), 'utf8');
const program = () => parseProgram(source, 'loop.lina');

describe('syntax and checker', () => {
  test('printing and parsing back is a fixed point, with types (stack<real> in the tapes too)', () => {
    const p = program();
    const text = printProgram(p);
    expect(printProgram(parseProgram(text))).toBe(text);
    expect(text).toContain('loop(n, x) [|i: real, c: real ;| {');
    const v = vjpOf(p, 'pair').program;
    const typed = printProgram(annotateTypes(v), { types: true });
    expect(typed).toContain('stack<real>');
    expect(printProgram(parseProgram(typed), { types: true })).toBe(typed);
    expect(typeErrors(parseProgram(typed))).toEqual([]);
  });

  test('the registry holds loop and the stack operations', () => {
    expect(Object.keys(CONSTRUCTS)).toEqual(expect.arrayContaining(['cond', 'loop', 'stack', 'push', 'at']));
  });

  const wrap = (body: string) => `def f(x: real, n: real ;) -> (real ;) {\n${body}\n}`;
  test.each([
    [
      'a trip count that is not real',
      'def f(x: real, n: bool ;) -> (real ;) {\n  loop(n, x) [|i: real, c: real ;| {\n    drop(i)\n    (c ;)\n  }]\n}',
      ['t.lina:2:3: in f: the trip count of loop must be real, got bool'],
    ],
    [
      'a body returning another type than the carried value',
      wrap('  loop(n, x) [|i: real, c: real ;| {\n    drop(i)\n    gt(c, c)\n  }]'),
      ['t.lina:2:3: in f: the body of loop returns (bool), but its last operands (the carried values) are (real)'],
    ],
    [
      'a free variable in the body',
      wrap('  loop(n, x) [|i: real, c: real ;| {\n    drop(i)\n    mul(c, x)\n  }]'),
      ['t.lina:4:12: in f: a body of loop reads x, which is bound outside it; bodies are closed: pass x as an operand'],
    ],
    ['two bodies', wrap('  loop(n, x) [|i: real, c: real ;| {\n    drop(i)\n    (c ;)\n  }, |i: real, c: real ;| {\n    drop(i)\n    (c ;)\n  }]'), ['t.lina:2:3: in f: loop takes one body; got 2']],
  ])('rejects %s', (_, src, messages) => {
    const errs = typeErrors(parseProgram(src, 't.lina'));
    expect(errs.length).toBeGreaterThan(0);
    expect(errs[0].replace(/:\d+:\d+:/, ':')).toBe(messages[0].replace(/:\d+:\d+:/, ':'));
  });

  test('the example type-checks', () => expect(typeErrors(program())).toEqual([]));
});

describe('interpreter', () => {
  test('values, and work = the sum of the iterations', () => {
    const p = program();
    expect(evalFn(p, 'sq', [1.5, 3])).toEqual({ nl: [25.62890625], lin: [], work: 3 * 2 });
    expect(evalFn(p, 'pow', [2, 5]).nl).toEqual([32]);
    expect(evalFn(p, 'sines', [0.3, 4]).nl[0]).toBeCloseTo(
      [0, 1, 2, 3].reduce((s, i) => s + Math.sin(i * 0.3), 0),
      14,
    );
    expect(evalFn(p, 'l', [3, 2], [1, 5]).lin).toEqual([11]);
    for (const n of [0, 1, 7]) expect(evalFn(p, 'sines', [0.3, n]).work).toBe(3 * n);
  });

  test('zero iterations (and n < 0) return the carried operands', () => {
    const p = program();
    for (const n of [0, -2]) {
      expect(evalFn(p, 'sq', [1.5, n]).nl).toEqual([1.5]);
      expect(evalFn(p, 'pair', [1.5, 2, n]).nl).toEqual([1.5, 2]);
      expect(evalFn(p, 'l', [n, 2], [1, 5])).toEqual({ nl: [], lin: [5], work: 0 });
    }
  });
});

/** Points (the trip count last) for each real-valued function of the example. */
const POINTS: [string, number[]][] = [
  ['sq', [1.5, 3]],
  ['sq', [0.9, 0]],
  ['sq', [-1.1, 2]],
  ['pow', [1.3, 4]],
  ['pow', [2, 0]],
  ['sines', [0.3, 5]],
  ['pair', [0.5, 1.2, 3]],
  ['pair', [0.5, 1.2, 0]],
];
const withCount = (x: number[], dir: number[]) => [...dir.slice(0, x.length - 1), 0];

describe('derivatives', () => {
  test('repeated squaring: x₀ = 1.5, three squarings: 25.62890625 and derivative 136.6875, in both modes', () => {
    const { program: jp, jvp } = jvpOf(program(), 'sq');
    expect(evalFn(jp, jvp, [1.5, 3], [1, 0])).toMatchObject({ nl: [25.62890625], lin: [136.6875] });
    const g = gradOf(program(), 'sq');
    expect(evalFn(g.program, g.grad, [1.5, 3]).nl).toEqual([136.6875, 0]);
    const s = gradOf(program(), 'sq', { simplify: true });
    expect(evalFn(s.program, s.grad, [1.5, 3]).nl).toEqual([136.6875, 0]);
  });

  test('a fractional trip count runs ⌈n⌉ iterations, and reverse mode counts down from there', () => {
    // sq(1.5, 2.5) squares three times, like sq(1.5, 3).
    for (const n of [2.5, 2.01, 3]) {
      const g = gradOf(program(), 'sq');
      expect(evalFn(g.program, g.grad, [1.5, n]).nl).toEqual([136.6875, 0]);
      const v = vjpOf(program(), 'sines');
      const tape = evalFn(v.program, v.fwd, [0.3, n]).nl[1];
      const [xBar] = evalFn(v.program, v.bwd, [tape], [1]).lin as number[];
      // d/dx Σ_{i<3} sin(i·x) = Σ i·cos(i·x).
      expect(xBar).toBeCloseTo(Math.cos(0.3) + 2 * Math.cos(0.6), 12);
    }
  });

  test.each(POINTS)('jvp, linearize, vjp and grad of %s at %j against central differences', (fn, x) => {
    const p = program();
    const m = findDef(p, fn).nlResults.length;
    const dir = withCount(
      x,
      x.map((_, i) => 0.5 + i),
    );
    const fd = centralDifference(p, fn, x, dir);
    const j = jvpOf(p, fn);
    const r = evalFn(j.program, j.jvp, x, dir);
    expect(r.nl).toEqual(evalFn(p, fn, x).nl);
    (r.lin as number[]).forEach((t, i) => expect(rel(t, fd[i])).toBeLessThan(1e-7));
    const lz = linearizeOf(p, fn);
    const f = evalFn(lz.program, lz.fwd, x);
    expect(f.nl.slice(0, m)).toEqual(evalFn(p, fn, x).nl);
    (evalFn(lz.program, lz.lin, [f.nl[m]], dir).lin as number[]).forEach((t, i) => expect(t).toBeCloseTo((r.lin as number[])[i], 12));
    const v = vjpOf(p, fn);
    const tape = evalFn(v.program, v.fwd, x).nl[m];
    for (let k = 0; k < m; k++) {
      const row = evalFn(v.program, v.bwd, [tape], basis(m, k)).lin as number[];
      for (let i = 0; i < x.length - 1; i++) expect(rel(row[i], centralDifference(p, fn, x, basis(x.length, i))[k])).toBeLessThan(1e-7);
      expect(row[x.length - 1]).toBe(0);
    }
    if (m === 1) {
      const g = gradOf(p, fn, { simplify: true });
      const grad = evalFn(g.program, g.grad, x).nl as number[];
      for (let i = 0; i < x.length - 1; i++) expect(rel(grad[i], centralDifference(p, fn, x, basis(x.length, i))[0])).toBeLessThan(1e-7);
    }
  });

  test('the dot-product test on .lin and .bwd, and on the hand-written linear loop and its transpose', () => {
    for (const [fn, x] of POINTS) {
      expectDotProduct(vjpOf(program(), fn), fn, x);
    }
    const t = transposeOf(program(), 'l');
    for (const n of [0, 1, 4]) {
      const lx = evalFn(t.program, 'l', [n, 1.5], [0.3, -0.7]).lin as number[];
      const ty = evalFn(t.program, 'l.T', [n, 1.5], [2]).lin as number[];
      expect(rel(2 * lx[0], dot(ty, [0.3, -0.7]))).toBeLessThan(1e-12);
    }
    // c ↦ c + n·k·u: the invariant's cotangent accumulates n·k·ȳ.
    expect(evalFn(t.program, 'l.T', [4, 1.5], [2]).lin).toEqual([12, 2]);
  });

  test('U stacks only per-iteration residuals: the counter and invariant parameters are not stacked', () => {
    const lz = linearizeOf(program(), 'pow');
    const text = printProgram(lz.program);
    // pow's body needs u (an invariant) and c: only c is stacked.
    expect(findDef(lz.program, lz.fwd).nlResults[1]).toMatchObject({ elems: [{ tag: 'real' }, { tag: 'real' }, { tag: 'stack' }] });
    expect(text.match(/= put\(/g)).toHaveLength(1);
    const s = linearizeOf(program(), 'sines');
    // sines' tangent needs i (the counter, recomputed) and cos(i·u) (stacked).
    expect(printProgram(s.program).match(/= put\(/g)).toHaveLength(1);
  });

  test('fwd + lin work is linear in the trip count, and equals the JVP work', () => {
    for (const fn of ['sq', 'sines', 'pair']) {
      const lz = linearizeOf(program(), fn);
      const m = findDef(lz.program, fn).nlResults.length;
      const works = [0, 1, 2, 5, 10, 20].map((n) => {
        const x = fn === 'pair' ? [0.5, 0.2, n] : [0.3, n];
        const f = evalFn(lz.program, lz.fwd, x);
        const lin = evalFn(
          lz.program,
          lz.lin,
          [f.nl[m]],
          x.map(() => 1),
        );
        expect(f.work + lin.work).toBe(
          evalFn(
            lz.program,
            `${fn}.jvp`,
            x,
            x.map(() => 1),
          ).work,
        );
        return { n, w: f.work + lin.work };
      });
      const per = works[1].w - works[0].w;
      for (const { n, w } of works) expect(w).toBe(works[0].w + n * per);
    }
  });
});

describe('emitted TypeScript agrees with the interpreter', () => {
  test('every def and its derived functions, zero iterations included', () => {
    let p = program();
    for (const fn of ['sq', 'pow', 'sines', 'pair']) p = vjpOf(p, fn).program;
    for (const fn of ['sq', 'pow', 'sines']) p = gradOf(p, fn).program;
    p = transposeOf(p, 'l').program;
    const { code, fns } = emitAndLoad(p);
    expect(code).toMatch(/for \(let k = 0; k < n; k\+\+\) \{/);
    // Residuals of reals go on unboxed stacks, sized by the trip count and cut from the
    // function's slab (constructs/stack/emit.ts).
    expect(code).toContain('const cap = Math.max(0, Math.ceil(n));');
    expect(code).toMatch(/\{ a: \$slab\.chunk, b: \$slab\.top, c: \$slab\.top \+ cap, n: cap \}/);
    expect(code).toContain('const $slab = { chunk: new Float64Array(0), top: 0 };');
    const calls: [string, Value[], Value[]][] = [];
    for (const [fn, x] of POINTS) {
      const m = findDef(p, fn).nlResults.length;
      const dir = x.map((_, i) => i + 0.5);
      calls.push([fn, x, []], [`${fn}.jvp`, x, dir], [`${fn}.fwd`, x, []]);
      const tape = evalFn(p, `${fn}.fwd`, x).nl[m];
      calls.push([`${fn}.lin`, [tape], dir], [`${fn}.bwd`, [tape], Array.from({ length: m }, (_, j) => j + 1)]);
      if (m === 1) calls.push([`${fn}.grad`, x, []]);
    }
    for (const n of [0, 3]) calls.push(['l', [n, 3], [2, 5]], ['l.T', [n, 3], [2]]);
    for (const [name, nl, lin] of calls) {
      const want = asReturned(evalFn(p, name, nl, lin));
      expect([name, fns.get(name)!(...nl, ...lin)]).toEqual([name, want]);
    }
  });
});
