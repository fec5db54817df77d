// First writes stored, not added (opt/firstWrites.ts, issue 22): the backward loop of a loop that
// reads x[i] once per i writes each element of x̄ once, onto zeros, so the emitted gradient stores
// `x̄[i] = y + 0` instead of `x̄[i] += y` (no read of x̄; on lse at n = 1.28M the read of every
// fresh zero page was what made tsad slower than the hand-written softmax). These tests count the
// adds left in the backward loops of lse's gradient (1 on main before this rule, 0 now) and check
// the gradients where a store would be wrong if the rule misfired (two reads of x[i], x read by
// two loops, a reversed read, second order, vjp of a map) against central differences, the
// closed-form softmax (also past 2^22 elements) and the dot-product test ⟨J ẋ, ȳ⟩ = ⟨ẋ, Jᵀ ȳ⟩.
import * as ts from 'typescript';
import { load, partial, expectClose, runPlain } from './harness';

const functions = `
/** @differentiable */
export function lse(x: Float64Array): number {
  let m = -Infinity;
  for (let i = 0; i < x.length; i++) m = Math.max(m, x[i]);
  const a = stopGradient(m);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i] - a);
  return a + Math.log(s);
}

/** @differentiable */
export function squares(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * Math.sin(x[i]);
  return s;
}

/** @differentiable */
export function twoLoops(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i]);
  let t = 0;
  for (let i = 0; i < x.length; i++) t += x[x.length - 1 - i] * (i + 1);
  return s * t;
}

/** @differentiable */
export function neighbours(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i + 1 < x.length; i++) s += x[i] * x[i + 1];
  return s;
}

/** @differentiable */
export function sines(x: Float64Array): Float64Array {
  const y = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) y[i] = Math.sin(x[i]) * x[i];
  return y;
}
`;

const source = `
import { grad, hvp, jvp, vjp, stopGradient } from 'tsad';
${functions}
export const gLse = grad(lse);
export const gSquares = grad(squares);
export const gTwoLoops = grad(twoLoops);
export const gNeighbours = grad(neighbours);
export const hvpSquares = hvp(squares);
export const vjpSines = (x: Float64Array) => vjp(sines, x);
export const jvpSines = (x: Float64Array, dx: Float64Array) => jvp(sines, [x], [dx]);
`;

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 0.9;
const vec = (n: number, seed: number) => Float64Array.from({ length: n }, (_, i) => rand(seed + 7 * i));

/** `a[i] += …` or `a[i] = a[i] + …` (an add into an element; the second, adds in a row paired by opt/pairedAccums.ts) inside a loop of the named emitted function. */
function addsInLoops(outputText: string, fn: string): number {
  const file = ts.createSourceFile('out.js', outputText, ts.ScriptTarget.Latest, true);
  let count = 0;
  let found = false;
  const visit = (node: ts.Node, inLoop: boolean): void => {
    const loop = inLoop || ts.isForStatement(node) || ts.isWhileStatement(node) || ts.isDoStatement(node);
    if (inLoop && ts.isBinaryExpression(node) && ts.isElementAccessExpression(node.left)) {
      if (node.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken) count++;
      else if (node.operatorToken.kind === ts.SyntaxKind.EqualsToken && readsItself(node.right, node.left.getText())) count++;
    }
    ts.forEachChild(node, (c) => visit(c, loop));
  };
  for (const s of file.statements) {
    if (ts.isFunctionDeclaration(s) && s.name?.text === fn) {
      found = true;
      visit(s, false);
    }
  }
  expect(found).toBe(true);
  return count;
}

/** `e` is a sum whose leftmost operand is the element `target` (`a[i] + y1 + y2`). */
function readsItself(e: ts.Expression, target: string): boolean {
  while (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) e = e.left;
  return e.getText() === target;
}

/** Central differences of a scalar function of one array. */
const fdGrad = (f: (x: number[]) => number, x: Float64Array): number[] => Array.from(x, (_, k) => partial((v: number[]) => f(v), [Array.from(x)], 0, k)[0]);

/** softmax(x), the gradient of lse, in closed form. */
function softmax(x: Float64Array): Float64Array {
  let m = -Infinity;
  for (let i = 0; i < x.length; i++) m = Math.max(m, x[i]);
  const e = new Float64Array(x.length);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += e[i] = Math.exp(x[i] - m);
  for (let i = 0; i < x.length; i++) e[i] /= s;
  return e;
}

