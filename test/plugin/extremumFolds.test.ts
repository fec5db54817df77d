// Loops that keep the best of their iterations (issue 22, item 3): `best = Math.min(best, d)` and
// `if (d < best) { best = d; arg = j; }` have the derivative of the iteration that won, as the
// reduce combinator's min rule does: ties go to the lowest index, a loop that runs zero times
// hands on the initial value's derivative, and reverse mode touches the winning iteration only.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { expectClose, load, partial, workDir } from './harness';
import { ModuleCompiler } from '../../transformer/compile';
import { nodeHost, runtimeEntry } from '../../transformer/plugin/host';
import { useTypeScript } from '../../transformer/frontend/markers';
import { evalFn } from '../../transformer/language/interp';
import { DRIVER } from '../../transformer/plan/request';
import { gradOf } from '../gen/drivers';

const FUNCTIONS = `
/** @differentiable */
export function nearest(c: Float64Array, p: number): number {
  let best = Infinity;
  for (let j = 0; j < c.length; j++) {
    const e = c[j] - p;
    best = Math.min(best, e * e);
  }
  return best;
}
/** @differentiable */
export function nearestLast(c: Float64Array, p: number): number {
  let best = Infinity;
  for (let j = 0; j < c.length; j++) {
    const e = c[j] - p;
    best = Math.min(e * e, best);
  }
  return best;
}
/** @differentiable */
export function farthest(c: Float64Array, p: number, floor: number): number {
  let best = floor * p;
  for (let j = 0; j < c.length; j++) best = Math.max(best, Math.sin(c[j] * p));
  return best;
}
/** @differentiable */
export function nearestIf(c: Float64Array, p: number): number {
  let best = Infinity;
  let arg = -1;
  for (let j = 0; j < c.length; j++) {
    const e = c[j] - p;
    const d = e * e;
    if (d < best) {
      best = d;
      arg = j;
    }
  }
  return best + arg;
}
/** @differentiable */
export function keptWith(c: Float64Array, w: Float64Array, p: number, start: number): number {
  let best = start;
  let weight = p;
  for (let j = 0; j < c.length; j++) {
    const d = (c[j] - p) * (c[j] - p);
    if (d < best) {
      best = d;
      weight = w[j] * Math.cos(p);
    }
  }
  return best * weight;
}
/** @differentiable */
export function kmeansCost(centroids: Float64Array, points: Float64Array, d: number): number {
  const n = points.length / d;
  const k = centroids.length / d;
  let cost = 0;
  for (let i = 0; i < n; i++) {
    let best = Infinity;
    for (let j = 0; j < k; j++) {
      let dist = 0;
      for (let c = 0; c < d; c++) {
        const e = points[i * d + c] - centroids[j * d + c];
        dist += e * e;
      }
      best = Math.min(best, dist);
    }
    cost += best;
  }
  return cost;
}
/** @differentiable */
export function keptAndSummed(c: Float64Array, p: number): number {
  let best = Infinity;
  let total = 0;
  for (let j = 0; j < c.length; j++) {
    const d = (c[j] - p) * (c[j] - p);
    if (d < best) {
      best = d;
      total = total + d * p;
    }
  }
  return best + total;
}
/** @differentiable */
export function minOfDecayed(c: Float64Array, p: number): number {
  let best = p;
  for (let j = 0; j < c.length; j++) best = Math.min(best, 0.5 * best + c[j] * p);
  return best;
}
/** @differentiable */
export function nearestByReduce(c: Float64Array, p: number): number {
  return c.map((x) => (x - p) * (x - p)).reduce((q, x) => Math.min(q, x), Infinity);
}
`;

const SOURCE = `import { grad, hvp } from 'tsad';
${FUNCTIONS}
export const gNearest = grad(nearest, { wrt: [0, 1] });
export const gNearestLast = grad(nearestLast, { wrt: [0, 1] });
export const gFarthest = grad(farthest, { wrt: [0, 1, 2] });
export const gNearestIf = grad(nearestIf, { wrt: [0, 1] });
export const gKeptWith = grad(keptWith, { wrt: [0, 1, 2, 3] });
export const gKmeans = grad(kmeansCost, { wrt: [0] });
export const hKmeans = hvp(kmeansCost, { wrt: [0] });
export const gKeptAndSummed = grad(keptAndSummed, { wrt: [0, 1] });
export const gMinOfDecayed = grad(minOfDecayed, { wrt: [0, 1] });
export const gByReduce = grad(nearestByReduce, { wrt: [0, 1] });
`;

const { exports: m, result } = load(SOURCE);
const f64 = (xs: number[]) => Float64Array.from(xs);
/** The leaves of a gradient, −0 read as 0. */
const all = (g: unknown): number[] => (Array.isArray(g) ? g : [g]).flatMap((x: unknown) => (typeof x === 'number' ? [x] : Array.from(x as ArrayLike<number>))).map((x) => x + 0);
/** Every partial derivative of f at `at` by central differences, in the order grad returns them. */
const fd = (f: (...a: any[]) => number, at: any[], args: number[] = at.map((_, i) => i)) =>
  args.flatMap((i) =>
    typeof at[i] === 'number'
      ? [partial(f, at, i, 0)[0]]
      : Array.from(
          at[i] as ArrayLike<number>,
          (_, k) =>
            partial(
              f,
              at.map((a) => (ArrayBuffer.isView(a) ? Array.from(a as Float64Array) : a)),
              i,
              k,
            )[0],
        ),
  );

