// Properties of scan and reduce over random operator bodies. A random non-linear program g
// (test/gen/programs.ts) with real parameters and a real first result supplies the operator
// a ⊙ b = g(a, b, a, b, …) (associative or not: the fold's order is fixed, so its derivative is
// defined either way); f scans and s reduces arrays of length 0, 1 or 5 with it. Checked with the
// drivers re-checking every pass: unzipping against J (values and exact work), the dot-product
// test on the linear recurrences through f.lin and f.bwd, the gradient of s against its JVP, and
// the emitted TypeScript against the interpreter.
import fc from 'fast-check';
import { nonLinearProgram, choices, flat } from '../gen/programs';
import { evalFn, Value } from '../../transformer/language/interp';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import type { Program } from '../../transformer/ir/syntax';
import { emitAndLoad, asReturned } from './emitted';
import { gradOf, hvpOf, jvpOf, linearizeOf, vjpOf } from '../gen/drivers';

const RUNS = { numRuns: 25 };
const close = (a: number, b: number, tol = 1e-9) => a === b || Math.abs(a - b) <= tol * (1 + Math.abs(a) + Math.abs(b));
const plain = (v: unknown): unknown => (v instanceof Float64Array ? [...v] : Array.isArray(v) ? v.map(plain) : v);

/** f (scan) and s (reduce) with the operator from g; undefined when g does not fit. */
function foldProgram(xs: readonly number[]): Program | undefined {
  const p = nonLinearProgram(xs);
  const g = p.defs[p.defs.length - 1];
  if (g.nlResults.length === 0 || g.nlResults[0].tag !== 'real' || g.nlParams.length < 2) return undefined;
  if (!g.nlParams.every((b) => b.type!.tag === 'real')) return undefined;
  const rs = g.nlResults.map((_, k) => `r${k}`);
  const body = `[|a: real, b: real ;| {
    let (${rs.join(', ')}) = ${g.name}(${g.nlParams.map((_, i) => (i % 2 === 0 ? 'a' : 'b')).join(', ')})
${rs
  .slice(1)
  .map((r) => `    drop(${r})\n`)
  .join('')}    (r0 ;)
  }]`;
  const text = `${printProgram(p, { types: true })}
def f(x: array<real>, e: real ;) -> (array<real> ;) {
  let n = len(x) []
  scan(n, e, x) ${body}
}

def s(x: array<real>, e: real ;) -> (real ;) {
  let n = len(x) []
  reduce(n, e, x) ${body}
}
`;
  return parseProgram(text, 'generated.lina');
}

const arrayOf = (n: number) => fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: n, maxLength: n });
const argsOf = (n: number): fc.Arbitrary<Value[]> => fc.tuple(arrayOf(n), fc.double({ min: -1, max: 1, noNaN: true })).map(([a, e]) => [a, e]);

const arb = fc
  .tuple(choices, fc.constantFrom(0, 1, 5))
  .map(([xs, n]): { p: Program | undefined; n: number } => ({ p: foldProgram(xs), n }))
  .filter((x): x is { p: Program; n: number } => x.p !== undefined)
  .chain(({ p, n }) => fc.tuple(fc.constant(p), argsOf(n), argsOf(n), arrayOf(n), fc.double({ min: -1, max: 1, noNaN: true })));

function inner(a: readonly Value[], b: readonly Value[]): number {
  let s = 0;
  a.forEach((x, i) => {
    const y = b[i];
    if (Array.isArray(x) || Array.isArray(y)) {
      const xs = (x ?? []) as number[];
      const ys = (y ?? []) as number[];
      for (let k = 0; k < Math.max(xs.length, ys.length); k++) s += (xs[k] ?? 0) * (ys[k] ?? 0);
    } else s += (x as number) * (y as number);
  });
  return s;
}

const finite = (v: Value[]): boolean => flat(v).every((x) => Number.isFinite(x));

