// Parameters that are not differentiable — strings, booleans, integers used as counts — are
// constants: they flow through the code, select branches and get compared, but take no tangent
// and get no gradient. References are hand derivations.
import { load } from './harness';

const source = `import { grad, valueAndGrad, jvp, vjp } from 'tsad';

/** @differentiable */
export function shaped(x: number, kind: 'sin' | 'cube', label: string, clamp: boolean, n: number): number {
  const base = kind === 'sin' ? Math.sin(x) : x * x * x;
  const tagged = label !== '' ? base * 2 : base;
  const limited = clamp ? Math.min(tagged, 1) : tagged;
  return limited * n;
}

/** @differentiable */
export function pick(x: number, which: string): number {
  const name = which;
  const factor = name === "double" ? 2 : 3;
  return shaped(x * factor, 'cube', name, false, 1);
}

export const d = grad(shaped);
export const dn = grad(shaped, { wrt: [0, 'n'] });
export const vg = valueAndGrad(pick);
export const t = (x: number, which: string) => jvp(pick, [x, which], [1, undefined]);
export const p = (x: number, which: string) => vjp(pick, x, which)[1](1);
`;

const { exports: m, result } = load(source);

test('compiles without diagnostics', () => {
  expect(result.diagnostics).toEqual([]);
  expect(result.outputText).toContain("=== 'sin'");
});

test.each([
  // kind, label, clamp, n, x, d/dx by hand
  ['sin', 'a', false, 3, 0.4, 3 * 2 * Math.cos(0.4)],
  ['sin', '', false, 3, 0.4, 3 * Math.cos(0.4)],
  ['cube', '', false, 2, 0.7, 2 * 3 * 0.49],
  ['cube', 'x', true, 2, 0.7, 2 * 2 * 3 * 0.49], // 2·0.343 < 1: the clamp does not bite
  ['cube', 'x', true, 2, 1.2, 0], // 2·1.728 > 1: clamped to a constant
] as const)('grad(shaped) with kind=%s label=%j clamp=%s n=%d at %d', (kind, label, clamp, n, x, expected) => {
  expect(m.d(x, kind, label, clamp, n)).toBeCloseTo(expected, 12);
});

test('a count can still be differentiated when asked for by wrt', () => {
  const [dx, dn] = m.dn(0.4, 'sin', '', false, 3);
  expect(dx).toBeCloseTo(3 * Math.cos(0.4), 12);
  expect(dn).toBeCloseTo(Math.sin(0.4), 12);
});

test('strings flow into calls and comparisons: valueAndGrad, jvp, vjp', () => {
  // pick(x, 'double') = (2x)^3 · 2 (label non-empty), derivative 48 x^2.
  const [v, g] = m.vg(0.5, 'double');
  expect(v).toBeCloseTo(2, 12);
  expect(g).toBeCloseTo(48 * 0.25, 12);
  // pick(x, 'other') = (3x)^3 · 2, derivative 162 x^2.
  expect(m.t(0.5, 'other')[1]).toBeCloseTo(162 * 0.25, 12);
  expect(m.p(0.5, 'other')[0]).toBeCloseTo(162 * 0.25, 12);
  // A constant's cotangent is undefined, as its tangent is.
  expect(m.p(0.5, 'other')[1]).toBeUndefined();
});

test("a constant parameter's tangent and cotangent are typed undefined (never never)", () => {
  const { compile } = require('./harness');
  const r = compile(
    `import { jvp, vjp } from 'tsad';
/** @differentiable */
export function gated(x: number, on: boolean, mode: string): number { return on && mode === 'square' ? x * x : x; }
const [y, dy]: [number, number] = jvp(gated, [1.5, true, 'square'], [1, undefined, undefined]);
const [, pullback] = vjp(gated, 1.5, true, 'square');
const cts: [number, undefined, undefined] = pullback(1);
// @ts-expect-error: a string parameter has no tangent but undefined
jvp(gated, [1.5, true, 'square'], [1, undefined, 'fast']);
export { y, dy, cts };
`,
    { throwOnError: false },
  );
  expect(r.typeErrors.map((d: any) => d.messageText)).toEqual([]);
  expect(r.diagnostics).toEqual([]);
});

test('module-level constants are computed in place (expressions and objects too), with no tangent', () => {
  const { exports: c, result: r } = load(`import { grad } from 'tsad';
const TWO_PI = 2 * Math.PI;
const GRAVITY = { g: 9.81, drag: 0.1 * 0.5 };
const SHIFT = -TWO_PI / 4;
/** @differentiable */
export function energy(h: number, v: number): number {
  return GRAVITY.g * h + 0.5 * v * v * (1 + GRAVITY.drag) + Math.sin(TWO_PI * h + SHIFT);
}
export const d = grad(energy, { wrt: [0, 1] });
`);
  expect(r.diagnostics).toEqual([]);
  const [dh, dv] = c.d(0.3, 2);
  expect(dh).toBeCloseTo(9.81 + 2 * Math.PI * Math.cos(2 * Math.PI * 0.3 - Math.PI / 2), 12);
  expect(dv).toBeCloseTo(2 * 1.05, 12);
});

