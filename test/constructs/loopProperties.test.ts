// Properties of counted loops over random bodies, with branches inside: the body maps
// (i, u, c, s) to (f(c), s + f(c)²) for a random chain f of unary steps; some steps read the
// invariant u, some compute from u alone (cos u: hoisted out of the loop before J), and some are
// a cond on the sign of the value so far. With the drivers re-checking every pass: J against
// central differences, the gradient against the JVPs along each basis vector, the dot-product
// test on .lin and .bwd, T∘T = id on .lin, the gradient's work within a stated constant of the
// primal's, and the emitted TypeScript against the interpreter.
import fc from 'fast-check';
import { evalFn } from '../../transformer/language/interp';
import { parseProgram } from '../../transformer/language/parse';
import { Program } from '../../transformer/ir/syntax';
import { emitAndLoad, asReturned } from './emitted';
import { gradOf, jvpOf, transposeOf, vjpOf } from '../gen/drivers';
import { dot } from './reference';

const RUNS = { numRuns: 25 };
const close = (a: number, b: number, tol = 1e-7) => a === b || Math.abs(a - b) <= tol * (1 + Math.abs(a) + Math.abs(b));

/** One unary step on `x`, binding `y`. */
const OPS: ((x: string, y: string) => string)[] = [
  (x, y) => `let ${y} = sin(${x})`,
  (x, y) => `let ${y} = mul(${x}, u)`,
  (x, y) => `let ${y}_k = cos(u)\n    let ${y} = mul(${x}, ${y}_k)`,
  (x, y) => `let ${y}_s = mul(${x}, ${x})\n    let ${y}_h = 0.25\n    let ${y} = mul(${y}_s, ${y}_h)`,
  (x, y) => `let ${y}_t = tanh(${x})\n    let ${y} = add(${y}_t, u)`,
  // A branch: x < 0 ? x·u : sin(x) + x.
  (x, y) =>
    `let ${y}_z = 0\n    let ${y}_p = lt(${x}, ${y}_z)\n    let ${y} = cond(${y}_p, ${x}, u) [|a: real, b: real ;| {\n      mul(a, b)\n    }, |a: real, b: real ;| {\n      drop(b)\n      let sa = sin(a)\n      add(sa, a)\n    }]`,
];
const READS_U = new Set([1, 2, 4, 5]);

function loopProgram(ops: readonly number[]): Program {
  const chain = ops.map((k, i) => OPS[k](i === 0 ? 'c' : `v${i - 1}`, `v${i}`)).join('\n    ');
  const last = `v${ops.length - 1}`;
  const usesU = ops.some((k) => READS_U.has(k));
  const text = `
def f(u: real, x: real, n: real ;) -> (real, real ;) {
  let zero = 0
  let (y, s) = loop(n, u, x, zero) [|i: real, u: real, c: real, s: real ;| {
    drop(i)
    ${usesU ? '' : 'drop(u)\n    '}${chain}
    let sq = mul(${last}, ${last})
    let s1 = add(s, sq)
    (${last}, s1 ;)
  }]
  (y, s ;)
}

def loss(u: real, x: real, n: real ;) -> (real ;) {
  let (y, s) = f(u, x, n)
  add(y, s)
}
`;
  return parseProgram(text, 'generated.lina');
}

const unit = fc.double({ min: -1, max: 1, noNaN: true });
const arb = fc.record({
  ops: fc.array(fc.integer({ min: 0, max: OPS.length - 1 }), { minLength: 1, maxLength: 4 }),
  u: unit,
  x: fc.double({ min: -1.2, max: 1.2, noNaN: true }),
  n: fc.integer({ min: 0, max: 6 }),
  dir: fc.tuple(unit, unit),
  bar: fc.tuple(unit, unit),
});

