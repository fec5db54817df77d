// Matrices (number[][], Float64Array[]) in differentiable functions through the plugin
// (transformer/frontend/matrices.ts, docs/frontend.md "Matrices"): stored flat as (data, rows,
// cols). Every derivative is checked against central differences or a hand derivation, at sizes
// 0 × 0, 1 × 1 and larger; gradients come back as matrices of the user's row class; bad shapes
// are RangeErrors naming the argument; reverse mode through m[i][j] reads and writes stays
// linear in the matrix (interpreter work counter).
import * as fs from 'fs';
import * as path from 'path';
import { compile, directional, expectClose, leaves, load, partial, workDir } from './harness';
import * as ts from 'typescript';
import { ModuleCompiler } from '../../transformer/compile';
import { nodeHost, runtimeEntry } from '../../transformer/plugin/host';
import { evalFn } from '../../transformer/language/interp';
import { gradOf } from '../gen/drivers';

const SOURCE = `import { grad, valueAndGrad, jvp, vjp, hvp, sum, dot, stopGradient } from 'tsad';

/** @differentiable */
export function frob(m: number[][]): number {
  let s = 0;
  for (let i = 0; i < m.length; i++) for (let j = 0; j < m[i].length; j++) s += m[i][j] * m[i][j] * (i + 1);
  return s;
}
/** @differentiable */
export function rowDots(m: number[][], w: Float64Array): number {
  let s = 0;
  for (const row of m) s += Math.sin(dot(row, w));
  return s;
}
/** @differentiable */
export function mapped(m: Float64Array[], w: number[]): number {
  return sum(m.map((row, i) => dot(row, w) * (i + 1)));
}
/** @differentiable */
export function squared(m: number[][], c: number): number[][] {
  return m.map((row) => row.map((x) => c * x * x));
}
/** @differentiable */
export function outer(x: Float64Array, y: Float64Array): number {
  const m = new Array(x.length).fill(0).map(() => new Float64Array(y.length));
  for (let i = 0; i < x.length; i++) for (let j = 0; j < y.length; j++) m[i][j] = Math.sin(x[i] * y[j]);
  for (let i = 1; i < x.length; i++) for (let j = 0; j < y.length; j++) m[i][j] += m[i - 1][j] * x[i];
  let s = 0;
  for (let i = 0; i < m.length; i++) for (let j = 0; j < m[i].length; j++) s += m[i][j] * m[i][j];
  return s;
}
/** @differentiable */
export function layer(p: { W: number[][]; b: number[] }, x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < p.W.length; i++) {
    let y = p.b[i];
    for (let j = 0; j < x.length; j++) y += p.W[i][j] * x[j];
    s += Math.tanh(y);
  }
  return s;
}
/** @differentiable */
export function gram(x: Float64Array): number[][] {
  return Array.from({ length: x.length }, (_, i) => Float64Array.from({ length: x.length }, (_, j) => x[i] * x[j] + (i === j ? 1 : 0)));
}
/** @differentiable */
export function literal(a: number, b: number): number {
  const m: number[][] = [[a, b, 1], [a * b, 2, b]];
  return m[0][0] * m[1][2] + m[1][0] * m[0][1] + m.length * m[0].length;
}
/** @differentiable */
export function branchy(m: number[][], t: number): number {
  const c = m.map((row) => row.slice());
  for (let i = 0; i < c.length; i++) {
    if (c[i][0] > t) c[i][0] = c[i][0] * t;
    else c[i][0] += t * t;
  }
  let s = 0;
  for (let i = 0; i < c.length; i++) s += c[i][0] * c[i][c[i].length - 1];
  return s;
}
/** @differentiable */
export function frozen(m: number[][], x: number): number {
  const k = stopGradient(m);
  return k[0][0] * x + m[0][0] * x * x;
}

export const dFrob = grad(frob);
export const dRowDots = grad(rowDots, { wrt: [0, 1] });
export const dMapped = grad(mapped, { wrt: [0, 1] });
export const dOuter = grad(outer, { wrt: [0, 1] });
export const dLayer = grad(layer);
export const vgLayer = valueAndGrad(layer, { wrt: [0, 1] });
export const dLiteral = grad(literal, { wrt: [0, 1] });
export const dBranchy = grad(branchy, { wrt: [0, 1] });
export const dFrozen = grad(frozen, { wrt: [0, 1] });
export const hvpRowDots = hvp(rowDots);
export const jvpSquared = (m: number[][], c: number, dm: number[][], dc: number) => jvp(squared, [m, c], [dm, dc]);
export const vjpSquared = (m: number[][], c: number) => vjp(squared, m, c);
export const jvpGram = (x: Float64Array, dx: Float64Array) => jvp(gram, [x], [dx]);
export const vjpGram = (x: Float64Array) => vjp(gram, x);
`;

