// Reverse mode through random loop bodies that read an array by index (constructs/array/accum.ts):
// a random non-linear program g (test/gen/programs.ts) runs in a counted loop over an array of
// length 0, 1 or 5, fed each iteration with a[i], a[n − 1 − i] (two reads of one invariant
// array), a free scalar and the running sum, which adds g's first result. Checked with the
// drivers re-checking every pass: the gradient (accumulated in place) against one JVP per
// input scalar, the dot-product test on f.lin and f.bwd, and the emitted TypeScript of the
// gradient against the interpreter.
import fc from 'fast-check';
import { nonLinearProgram, choices } from '../gen/programs';
import { evalFn, Value } from '../../transformer/language/interp';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import type { Program } from '../../transformer/ir/syntax';
import { emitAndLoad } from './emitted';
import { gradOf, jvpOf, vjpOf } from '../gen/drivers';

const RUNS = { numRuns: 30 };
const close = (a: number, b: number, tol = 1e-9) => a === b || Math.abs(a - b) <= tol * (1 + Math.abs(a) + Math.abs(b));
const plain = (v: unknown): unknown => (v instanceof Float64Array ? [...v] : Array.isArray(v) ? v.map(plain) : v);
const pad = (v: Value, n: number): number[] => Array.from({ length: n }, (_, i) => ((v as number[])[i] as number | undefined) ?? 0);

/** f(a, c) = Σ_i g(a[i], a[n−1−i], c, s_i)₀ by a loop; undefined when g takes or returns anything but reals. */
function loopProgram(xs: readonly number[]): Program | undefined {
  const p = nonLinearProgram(xs);
  const g = p.defs[p.defs.length - 1];
  if (!g.nlResults.every((t) => t.tag === 'real') || !g.nlParams.every((b) => b.type!.tag === 'real')) return undefined;
  const feeds = ['x', 'y', 'cc', 'acc'];
  const args = g.nlParams.map((_, k) => feeds[k % feeds.length]);
  const drops = ['x', 'y', 'cc']
    .filter((v) => !args.includes(v))
    .map((v) => `    drop(${v})\n`)
    .join('');
  const rs = g.nlResults.map((_, k) => `r${k}`);
  const text = `${printProgram(p, { types: true })}
def f(a: array<real>, c: real ;) -> (real ;) {
  let n = len(a) []
  let zero = 0
  loop(n, a, n, c, zero) [|i: real, u: array<real>, nn: real, cc: real, acc: real ;| {
    let one = 1
    let last = sub(nn, one)
    let j = sub(last, i)
    let x = index(u, i) []
    let y = index(u, j) []
${drops}    let (${rs.join(', ')}) = ${g.name}(${args.join(', ')})
${rs
  .slice(1)
  .map((r) => `    drop(${r})\n`)
  .join('')}    add(acc, r0)
  }]
}
`;
  return parseProgram(text, 'generated.lina');
}

const arrayOf = (n: number) => fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: n, maxLength: n });
const arb = fc
  .tuple(choices, fc.constantFrom(0, 1, 5))
  .map(([xs, n]): { p: Program | undefined; n: number } => ({ p: loopProgram(xs), n }))
  .filter((x): x is { p: Program; n: number } => x.p !== undefined)
  .chain(({ p, n }) => fc.tuple(fc.constant(p), fc.constant(n), arrayOf(n), fc.double({ min: -2, max: 2, noNaN: true }), arrayOf(n), fc.double({ min: -2, max: 2, noNaN: true })));

describe('loops reading an array by index, random bodies, lengths 0, 1 and 5', () => {
  test('the gradient agrees with one JVP per scalar, and the dot-product test holds', () => {
    fc.assert(
      fc.property(arb, ([p, n, a, c, ad, cd]) => {
        const g = gradOf(p, 'f', { simplify: true });
        const [aBar, cBar] = evalFn(g.program, g.grad, [a, c]).nl;
        const j = jvpOf(p, 'f');
        const jvp = (da: number[], dc: number) => evalFn(j.program, j.jvp, [a, c], [da, dc]).lin[0] as number;
        const ab = pad(aBar, n);
        for (let i = 0; i < n; i++)
          expect(
            close(
              ab[i],
              jvp(
                a.map((_, k) => (k === i ? 1 : 0)),
                0,
              ),
            ),
          ).toBe(true);
        expect(
          close(
            cBar as number,
            jvp(
              a.map(() => 0),
              1,
            ),
          ),
        ).toBe(true);
        const v = vjpOf(p, 'f', { simplify: true });
        const tape = evalFn(v.program, v.fwd, [a, c]).nl[1];
        const lx = evalFn(v.program, 'f.lin', [tape], [ad, cd]).lin[0] as number;
        const [ta, tc] = evalFn(v.program, v.bwd, [tape], [0.75]).lin;
        const back = pad(ta, n).reduce((s, x, i) => s + x * ad[i], 0) + (tc as number) * cd;
        expect(close(0.75 * lx, back, 1e-8)).toBe(true);
      }),
      RUNS,
    );
  });

  test('the emitted gradient agrees with the interpreter, and leaves its inputs unchanged', () => {
    fc.assert(
      fc.property(arb, ([p, , a, c]) => {
        const g = gradOf(p, 'f', { simplify: true });
        const { fns } = emitAndLoad(g.program);
        const input = Float64Array.from(a);
        const got = fns.get(g.grad)!(input, c) as unknown[];
        const want = evalFn(g.program, g.grad, [a, c]).nl;
        expect(plain(got)).toEqual(plain(want));
        expect([...input]).toEqual(a);
      }),
      RUNS,
    );
  });
});