describe('first writes of a cotangent are stores', () => {
  const { exports: m, result } = load(source);
  const plain = runPlain(functions.replace(/stopGradient\(m\)/, 'm'));

  test("lse's gradient adds into no element in its loops (it stores each once)", () => {
    expect(addsInLoops(result.outputText, 'lse$grad')).toBe(0);
    expect(result.outputText).toMatch(/\w+\[\w+\] = .* \+ 0;/);
  });

  test('x[i] read twice per run: the gradient still adds (two writes of one element)', () => {
    expect(addsInLoops(result.outputText, 'squares$grad')).toBeGreaterThan(0);
  });

  test.each([0, 1, 2, 7])('lse at n = %i: central differences and the softmax', (n) => {
    const x = vec(n, 1);
    const g = m.gLse(x) as Float64Array;
    expect(g).toBeInstanceOf(Float64Array);
    expect(g.length).toBe(n);
    expectClose(Array.from(g), Array.from(softmax(x)), 1e-12);
    expectClose(
      Array.from(g),
      fdGrad((v) => plain.lse(Float64Array.from(v)), x),
    );
  });

  test('lse past 2^22 elements (more than a pooled tape slab holds): the softmax, and the gradient sums to 1', () => {
    const n = (1 << 22) + 5;
    const x = new Float64Array(n);
    for (let i = 0; i < n; i++) x[i] = Math.sin(i) * 3;
    const g = m.gLse(x) as Float64Array;
    const want = softmax(x);
    let worst = 0;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      worst = Math.max(worst, Math.abs(g[i] - want[i]) / want[i]);
      sum += g[i];
    }
    expect(worst).toBeLessThan(1e-12);
    expect(sum).toBeCloseTo(1, 10);
    // A second call (its tape of 2^22 + 5 numbers too large for the pool to keep) gives the same answer.
    expect(Array.from((m.gLse(x) as Float64Array).subarray(n - 10))).toEqual(Array.from(g.subarray(n - 10)));
  });

  test.each([
    ['squares', 0],
    ['squares', 5],
    ['twoLoops', 0],
    ['twoLoops', 1],
    ['twoLoops', 6],
    ['neighbours', 1],
    ['neighbours', 6],
  ])('%s at n = %i: central differences', (name, n) => {
    const x = vec(n, 2);
    const grads: Record<string, (x: Float64Array) => Float64Array> = { squares: m.gSquares, twoLoops: m.gTwoLoops, neighbours: m.gNeighbours };
    const g = grads[name](x);
    expectClose(
      Array.from(g),
      fdGrad((v) => plain[name](Float64Array.from(v)), x),
    );
  });

  test('second order: hvp(squares) is central differences of the gradient', () => {
    const x = vec(5, 3);
    const v = vec(5, 4);
    const h = 1e-5;
    const up = m.gSquares(Float64Array.from(x, (xi, i) => xi + h * v[i])) as Float64Array;
    const down = m.gSquares(Float64Array.from(x, (xi, i) => xi - h * v[i])) as Float64Array;
    expectClose(
      Array.from(m.hvpSquares(x, v) as Float64Array),
      Array.from(up, (u, i) => (u - down[i]) / (2 * h)),
      1e-5,
    );
  });

  test.each([0, 1, 6])('vjp of a map-like loop (n = %i): the dot-product test against jvp', (n) => {
    const x = vec(n, 5);
    const dx = vec(n, 6);
    const ybar = vec(n, 7);
    const [, pullback] = m.vjpSines(x);
    const [xbar] = pullback(ybar) as [Float64Array];
    const [, ydot] = m.jvpSines(x, dx);
    const lhs = Array.from(ydot as Float64Array).reduce((s, v, i) => s + v * ybar[i], 0);
    const rhs = Array.from(xbar).reduce((s, v, i) => s + v * dx[i], 0);
    expect(xbar.length).toBe(n);
    expect(Math.abs(lhs - rhs)).toBeLessThan(1e-12 * (1 + Math.abs(lhs)));
    // The first call's cotangent stays as it was after a second pullback.
    const again = Array.from(xbar);
    pullback(ybar);
    expect(Array.from(xbar)).toEqual(again);
  });
});
