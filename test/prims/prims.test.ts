// Every primitive record, checked from its own test spec: the JVP rule against central finite
// differences, zero-derivative primitives exactly zero, the documented values at kinks, and the
// transpose of every linear primitive by the dot-product test.
import fc from 'fast-check';
import * as ts from 'typescript';
import { PRIMS, LIN_PRIMS } from '../../transformer/prims/registry';
import type { PrimDef } from '../../transformer/prims/types';
import { parseProgram } from '../../transformer/language/parse';
import { primTs } from '../../transformer/backend/ts/prims';
import { evalFn } from '../../transformer/language/interp';
import { jvpOf, transposeOf, gradOf } from '../gen/drivers';

const differentiable = Object.values(PRIMS).filter((p) => !p.test.predicate && typeof p.typeRule(Array(p.arity.min || 2).fill({ tag: 'real' })) !== 'string');
const arityOf = (p: (typeof differentiable)[number]) => (p.arity.max === Infinity ? p.arity.min + 2 : p.arity.min);

/** `def f(a0, ..., an ;) -> (real ;) { op(a0, ..., an) }` */
function single(op: string, n: number) {
  const params = Array.from({ length: n }, (_, i) => `a${i}: real`).join(', ');
  const args = Array.from({ length: n }, (_, i) => `a${i}`).join(', ');
  return parseProgram(`def f(${params} ;) -> (real ;) { ${op}(${args}) }`);
}

/** The JavaScript the TypeScript backend's table writes for `op(a0, ..., an)`, as a function. */
function emitted(p: PrimDef, n: number): (...x: number[]) => unknown {
  const params = Array.from({ length: n }, (_, i) => `a${i}`);
  const expr = primTs(p.name)(
    params.map((a) => ts.factory.createIdentifier(a)),
    ts.factory,
  );
  const text = ts.createPrinter().printNode(ts.EmitHint.Expression, expr, ts.createSourceFile('op.ts', '', ts.ScriptTarget.ES2022));
  return new Function(...params, `return ${text};`) as (...x: number[]) => unknown;
}

function pointIn(domain: readonly (readonly [number, number])[], n: number) {
  return fc.tuple(
    ...Array.from({ length: n }, (_, i) => {
      const [lo, hi] = domain[Math.min(i, domain.length - 1)];
      return fc.double({ min: lo, max: hi, noNaN: true });
    }),
  );
}

describe.each(differentiable.map((p) => [p.name, p] as const))('%s', (name, p) => {
  const n = arityOf(p);
  const prog = single(name, n);
  const { program, jvp } = jvpOf(prog, 'f');

  test('impl computes what the emitted JavaScript computes', () => {
    const js = emitted(p, n);
    fc.assert(
      fc.property(pointIn(p.test.domain, n), (x) => {
        // toBe is Object.is: NaN matches NaN, and 0 and -0 differ.
        expect(evalFn(prog, 'f', x).nl[0]).toBe(js(...x));
      }),
      { numRuns: 50 },
    );
  });

  test(p.test.zeroDerivative ? 'tangent is exactly zero' : 'JVP agrees with central differences', () => {
    fc.assert(
      fc.property(pointIn(p.test.domain, n), pointIn([[-1, 1]], n), (x, dx) => {
        const t = evalFn(program, jvp, x, dx).lin[0] as number;
        if (p.test.zeroDerivative) return expect(t).toBe(0);
        if (p.test.straightThrough) return expect(t).toBe(dx[0]);
        const h = 1e-6;
        const f = (s: number) =>
          evalFn(
            prog,
            'f',
            x.map((v, i) => v + s * dx[i]),
          ).nl[0] as number;
        const f0 = f(0);
        const fd = (f(h) - f(-h)) / (2 * h);
        // A kink within h of x (abs at 0, min/max ties, hypot at the origin) makes the one-sided
        // differences disagree; the derivative there is checked by the kink tests below.
        if (p.test.kinks && Math.abs((f(h) - f0) / h - (f0 - f(-h)) / h) > 1e-9) return;
        expect(Math.abs(t - fd)).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(fd)));
      }),
      { numRuns: 100 },
    );
  });
});

