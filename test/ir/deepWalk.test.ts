// Passes that recurse through construct rules walk deep nesting in stretches (ir/nesting.ts,
// DeepWalk): past a stretch a body request is deferred to the bottom of the stack and what it
// interrupted is replayed. With a stretch of one or two levels, programs shallow enough for every
// other part of tsad defer and replay at every level, and their derivatives are checked against
// dual numbers.
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import { jvpOf, gradOf } from '../../transformer/ad/drivers';
import { setLevelsPerStretch, LEVELS_PER_STRETCH } from '../../transformer/ir/deepWalk';
import { nestedConds, nestedLoops } from '../gen/long';

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * (1 + Math.abs(b));

afterEach(() => setLevelsPerStretch(LEVELS_PER_STRETCH));

describe.each([
  ['conditionals', nestedConds],
  ['loops', nestedLoops],
])('%s nested 40 deep, walked in stretches of a few levels', (_, gen) => {
  test.each([1, 2, 3])(
    'stretch %i: jvp and grad (with and without simplify) against dual numbers',
    (levels) => {
      const g = gen(40);
      const p = parseProgram(g.text);
      const x = 0.8;
      const ref = g.reference(x);
      setLevelsPerStretch(levels);
      const j = jvpOf(p, g.fn, { recheck: true });
      expect(close(evalFn(j.program, j.jvp, [x], [1]).lin[0] as number, ref.derivative)).toBe(true);
      for (const simplify of [false, true]) {
        const r = gradOf(p, g.fn, { recheck: true, simplify });
        expect(close(evalFn(r.program, r.grad, [x]).nl[0] as number, ref.derivative)).toBe(true);
      }
    },
    120_000,
  );
});
