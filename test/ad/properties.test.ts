// Properties of the passes over randomly generated programs (notes §6): the dot-product test,
// T∘T = id, exact work conservation of U, amortized work of T, gradient = n JVPs, JVP = finite
// differences, erasure and simplification preserve results, sizes stay within constant factors.
import fc from 'fast-check';
import { nonLinearProgram, linearProgram, choices, valuesFor, dot, flat, unflat, programSize } from '../gen/programs';
import { evalFn, Value } from '../../transformer/language/interp';
import { checkProgram } from '../../transformer/language/check';
import { jvpOf, linearizeOf, vjpOf, gradOf, transposeOf } from '../gen/drivers';
import { eraseProgram } from '../../transformer/ad/erase';
import { simplifyProgram } from '../../transformer/opt/simplify';
import { annotateTypes } from '../../transformer/language/check';
import { tangentType, FnDef, Program } from '../../transformer/ir/syntax';

const RUNS = { numRuns: 200 };
const last = (p: Program): FnDef => p.defs[p.defs.length - 1];
const close = (a: number, b: number, tol = 1e-9) => Math.abs(a - b) <= tol * (1 + Math.abs(a) + Math.abs(b));

describe('generated programs', () => {
  test('are well-typed', () => {
    fc.assert(
      fc.property(choices, (xs) => {
        checkProgram(nonLinearProgram(xs));
        checkProgram(linearProgram(xs), { linearB: linearProgram(xs).defs.map((d) => d.name) });
      }),
      RUNS,
    );
  });
});

describe('transposition on random linear programs', () => {
  const arb = choices.chain((xs) => {
    const p = linearProgram(xs);
    const g = last(p);
    return fc.tuple(fc.constant(p), valuesFor(g.nlParams.map((b) => b.type!)), valuesFor(g.linParams.map((b) => b.type!)), valuesFor(g.linResults));
  });

  test('dot-product test <g(x), y> = <x, gT(y)>', () => {
    fc.assert(
      fc.property(arb, ([p, u, x, y]) => {
        const g = last(p).name;
        const { program, transposed } = transposeOf(p, g);
        const gx = evalFn(program, g, u, x).lin;
        const gty = evalFn(program, transposed, u, y).lin;
        expect(close(dot(gx, y), dot(x, gty), 1e-9)).toBe(true);
      }),
      RUNS,
    );
  });

  test('T(T(g)) agrees with g and does no more work', () => {
    fc.assert(
      fc.property(arb, ([p, u, x]) => {
        const g = last(p).name;
        const once = transposeOf(p, g);
        const twice = transposeOf(once.program, once.transposed);
        const a = evalFn(twice.program, g, u, x);
        const b = evalFn(twice.program, twice.transposed, u, x);
        flat(a.lin).forEach((v, i) => expect(close(v, flat(b.lin)[i])).toBe(true));
        expect(b.work).toBeLessThanOrEqual(a.work);
      }),
      RUNS,
    );
  });

  test('amortized work: W(T e) + n <= W(e) + m', () => {
    fc.assert(
      fc.property(arb, ([p, u, x, y]) => {
        const g = last(p);
        const { program, transposed } = transposeOf(p, g.name);
        const n = flat(x).length;
        const m = flat(y).length;
        const we = evalFn(program, g.name, u, x).work;
        const wt = evalFn(program, transposed, u, y).work;
        expect(wt + n).toBeLessThanOrEqual(we + m);
      }),
      RUNS,
    );
  });

  test('indexed linearity: additive and homogeneous in the linear inputs', () => {
    fc.assert(
      fc.property(arb, fc.double({ min: -3, max: 3, noNaN: true }), ([p, u, x, y], c) => {
        const g = last(p);
        const types = g.linParams.map((b) => b.type!);
        const x2 = unflat(
          types,
          flat(y)
            .slice(0, 0)
            .concat(flat(x).map((v, i) => v * 0.5 - i)),
        );
        const sum = unflat(
          types,
          flat(x).map((v, i) => v + flat(x2)[i]),
        );
        const scaled = unflat(
          types,
          flat(x).map((v) => c * v),
        );
        const f = (xs: Value[]) => flat(evalFn(p, g.name, u, xs).lin);
        const fx = f(x);
        const fx2 = f(x2);
        f(sum).forEach((v, i) => expect(close(v, fx[i] + fx2[i], 1e-9)).toBe(true));
        f(scaled).forEach((v, i) => expect(close(v, c * fx[i], 1e-9)).toBe(true));
      }),
      RUNS,
    );
  });

  test('erasure preserves results and work', () => {
    fc.assert(
      fc.property(arb, ([p, u, x]) => {
        const g = last(p).name;
        const q = annotateTypes(eraseProgram(p, [g]));
        checkProgram(q);
        const a = evalFn(q, g, u, x);
        const b = evalFn(q, `${g}.E`, [...u, ...x]);
        expect(b.nl).toEqual(a.lin);
        expect(b.work).toBe(a.work);
      }),
      RUNS,
    );
  });
});

