// The while loop construct at the IR level (examples/ir/while.lina): syntax, the checker, the
// interpreter's values and work, Newton's square root differentiated in both modes against
// 1/(2√a), J, U, T and grad against finite differences, the dot-product test on the linear half
// (a counted loop over the saved trip count), the emitted TypeScript against the interpreter,
// and work linear in the trip count.
import * as fs from 'fs';
import * as path from 'path';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { evalFn, Value } from '../../transformer/language/interp';
import { IrError } from '../../transformer/ir/syntax';
import { emitAndLoad, asReturned } from './emitted';
import { findDef } from '../../transformer/ir/program';
import { CONSTRUCTS } from '../../transformer/constructs/registry';
import { gradOf, jvpOf, linearizeOf, transposeOf, vjpOf } from '../gen/drivers';
import { rel, basis, centralDifference, expectDotProduct } from './reference';

const source = fs.readFileSync(path.join(__dirname, '../../examples/ir/while.lina'), 'utf8');
const program = () => parseProgram(source, 'while.lina');

/** Newton's iteration as the example writes it, in JavaScript: the root and the trip count. */
function newton(a: number): { x: number; k: number } {
  let x = a;
  let k = 0;
  while (Math.abs(x * x - a) > 1e-12 * a) {
    x = (x + a / x) * 0.5;
    k++;
  }
  return { x, k };
}

/** grow's trip count: p ← p·(1 + u) while p < limit. */
function growTrips(u: number, limit: number, x: number): number {
  let k = 0;
  for (let p = x; p < limit; p *= 1 + u) k++;
  return k;
}

const ROOTS = [0.01, 0.25, 2, 3, 9, 10, 12345.678, 1e6];