const { exports: m } = load(SOURCE);

const M = [
  [0.3, -1.2, 0.7],
  [1.1, 0.4, -0.5],
];
const rows = (r: number, c: number, seed = 1): number[][] => Array.from({ length: r }, (_, i) => Array.from({ length: c }, (_, j) => Math.sin(seed * (i * c + j + 1))));

describe('gradients of matrix parameters against central differences', () => {
  test('frob: Σ (i+1)·m_ij², by hand 2·(i+1)·m_ij, a number[][] back', () => {
    const g = m.dFrob(M) as number[][];
    expect(g).toEqual(M.map((r, i) => r.map((x) => 2 * (i + 1) * x)));
    expect(Array.isArray(g[0])).toBe(true);
  });

  test.each([
    [0, 0],
    [1, 1],
    [2, 3],
    [4, 2],
  ])('rowDots at %i × %i: both gradients; rows of a Float64Array[] come back as Float64Arrays', (r, c) => {
    const A = rows(r, c);
    const w = Float64Array.from({ length: c }, (_, j) => 0.3 * j - 0.2);
    const [gA, gw] = m.dRowDots(A, w) as [number[][], Float64Array];
    expect(gA.length).toBe(r);
    expect(gw).toBeInstanceOf(Float64Array);
    const f = (a: number[][], v: number[]) => m.rowDots(a, Float64Array.from(v));
    for (let k = 0; k < r * c; k++) expectClose([leaves(gA)[k]], partial(f, [A, [...w]], 0, k));
    for (let k = 0; k < c; k++) expectClose([gw[k]], partial(f, [A, [...w]], 1, k));

    const typed = A.map((row) => Float64Array.from(row));
    const [gT] = m.dMapped(typed, [...w]) as [Float64Array[], number[]];
    expect(gT.length).toBe(r);
    for (const row of gT) expect(row).toBeInstanceOf(Float64Array);
    const fm = (a: number[][], v: number[]) =>
      m.mapped(
        a.map((row) => Float64Array.from(row)),
        v,
      );
    for (let k = 0; k < r * c; k++) expectClose([leaves(gT.map((x) => [...x]))[k]], partial(fm, [A, [...w]], 0, k));
  });

  test('outer: a matrix built by writes m[i][j] = … and m[i][j] += m[i-1][j]·x[i] in nested loops', () => {
    const x = Float64Array.from([0.4, -0.3, 0.9]);
    const y = Float64Array.from([1.2, 0.5]);
    const [gx, gy] = m.dOuter(x, y) as [Float64Array, Float64Array];
    const f = (a: number[], b: number[]) => m.outer(Float64Array.from(a), Float64Array.from(b));
    expectClose(
      [...gx],
      [0, 1, 2].map((k) => partial(f, [[...x], [...y]], 0, k)[0]),
    );
    expectClose(
      [...gy],
      [0, 1].map((k) => partial(f, [[...x], [...y]], 1, k)[0]),
    );
  });

  test('layer: a matrix inside an object parameter, { W: number[][]; b: number[] }', () => {
    const p = { W: rows(3, 2, 2), b: [0.1, -0.2, 0.3] };
    const x = Float64Array.from([0.5, -1.5]);
    const g = m.dLayer(p, x) as { W: number[][]; b: number[] };
    // By hand: ∂/∂W_ij = (1 − tanh² y_i)·x_j, ∂/∂b_i = 1 − tanh² y_i.
    const y = p.W.map((r, i) => p.b[i] + r[0] * x[0] + r[1] * x[1]);
    const s = y.map((v) => 1 - Math.tanh(v) ** 2);
    expectClose(
      leaves(g.W),
      p.W.flatMap((_, i) => [s[i] * x[0], s[i] * x[1]]),
      1e-12,
    );
    expectClose(g.b, s, 1e-12);
    const [value, [gp, gx]] = m.vgLayer(p, x);
    expect(value).toBeCloseTo(m.layer(p, x), 12);
    expectClose(leaves(gp.W), leaves(g.W), 1e-12);
    expectClose(
      [...gx],
      [0, 1].map((j) => s.reduce((a, si, i) => a + si * p.W[i][j], 0)),
      1e-12,
    );
  });

  test('a literal [[a, b, 1], [a·b, 2, b]]: m[0][0]·m[1][2] + m[1][0]·m[0][1] + 6', () => {
    const [a, b] = [1.5, -0.5];
    expect(m.literal(a, b)).toBeCloseTo(a * b + a * b * b + 6, 12);
    // d/da = b + b², d/db = a + 2ab.
    expectClose(m.dLiteral(a, b), [b + b * b, a + 2 * a * b], 1e-12);
  });

  test('branchy: writes into a copied matrix in both arms of an if', () => {
    const A = rows(3, 2, 3);
    for (const t of [-0.5, 0.2, 0.9]) {
      const [gA, gt] = m.dBranchy(A, t) as [number[][], number];
      for (let k = 0; k < 6; k++) expectClose([leaves(gA)[k]], partial(m.branchy, [A, t], 0, k));
      expectClose([gt], partial(m.branchy, [A, t], 1, 0));
    }
  });

  test('stopGradient of a matrix: only the live read is differentiated', () => {
    const [gm, gx] = m.dFrozen([[2, 0]], 3) as [number[][], number];
    expect(gm).toEqual([[9, 0]]);
    expect(gx).toBe(2 + 2 * 2 * 3);
  });

  test('hvp with a matrix direction against differences of the gradient', () => {
    const A = rows(2, 3, 5);
    const w = Float64Array.from([0.2, -0.7, 0.4]);
    const V = rows(2, 3, 7);
    const hv = m.hvpRowDots(A, w, V) as number[][];
    const h = 1e-5;
    const at = (s: number) =>
      m.dRowDots(
        A.map((r, i) => r.map((x, j) => x + s * V[i][j])),
        w,
      )[0] as number[][];
    const fd = leaves(at(h)).map((u, k) => (u - leaves(at(-h))[k]) / (2 * h));
    expectClose(leaves(hv), fd, 1e-6);
  });
});

