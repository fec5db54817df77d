// Properties of map over random bodies. A random non-linear program g (test/gen/programs.ts)
// supplies the body: f maps g over arrays of length 0, 1 or 5, its real parameters alternately
// mapped (from arrays) and invariant (free scalars passed as operands), its tuple parameters
// invariant. Checked with the drivers re-checking every pass: the dot-product test on f.lin and
// f.bwd, unzipping against J (values and exact work), the gradient of Σ f against JVPs, and the
// emitted TypeScript against the interpreter.
import fc from 'fast-check';
import { nonLinearProgram, choices, valuesFor, flat } from '../gen/programs';
import { evalFn, Value } from '../../transformer/language/interp';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram, printType } from '../../transformer/ir/print';
import { Program, Type } from '../../transformer/ir/syntax';
import { emitAndLoad, asReturned } from './emitted';
import { gradOf, jvpOf, linearizeOf, vjpOf } from '../gen/drivers';

const RUNS = { numRuns: 30 };
const close = (a: number, b: number, tol = 1e-9) => a === b || Math.abs(a - b) <= tol * (1 + Math.abs(a) + Math.abs(b));
const T = (t: Type) => printType(t, true);
const plain = (v: unknown): unknown => (v instanceof Float64Array ? [...v] : Array.isArray(v) ? v.map(plain) : v);

interface Case {
  readonly p: Program;
  /** Per parameter of f: an array's length, or its type when it is an invariant. */
  readonly params: readonly ({ array: true } | { array: false; type: Type })[];
  readonly results: number;
}

/**
 * f(arrays and invariants) = map(n, …)[|q̄| g(q̄)] and s = Σ_k sum(f_k); undefined when g does not
 * fit (a non-real result, a tuple other than a pair of reals). A pair invariant is unpacked
 * before the map and packed again in the body (map invariants are reals).
 */
function mapProgram(xs: readonly number[]): Case | undefined {
  const p = nonLinearProgram(xs);
  const g = p.defs[p.defs.length - 1];
  if (!g.nlResults.every((t) => t.tag === 'real')) return undefined;
  if (!g.nlParams.every((b) => b.type!.tag === 'real' || (b.type!.tag === 'tuple' && b.type!.elems.length === 2 && b.type!.elems.every((e) => e.tag === 'real')))) return undefined;
  let reals = 0;
  const params = g.nlParams.map((b) => (b.type!.tag === 'real' && reals++ % 2 === 0 ? { array: true as const } : { array: false as const, type: b.type! }));
  const first = params.findIndex((q) => q.array);
  if (first < 0) return undefined;
  const isPair = (i: number) => !params[i].array && (params[i] as { type: Type }).type.tag === 'tuple';
  const fParams = params.map((q, i) => `a${i}: ${q.array ? 'array<real>' : T(q.type)}`).join(', ');
  const unpack = params.map((_, i) => (isPair(i) ? `  let <a${i}_0, a${i}_1> = a${i}\n` : '')).join('');
  const operands = params.map((_, i) => (isPair(i) ? `a${i}_0, a${i}_1` : `a${i}`)).join(', ');
  const bodyParams = g.nlParams.map((b, i) => (isPair(i) ? `q${i}_0: real, q${i}_1: real` : `q${i}: ${T(b.type!)}`)).join(', ');
  const pack = params.map((_, i) => (isPair(i) ? `    let q${i} = <q${i}_0, q${i}_1>\n` : '')).join('');
  const m = g.nlResults.length;
  const ys = Array.from({ length: m }, (_, k) => `y${k}`);
  const sums = ys.map((y, k) => `  let s${k} = sum(${y}) []\n`).join('');
  const total = ys.slice(1).reduce((acc, _, k) => `${acc}  let t${k + 1} = add(${k === 0 ? 's0' : `t${k}`}, s${k + 1})\n`, '');
  const text = `${printProgram(p, { types: true })}
def f(${fParams} ;) -> (${ys.map(() => 'array<real>').join(', ')} ;) {
${unpack}  let n = len(a${first}) []
  map(n, ${operands}) [|${bodyParams} ;| {
${pack}    ${g.name}(${g.nlParams.map((_, i) => `q${i}`).join(', ')})
  }]
}

def s(${fParams} ;) -> (real ;) {
  let (${ys.join(', ')}) = f(${params.map((_, i) => `a${i}`).join(', ')})
${sums}${total}  (${m === 1 ? 's0' : `t${m - 1}`} ;)
}
`;
  return { p: parseProgram(text, 'generated.lina'), params, results: m };
}