describe('syntax and checker', () => {
  test('printing and parsing back is a fixed point, with types (the tapes hold stacks and the trip count)', () => {
    const p = program();
    const text = printProgram(p);
    expect(printProgram(parseProgram(text))).toBe(text);
    expect(text).toContain('while(a, a) [|a_1: real, x: real ;| {');
    const v = vjpOf(p, 'grow').program;
    const typed = printProgram(annotateTypes(v), { types: true });
    expect(typed).toContain('stack<real>');
    expect(typed).toMatch(/= while\(u, limit, x, zero, n, /);
    expect(printProgram(parseProgram(typed), { types: true })).toBe(typed);
    expect(typeErrors(parseProgram(typed))).toEqual([]);
  });

  test('the registry holds while', () => {
    expect(Object.keys(CONSTRUCTS)).toContain('while');
    expect(CONSTRUCTS.while.name).toBe('while');
  });

  const wrap = (bodies: string) => `def f(u: real, x: real ;) -> (real ;) {\n  while(u, x) [${bodies}]\n}`;
  const cond = '|u: real, c: real ;| {\n    drop(u)\n    let z = 0\n    gt(c, z)\n  }';
  const step = '|u: real, c: real ;| {\n    mul(c, u)\n  }';
  test.each([
    ['a condition that does not return bool', wrap(`|u: real, c: real ;| {\n    drop(u)\n    (c ;)\n  }, ${step}`), 'in f: the condition of while must return (bool), got (real)'],
    [
      'a condition with a linear parameter',
      wrap(`|u: real, c: real ; d: real| {\n    drop(u)\n    drop(d)\n    let z = 0\n    gt(c, z)\n  }, ${step}`),
      'in f: the condition of while reads only non-linear values: it takes no linear parameters, got 1',
    ],
    [
      'a condition with more parameters than operands',
      wrap(`|u: real, c: real, e: real ;| {\n    drop(u)\n    drop(e)\n    let z = 0\n    gt(c, z)\n  }, ${step}`),
      'in f: the condition of while takes 3 parameters, but while has only 2 non-linear operand(s); it takes the first ones',
    ],
    [
      'a step returning another type than the carried value',
      wrap(`${cond}, |u: real, c: real ;| {\n    gt(c, u)\n  }`),
      'in f: the body of while returns (bool), but its last operands (the carried values) are (real)',
    ],
    [
      'a free variable in the condition',
      wrap(`|u: real, c: real ;| {\n    drop(u)\n    gt(c, x)\n  }, ${step}`),
      'in f: a body of while reads x, which is bound outside it; bodies are closed: pass x as an operand',
    ],
    ['one body', wrap(step), 'in f: while takes two bodies, a condition and a step; got 1'],
  ])('rejects %s', (_, src, message) => {
    const errs = typeErrors(parseProgram(src, 't.lina'));
    expect(errs.length).toBeGreaterThan(0);
    expect(errs[0].replace(/^t\.lina:\d+:\d+: /, '')).toBe(message);
  });

  test('the example type-checks', () => expect(typeErrors(program())).toEqual([]));
});

describe('interpreter', () => {
  test("Newton's square root: values, and work = (k + 1) conditions + k steps", () => {
    const p = program();
    for (const a of ROOTS) {
      const { x, k } = newton(a);
      const r = evalFn(p, 'sqrt', [a]);
      expect(r.nl).toEqual([x]);
      expect(rel(x, Math.sqrt(a))).toBeLessThan(1e-12);
      // The condition costs 5 (mul, sub, abs, mul, gt), the step 3 (div, add, mul).
      expect(r.work).toBe(5 * (k + 1) + 3 * k);
    }
  });

  test('grow: values and work', () => {
    const p = program();
    const r = evalFn(p, 'grow', [0.5, 10, 1]);
    let q = 1;
    let s = 0;
    for (let k = 0; k < 6; k++) [q, s] = [q * 1.5, s + Math.sin(q)];
    expect(r.nl).toEqual([q, s]);
    // The condition costs 3 (two drops and lt), the step 5 (a drop, add, mul, sin, add).
    expect(r.work).toBe(3 * 7 + 5 * 6);
  });

  test('zero iterations return the carried operands, and cost one condition', () => {
    const p = program();
    expect(evalFn(p, 'sqrt', [1])).toEqual({ nl: [1], lin: [], work: 5 });
    expect(evalFn(p, 'grow', [0.5, 2, 3])).toEqual({ nl: [3, 0], lin: [], work: 3 });
  });
});

describe('derivatives', () => {
  test.each(ROOTS)("Newton's square root at a = %p: d/da = 1/(2√a) by jvp, vjp and grad", (a) => {
    const want = 1 / (2 * Math.sqrt(a));
    const j = jvpOf(program(), 'sqrt');
    const r = evalFn(j.program, j.jvp, [a], [1]);
    expect(r.nl).toEqual(evalFn(program(), 'sqrt', [a]).nl);
    expect(rel(r.lin[0] as number, want)).toBeLessThan(1e-10);
    const v = vjpOf(program(), 'sqrt');
    const tape = evalFn(v.program, v.fwd, [a]).nl[1];
    expect(rel(evalFn(v.program, v.bwd, [tape], [1]).lin[0] as number, want)).toBeLessThan(1e-10);
    for (const simplify of [false, true]) {
      const g = gradOf(program(), 'sqrt', { simplify });
      expect(rel(evalFn(g.program, g.grad, [a]).nl[0] as number, want)).toBeLessThan(1e-10);
    }
  });

  test('zero iterations: the derivative of the identity (sqrt at a = 1 returns x = a untouched)', () => {
    const j = jvpOf(program(), 'sqrt');
    expect(evalFn(j.program, j.jvp, [1], [1]).lin).toEqual([1]);
    const g = gradOf(program(), 'sqrt');
    expect(evalFn(g.program, g.grad, [1]).nl).toEqual([1]);
    const v = vjpOf(program(), 'grow');
    const tape = evalFn(v.program, v.fwd, [0.5, 2, 3]).nl[2];
    expect(evalFn(v.program, v.bwd, [tape], [1, 0]).lin).toEqual([0, 0, 1]);
    expect(evalFn(v.program, v.bwd, [tape], [0, 1]).lin).toEqual([0, 0, 0]);
  });

  const POINTS: number[][] = [
    [0.5, 10, 1],
    [0.1, 3, 0.7],
    [0.03, 1.7, 0.2],
    [0.5, 2, 3],
  ];

  test.each(POINTS)('jvp, linearize, vjp of grow at (%p, %p, %p) against central differences', (...x) => {
    const p = program();
    const dir = [0.7, -0.3, 1.1];
    const fd = centralDifference(p, 'grow', x, dir);
    const j = jvpOf(p, 'grow');
    const r = evalFn(j.program, j.jvp, x, dir);
    expect(r.nl).toEqual(evalFn(p, 'grow', x).nl);
    (r.lin as number[]).forEach((t, i) => expect(rel(t, fd[i])).toBeLessThan(1e-7));
    const lz = linearizeOf(p, 'grow');
    const f = evalFn(lz.program, lz.fwd, x);
    expect(f.nl.slice(0, 2)).toEqual(evalFn(p, 'grow', x).nl);
    (evalFn(lz.program, lz.lin, [f.nl[2]], dir).lin as number[]).forEach((t, i) => expect(t).toBeCloseTo((r.lin as number[])[i], 12));
    const v = vjpOf(p, 'grow');
    const tape = evalFn(v.program, v.fwd, x).nl[2];
    for (let k = 0; k < 2; k++) {
      const row = evalFn(v.program, v.bwd, [tape], basis(2, k)).lin as number[];
      for (let i = 0; i < 3; i++) expect(rel(row[i], centralDifference(p, 'grow', x, basis(3, i))[k])).toBeLessThan(1e-7);
    }
  });

  test('the dot-product test on .lin and .bwd (the linear half is a counted loop)', () => {
    const cases: [string, number[]][] = [...POINTS.map((x): [string, number[]] => ['grow', x]), ...[2, 1, 0.3].map((a): [string, number[]] => ['sqrt', [a]])];
    for (const [fn, x] of cases) {
      expectDotProduct(vjpOf(program(), fn), fn, x);
    }
  });

  test('U: the non-linear while counts its iterations and stacks residuals; .lin and .bwd are counted loops', () => {
    const v = vjpOf(program(), 'grow');
    const fwd = printProgram({ defs: [findDef(v.program, v.fwd)] });
    // One stack of records: each iteration reserves its record (one room check) and puts its three numbers.
    expect(fwd).toMatch(/let \(y, y_1, trips, st\) = while\(/);
    expect(fwd.match(/= extend\(/g)).toHaveLength(1);
    expect(fwd.match(/= put\(st_\d+, \w+, m, /g)).toHaveLength(3);
    // u is an invariant parameter: passed to the linear loop once, not stacked.
    expect(fwd).not.toMatch(/put\(st_\d+, u_2,/);
    for (const d of [`grow.lin`, v.bwd]) {
      const text = printProgram({ defs: [findDef(v.program, d)] });
      expect(text).not.toContain('while(');
      expect(text).toMatch(/= loop\(trips, /);
    }
  });

  test('fwd + lin work is linear in the trip count, and W(fwd) + W(lin) = W(jvp) + k (the counter)', () => {
    const lz = linearizeOf(program(), 'grow');
    const works = [0, 1, 2, 5, 10, 20].map((k) => {
      const x = [1, 2 ** k - 0.5, 1];
      expect(growTrips(x[0], x[1], x[2])).toBe(k);
      const f = evalFn(lz.program, lz.fwd, x);
      const lin = evalFn(lz.program, lz.lin, [f.nl[2]], [1, 1, 1]);
      expect(f.work + lin.work).toBe(evalFn(lz.program, 'grow.jvp', x, [1, 1, 1]).work + k);
      return { k, w: f.work + lin.work };
    });
    const per = works[1].w - works[0].w;
    for (const { k, w } of works) expect(w).toBe(works[0].w + k * per);
    const v = vjpOf(program(), 'grow');
    const bw = [0, 3, 9].map((k) => evalFn(v.program, v.bwd, [evalFn(v.program, v.fwd, [1, 2 ** k - 0.5, 1]).nl[2]], [1, 1]).work);
    expect(bw[2] - bw[1]).toBe(2 * (bw[1] - bw[0]));
  });

  test('T of a hand-written linear while is rejected (it runs zero times or forever)', () => {
    const src = 'def l(k: real ; c: real) -> (; real) {\n  while(k ; c) [|k: real ;| {\n    let z = 0\n    gt(k, z)\n  }, |k: real ; c: real| {\n    scale(k ; c)\n  }]\n}';
    const p = parseProgram(src);
    expect(typeErrors(p)).toEqual([]);
    expect(evalFn(p, 'l', [-1], [3]).lin).toEqual([3]);
    expect(() => transposeOf(p, 'l')).toThrow(IrError);
    expect(() => transposeOf(p, 'l')).toThrow(/a linear while loop cannot be transposed/);
  });
});

describe('emitted TypeScript agrees with the interpreter', () => {
  test('every def and its derived functions, zero iterations included', () => {
    let p = program();
    for (const fn of ['sqrt', 'grow']) p = vjpOf(p, fn).program;
    p = gradOf(p, 'sqrt').program;
    const { code, fns } = emitAndLoad(p);
    expect(code).toMatch(/while \(true\) \{/);
    expect(code).toMatch(/if \(!go\)\s+break;/);
    // A while loop's residual stack grows by doubling from 16 (constructs/stack/emit.ts), a record per iteration.
    expect(code).toContain('{ a: $slab.chunk, b: $slab.top, c: $slab.top, n: 0 }');
    expect(code).toMatch(/\.n \+= room;/);
    const calls: [string, Value[], Value[]][] = [];
    const points: [string, number[]][] = [...ROOTS.map((a) => ['sqrt', [a]] as [string, number[]]), ['sqrt', [1]], ['grow', [0.5, 10, 1]], ['grow', [0.5, 2, 3]], ['grow', [0.1, 3, 0.7]]];
    for (const [fn, x] of points) {
      const m = findDef(p, fn).nlResults.length;
      const dir = x.map((_, i) => i + 0.5);
      calls.push([fn, x, []], [`${fn}.jvp`, x, dir], [`${fn}.fwd`, x, []]);
      const tape = evalFn(p, `${fn}.fwd`, x).nl[m];
      calls.push([`${fn}.lin`, [tape], dir], [`${fn}.bwd`, [tape], Array.from({ length: m }, (_, j) => j + 1)]);
      if (m === 1) calls.push([`${fn}.grad`, x, []]);
    }
    for (const [name, nl, lin] of calls) {
      const want = asReturned(evalFn(p, name, nl, lin));
      expect([name, fns.get(name)!(...nl, ...lin)]).toEqual([name, want]);
    }
  });
});