test('readonly number[][] and Float32Array[] parameters: gradients in the same row class (f32 rows hold the rounded gradient)', () => {
  const { exports: e } = load(`import { grad } from 'tsad';
/** @differentiable */
export function ro(m: readonly (readonly number[])[]): number {
  let s = 0;
  for (let i = 0; i < m.length; i++) for (let j = 0; j < m[i].length; j++) s += Math.sin(m[i][j]) * (j + 1);
  return s;
}
/** @differentiable */
export function f32(m: Float32Array[]): number {
  let s = 0;
  for (const row of m) for (let j = 0; j < row.length; j++) s += row[j] * row[j];
  return s;
}
export const dRo = grad(ro);
export const dF32 = grad(f32);`);
  const A = rows(2, 3, 8);
  const g = e.dRo(A) as number[][];
  expect(g).toEqual(A.map((r) => r.map((x, j) => Math.cos(x) * (j + 1))));
  const B = A.map((r) => Float32Array.from(r));
  const h = e.dF32(B) as Float32Array[];
  for (const [i, row] of h.entries()) {
    expect(row).toBeInstanceOf(Float32Array);
    expect([...row]).toEqual([...B[i]].map((x) => Math.fround(2 * x)));
  }
});

test('a .map callback over a vector reading a free matrix at its index (W[i][0], W[i][1]): gathers of the flat data', () => {
  const { exports: e } = load(`import { grad, sum } from 'tsad';
/** @differentiable */
export function f(W: number[][], x: Float64Array): number {
  return sum(x.map((v, i) => W[i][0] * v + W[i][1] * v * v));
}
export const d = grad(f, { wrt: [0, 1] });`);
  const W = [
    [0.5, 1.5],
    [-0.3, 0.2],
    [1.1, -0.7],
  ];
  const x = [0.4, -1.2, 0.9];
  const [gW, gx] = e.d(W, Float64Array.from(x));
  // By hand: ∂/∂W_i0 = x_i, ∂/∂W_i1 = x_i², ∂/∂x_i = W_i0 + 2 W_i1 x_i.
  expect(gW).toEqual(x.map((v) => [v, v * v]));
  expectClose(
    [...gx],
    x.map((v, i) => W[i][0] + 2 * W[i][1] * v),
    1e-12,
  );
});