test('it builds', () => {
  expect(result.diagnostics).toEqual([]);
});

describe('gradients match finite differences (no ties)', () => {
  const c = f64([0.9, -0.4, 2.1, 0.35, -1.3]);
  test.each([
    ['nearest', 'gNearest', [c, 0.3]],
    ['nearestLast', 'gNearestLast', [c, -0.7]],
    ['farthest', 'gFarthest', [c, 0.8, 0.2]],
    ['farthest', 'gFarthest', [c, 0.8, 5]],
    ['nearestIf', 'gNearestIf', [c, 1.7]],
    ['keptWith', 'gKeptWith', [c, f64([0.5, 1.5, -2, 3, 0.25]), 0.1, 9]],
    ['keptWith', 'gKeptWith', [c, f64([0.5, 1.5, -2, 3, 0.25]), 0.1, 0.01]],
    // Not extremum folds (a kept value reads a carried one): the general rule, still exact.
    ['keptAndSummed', 'gKeptAndSummed', [c, 0.2]],
    ['minOfDecayed', 'gMinOfDecayed', [c, 0.7]],
  ])('%s', (fn, g, at) => {
    expectClose(all(m[g](...(at as any[]))), fd(m[fn], at as any[]));
  });

  test('kmeans cost: gradient and Hessian-vector product', () => {
    const d = 3;
    const C = f64(Array.from({ length: 4 * d }, (_, k) => Math.sin(3 * k + 1)));
    const P = f64(Array.from({ length: 7 * d }, (_, k) => Math.cos(5 * k + 2)));
    expectClose(all(m.gKmeans(C, P, d)), fd(m.kmeansCost, [C, P, d], [0]));
    const v = f64(Array.from({ length: 4 * d }, (_, k) => Math.cos(k)));
    // H·v by central differences of the gradient along v.
    const h = 1e-5;
    const shift = (s: number) => f64(Array.from(C, (x, k) => x + s * v[k]));
    const expected = Array.from(m.gKmeans(shift(h), P, d) as Float64Array, (x, k) => (x - (m.gKmeans(shift(-h), P, d) as Float64Array)[k]) / (2 * h));
    expectClose(all(m.hKmeans(C, P, d, v)), expected);
  });
});

describe('ties and empty loops', () => {
  test('ties: the lowest index wins, as with reduce', () => {
    // (1 − 2)² = (3 − 2)²: both are nearest.
    const at = [f64([4, 1, 3, 1]), 2] as const;
    expect(all(m.gNearest(...at))).toEqual([0, -2, 0, 0, 2]);
    expect(all(m.gNearest(...at))).toEqual(all(m.gByReduce(...at)));
    expect(all(m.gNearestIf(...at))).toEqual([0, -2, 0, 0, 2]);
  });
  test('ties under min(d, best): the later element wins, as min lets its first argument win', () => {
    expect(all(m.gNearestLast(f64([4, 1, 3, 1]), 2))).toEqual([0, 0, 0, -2, 2]);
  });
  test('a tie with the initial value keeps the initial value', () => {
    // floor·p = 0.5 = max: sin(c[j]·p) never exceeds it, the derivative is floor and p.
    expect(all(m.gFarthest(f64([Math.asin(0.5) / 0.5]), 0.5, 1))).toEqual([0, 1, 0.5]);
  });
  test('a loop that runs zero times hands on the initial value', () => {
    expect(all(m.gNearest(f64([]), 2))).toEqual([0]);
    expect(all(m.gFarthest(f64([]), 0.5, 3))).toEqual([3, 0.5]);
    expect(all(m.gKeptWith(f64([]), f64([]), 0.5, 2))).toEqual([2, 0.5]);
  });
});

describe('reverse mode touches the winning iteration only (interpreter work counter)', () => {
  useTypeScript(ts);
  const file = path.join(workDir(), 'extremum-work.ts');
  fs.writeFileSync(file, FUNCTIONS);
  const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } });
  const sf = program.getSourceFile(file)!;
  const decl = sf.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === 'kmeansCost')!;
  const ir = new ModuleCompiler(nodeHost(), program.getTypeChecker(), ts.factory).lower(decl).program;
  const { program: gp, grad } = gradOf(ir, 'kmeansCost', DRIVER);

  test('kmeans cost: W(grad) / W(f) stays below 1.6 for 8 to 128 centroids', () => {
    const d = 4;
    const P = Array.from({ length: 16 * d }, (_, k) => Math.cos(5 * k + 2));
    const ratios = [8, 32, 128].map((k) => {
      const C = Array.from({ length: k * d }, (_, i) => Math.sin(3 * i + 1));
      return evalFn(gp, grad, [C, P, d] as never).work / evalFn(ir, 'kmeansCost', [C, P, d] as never).work;
    });
    // The backward pass visiting every centroid with a zero weight made this about 3.
    expect(Math.max(...ratios)).toBeLessThan(1.6);
  });
});