describe('counted loops over random bodies with branches', () => {
  test('J against central differences (away from the branch boundary)', () => {
    fc.assert(
      fc.property(arb, ({ ops, u, x, n, dir }) => {
        const p = loopProgram(ops);
        const j = jvpOf(p, 'f');
        const r = evalFn(j.program, j.jvp, [u, x, n], [dir[0], dir[1], 0]);
        const h = 1e-6;
        const at = (t: number) => evalFn(p, 'f', [u + t * dir[0], x + t * dir[1], n]).nl as number[];
        const [plus, mid, minus] = [at(h), at(0), at(-h)];
        expect(r.nl).toEqual(evalFn(p, 'f', [u, x, n]).nl);
        (r.lin as number[]).forEach((t, k) => {
          // At a branch boundary (a kink) the one-sided quotients disagree: no reference there.
          const [left, right] = [(mid[k] - minus[k]) / h, (plus[k] - mid[k]) / h];
          // (Relative: a kink between two small slopes must count too.)
          const smooth = Math.abs(left - right) <= 1e-3 * (Math.abs(left) + Math.abs(right)) + 1e-9;
          if (smooth) expect(close(t, (plus[k] - minus[k]) / (2 * h), 1e-4)).toBe(true);
        });
      }),
      RUNS,
    );
  });

  test('the gradient equals the JVPs along each basis vector (and the forward-mode gradient), and costs at most 4·W(loss) + 24 work', () => {
    fc.assert(
      fc.property(arb, ({ ops, u, x, n }) => {
        const p = loopProgram(ops);
        const g = gradOf(p, 'loss');
        const r = evalFn(g.program, g.grad, [u, x, n]);
        const j = jvpOf(p, 'loss');
        [0, 1].forEach((k) => {
          const e = [k === 0 ? 1 : 0, k === 1 ? 1 : 0, 0];
          expect(close(r.nl[k] as number, evalFn(j.program, j.jvp, [u, x, n], e).lin[0] as number, 1e-9)).toBe(true);
        });
        expect(r.nl[2]).toBe(0);
        // The constant covers what LICM hoists: it runs once even when the loop runs zero times.
        expect(r.work).toBeLessThanOrEqual(4 * evalFn(p, 'loss', [u, x, n]).work + 24);
        // The forward-mode gradient (one JVP per scalar: the stand-in where T cannot run) agrees.
        const f = gradOf(p, 'loss', { forwardGrad: true });
        const rf = evalFn(f.program, f.grad, [u, x, n]).nl as number[];
        rf.forEach((v, k) => expect(close(v, r.nl[k] as number, 1e-12)).toBe(true));
      }),
      RUNS,
    );
  });

  test('dot-product test on f.lin and f.bwd; T∘T of f.lin is f.lin', () => {
    fc.assert(
      fc.property(arb, ({ ops, u, x, n, dir, bar }) => {
        const v = vjpOf(loopProgram(ops), 'f');
        const tape = evalFn(v.program, v.fwd, [u, x, n]).nl[2];
        const ẋ = [dir[0], dir[1], 0];
        const lin = evalFn(v.program, 'f.lin', [tape], ẋ).lin as number[];
        const back = evalFn(v.program, v.bwd, [tape], [...bar]).lin as number[];
        expect(close(dot(lin, bar), dot(back, ẋ), 1e-9)).toBe(true);
        const t1 = transposeOf(v.program, 'f.lin');
        const tt = transposeOf(t1.program, t1.transposed);
        const again = evalFn(tt.program, tt.transposed, [tape], ẋ).lin as number[];
        again.forEach((a, k) => expect(close(a, lin[k], 1e-12)).toBe(true));
      }),
      RUNS,
    );
  });

  test('the emitted TypeScript of f and its derived functions agrees with the interpreter', () => {
    fc.assert(
      fc.property(arb, ({ ops, u, x, n, dir, bar }) => {
        const v = vjpOf(loopProgram(ops), 'f', { simplify: true });
        const { fns } = emitAndLoad(v.program);
        const run = (fn: string, nl: unknown[], lin: unknown[] = []) => {
          const r = evalFn(v.program, fn, nl as never, lin as never);
          expect(fns.get(fn)!(...nl, ...lin)).toEqual(asReturned(r));
          return r;
        };
        run('f', [u, x, n]);
        const tape = run(v.fwd, [u, x, n]).nl[2];
        run('f.lin', [tape], [dir[0], dir[1], 0]);
        run(v.bwd, [tape], [...bar]);
      }),
      { numRuns: 12 },
    );
  });
});