test('a matrix carried through a loop and reassigned whole (M = matmul(M, A)), then passed to a marked function returning a matrix', () => {
  const { exports: e } = load(`import { grad, matmul } from 'tsad';
/** @differentiable */
export function squareAll(m: number[][]): number[][] {
  return m.map((row) => row.map((x) => x * x));
}
/** @differentiable */
export function power(A: number[][], k: number): number {
  let M = A;
  for (let t = 1; t < k; t++) M = matmul(M, A);
  const S = squareAll(M);
  let s = 0;
  for (let i = 0; i < S.length; i++) for (let j = 0; j < S[i].length; j++) s += S[i][j];
  return s;
}
export const d = grad(power);`);
  const A = [
    [0.5, -0.2, 0.1],
    [0.3, 0.4, -0.6],
    [0.2, 0.1, 0.7],
  ];
  for (const k of [1, 2, 4])
    expectClose(
      leaves(e.d(A, k)),
      leaves(A).map((_, q) => partial(e.power, [A, k], 0, q)[0]),
    );
});

describe('matrix results', () => {
  test('jvp and vjp of a function returning number[][] (rows → rows)', () => {
    const dM = rows(2, 3, 4);
    const [y, dy] = m.jvpSquared(M, 0.5, dM, 0.25) as [number[][], number[][]];
    expect(y).toEqual(M.map((r) => r.map((x) => 0.5 * x * x)));
    expectClose(leaves(dy), directional(m.squared, [M, 0.5], [dM, 0.25]));
    const [value, pullback] = m.vjpSquared(M, 0.5);
    expect(value).toEqual(y);
    const ct = rows(2, 3, 6);
    const [gM, gc] = pullback(ct) as [number[][], number];
    // ⟨ct, J·ẋ⟩ = ⟨Jᵀ·ct, ẋ⟩ with ẋ = (dM, 0.25).
    const lhs = leaves(ct).reduce((s, c, k) => s + c * leaves(dy)[k], 0);
    const rhs = leaves(gM).reduce((s, g, k) => s + g * leaves(dM)[k], 0) + gc * 0.25;
    expect(Math.abs(lhs - rhs)).toBeLessThan(1e-12);
  });

  test.each([0, 1, 3])('gram at n = %i: Array.from rows of Float64Array.from; jvp vs differences, vjp vs the dot-product test', (n) => {
    const x = Float64Array.from({ length: n }, (_, i) => 0.5 + 0.3 * i);
    const dx = Float64Array.from({ length: n }, (_, i) => 1 - 0.4 * i);
    const [y, dy] = m.jvpGram(x, dx) as [Float64Array[], Float64Array[]];
    expect(y.length).toBe(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) expect(y[i][j]).toBeCloseTo(x[i] * x[j] + (i === j ? 1 : 0), 12);
    const g = (v: number[]) => m.gram(Float64Array.from(v)).map((r: Float64Array) => [...r]);
    expectClose(leaves(dy.map((r) => [...r])), directional(g, [[...x]], [[...dx]]));
    const [, pullback] = m.vjpGram(x);
    const ct = rows(n, n, 2);
    const [gx] = pullback(ct) as [Float64Array];
    const lhs = leaves(ct).reduce((s, c, k) => s + c * leaves(dy.map((r) => [...r]))[k], 0);
    const rhs = [...gx].reduce((s, v, i) => s + v * dx[i], 0);
    expect(Math.abs(lhs - rhs)).toBeLessThan(1e-12);
  });
});

