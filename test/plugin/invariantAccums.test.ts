// Adds at a loop-invariant index in a backward loop (issue 22): `μ̄[c·d + col] += y_r` in the
// transposed loop over r is summed in a local and added once after the loop (opt/invariantAccums.ts).
// The emitted gradient is parsed: no innermost loop adds to an array at an index bound outside it.
// Correctness against central differences and the dot-product test ⟨J ẋ, ȳ⟩ = ⟨ẋ, Jᵀ ȳ⟩, at sizes
// where the inner loops run zero times.
import * as ts from 'typescript';
import { load, partial, expectClose, runPlain } from './harness';
import { forEachEmitted, isLoop } from './emittedLoops';

const functions = `
/** @differentiable */
export function lower(l: Float64Array, x: Float64Array, mu: Float64Array, d: number): number {
  const z = new Float64Array(d);
  let li = 0;
  for (let col = 0; col < d; col++) {
    for (let r = col + 1; r < d; r++) {
      z[r] += l[li] * (x[col] - mu[col]);
      li++;
    }
  }
  let s = 0;
  for (let r = 0; r < d; r++) s += z[r] * z[r];
  return s;
}

/** @differentiable */
export function lowerVec(l: Float64Array, mu: Float64Array, d: number): Float64Array {
  const z = new Float64Array(d);
  let li = 0;
  for (let col = 0; col < d; col++) {
    for (let r = col + 1; r < d; r++) {
      z[r] += l[li] * Math.sin(mu[col]);
      li++;
    }
  }
  return z;
}
`;

const source = `
import { grad, vjp, jvp } from 'tsad';
${functions}
export const gLower = grad(lower, { wrt: [0, 2] });
export const vjpLowerVec = (l: Float64Array, mu: Float64Array, d: number) => vjp(lowerVec, l, mu, d);
export const jvpLowerVec = (l: Float64Array, mu: Float64Array, d: number, dl: Float64Array, dmu: Float64Array) => jvp(lowerVec, [l, mu, d], [dl, dmu, 0]);
`;

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 0.9;
const vec = (n: number, seed: number) => Float64Array.from({ length: n }, (_, i) => rand(seed + 7 * i));

/** `a[i] += y` statements in an innermost loop of the named function where i is bound outside that loop and not assigned in it. */
function invariantAddsInLoops(outputText: string, fn: string): number {
  const file = ts.createSourceFile('out.js', outputText, ts.ScriptTarget.Latest, true);
  let count = 0;
  const hasLoop = (n: ts.Node): boolean => ts.forEachChild(n, (c) => isLoop(c) || hasLoop(c)) ?? false;
  const visit = (node: ts.Node): void => {
    if (isLoop(node) && !hasLoop(node)) {
      const bound = new Set<string>();
      const collect = (n: ts.Node): void => {
        if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) bound.add(n.name.text);
        // A counter the loop itself steps (\`li += 1\`) is not invariant either.
        const assigned =
          ts.isBinaryExpression(n) && n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && n.operatorToken.kind <= ts.SyntaxKind.LastAssignment
            ? n.left
            : ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)
              ? n.operand
              : undefined;
        if (assigned && ts.isIdentifier(assigned)) bound.add(assigned.text);
        ts.forEachChild(n, collect);
      };
      collect(node);
      const adds = (n: ts.Node): void => {
        if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken && ts.isElementAccessExpression(n.left)) {
          const i = n.left.argumentExpression;
          if (ts.isIdentifier(i) && !bound.has(i.text)) count++;
        }
        ts.forEachChild(n, adds);
      };
      adds(node);
      return;
    }
    ts.forEachChild(node, visit);
  };
  forEachEmitted(file, fn, visit);
  return count;
}

const fdGrad = (f: (x: number[]) => number, x: Float64Array): number[] => Array.from(x, (_, k) => partial((v: number[]) => f(v), [Array.from(x)], 0, k)[0]);
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((s, v, k) => s + v * b[k], 0);

describe('adds at a loop-invariant index in a backward loop: summed in a local', () => {
  const { exports: m, result } = load(source);
  const plain = runPlain(functions);

  test('no innermost loop of the gradient adds at an index bound outside it', () => {
    expect(invariantAddsInLoops(result.outputText, 'lower$grad')).toBe(0);
  });

  test.each([0, 1, 2, 3, 6])('central differences in l and mu, d = %i', (d) => {
    const l = vec((d * (d - 1)) / 2, 1);
    const x = vec(d, 2);
    const mu = vec(d, 3);
    const [gl, gmu] = m.gLower(l, x, mu, d) as Float64Array[];
    expectClose(
      Array.from(gl),
      fdGrad((v) => plain.lower(Float64Array.from(v), x, mu, d), l),
    );
    expectClose(
      Array.from(gmu),
      fdGrad((v) => plain.lower(l, x, Float64Array.from(v), d), mu),
    );
  });

  test.each([0, 1, 2, 5])('dot-product test of the pullback, d = %i', (d) => {
    const l = vec((d * (d - 1)) / 2, 4);
    const mu = vec(d, 5);
    const dl = vec(l.length, 6);
    const dmu = vec(d, 7);
    const ybar = vec(d, 8);
    const [, tangent] = m.jvpLowerVec(l, mu, d, dl, dmu) as [Float64Array, Float64Array];
    const [, pullback] = m.vjpLowerVec(l, mu, d) as [Float64Array, (y: Float64Array) => Float64Array[]];
    const before = Float64Array.from(ybar);
    const [bl, bmu] = pullback(ybar);
    expect(Array.from(ybar)).toEqual(Array.from(before));
    expect(dot(tangent, ybar)).toBeCloseTo(dot(dl, bl) + dot(dmu, bmu), 10);
  });
});
