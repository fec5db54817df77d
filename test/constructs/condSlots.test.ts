// Where a cond keeps its residuals. A number a branch was given and stores as it is (a residual that is the branch's own
// parameter) is read by the linear cond from the cond's operand, not from a slot of its own,
// where the slots and the new operands together do not outnumber the slots
// (cond/hoistLengths.ts, numberParams). The enclosing body then keeps the operand once, or
// recomputes it, or passes it once as an invariant, where a slot is one more number per iteration.
// Measured with the interpreter's tape meter (numbers held in residual stacks at once) against
// the trip count, and the gradient against central differences.
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import { gradOf, vjpOf } from '../gen/drivers';
import { DRIVER } from '../../transformer/plan/request';
import { dot, rel } from './reference';
import { emitAndLoad } from './emitted';

// Over i < n: acc ← x_i > ½ ? 0.3 · x_i · acc + acc : ELSE, from acc = w. `then` stores x_i and
// acc, both its parameters; ELSE decides whether moving them out takes more room than it frees.
const source = (otherwise: string) => `
def f(x: array<real>, w: real, n: real ;) -> (real ;) {
  loop(n, x, w) [|i: real, x1: array<real>, acc: real ;| {
    let v = index(x1, i) []
    let half = 0.5
    let gt = gt(v, half)
    cond(gt, v, acc) [|v2: real, a2: real ;| {
      let p = mul(v2, a2)
      let k = 0.3
      let q = mul(p, k)
      add(q, a2)
    }, |v3: real, a3: real ;| {
      drop(v3)
      ${otherwise}
    }]
  }]
}`;
// The else branch hands its accumulator on (no residual): `then`'s two slots become the operands v
// (which the loop recomputes from x, its invariant) and acc (carried: stored once either way).
const HANDS_ON = '(a3 ;)';
// The else branch stores three numbers of its own (sin a3's cos, s, cos t's sin): its slots stay,
// moving `then`'s two out would add two operands and free none.
const STORES = 'let s = sin(a3)\n      let t = mul(s, s)\n      let c = cos(t)\n      add(c, a3)';

const x = [0.7, 0.1, 0.9, 0.2, 0.6, 0.55, 0.3, 0.8];
const grad = (src: string) => {
  const prog = parseProgram(src);
  return { prog, g: gradOf(prog, 'f', DRIVER) };
};
/** Numbers held per iteration: the tape's growth from 4 to 8 trips, over 4. */
const perIteration = (src: string) => {
  const { g } = grad(src);
  const at = (n: number) => evalFn(g.program, g.grad, [x, 0.9, n], [], { tape: true }).peakTape!;
  return (at(8) - at(4)) / 4;
};

describe("a cond's number parameters stored as they are: the cond's operands", () => {
  test('a branch storing two of its parameters, the other none: 2 numbers per iteration (the flag and acc), 3 before (the flag and two slots)', () => {
    expect(perIteration(source(HANDS_ON))).toBeLessThanOrEqual(2);
  });

  test('where the other branch fills the slots, they stay (4 numbers per iteration: the flag and three slots, not the flag, three slots and two operands)', () => {
    expect(perIteration(source(STORES))).toBeLessThanOrEqual(4);
  });

  test.each([
    ['hands on', HANDS_ON],
    ['stores', STORES],
  ])('gradient (else %s) against central differences, the interpreter and the emitted JavaScript, zero trips and one branch only included', (_, otherwise) => {
    const { prog, g } = grad(source(otherwise));
    const run = emitAndLoad(g.program).fns.get(g.grad)!;
    const f = (args: unknown[]) => evalFn(prog, 'f', args as never).nl[0] as number;
    for (const [xs, n] of [
      [x, 8],
      [x, 0],
      [[0.9, 0.8, 0.7], 3],
      [[0.1, 0.2, 0.3], 3],
    ] as const) {
      const h = 1e-6;
      const fd = [
        ...xs.map((_, k) => (f([xs.map((v, i) => (i === k ? v + h : v)), 0.9, n]) - f([xs.map((v, i) => (i === k ? v - h : v)), 0.9, n])) / (2 * h)),
        (f([xs, 0.9 + h, n]) - f([xs, 0.9 - h, n])) / (2 * h),
      ];
      const [gx, gw] = evalFn(g.program, g.grad, [xs, 0.9, n] as never).nl as [number[], number];
      const got = [...xs.map((_, k) => gx[k] ?? 0), gw];
      got.forEach((v, k) => expect(rel(v, fd[k])).toBeLessThan(1e-6));
      const [ex, ew] = run(Float64Array.from(xs), 0.9, n) as [Float64Array, number];
      [...xs.map((_, k) => ex[k] ?? 0), ew].forEach((v, k) => expect(rel(v, got[k])).toBeLessThan(1e-12));
    }
  });
});