describe('bad shapes are RangeErrors naming the argument', () => {
  test('a ragged number[][] argument', () => {
    expect(() => m.dFrob([[1, 2], [3]])).toThrow(new RangeError("grad(frob): 'm' must be a rectangular matrix (number[][]): row 1 has 1 numbers, row 0 has 2"));
  });

  test('a tangent of another size than its primal', () => {
    expect(() => m.jvpSquared(M, 1, [[1, 2, 3]], 0)).toThrow(/jvp\(squared\): 'tangents\[0\]' must be a 2 × 3 matrix like its primal, got 1 × 3/);
    const [, pullback] = m.vjpSquared(M, 1);
    expect(() =>
      pullback([
        [1, 2],
        [3, 4],
      ]),
    ).toThrow(/'cotangent' must be a 2 × 3 matrix like its primal, got 2 × 2/);
  });

  test('a map returning rows of different lengths', () => {
    const { exports: e } = load(`import { grad } from 'tsad';
/** @differentiable */
export function tri(x: Float64Array): number {
  const t = Array.from({ length: x.length }, (_, i) => x.slice(0, i + 1));
  return t[0][0];
}
export const d = grad(tri);`);
    expect(() => e.d(Float64Array.from([1, 2]))).toThrow(/grad\(tri\): in tri: the rows of Array\.from.* must be equally long/);
  });

  test('rows of lengths 1, 3, 2 (as many numbers as 3 × 2): still a RangeError, each row checked against the one before', () => {
    const { exports: e } = load(`import { grad } from 'tsad';
/** @differentiable */
export function lumpy(x: Float64Array): number {
  const t = Array.from({ length: 3 }, (_, i) => x.slice(0, i === 0 ? 1 : i === 1 ? 3 : 2));
  return t[0][0];
}
export const d = grad(lumpy);`);
    expect(() => e.d(Float64Array.from([1, 2, 3]))).toThrow(/grad\(lumpy\): in lumpy: the rows of Array\.from.* must be equally long/);
  });
});