describe('differentiation of random non-linear programs', () => {
  const arb = choices.chain((xs) => {
    const p = nonLinearProgram(xs);
    const f = last(p);
    const types = f.nlParams.map((b) => b.type!);
    return fc.tuple(fc.constant(p), valuesFor(types), valuesFor(types.map(tangentType)));
  });

  test('JVP agrees with central finite differences', () => {
    fc.assert(
      fc.property(arb, ([p, x, dx]) => {
        const f = last(p);
        const { program, jvp } = jvpOf(p, f.name);
        const t = flat(evalFn(program, jvp, x, dx).lin)[0];
        const h = 1e-5;
        const types = f.nlParams.map((b) => b.type!);
        const at = (s: number) =>
          unflat(
            types,
            flat(x).map((v, i) => v + s * flat(dx)[i]),
          );
        const fd = (flat(evalFn(p, f.name, at(h)).nl)[0] - flat(evalFn(p, f.name, at(-h)).nl)[0]) / (2 * h);
        expect(Math.abs(t - fd)).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(fd)));
      }),
      RUNS,
    );
  });

  test('the primal outputs of f.jvp and f.fwd equal f', () => {
    fc.assert(
      fc.property(arb, ([p, x, dx]) => {
        const f = last(p).name;
        const { program, jvp, fwd } = { ...linearizeOf(p, f), jvp: `${f}.jvp` };
        const y = evalFn(program, f, x).nl;
        expect(evalFn(program, jvp, x, dx).nl).toEqual(y);
        expect(evalFn(program, fwd, x).nl[0]).toEqual(y[0]);
      }),
      RUNS,
    );
  });

  test('unzipping conserves work exactly: W(f.fwd) + W(f.lin) = W(f.jvp)', () => {
    fc.assert(
      fc.property(arb, ([p, x, dx]) => {
        const f = last(p).name;
        const { program, fwd, lin } = linearizeOf(p, f, { policy: 'save' });
        const wj = evalFn(program, `${f}.jvp`, x, dx).work;
        const r = evalFn(program, fwd, x);
        const l = evalFn(program, lin, [r.nl[r.nl.length - 1]], dx);
        expect(r.work + l.work).toBe(wj);
        expect(l.lin).toEqual(evalFn(program, `${f}.jvp`, x, dx).lin);
      }),
      RUNS,
    );
  });

  test('the gradient equals n JVPs with basis tangents, under save and recompute', () => {
    fc.assert(
      fc.property(arb, ([p, x]) => {
        const f = last(p);
        const types = f.nlParams.map((b) => tangentType(b.type!));
        const n = flat(x).length;
        const { program, jvp } = jvpOf(p, f.name);
        const byJvp = Array.from({ length: n }, (_, i) => {
          const e = unflat(
            types,
            Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)),
          );
          return flat(evalFn(program, jvp, x, e).lin)[0];
        });
        for (const policy of ['save', 'recompute'] as const) {
          const g = gradOf(p, f.name, { policy });
          const grad = flat(evalFn(g.program, g.grad, x).nl);
          grad.forEach((v, i) => expect(close(v, byJvp[i], 1e-9)).toBe(true));
        }
      }),
      RUNS,
    );
  });

  test('simplification preserves results and never adds work', () => {
    fc.assert(
      fc.property(arb, ([p, x]) => {
        const f = last(p).name;
        const { program, grad } = gradOf(p, f);
        const simple = annotateTypes(simplifyProgram(program));
        checkProgram(simple);
        const a = evalFn(program, grad, x);
        const b = evalFn(simple, grad, x);
        flat(b.nl).forEach((v, i) => expect(close(v, flat(a.nl)[i], 1e-12)).toBe(true));
        expect(b.work).toBeLessThanOrEqual(a.work);
      }),
      RUNS,
    );
  });

  test('program size grows by a bounded factor per pass', () => {
    fc.assert(
      fc.property(arb, ([p]) => {
        const f = last(p).name;
        const base = programSize(p);
        const j = jvpOf(p, f).program;
        const u = linearizeOf(p, f).program;
        const t = vjpOf(p, f).program;
        // Measured on generated programs: J adds at most ~6x (partials, dups), U and T stay
        // within ~3x of their inputs each.
        expect(programSize(j)).toBeLessThanOrEqual(8 * base);
        expect(programSize(u)).toBeLessThanOrEqual(3 * programSize(j));
        expect(programSize(t)).toBeLessThanOrEqual(3 * programSize(u));
      }),
      RUNS,
    );
  });
});
