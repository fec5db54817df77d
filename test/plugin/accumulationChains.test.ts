// A chain of accumulating loops (issue 22, lstm): when a time loop's body reads an array in two
// or more inner loops, T gives the first inner backward loop the array's cotangent from zero and
// the next ones its result, and the time loop adds the last one's result to its total. The
// simplifier pushes that addition through the chain (constructs/loop/fuseAdd.ts): the first loop
// starts from the running total and the chain accumulates into it in place, so no zero array and
// no array sum per time step. These tests count the arrays allocated inside loops of the emitted
// gradient, and check the derivatives against central differences, the dot-product test and
// second order, with loops that run zero times, and a loop whose carried cotangent is scaled
// rather than added to (which must not take the addition on).
import * as ts from 'typescript';
import { load, partial, expectClose, runPlain } from './harness';
import { countInLoops } from './emittedLoops';

const functions = `
/** @differentiable */
export function chain(x: Float64Array, w: Float64Array, n: number): number {
  let s = 0;
  for (let t = 0; t < n; t++) {
    for (let i = 0; i < w.length; i++) s += Math.sin(w[i] * x[t]);
    for (let i = 0; i < w.length; i++) s += w[i] * w[i] * x[t];
  }
  return s;
}

/** @differentiable */
export function chain3(x: Float64Array, w: Float64Array): number {
  let s = 0;
  for (let t = 0; t < x.length; t++) {
    for (let i = 0; i < w.length; i++) s += Math.cos(w[i] + x[t]);
    let q = 0;
    for (let i = 0; i < t; i++) q += x[i] * x[t];
    for (let i = 0; i < w.length; i++) s += q * w[i];
    for (let i = 1; i < w.length; i++) s += w[i] * w[i - 1] * x[t];
  }
  return s;
}

/** @differentiable */
export function series(x: Float64Array, w: Float64Array): Float64Array {
  const y = new Float64Array(x.length);
  for (let t = 0; t < x.length; t++) {
    let s = t > 0 ? 0.5 * y[t - 1] : 0;
    for (let i = 0; i < w.length; i++) s += Math.sin(w[i] * x[t]);
    for (let i = 0; i < w.length; i++) s += w[i] * w[i] * x[t];
    y[t] = s;
  }
  return y;
}

/** @differentiable */
export function scaled(x: Float64Array, w: Float64Array): number {
  let s = 0;
  for (let t = 0; t < x.length; t++) {
    const v = w.slice();
    for (let i = 0; i < v.length; i++) s += v[i] * x[t];
    for (let i = 0; i < v.length; i++) v[i] *= x[t];
    for (let i = 0; i < v.length; i++) s += Math.sin(v[i]);
  }
  return s;
}
`;

const source = `
import { grad, vjp, jvp, hvp } from 'tsad';
${functions}
export const gChain = grad(chain, { wrt: [0, 1] });
export const gChain3 = grad(chain3, { wrt: [0, 1] });
export const gScaled = grad(scaled, { wrt: [0, 1] });
export const hvpChain3 = hvp(chain3, { wrt: [0, 1] });
export const vjpSeries = (x: Float64Array, w: Float64Array) => vjp(series, x, w);
export const jvpSeries = (x: Float64Array, w: Float64Array, dx: Float64Array, dw: Float64Array) => jvp(series, [x, w], [dx, dw]);
`;

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 0.9;
const vec = (n: number, seed: number) => Float64Array.from({ length: n }, (_, i) => rand(seed + 7 * i));
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((s, v, i) => s + v * b[i], 0);

/**
 * `new Float64Array(…)` inside a loop of the named emitted function (an array per iteration: a
 * zero to accumulate from, or a sum of two arrays). The copy an accumulation makes of an array the
 * call does not own yet (under `if (!(… $own.has(…)))`, once per array) is not counted.
 */
function allocationsInLoops(outputText: string, fn: string): number {
  return countInLoops(
    outputText,
    fn,
    (node, file) => ts.isNewExpression(node) && node.expression.getText(file) === 'Float64Array',
    (node, file) => ts.isIfStatement(node) && node.expression.getText(file).includes('$own.has'),
  );
}

/** Central differences of a scalar function in its argument `arg` (an array). */
const fdGrad = (f: (...a: any[]) => number, args: Float64Array[], arg: number): number[] =>
  Array.from(
    args[arg],
    (_, k) =>
      partial(
        (...v: number[][]) => f(...v.map((a) => Float64Array.from(a))),
        args.map((a) => Array.from(a)),
        arg,
        k,
      )[0],
  );