describe('matmul', () => {
  const { exports: e } = load(`import { grad, jvp, hvp, matmul } from 'tsad';
/** @differentiable */
export function mlp(W1: number[][], W2: number[][], X: number[][]): number {
  const H = matmul(X, W1);
  for (let i = 0; i < H.length; i++) for (let j = 0; j < H[i].length; j++) H[i][j] = Math.tanh(H[i][j]);
  const Y = matmul(H, W2);
  let s = 0;
  for (let i = 0; i < Y.length; i++) for (let j = 0; j < Y[i].length; j++) s += Y[i][j] * Y[i][j];
  return s / 2;
}
/** @differentiable */
export function product(A: number[][], B: number[][]): number[][] {
  return matmul(A, B);
}
export const dMlp = grad(mlp, { wrt: [0, 1, 2] });
export const hvpMlp = hvp(mlp);
export const jvpProduct = (A: number[][], B: number[][], dA: number[][], dB: number[][]) => jvp(product, [A, B], [dA, dB]);
`);
  const X = rows(4, 3, 1);
  const W1 = rows(3, 5, 2);
  const W2 = rows(5, 2, 3);

  test('a two-layer network: every gradient against central differences', () => {
    const [g1, g2, gX] = e.dMlp(W1, W2, X) as number[][][];
    for (const [k, g, at] of [
      [0, g1, W1],
      [1, g2, W2],
      [2, gX, X],
    ] as const) {
      expect(g.length).toBe(at.length);
      const fd = leaves(at).map((_, idx) => partial(e.mlp, [W1, W2, X], k, idx)[0]);
      expectClose(leaves(g), fd);
    }
  });

  test('hvp through two products and the tanh layer against differences of the gradient', () => {
    const V = rows(3, 5, 9);
    const hv = e.hvpMlp(W1, W2, X, V) as number[][];
    const h = 1e-5;
    const at = (s: number) =>
      leaves(
        e.dMlp(
          W1.map((r, i) => r.map((x, j) => x + s * V[i][j])),
          W2,
          X,
        )[0],
      );
    const up = at(h);
    const down = at(-h);
    expectClose(
      leaves(hv),
      up.map((u, k) => (u - down[k]) / (2 * h)),
      1e-6,
    );
  });

  test('jvp of A·B is dA·B + A·dB (hand-written products)', () => {
    const A = rows(2, 3, 4);
    const B = rows(3, 2, 5);
    const dA = rows(2, 3, 6);
    const dB = rows(3, 2, 7);
    const mm = (p: number[][], q: number[][]) => p.map((r) => q[0].map((_, j) => r.reduce((s, x, l) => s + x * q[l][j], 0)));
    const [y, dy] = e.jvpProduct(A, B, dA, dB) as [number[][], number[][]];
    expectClose(leaves(y), leaves(mm(A, B)), 1e-12);
    const want = mm(dA, B).map((r, i) => r.map((x, j) => x + mm(A, dB)[i][j]));
    expectClose(leaves(dy), leaves(want), 1e-12);
  });

  test('a columns/rows mismatch is a RangeError naming the transform', () => {
    expect(() => e.jvpProduct(rows(2, 3), rows(2, 2), rows(2, 3), rows(2, 2))).toThrow(RangeError);
    expect(() => e.jvpProduct(rows(2, 3), rows(2, 2), rows(2, 3), rows(2, 2))).toThrow(/^jvp\(product\): in product: matmul\(a, b\) needs as many columns in a as rows in b/);
  });
});

test("the README's matrix example: grad(layer) against central differences", () => {
  const { exports: e } = load(`import { grad, matmul } from 'tsad';
/** @differentiable */
export function layer(W: number[][], X: number[][], y: Float64Array): number {
  const H = matmul(X, W);
  let loss = 0;
  for (let i = 0; i < H.length; i++) {
    let out = 0;
    for (let j = 0; j < H[i].length; j++) out += Math.tanh(H[i][j]);
    loss += (out - y[i]) ** 2;
  }
  return loss / H.length;
}
export const dW = grad(layer);`);
  const W = rows(3, 4, 2);
  const X = rows(5, 3, 3);
  const y = Float64Array.from({ length: 5 }, (_, i) => 0.1 * i);
  const g = e.dW(W, X, y) as number[][];
  expect(g.length).toBe(3);
  expectClose(
    leaves(g),
    leaves(W).map((_, k) => partial(e.layer, [W, X, [...y]], 0, k)[0]),
  );
});

