// Properties of while over random steps: the step maps (u, c, s, j) to (f(c), s + f(c)², j + 1)
// for a random chain f of unary operations (some reading the invariant u); the condition stops
// either after n iterations (j < n) or, with a data-dependent trip count, when s passes a limit
// and j < n (`and`). With the drivers re-checking every pass: J against central differences
// (counter-bound loops, where the trip count is locally constant), the dot-product test on .lin
// and .bwd, W(fwd) + W(lin) = W(jvp) + k, and the emitted TypeScript against the interpreter.
import fc from 'fast-check';
import { evalFn } from '../../transformer/language/interp';
import { parseProgram } from '../../transformer/language/parse';
import { Program } from '../../transformer/ir/syntax';
import { emitAndLoad } from './emitted';
import { jvpOf, vjpOf } from '../gen/drivers';
import { dot } from './reference';

const RUNS = { numRuns: 30 };
const close = (a: number, b: number, tol = 1e-7) => a === b || Math.abs(a - b) <= tol * (1 + Math.abs(a) + Math.abs(b));

/** One unary step on `x` (the name of the value so far), binding `y`; some read the invariant `u`. */
const OPS: ((x: string, y: string) => string)[] = [
  (x, y) => `let ${y} = sin(${x})`,
  (x, y) => `let ${y} = mul(${x}, u)`,
  (x, y) => `let ${y} = add(${x}, u)`,
  (x, y) => `let ${y}_s = mul(${x}, ${x})\n    let ${y}_h = 0.5\n    let ${y} = mul(${y}_s, ${y}_h)`,
  (x, y) => `let ${y} = cos(${x})`,
  (x, y) => `let ${y}_t = tanh(${x})\n    let ${y} = add(${y}_t, ${x})`,
];

function whileProgram(ops: readonly number[], dataBound: boolean): Program {
  const chain = ops.map((k, i) => OPS[k](i === 0 ? 'c' : `v${i - 1}`, `v${i}`)).join('\n    ');
  const last = `v${ops.length - 1}`;
  const usesU = ops.some((k) => k === 1 || k === 2);
  const cond = dataBound ? `let more = lt(j, n)\n    let low = lt(s, limit)\n    and(more, low)` : `drop(s)\n    drop(limit)\n    lt(j, n)`;
  const text = `
def w(u: real, x: real, n: real, limit: real ;) -> (real, real, real ;) {
  let zero = 0
  let zero_j = 0
  let (y, s, k) = while(u, n, limit, x, zero, zero_j) [|u: real, n: real, limit: real, c: real, s: real, j: real ;| {
    drop(u)
    drop(c)
    ${cond}
  }, |u: real, n: real, limit: real, c: real, s: real, j: real ;| {
    drop(n)
    drop(limit)
    ${usesU ? '' : 'drop(u)\n    '}${chain}
    let sq = mul(${last}, ${last})
    let s1 = add(s, sq)
    let one = 1
    let j1 = add(j, one)
    (${last}, s1, j1 ;)
  }]
  (y, s, k ;)
}
`;
  return parseProgram(text, 'generated.lina');
}

const arb = fc.record({
  ops: fc.array(fc.integer({ min: 0, max: OPS.length - 1 }), { minLength: 1, maxLength: 4 }),
  dataBound: fc.boolean(),
  u: fc.double({ min: -1, max: 1, noNaN: true }),
  x: fc.double({ min: -1.5, max: 1.5, noNaN: true }),
  n: fc.integer({ min: 0, max: 6 }),
  limit: fc.double({ min: 0, max: 3, noNaN: true }),
  dir: fc.tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true })),
  bar: fc.tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true })),
});

describe('while over random steps', () => {
  test('J against central differences when the trip count is bound by the counter', () => {
    fc.assert(
      fc.property(arb, ({ ops, u, x, n, dir }) => {
        const p = whileProgram(ops, false);
        const args = [u, x, n, 1];
        const d = [dir[0], dir[1], 0, 0];
        const j = jvpOf(p, 'w');
        const r = evalFn(j.program, j.jvp, args, d);
        const h = 1e-6;
        const plus = evalFn(
          p,
          'w',
          args.map((a, i) => a + h * d[i]),
        ).nl as number[];
        const minus = evalFn(
          p,
          'w',
          args.map((a, i) => a - h * d[i]),
        ).nl as number[];
        (r.lin as number[]).forEach((t, i) => expect(close(t, (plus[i] - minus[i]) / (2 * h), 1e-6)).toBe(true));
      }),
      RUNS,
    );
  });

  test('the dot-product test, W(fwd) + W(lin) = W(jvp) + k, and the emitted TypeScript', () => {
    fc.assert(
      fc.property(arb, ({ ops, dataBound, u, x, n, limit, dir, bar }) => {
        const p = whileProgram(ops, dataBound);
        const args = [u, x, n, limit];
        const d = [dir[0], dir[1], 0.5, -0.25];
        const v = vjpOf(p, 'w');
        const f = evalFn(v.program, v.fwd, args);
        expect(f.nl.slice(0, 3)).toEqual(evalFn(p, 'w', args).nl);
        const tape = f.nl[3];
        const lin = evalFn(v.program, 'w.lin', [tape], d);
        const bars = [...bar, 0.3];
        const back = evalFn(v.program, v.bwd, [tape], bars);
        expect(close(dot(bars, lin.lin as number[]), dot(back.lin as number[], d), 1e-12)).toBe(true);
        const k = evalFn(p, 'w', args).nl[2] as number;
        expect(k).toBeLessThanOrEqual(Math.max(0, n));
        expect(f.work + lin.work).toBe(evalFn(v.program, 'w.jvp', args, d).work + k);
        const { fns } = emitAndLoad(v.program);
        expect(fns.get('w')!(...args)).toEqual(evalFn(p, 'w', args).nl);
        expect(fns.get('w.jvp')!(...args, ...d)).toEqual([...evalFn(v.program, 'w.jvp', args, d).nl, ...evalFn(v.program, 'w.jvp', args, d).lin]);
        expect(fns.get('w.bwd')!(tape, ...bars)).toEqual(back.lin);
      }),
      RUNS,
    );
  });
});
