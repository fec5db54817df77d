// Transforms of a function-valued parameter (docs/frontend.md, "Functions passed as values"): a
// user's own optimiser calls grad(loss) on whatever loss it is given. The call sites that pass a
// marked function or an arrow to such a parameter register its compiled (or taped) derivative
// with the function value; grad(loss) inside looks it up at run time.
import { compile, load, partial, expectClose } from './harness';

const source = `import { grad, valueAndGrad, vjp } from 'tsad';
/** Gradient descent with a fixed step: the user's own optimiser, for any loss. */
export function minimize(loss: (x: Float64Array) => number, x0: Float64Array, steps: number, rate: number): Float64Array {
  const g = grad(loss);
  const x = Float64Array.from(x0);
  for (let s = 0; s < steps; s++) {
    const d = g(x);
    for (let i = 0; i < x.length; i++) x[i] -= rate * d[i];
  }
  return x;
}
/** A loss handed on to minimize: the derivative minimize needs goes with it. */
export function descend(loss: (x: Float64Array) => number, x0: Float64Array): Float64Array {
  return minimize(loss, x0, 300, 0.1);
}
export function gradientAt(loss: (x: Float64Array) => number, x: Float64Array): Float64Array {
  return grad(loss)(x);
}
export function slope(loss: (x: number, k: number) => number, x: number, k: number): [number, number] {
  const [v, dk] = valueAndGrad(loss, { wrt: [1] })(x, k);
  const [, pullback] = vjp(loss, x, k);
  return [v + dk, pullback(1)[0]];
}
/** @differentiable */
export function bowl(x: Float64Array): number {
  return (x[0] - 1) * (x[0] - 1) + 3 * (x[1] + 2) * (x[1] + 2) + x[0] * x[1];
}
/** @differentiable */
export function chain(x: number, k: number): number {
  return x < 0.1 ? k * x : Math.sin(chain(x / 2, k)) * k + x;
}
export const best = () => minimize(bowl, new Float64Array(2), 300, 0.1);
export const bestArrow = (c: number) => minimize((x) => (x[0] - c) * (x[0] - c) + Math.cosh(x[1] - 2 * c), new Float64Array(2), 300, 0.2);
export const handedOn = () => descend(bowl, Float64Array.of(5, 5));
export const bowlGradient = (x: Float64Array) => gradientAt(bowl, x);
export const chainSlope = (x: number, k: number) => slope(chain, x, k);
export const fromOutside = (f: (x: Float64Array) => number) => gradientAt(f, Float64Array.of(1, 2));
`;

describe("a user's own minimize(loss, x0) calling grad(loss)", () => {
  const { exports: m, result } = load(source);

  test('builds without errors', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
  });

  test('gradient descent on a quadratic converges to its known minimum', () => {
    // ∇ = (2(x0 - 1) + x1, 6(x1 + 2) + x0) = 0 at x0 = 24/11, x1 = -26/11.
    const x = m.best();
    expectClose(Array.from(x), [24 / 11, -26 / 11], 1e-9);
    expectClose(Array.from(m.handedOn()), [24 / 11, -26 / 11], 1e-9);
  });

  test('an arrow written at the call, with a capture, converges to its minimum', () => {
    expectClose(Array.from(m.bestArrow(0.7)), [0.7, 1.4], 1e-8);
  });

  test('the gradient at a point agrees with central differences', () => {
    const at = Float64Array.of(0.3, -1.7);
    const g = m.bowlGradient(at);
    const ref = [0, 1].map((k) => partial((x: number[]) => m.bowl(Float64Array.from(x)), [Array.from(at)], 0, k)[0]);
    expectClose(Array.from(g), ref);
  });

  test('a recursive marked function (taped) passed as the loss: valueAndGrad with wrt and vjp', () => {
    for (const [x, k] of [
      [0.45, 0.3],
      [3.7, 1.6],
    ]) {
      const [sum, dx] = m.chainSlope(x, k);
      const [dk] = partial(m.chain, [x, k], 1, 0);
      expectClose([sum], [m.chain(x, k) + dk]);
      expectClose([dx], partial(m.chain, [x, k], 0, 0));
    }
  });

  test('a function value with no derivative is a TypeError naming the parameter', () => {
    expect(() => m.fromOutside((x: Float64Array) => x[0])).toThrow(TypeError);
    expect(() =>
      m.fromOutside(function plain(x: Float64Array) {
        return x[0];
      }),
    ).toThrow(/grad\(loss\) was given 'plain', which has no derivative/);
  });
});

describe('function values: what is refused', () => {
  test('an unmarked function of the program passed to a differentiated parameter is a build error at the argument', () => {
    const r = compile(
      `import { grad } from 'tsad';
export function slopeOf(loss: (x: number) => number, x: number): number {
  return grad(loss)(x);
}
function plain(x: number): number {
  return x * x;
}
export const s = slopeOf(plain, 2);
`,
      { throwOnError: false },
    );
    const ours = r.messages.filter((s) => s.includes('TSAD'));
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatch(/:8:26 - error TSAD1001: 'plain' is passed to a parameter that slopeOf differentiates \(grad\)/);
  });

  test('a parameter transformed inside but of another transform than the call site can compile is a build error, not a run-time surprise', () => {
    const r = compile(
      `import { grad } from 'tsad';
export function g(loss: (x: number) => number, x: number): number {
  return grad(loss)(x);
}
export const y = g((x) => (x > 0 ? 'a' : 'b').length * x, 2);
`,
      { throwOnError: false },
    );
    expect(r.messages.some((s) => /error TSAD/.test(s))).toBe(true);
  });
});