describe('the worked examples of array-adjoints-map-reduce-scan.md §5 over number[][]', () => {
  const { exports: e } = load(`import { grad, vjp, hvp, matmul } from 'tsad';
/** @differentiable */
export function product(A: number[][], B: number[][]): number[][] {
  return matmul(A, B);
}
/** @differentiable */
export function kmeansCost(C: number[][], P: number[][]): number {
  let cost = 0;
  for (let i = 0; i < P.length; i++) {
    let best = Infinity;
    for (let c = 0; c < C.length; c++) {
      let d = 0;
      for (let j = 0; j < P[i].length; j++) d += (P[i][j] - C[c][j]) * (P[i][j] - C[c][j]);
      best = Math.min(best, d);
    }
    cost += best;
  }
  return cost;
}
export const pullProduct = (A: number[][], B: number[][]) => vjp(product, A, B);
export const dCost = grad(kmeansCost);
export const hvpCost = hvp(kmeansCost);
`);

  test('#16 matmul: C = [[19, 22], [43, 50]]; with C̄ all ones, Ā = C̄Bᵀ = [[11, 15], [11, 15]], B̄ = AᵀC̄ = [[4, 4], [6, 6]]', () => {
    const [C, pullback] = e.pullProduct(
      [
        [1, 2],
        [3, 4],
      ],
      [
        [5, 6],
        [7, 8],
      ],
    );
    expect(C).toEqual([
      [19, 22],
      [43, 50],
    ]);
    expect(
      pullback([
        [1, 1],
        [1, 1],
      ]),
    ).toEqual([
      [
        [11, 15],
        [11, 15],
      ],
      [
        [4, 4],
        [6, 6],
      ],
    ]);
  });

  test('#18 Newton k-means: cost 6, gradient [(−2, 4), (−2, −4)], Hessian diagonal [(4, 4), (4, 4)], one Newton step = the cluster means', () => {
    const P = [
      [0, 0],
      [1, 0],
      [10, 10],
      [11, 10],
    ];
    const C = [
      [0, 1],
      [10, 9],
    ];
    expect(e.kmeansCost(C, P)).toBe(6);
    const g = e.dCost(C, P) as number[][];
    expect(g).toEqual([
      [-2, 4],
      [-2, -4],
    ]);
    // The Hessian is diagonal here, so its diagonal is the hvp along all ones.
    const h = e.hvpCost(C, P, [
      [1, 1],
      [1, 1],
    ]) as number[][];
    expect(h).toEqual([
      [4, 4],
      [4, 4],
    ]);
    expect(C.map((row, c) => row.map((x, j) => x - g[c][j] / h[c][j]))).toEqual([
      [0.5, 0],
      [10.5, 10],
    ]);
  });
});

describe('loops reading m[i][j] at their counter are checked against the matrix once', () => {
  const { exports: e } = load(`import { grad } from 'tsad';
/** @differentiable */
export function firstRow(m: number[][], n: number): number {
  let s = 0;
  for (let j = 0; j < n; j++) s += m[0][j] * m[0][j];
  return s;
}
export const d = grad(firstRow);`);

  test('a column past the end is a RangeError, not a read of the next row', () => {
    expect(
      e.d(
        [
          [1, 2],
          [3, 4],
        ],
        2,
      ),
    ).toEqual([
      [2, 4],
      [0, 0],
    ]);
    expect(() =>
      e.d(
        [
          [1, 2],
          [3, 4],
        ],
        3,
      ),
    ).toThrow(/^grad\(firstRow\): in firstRow: the loop for \(… < n …\) reads 'm' past its columns/);
  });
});