describe('a chain of loops accumulating one cotangent: one running total, no array per step', () => {
  const { exports: m, result } = load(source);
  const plain = runPlain(functions);

  test.each([['chain$grad'], ['chain3$grad'], ['series$bwd']])('%s: no array allocated inside a loop', (fn) => {
    expect(allocationsInLoops(result.outputText, fn)).toBe(0);
  });

  test.each([
    [4, 3, 4],
    [0, 3, 0],
    [3, 0, 3],
    [1, 1, 1],
    [5, 2, 2],
  ])('chain, x of %i, w of %i, n = %i: central differences', (lx, lw, n) => {
    const x = vec(Math.max(lx, n), 1);
    const w = vec(lw, 2);
    const [gx, gw] = m.gChain(x, w, n);
    const f = (a: Float64Array, b: Float64Array) => plain.chain(a, b, n);
    expectClose(Array.from(gx as Float64Array), fdGrad(f, [x, w], 0));
    expectClose(Array.from(gw as Float64Array), fdGrad(f, [x, w], 1));
  });

  test.each([
    [4, 3],
    [0, 3],
    [3, 0],
    [1, 1],
    [2, 5],
  ])('three loops (one between them not reading w), x of %i, w of %i: central differences', (lx, lw) => {
    const x = vec(lx, 3);
    const w = vec(lw, 4);
    const [gx, gw] = m.gChain3(x, w);
    expectClose(Array.from(gx as Float64Array), fdGrad(plain.chain3, [x, w], 0));
    expectClose(Array.from(gw as Float64Array), fdGrad(plain.chain3, [x, w], 1));
  });

  test.each([
    [4, 3],
    [0, 2],
    [3, 0],
  ])('second order: hvp(chain3) is central differences of the gradient (x of %i, w of %i)', (lx, lw) => {
    const x = vec(lx, 5);
    const w = vec(lw, 6);
    const vx = vec(lx, 7);
    const vw = vec(lw, 8);
    const h = 1e-5;
    const g = (s: number) =>
      m.gChain3(
        Float64Array.from(x, (xi, i) => xi + s * vx[i]),
        Float64Array.from(w, (wi, i) => wi + s * vw[i]),
      ) as Float64Array[];
    const [up, down] = [g(h), g(-h)];
    const [hx, hw] = m.hvpChain3(x, w, [vx, vw]) as Float64Array[];
    for (const k of [0, 1]) {
      expectClose(
        Array.from([hx, hw][k]),
        Array.from(up[k], (u, i) => (u - down[k][i]) / (2 * h)),
        1e-5,
      );
    }
  });

  test.each([
    [5, 3],
    [1, 2],
    [0, 3],
    [4, 0],
  ])("series (x of %i, w of %i): the dot-product test, and the caller's cotangent stays", (lx, lw) => {
    const x = vec(lx, 8);
    const w = vec(lw, 9);
    const dx = vec(lx, 10);
    const dw = vec(lw, 11);
    const ct = vec(lx, 12);
    const before = Array.from(ct);
    const [y, pull] = m.vjpSeries(x, w);
    expect(Array.from(y as Float64Array)).toEqual(Array.from(plain.series(x, w) as Float64Array));
    const [xBar, wBar] = pull(ct);
    expect(Array.from(ct)).toEqual(before);
    const [, yDot] = m.jvpSeries(x, w, dx, dw);
    expectClose([dot(yDot as Float64Array, ct)], [dot(dx, xBar as Float64Array) + dot(dw, wBar as Float64Array)], 1e-12);
    const [xBar2, wBar2] = pull(ct);
    expect(Array.from(xBar2 as Float64Array)).toEqual(Array.from(xBar as Float64Array));
    expect(Array.from(wBar2 as Float64Array)).toEqual(Array.from(wBar as Float64Array));
  });

  test.each([
    [4, 3],
    [0, 3],
    [3, 0],
    [1, 1],
  ])('a loop that scales the cotangent it carries does not take the addition on (x of %i, w of %i): central differences', (lx, lw) => {
    const x = vec(lx, 13);
    const w = vec(lw, 14);
    const [gx, gw] = m.gScaled(x, w);
    expectClose(Array.from(gx as Float64Array), fdGrad(plain.scaled, [x, w], 0));
    expectClose(Array.from(gw as Float64Array), fdGrad(plain.scaled, [x, w], 1));
  });
});