describe('derivatives at kinks and singular points are the documented ones, never NaN from the rule', () => {
  const g = (src: string, x: number[]) => {
    const r = gradOf(parseProgram(src), 'f');
    return evalFn(r.program, r.grad, x).nl as number[];
  };
  test('abs at 0 is 0', () => expect(g('def f(x: real ;) -> (real ;) { abs(x) }', [0])).toEqual([0]));
  test('max/min ties: the first argument wins', () => {
    expect(g('def f(x: real, y: real ;) -> (real ;) { max(x, y) }', [1, 1])).toEqual([1, 0]);
    expect(g('def f(x: real, y: real, z: real ;) -> (real ;) { min(x, y, z) }', [2, 1, 1])).toEqual([0, 1, 0]);
  });
  test('pow(0, y): finite partials', () => {
    expect(g('def f(x: real, y: real ;) -> (real ;) { pow(x, y) }', [0, 2])).toEqual([0, 0]);
    expect(g('def f(x: real, y: real ;) -> (real ;) { pow(x, y) }', [0, 1])).toEqual([1, 0]);
    // 0^y jumps from 1 to 0 at y = 0: the exponent partial is the honest −∞, not NaN.
    expect(g('def f(x: real, y: real ;) -> (real ;) { pow(x, y) }', [0, 0])).toEqual([0, -Infinity]);
  });
  test('x ** 2 with a literal exponent at a negative base: the exponent partial is never computed', () => {
    expect(g('def f(x: real ;) -> (real ;) { let two = 2 in pow(x, two) }', [-3])).toEqual([-6]);
  });
  test('hypot(0, 0) and atan2(0, 0) have zero gradients', () => {
    expect(g('def f(x: real, y: real ;) -> (real ;) { hypot(x, y) }', [0, 0])).toEqual([0, 0]);
    expect(g('def f(x: real, y: real ;) -> (real ;) { atan2(x, y) }', [0, 0])).toEqual([0, 0]);
  });
  test('sqrt at 0 is +Infinity (the true one-sided derivative), not NaN', () => {
    expect(g('def f(x: real ;) -> (real ;) { sqrt(x) }', [0])).toEqual([Infinity]);
  });
  test('floor, ceil, round, trunc, sign have zero derivative', () => {
    for (const op of ['floor', 'ceil', 'round', 'trunc', 'sign']) {
      expect(g(`def f(x: real ;) -> (real ;) { ${op}(x) }`, [1.3])).toEqual([0]);
    }
  });
  test("fround's derivative is the identity's (straight-through: a float32 store passes its tangent on)", () => {
    expect(g('def f(x: real ;) -> (real ;) { fround(x) }', [1.3])).toEqual([1]);
    expect(g('def f(x: real ;) -> (real ;) { let y = fround(x) in mul(y, x) }', [0.1])).toEqual([Math.fround(0.1) + 0.1]);
  });
  test('select routes the tangent of the chosen branch; comparisons have none', () => {
    const src = 'def f(x: real, y: real ;) -> (real ;) { let c = lt(x, y) in select(c, x, y) }';
    expect(g(src, [1, 2])).toEqual([1, 0]);
    expect(g(src, [3, 2])).toEqual([0, 1]);
  });
  test('hypot with no arguments is 0, with three it is the Euclidean norm', () => {
    expect(evalFn(parseProgram('def f() -> (real ;) { hypot() }'), 'f', []).nl).toEqual([0]);
    expect(g('def f(x: real, y: real, z: real ;) -> (real ;) { hypot(x, y, z) }', [1, 2, 2])).toEqual([1 / 3, 2 / 3, 2 / 3]);
  });
});

describe.each(Object.values(LIN_PRIMS).map((p) => [p.name, p] as const))('linear primitive %s', (name, p) => {
  test('transpose passes the dot-product test on reals and tuples', () => {
    for (const t of ['real', '<real, <real, real>>']) {
      const coeffs = p.nlTypes.map((ty, i) => `u${i}: ${ty.tag}`);
      const lins = Array.from({ length: p.linArity }, (_, i) => `x${i}: ${t}`);
      const call = `${name}(${p.nlTypes.map((_, i) => `u${i}`).join(', ')} ; ${Array.from({ length: p.linArity }, (_, i) => `x${i}`).join(', ')})`;
      const prog = parseProgram(`def g(${coeffs.join(', ')} ; ${lins.join(', ')}) -> (; ${t}) { ${call} }`);
      const { program, transposed } = transposeOf(prog, 'g');
      const val = (seed: number) => (t === 'real' ? seed : [seed, [seed * 2 - 1, 0.5 - seed]]);
      const flat = (v: unknown): number[] => (Array.isArray(v) ? v.flatMap(flat) : [v as number]);
      const dot = (a: unknown, b: unknown) => flat(a).reduce((s, v, i) => s + v * flat(b)[i], 0);
      for (const c of [true, false]) {
        const u = p.nlTypes.map((ty) => (ty.tag === 'bool' ? c : 0.7));
        const x = Array.from({ length: p.linArity }, (_, i) => val(0.3 + i));
        const y = val(-1.7);
        const gx = evalFn(program, 'g', u, x).lin[0];
        const gty = evalFn(program, transposed, u, [y]).lin;
        expect(dot(gx, y)).toBeCloseTo(dot(x, gty), 12);
      }
    }
  });
});