describe('diagnostics', () => {
  const diagnose = (body: string) => compile(`import { grad } from 'tsad';\n${body}\nexport const d = grad(f);`, { throwOnError: false }).diagnostics.map((d) => `${d.code - 900000}`);

  test('number[][][] builds (a tensor: tensors.test.ts); an array of arrays of records is TSAD1120', () => {
    expect(diagnose(`/** @differentiable */\nexport function f(t: number[][][], x: number): number { return t.length * x; }`)).toEqual([]);
    expect(diagnose(`/** @differentiable */\nexport function f(t: { x: number }[][], x: number): number { return t.length * x; }`)).toEqual(['1120']);
  });

  test('jacobian or hessian w.r.t. a matrix is TSAD1121 (vjp, jvp and hvp take matrices)', () => {
    const src = (t: string) =>
      compile(
        `import { ${t} } from 'tsad';
/** @differentiable */
export function f(m: number[][]): number { return m[0][0] * m[0][0]; }
export const d = ${t}(f);`,
        { throwOnError: false },
      ).messages.join('\n');
    expect(src('jacobian')).toMatch(/TSAD1121: jacobian\(f\) with arrays needs numbers and arrays of numbers, but 'm' is number\[\]\[\]: use vjp or jvp for it/);
    expect(src('hessian')).toMatch(/TSAD1121: hessian\(f\)/);
  });

  test('a ragged literal is TSAD1120', () => {
    expect(diagnose(`/** @differentiable */\nexport function f(x: number): number { const m: number[][] = [[x, 1], [2]]; return m[0][0]; }`)).toEqual(['1120']);
  });

  test('a row of a written matrix used as a whole is TSAD1123', () => {
    const src = `/** @differentiable */
export function f(x: number): number {
  const m = [[x, 1], [2, x]];
  const r = m[0];
  m[0][0] = 5;
  return r[0];
}`;
    expect(diagnose(src)).toEqual(['1123']);
  });
});

describe('reverse mode through matrices costs a constant times the primal (interpreter work counter)', () => {
  const file = path.join(workDir(), 'matrix-complexity.ts');
  fs.writeFileSync(
    file,
    `/** @differentiable */
export function frob(m: number[][]): number {
  let s = 0;
  for (let i = 0; i < m.length; i++) for (let j = 0; j < m[i].length; j++) s += m[i][j] * m[i][j];
  return s;
}
/** @differentiable */
export function rowsTimes(m: number[][], x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < m.length; i++) {
    let y = 0;
    for (let j = 0; j < m[i].length; j++) y += m[i][j] * x[j];
    s += Math.sin(y);
  }
  return s;
}
`,
  );
  /** The function's Linear A, lowered by the plugin's own compiler. */
  const ir = (fn: string) => {
    const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } });
    const checker = program.getTypeChecker();
    const sf = program.getSourceFile(file)!;
    const decl = sf.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === fn)!;
    return new ModuleCompiler(nodeHost(), checker, ts.factory).lower(decl).program;
  };

  test.each(['frob', 'rowsTimes'])('%s: W(grad) / W(f) is bounded for n × n from 8 to 64', (fn) => {
    const program = ir(fn);
    const { program: gp, grad } = gradOf(program, fn, { simplify: true, policy: 'cheap' });
    const ratios: number[] = [];
    for (const n of [8, 16, 32, 64]) {
      const mat = [Array.from({ length: n * n }, (_, k) => Math.sin(k)), n, n];
      const args = fn === 'frob' ? [mat] : [mat, Array.from({ length: n }, (_, k) => Math.cos(k))];
      const wf = evalFn(program, fn, args as never).work;
      const wg = evalFn(gp, grad, args as never).work;
      ratios.push(wg / wf);
    }
    expect(Math.max(...ratios)).toBeLessThan(8);
    // Bounded: each doubling of n moves the ratio by less than 10 % (a cost per element growing
    // with n would double it). It may rise towards its bound: the primal's element checks are a
    // constant per row, a larger share of W(f) at n = 8 (s15: 2.23, 2.36, 2.43, 2.47).
    for (let k = 1; k < ratios.length; k++) expect(ratios[k]).toBeLessThanOrEqual(ratios[k - 1] * 1.1);
  });
});