test('a module constant computed outside the subset is read when the derivative runs (was TSAD1106)', () => {
  const { exports: c, result: r } = load(
    `import { grad } from 'tsad';\nexport const SEED = Math.random();\n/** @differentiable */\nexport function f(x: number): number { return x * x * SEED; }\nexport const d = grad(f);\n`,
  );
  expect(r.diagnostics).toEqual([]);
  expect(c.d(1.5)).toBeCloseTo(3 * c.SEED, 14);
});

describe('?: with a branch whose derivative is infinite where it is not taken', () => {
  const { exports: b, result: r } = load(`import { grad, valueAndGrad, hessian, vjp } from 'tsad';
/** @differentiable */
export function sinc(x: number): number { return x !== 0 ? Math.sin(x) / x : 1; }
/** @differentiable */
export function reciprocal(x: number): number { return x !== 0 ? 1 / x : 0; }
/** @differentiable */
export function safeLog(x: number, y: number): number { return (x > 0 ? Math.log(x) : 0) + x * y; }
export const dsinc = grad(sinc);
export const hsinc = hessian(sinc);
export const drec = grad(reciprocal);
export const dlog = valueAndGrad(safeLog, { wrt: [0, 1] });
export const plog = (x: number, y: number) => vjp(safeLog, x, y)[1](2);
/** @differentiable */
export function ratio(x: number): number { return Math.sin(x) / x; }
/** @differentiable */
export function sincByCall(x: number): number { return x !== 0 ? ratio(x) : 1; }
export const dsincByCall = grad(sincByCall);
`);

  test('compiles', () => expect(r.diagnostics).toEqual([]));

  test('the untaken branch contributes exactly nothing (no NaN), the taken one its derivative', () => {
    expect(b.dsinc(0)).toBe(0);
    expect(b.dsinc(0.5)).toBeCloseTo((0.5 * Math.cos(0.5) - Math.sin(0.5)) / 0.25, 14);
    expect(b.hsinc(0)).toEqual([[0]]);
    expect(b.hsinc(0.5)[0][0]).toBeCloseTo(-0.3087029631920757, 6);
    expect(b.drec(0)).toBe(0);
    expect(b.drec(2)).toBeCloseTo(-0.25, 15);
    const [v, [gx, gy]] = b.dlog(0, 3);
    expect(v).toBe(0);
    expect(gx).toBe(3);
    expect(gy).toBe(0);
    expect(b.plog(-1, 3)).toEqual([6, -2]);
    // The side of the select calls another marked function: it is inlined first, so the strong
    // zeros reach its operations too.
    expect(b.dsincByCall(0)).toBe(0);
    expect(b.dsincByCall(0.5)).toBeCloseTo(b.dsinc(0.5), 15);
    const [, [gx2]] = b.dlog(2, 3);
    expect(gx2).toBeCloseTo(0.5 + 3, 15);
  });
});

describe('variadic Math functions with no arguments are the constants JavaScript gives them', () => {
  // Math.min() = Infinity, Math.max() = −Infinity, Math.hypot() = 0; their tangents are 0.
  const src = `import { grad, hessian, jvp, differentiable } from 'tsad';
export const scalar = differentiable((x: number): number => x * x + Math.hypot() + (Math.min() > x ? x : 0) + (Math.max() < x ? 2 * x : 0) + Math.min(x));
export const mapped = differentiable((a: number[]): number => a.map((v) => Math.min(v, Math.min()) * Math.max(v, Math.max()) + Math.hypot()).reduce((s, v) => s + v, 0));
export const dScalar = grad(scalar);
export const hScalar = hessian(scalar);
export const tScalar = (x: number) => jvp(scalar, [x], [1]);
export const dMapped = grad(mapped);
export const values = differentiable((x: number): [number, number, number] => [Math.min(), Math.max(), Math.hypot() + x]);
export const tValues = (x: number) => jvp(values, [x], [1]);
`;
  const { exports: m, result } = load(src);
  test('no diagnostics; values as in JavaScript; derivatives by hand', () => {
    expect(result.diagnostics).toEqual([]);
    expect(m.scalar(1.5)).toBe(1.5 * 1.5 + 1.5 + 3 + 1.5);
    expect(m.dScalar(1.5)).toBe(2 * 1.5 + 1 + 2 + 1);
    expect(m.hScalar(1.5)).toEqual([[2]]);
    expect(m.tScalar(1.5)).toEqual([m.scalar(1.5), 7]);
    expect(m.mapped([1, -2])).toBe(1 + 4);
    expect(m.dMapped([1, -2])).toEqual([2, -4]);
    expect(m.tValues(2)).toEqual([
      [Infinity, -Infinity, 2],
      [0, 0, 1],
    ]);
  });
  test('a fixed-arity Math function with the wrong number of arguments is TSAD1102 at the call', () => {
    const r = load(
      `import { grad, differentiable } from 'tsad';
// @ts-ignore: the count TypeScript also rejects; the plugin must report it, not crash
export const f = differentiable((x: number): number => x * Math.sin());
export const d = grad(f);
export const ok = grad(differentiable((x: number): number => x * x));
`,
      { throwOnError: false },
    );
    const ours = r.result.messages.filter((s) => s.includes('TSAD'));
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatch(/:3:60 - error TSAD1102: Math\.sin takes 1 argument\(s\), got 0/);
    expect(r.exports.ok(3)).toBe(6);
  });
});