const arrayOf = (n: number) => fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: n, maxLength: n });
const argsFor = (c: Case, n: number): fc.Arbitrary<Value[]> => fc.tuple(...c.params.map((q) => (q.array ? arrayOf(n) : valuesFor([q.type]).map((v) => v[0])))).map((v) => v as Value[]);

const arb = fc
  .tuple(choices, fc.constantFrom(0, 1, 5))
  .map(([xs, n]): { c: Case | undefined; n: number } => ({ c: mapProgram(xs), n }))
  .filter((x): x is { c: Case; n: number } => x.c !== undefined)
  .chain(({ c, n }) => fc.tuple(fc.constant(c), fc.constant(n), argsFor(c, n), argsFor(c, n), fc.tuple(...Array.from({ length: c.results }, () => arrayOf(n)))));

/** ⟨a, b⟩ over values whose arrays of reals may be sparse (shorter: missing elements are 0). */
function inner(a: readonly Value[], b: readonly Value[]): number {
  let s = 0;
  a.forEach((x, i) => {
    const y = b[i];
    if (Array.isArray(x) || Array.isArray(y)) {
      const xs = (x ?? []) as Value[];
      const ysv = (y ?? []) as Value[];
      const n = Math.max(xs.length, ysv.length);
      s += inner(
        Array.from({ length: n }, (_, k) => xs[k] ?? 0),
        Array.from({ length: n }, (_, k) => ysv[k] ?? 0),
      );
    } else s += (x as number) * (y as number);
  });
  return s;
}

describe('map over random bodies, lengths 0, 1 and 5', () => {
  test('unzipping: fwd gives the primal, lin the JVP, and W(fwd) + W(lin) = W(jvp)', () => {
    fc.assert(
      fc.property(arb, ([c, , x, xd]) => {
        const { program, fwd, lin } = linearizeOf(c.p, 'f');
        const j = evalFn(program, 'f.jvp', x, xd);
        const r = evalFn(program, fwd, x);
        expect(r.nl.slice(0, c.results)).toEqual(evalFn(program, 'f', x).nl);
        expect(r.nl.slice(0, c.results)).toEqual(j.nl);
        const l = evalFn(program, lin, [r.nl[c.results]], xd);
        const a = flat(l.lin);
        const b = flat(j.lin);
        expect(a.length).toBe(b.length);
        a.forEach((v, i) => expect(close(v, b[i])).toBe(true));
        expect(r.work + l.work).toBe(j.work);
      }),
      RUNS,
    );
  });

  test('the dot-product test on f.lin and f.bwd, and the gradient of Σ f against its JVP', () => {
    fc.assert(
      fc.property(arb, ([c, , x, xd, yb]) => {
        const { program, fwd, bwd } = vjpOf(c.p, 'f');
        const tape = evalFn(program, fwd, x).nl[c.results];
        const lx = evalFn(program, 'f.lin', [tape], xd).lin;
        const ty = evalFn(program, bwd, [tape], yb).lin;
        expect(close(inner(lx, yb), inner(ty, xd), 1e-8)).toBe(true);
        const g = gradOf(c.p, 's', { simplify: true });
        const grad = evalFn(g.program, g.grad, x).nl;
        const jv = jvpOf(c.p, 's');
        const want = evalFn(jv.program, jv.jvp, x, xd).lin[0] as number;
        expect(close(inner(grad, xd), want, 1e-8)).toBe(true);
      }),
      RUNS,
    );
  });

  test('the emitted TypeScript of f and its derived functions agrees with the interpreter', () => {
    fc.assert(
      fc.property(arb, ([c, , x, xd, yb]) => {
        const { program } = vjpOf(c.p, 'f', { simplify: true });
        const { fns } = emitAndLoad(program);
        const run = (fn: string, nl: Value[], lin: Value[] = []) => {
          const r = evalFn(program, fn, nl, lin);
          expect(plain(fns.get(fn)!(...nl, ...lin))).toEqual(asReturned(r));
          return r;
        };
        run('f', x);
        run('f.jvp', x, xd);
        const tape = run('f.fwd', x).nl[c.results];
        run('f.lin', [tape], xd);
        run('f.bwd', [tape], yb);
      }),
      RUNS,
    );
  });
});
