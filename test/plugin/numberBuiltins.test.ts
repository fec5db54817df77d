// `Number`'s predicates and constants inside a marked function (issue 19): `Number.isFinite`,
// `Number.isNaN`, `Number.isInteger`, `Number.isSafeInteger`, the global `isFinite`/`isNaN`, and
// `Number.EPSILON` and its kin. Predicates are piecewise constant: they choose the path and
// carry no derivative. Values are compared with running the same source as plain JavaScript
// (on non-finite inputs too), gradients with central differences where the input is finite and
// with the hand derivation where it is not.
import * as ts from 'typescript';
import { load, partial, expectClose } from './harness';

const source = `
import { valueAndGrad, jvp } from 'tsad';

/** @differentiable */
export function robustSum(xs: number[], s: number): number {
  let t = 0;
  for (const x of xs) {
    if (Number.isFinite(x)) t += x * x * s;
    else if (Number.isNaN(x)) t += 1;
    else t -= s;
  }
  return t;
}

/** @differentiable */
export function validated(xs: number[], s: number): number {
  if (!xs.every((x) => Number.isFinite(x))) throw new Error('readings must be finite');
  if (xs.some((x) => isNaN(x * s) || !isFinite(x))) throw new Error('unreachable');
  return xs.reduce((a, x) => a + Math.sin(x * s), 0);
}

/** @differentiable */
export function integral(x: number, k: number): number {
  const whole = Number.isInteger(k) ? x ** k : Math.exp(x * k);
  const safe = Number.isSafeInteger(k * 1e15) ? 1 : 2;
  return whole * safe + Number.EPSILON * x + (x > Number.MAX_SAFE_INTEGER ? 1 : 0) + (x < Number.NEGATIVE_INFINITY ? Number.NaN : 0);
}

export const gRobust = valueAndGrad(robustSum, { wrt: [0, 1] });
export const gValidated = valueAndGrad(validated, { wrt: [0, 1] });
export const gIntegral = valueAndGrad(integral, { wrt: [0, 1] });
export const jRobust = (xs: number[], s: number, dxs: number[], ds: number) => jvp(robustSum, [xs, s], [dxs, ds]);
`;

const plainModule = (): Record<string, any> => {
  const js = ts.transpileModule(source.replace(/^import .*$/m, '').replace(/^export const [gj].*$/gm, ''), { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText;
  const module = { exports: {} as Record<string, any> };
  new Function('module', 'exports', 'require', js)(module, module.exports, require);
  return module.exports;
};

describe('Number predicates and constants', () => {
  const { exports: m, result } = load(source);
  const plain = plainModule();

  test('compiles without diagnostics', () => {
    expect(result.diagnostics.map((d) => d.messageText)).toEqual([]);
  });

  test('values agree with plain JavaScript, non-finite inputs included', () => {
    const cases: [number[], number][] = [
      [[], 2],
      [[1.5], 2],
      [[Infinity], 3],
      [[NaN], 3],
      [[-Infinity, 2, NaN, 0.5], -1.5],
    ];
    for (const [xs, s] of cases) {
      expect(m.robustSum(xs, s)).toBe(plain.robustSum(xs, s));
      expect(m.gRobust(xs, s)[0]).toBe(plain.robustSum(xs, s));
    }
    for (const k of [2, 2.5, 3, Infinity, NaN, 1e300, 0.001])
      for (const x of [0.7, 1.3]) {
        expect(m.integral(x, k)).toBe(plain.integral(x, k));
        expect(m.gIntegral(x, k)[0]).toBe(plain.integral(x, k));
      }
  });

  test('gradients: central differences on finite input, by hand on non-finite', () => {
    for (const xs of [[], [0.3], [0.3, -1.2, 2]]) {
      const s = 1.7;
      const [, grad] = m.gRobust(xs, s);
      xs.forEach((_, k) => expectClose([grad[0][k]], partial(plain.robustSum, [xs, s], 0, k)));
      expectClose([grad[1]], partial(plain.robustSum, [xs, s], 1, 0));
      const [, gv] = m.gValidated(xs, s);
      xs.forEach((_, k) => expectClose([gv[0][k]], partial(plain.validated, [xs, s], 0, k)));
      expectClose([gv[1]], partial(plain.validated, [xs, s], 1, 0));
    }
    // t = Σ_finite x² s + #NaN − #∞ · s: ∂/∂x = 2xs on finite entries, 0 elsewhere.
    const [, grad] = m.gRobust([Infinity, 2, NaN, 0.5, -Infinity], -1.5);
    expect(grad[0]).toEqual([0, 2 * 2 * -1.5, 0, 2 * 0.5 * -1.5, 0]);
    expect(grad[1]).toBe(4 + 0.25 - 2);
    const [, tangent] = m.jRobust([Infinity, 2], 3, [1, 1], 1);
    expect(tangent).toBe(2 * 2 * 3 + 4 - 1);
    // At an integer k the function jumps in k: only ∂/∂x exists there.
    expectClose([m.gIntegral(0.7, 2)[1][0]], partial(plain.integral, [0.7, 2], 0, 0));
    expectClose(
      m.gIntegral(0.7, 2.5)[1],
      [0, 1].map((i) => partial(plain.integral, [0.7, 2.5], i, 0)[0]),
    );
  });

  test('a throw on a non-finite reading throws in the derivative too', () => {
    expect(() => m.gValidated([1, Infinity], 2)).toThrow('readings must be finite');
    expect(() => plain.validated([1, Infinity], 2)).toThrow('readings must be finite');
  });
});
