// Adds into one element in a row are one update (opt/pairedAccums.ts, issue 22, gmm). The square
// `z[r] * z[r]` reads z[r] twice, so its gradient added twice into z̄[r] (`z̄[r] += t; z̄[r] += t`:
// two loads, two stores); now it is `z̄[r] = z̄[r] + t + t`. The tests check the emitted shape
// (fails without the pass: two adds in a row), the gradient of a gmm-like loop nest against
// central differences with loops of zero, one and more runs (and second order), and that the sum
// keeps the two adds' rounding: (1 + 2⁻⁵³) + 2⁻⁵³ is 1, where one add of 2·2⁻⁵³ would give 1 + 2⁻⁵².
import * as ts from 'typescript';
import { load, partial, expectClose, runPlain } from './harness';

const functions = `
/** @differentiable */
export function norms(w: Float64Array, x: Float64Array, d: number, n: number): number {
  const z = new Float64Array(d);
  let t = 0;
  for (let i = 0; i < n; i++) {
    for (let r = 0; r < d; r++) z[r] = w[r] * x[i * d + r];
    let s = 0;
    for (let r = 0; r < d; r++) s += z[r] * z[r];
    t += Math.exp(-s);
  }
  return t;
}

/** @differentiable */
export function rounding(x: Float64Array, y: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * x[i];
  for (let i = 0; i < x.length; i++) s += x[i] * y[i];
  return s;
}
`;

const source = `
import { grad, hvp } from 'tsad';
${functions}
export const gNorms = grad(norms, { wrt: [0, 1] });
export const hvpNorms = hvp(norms);
export const gRounding = grad(rounding);
`;

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 0.9;
const vec = (n: number, seed: number) => Float64Array.from({ length: n }, (_, i) => rand(seed + 7 * i));

/** Statements `a[i] += …` directly after one adding into the same element, in the named emitted function. */
function addsInARow(outputText: string, fn: string): number {
  const file = ts.createSourceFile('out.js', outputText, ts.ScriptTarget.Latest, true);
  const target = (s: ts.Statement) =>
    ts.isExpressionStatement(s) && ts.isBinaryExpression(s.expression) && s.expression.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken && ts.isElementAccessExpression(s.expression.left)
      ? s.expression.left.getText()
      : undefined;
  let count = 0;
  let found = false;
  const visit = (node: ts.Node): void => {
    if (ts.isBlock(node)) node.statements.forEach((s, k) => k > 0 && target(s) !== undefined && target(s) === target(node.statements[k - 1]) && count++);
    ts.forEachChild(node, visit);
  };
  for (const s of file.statements) {
    if (ts.isFunctionDeclaration(s) && s.name?.text.startsWith(fn)) {
      found = true;
      visit(s);
    }
  }
  expect(found).toBe(true);
  return count;
}

describe('adds into one element in a row are one update', () => {
  const { exports: m, result } = load(source);
  const plain = runPlain(functions);

  test("the square's two adds into z̄[r] are one statement: z̄[r] = z̄[r] + t + t", () => {
    expect(addsInARow(result.outputText, 'norms$grad')).toBe(0);
    expect(result.outputText).toMatch(/(\w+)\[(\w+)\] = \1\[\2\] \+ (\w+) \+ \3;/);
  });

  test.each([
    [0, 0],
    [0, 3],
    [2, 0],
    [1, 1],
    [3, 2],
    [4, 5],
  ])('norms at d = %i, n = %i: central differences in w and x', (d, n) => {
    const w = vec(d, 1);
    const x = vec(d * n, 2);
    const [gw, gx] = m.gNorms(w, x, d, n) as [Float64Array, Float64Array];
    expect(gw.length).toBe(d);
    expect(gx.length).toBe(d * n);
    const f = (wv: number[], xv: number[]) => plain.norms(Float64Array.from(wv), Float64Array.from(xv), d, n);
    expectClose(
      Array.from(gw),
      Array.from(w, (_, k) => partial(f, [Array.from(w), Array.from(x)], 0, k)[0]),
    );
    expectClose(
      Array.from(gx),
      Array.from(x, (_, k) => partial(f, [Array.from(w), Array.from(x)], 1, k)[0]),
    );
  });

  test('second order: hvp(norms) in w is central differences of the gradient', () => {
    const [d, n] = [3, 2];
    const w = vec(d, 3);
    const x = vec(d * n, 4);
    const v = vec(d, 5);
    const h = 1e-5;
    const at = (s: number) =>
      (
        m.gNorms(
          Float64Array.from(w, (wi, i) => wi + s * h * v[i]),
          x,
          d,
          n,
        ) as [Float64Array, Float64Array]
      )[0];
    const up = at(1);
    const down = at(-1);
    expectClose(
      Array.from(m.hvpNorms(w, x, d, n, v) as Float64Array),
      Array.from(up, (u, i) => (u - down[i]) / (2 * h)),
      1e-5,
    );
  });

  test("the paired sum rounds as the two adds: ∂/∂x_i of Σ x_i² + Σ x_i·y_i is (y_i + x_i) + x_i, added in T's order", () => {
    const tiny = 2 ** -53;
    const x = Float64Array.from([tiny, 3, -0, 0.1, 1e308]);
    const y = Float64Array.from([1, 2, -0, 0.7, -1e308]);
    const g = m.gRounding(x, y) as Float64Array;
    const want = Array.from(x, (xi, i) => y[i] + 0 + xi + xi);
    expect(Array.from(g)).toEqual(want);
    expect(g[0]).toBe(1);
    expect(1 + 2 * tiny).not.toBe(1);
    expectClose(
      Array.from(g.subarray(0, 4)),
      Array.from(x.subarray(0, 4), (_, k) => partial((v: number[]) => plain.rounding(Float64Array.from(v), y.subarray(0, 4)), [Array.from(x.subarray(0, 4))], 0, k)[0]),
    );
  });
});
