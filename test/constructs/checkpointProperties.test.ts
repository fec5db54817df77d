// Properties of checkpointed loops over random bodies: the body maps (u, c, s) to
// (f(c), s + f(c)²) for a random chain f of unary operations (some reading the invariant u), the
// trip count and the policy random too. With the drivers re-checking every pass: the gradient
// equals the store policy's (to rounding: invariants' cotangents are summed per segment first),
// the dot-product test on the checkpointed .fwd/.lin/.bwd, the peak tape never above the store
// policy's plus one segment's bookkeeping, the work within the extra sweeps the policy pays
// for, and the emitted TypeScript against the interpreter.
import fc from 'fast-check';
import { evalFn } from '../../transformer/language/interp';
import { parseProgram } from '../../transformer/language/parse';
import type { Program } from '../../transformer/ir/syntax';
import type { LoopCheckpoint } from '../../transformer/ad/checkpoint';
import { emitAndLoad } from './emitted';
import { gradOf, linearizeOf, vjpOf } from '../gen/drivers';
import { dot } from './reference';

const RUNS = { numRuns: 25 };
const close = (a: number, b: number, tol = 1e-10) => a === b || (Number.isNaN(a) && Number.isNaN(b)) || Math.abs(a - b) <= tol * (1 + Math.abs(a) + Math.abs(b));

const OPS: ((x: string, y: string) => string)[] = [
  (x, y) => `let ${y} = sin(${x})`,
  (x, y) => `let ${y} = mul(${x}, u)`,
  (x, y) => `let ${y} = add(${x}, u)`,
  (x, y) => `let ${y}_s = mul(${x}, ${x})\n    let ${y}_h = 0.5\n    let ${y} = mul(${y}_s, ${y}_h)`,
  (x, y) => `let ${y} = cos(${x})`,
  (x, y) => `let ${y}_t = tanh(${x})\n    let ${y} = add(${y}_t, ${x})`,
];

function loopProgram(ops: readonly number[]): Program {
  const chain = ops.map((k, i) => OPS[k](i === 0 ? 'c' : `v${i - 1}`, `v${i}`)).join('\n    ');
  const last = `v${ops.length - 1}`;
  const usesU = ops.some((k) => k === 1 || k === 2);
  return parseProgram(
    `
def f(u: real, x: real, n: real ;) -> (real ;) {
  let zero = 0
  let (y, s) = loop(n, u, x, zero) [|i: real, u: real, c: real, s: real ;| {
    drop(i)
    ${usesU ? '' : 'drop(u)\n    '}${chain}
    let sq = mul(${last}, ${last})
    let s1 = add(s, sq)
    (${last}, s1 ;)
  }]
  add(y, s)
}
`,
    'generated.lina',
  );
}

const POLICY: fc.Arbitrary<LoopCheckpoint> = fc.oneof(
  fc.integer({ min: 1, max: 7 }).map((every) => ({ every })),
  fc.constant<LoopCheckpoint>('sqrt'),
  fc.integer({ min: 2, max: 4 }).map((levels) => ({ levels })),
);
const levelsOf = (c: LoopCheckpoint) => (typeof c === 'object' && 'levels' in c ? c.levels : 2);
const sweeps = (c: LoopCheckpoint) => (typeof c === 'object' && 'levels' in c ? c.levels - 1 : 1);

const arb = fc.record({
  ops: fc.array(fc.integer({ min: 0, max: OPS.length - 1 }), { minLength: 1, maxLength: 4 }),
  n: fc.integer({ min: 0, max: 40 }),
  policy: POLICY,
  u: fc.double({ min: 0.2, max: 0.9, noNaN: true }),
  x: fc.double({ min: -1, max: 1, noNaN: true }),
  dir: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 3, maxLength: 3 }),
  ybar: fc.double({ min: -2, max: 2, noNaN: true }),
});

test('gradient, dot-product test, tape and work, emitted code', () => {
  fc.assert(
    fc.property(arb, ({ ops, n, policy, u, x, dir, ybar }) => {
      const p = loopProgram(ops);
      const args = [u, x, n];
      // Squaring steps can overflow within 40 iterations; there ∞·0 leaves no reference to compare.
      const value = evalFn(p, 'f', args).nl[0] as number;
      fc.pre(Math.abs(value) < 1e100);
      const store = gradOf(p, 'f', { simplify: true });
      const ck = gradOf(p, 'f', { simplify: true, checkpoint: policy });
      const s = evalFn(store.program, store.grad, args, [], { tape: true });
      const c = evalFn(ck.program, ck.grad, args, [], { tape: true });
      (c.nl as number[]).forEach((g, k) => expect(close(g, s.nl[k] as number)).toBe(true));
      // Snapshots: the carried pair per segment of each level (at least one segment per level,
      // however short the loop), never more than storing every step.
      expect(c.peakTape!).toBeLessThanOrEqual(s.peakTape! + 2 * n + 2 * levelsOf(policy));
      expect(c.work).toBeLessThanOrEqual((sweeps(policy) + 1) * s.work + 12 * (sweeps(policy) + 1) * (n + 1) + 20);

      const v = vjpOf(p, 'f', { simplify: true, checkpoint: policy });
      const l = linearizeOf(p, 'f', { simplify: true, checkpoint: policy });
      const ydot = evalFn(l.program, l.lin, [evalFn(l.program, l.fwd, args).nl[1]], dir).lin[0] as number;
      const bars = evalFn(v.program, v.bwd, [evalFn(v.program, v.fwd, args).nl[1]], [ybar]).lin as number[];
      expect(close(ybar * ydot, dot(bars, dir), 1e-9)).toBe(true);

      const emitted = emitAndLoad(ck.program).fns.get(ck.grad)!(...args) as number[];
      expect(emitted).toEqual(c.nl);
    }),
    RUNS,
  );
});