// A while loop (its record holds numbers, flags as 1 or 0) over i < n: acc ← x_i > ½ ?
// exp(sin acc) + x_i : (e = exp acc; e > 1 ? e : acc), from acc = w.
// `then` stores two numbers it computes (cos acc, exp(sin acc)), the else branch one (exp acc) and
// a flag (e > 1): the flag takes the number slot the else branch leaves free, as 1 or 0
// (cond/slots.ts), where it took a flag slot of its own.
const SHARING = `
def f(x: array<real>, w: real, n: real ;) -> (real ;) {
  let i0 = 0
  let (last, y) = while(x, n, i0, w) [|x0: array<real>, n0: real, i: real, a: real ;| {
    drop(x0)
    drop(a)
    lt(i, n0)
  }, |x1: array<real>, n1: real, i1: real, acc: real ;| {
    drop(n1)
    let v = index(x1, i1) []
    let half = 0.5
    let gt = gt(v, half)
    let one = 1
    let i2 = add(i1, one)
    let r = cond(gt, v, acc) [|v2: real, a2: real ;| {
      let s = sin(a2)
      let e = exp(s)
      add(e, v2)
    }, |v3: real, a3: real ;| {
      drop(v3)
      let e = exp(a3)
      let one = 1
      let big = gt(e, one)
      select(big, e, a3)
    }]
    (i2, r ;)
  }]
  drop(last)
  (y ;)
}`;

describe('a flag in a number slot of the other branch', () => {
  test('4 numbers per iteration (the counter, the predicate and two number slots), 5 before (a flag slot besides)', () => {
    expect(perIteration(SHARING)).toBeLessThanOrEqual(4);
  });

  test('gradient against central differences, the interpreter and the emitted JavaScript: zero trips, each branch only, both', () => {
    const { prog, g } = grad(SHARING);
    const run = emitAndLoad(g.program).fns.get(g.grad)!;
    const f = (args: unknown[]) => evalFn(prog, 'f', args as never).nl[0] as number;
    for (const [xs, w, n] of [
      [x, 0.3, 8],
      [x, -0.4, 8],
      [x, 0.3, 0],
      [[0.9, 0.8, 0.7], 0.4, 3],
      [[0.1, 0.2, 0.3], -1.2, 3],
      [[0.1, 0.2, 0.3], 0.5, 3],
    ] as const) {
      const h = 1e-6;
      const fd = [
        ...xs.map((_, k) => (f([xs.map((v, i) => (i === k ? v + h : v)), w, n]) - f([xs.map((v, i) => (i === k ? v - h : v)), w, n])) / (2 * h)),
        (f([xs, w + h, n]) - f([xs, w - h, n])) / (2 * h),
      ];
      const [gx, gw] = evalFn(g.program, g.grad, [xs, w, n] as never).nl as [number[], number];
      const got = [...xs.map((_, k) => gx[k] ?? 0), gw];
      got.forEach((v, k) => expect(rel(v, fd[k])).toBeLessThan(1e-6));
      const [ex, ew] = run(Float64Array.from(xs), w, n) as [Float64Array, number];
      [...xs.map((_, k) => ex[k] ?? 0), ew].forEach((v, k) => expect(rel(v, got[k])).toBeLessThan(1e-12));
    }
  });

  test('the dot-product test on f.lin and f.bwd: <ȳ, L·ẋ> = <Lᵀ·ȳ, ẋ> on one tape, in each program', () => {
    for (const src of [source(HANDS_ON), source(STORES), SHARING]) {
      const v = vjpOf(parseProgram(src), 'f', DRIVER);
      for (const [w, n] of [
        [0.3, 8],
        [-0.4, 8],
        [0.3, 0],
      ] as const) {
        const tape = evalFn(v.program, v.fwd, [x, w, n] as never).nl[1];
        for (let trial = 0; trial < 3; trial++) {
          const xd = x.map((_, i) => Math.sin(3 * trial + i + 1));
          const [wd, yb] = [Math.cos(trial + 0.5), Math.cos(5 * trial + 2)];
          const ly = evalFn(v.program, 'f.lin', [tape] as never, [xd, wd, 0] as never).lin[0] as number;
          const [xb, wb] = evalFn(v.program, v.bwd, [tape] as never, [yb] as never).lin as [number[], number];
          // (Not vacuous: after iterations, the directions move the result.)
          if (n > 0) expect(Math.abs(ly)).toBeGreaterThan(1e-3);
          expect(
            rel(
              yb * ly,
              dot(
                x.map((_, i) => xb[i] ?? 0),
                xd,
              ) +
                wb * wd,
            ),
          ).toBeLessThan(1e-12);
        }
      }
    }
  });
});