describe('scan and reduce over random operator bodies, lengths 0, 1 and 5', () => {
  test('unzipping: fwd gives the primal, lin the JVP, and W(fwd) + W(lin) = W(jvp)', () => {
    fc.assert(
      fc.property(arb, ([p, x, xd]) => {
        for (const fn of ['f', 's']) {
          const { program, fwd, lin } = linearizeOf(p, fn);
          const j = evalFn(program, `${fn}.jvp`, x, xd);
          fc.pre(finite(j.nl) && finite(j.lin));
          const r = evalFn(program, fwd, x);
          expect(r.nl.slice(0, 1)).toEqual(evalFn(program, fn, x).nl);
          const l = evalFn(program, lin, [r.nl[1]], xd);
          const a = flat(l.lin);
          const b = flat(j.lin);
          expect(a.length).toBe(b.length);
          a.forEach((v, i) => expect(close(v, b[i])).toBe(true));
          expect(r.work + l.work).toBe(j.work);
        }
      }),
      RUNS,
    );
  });

  test('the dot-product test on f.lin and f.bwd (lscan ↔ lrscan, lfold ↔ lrfold), and the gradient of s against its JVP', () => {
    fc.assert(
      fc.property(arb, ([p, x, xd, ybArr, ybS]) => {
        for (const [fn, yb] of [
          ['f', [ybArr]],
          ['s', [ybS]],
        ] as [string, Value[]][]) {
          const { program, fwd, bwd } = vjpOf(p, fn);
          const tape = evalFn(program, fwd, x).nl[1];
          const lx = evalFn(program, `${fn}.lin`, [tape], xd).lin;
          const ty = evalFn(program, bwd, [tape], yb).lin;
          fc.pre(finite(lx) && finite(ty));
          expect(close(inner(lx, yb), inner(ty, xd), 1e-8)).toBe(true);
        }
        const g = gradOf(p, 's', { simplify: true });
        const grad = evalFn(g.program, g.grad, x).nl;
        const jv = jvpOf(p, 's');
        const want = evalFn(jv.program, jv.jvp, x, xd).lin[0] as number;
        fc.pre(finite(grad) && Number.isFinite(want));
        expect(close(inner(grad, xd), want, 1e-8)).toBe(true);
      }),
      RUNS,
    );
  });

  // The operator calls g: its tape is a tuple residual, stored leaf by leaf (flatResiduals.ts).
  test('second order: hvp of s against central differences of its gradient', () => {
    fc.assert(
      fc.property(arb, ([p, x, xd]) => {
        const g = gradOf(p, 's');
        const eps = 1e-5;
        const at = (sign: number) =>
          evalFn(
            g.program,
            g.grad,
            x.map((a, k) => (Array.isArray(a) ? a.map((e, i) => (e as number) + sign * eps * ((xd[k] as number[])[i] ?? 0)) : (a as number) + sign * eps * (xd[k] as number))),
          ).nl;
        const plus = flat(at(1));
        const minus = flat(at(-1));
        const h = hvpOf(p, 's');
        const got = evalFn(h.program, h.hvp, [...x, ...xd]).nl;
        fc.pre(finite(got) && plus.every(Number.isFinite) && minus.every(Number.isFinite));
        const n = (x[0] as number[]).length;
        const want = plus.map((a, i) => (a - minus[i]) / (2 * eps));
        const g0 = got[0] as number[];
        const gotFlat = [...Array.from({ length: n }, (_, i) => g0[i] ?? 0), got[1] as number];
        gotFlat.forEach((a, i) => expect(close(a, want[i], 1e-5)).toBe(true));
      }),
      { numRuns: 15 },
    );
  });

  test('the emitted TypeScript of f, s and their derived functions agrees with the interpreter', () => {
    fc.assert(
      fc.property(arb, ([p, x, xd, ybArr, ybS]) => {
        let q = vjpOf(p, 'f', { simplify: true }).program;
        q = gradOf(q, 's', { simplify: true }).program;
        const { fns } = emitAndLoad(q);
        const run = (fn: string, nl: Value[], lin: Value[] = []) => {
          const r = evalFn(q, fn, nl, lin);
          const got = plain(fns.get(fn)!(...nl, ...lin));
          const want = plain(asReturned(r));
          const a = flat(got as Value);
          const b = flat(want as Value);
          expect(a.length).toBe(b.length);
          a.forEach((v, i) => expect(close(v, b[i], 1e-12) || (Number.isNaN(v) && Number.isNaN(b[i]))).toBe(true));
          return r;
        };
        run('f', x);
        run('f.jvp', x, xd);
        const tape = run('f.fwd', x).nl[1];
        run('f.lin', [tape], xd);
        run('f.bwd', [tape], [ybArr]);
        run('s', x);
        run('s.grad', x);
        void ybS;
      }),
      RUNS,
    );
  });
});
