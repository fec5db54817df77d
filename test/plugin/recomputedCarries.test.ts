// Carried values with a cheap recurrence (a power `p *= t`, a running product) are recomputed by
// the linear half instead of stacked (constructs/loop/recompute.ts), and a transposed loop whose
// accumulations commute runs forward in step with the recomputation, with no stack at all
// (constructs/loop/fuseFill.ts; issue 22 item 4). Checked by the tape meter (the residuals held
// no longer grow with the inner trip count), the work counter, finite differences (zero and one
// trips, powers, running products, two carried values, loops where the fusion must not fire) and
// Hessian-vector products.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { expectClose, load, partial, workDir } from './harness';
import { ModuleCompiler } from '../../transformer/compile';
import { nodeHost, runtimeEntry } from '../../transformer/plugin/host';
import { evalFn } from '../../transformer/language/interp';
import { valueAndGradOf } from '../gen/drivers';
import { DRIVER } from '../../transformer/plan/request';
import { useTypeScript } from '../../transformer/frontend/markers';

useTypeScript(ts);

const SOURCE = `
/** @differentiable */
export function llsq(x: Float64Array, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const t = -1 + (i * 2) / (n - 1);
    let r = Math.sign(t);
    let p = 1;
    for (let j = 0; j < x.length; j++) {
      r -= x[j] * p;
      p *= t;
    }
    sum += r * r;
  }
  return sum / 2;
}
/** @differentiable */
export function discounted(x: Float64Array, c: number): number {
  let s = 0;
  let w = 1;
  for (let j = 0; j < x.length; j++) {
    s += x[j] * x[j] * w;
    w *= c;
  }
  return s;
}
/** @differentiable */
export function twoCarried(x: Float64Array, t: number): number {
  let s = 0;
  let p = 1;
  let q = 0.5;
  for (let j = 0; j < x.length; j++) {
    s += Math.sin(x[j]) * p + x[j] * q;
    q = q + p * j;
    p = p * t;
  }
  return s;
}
/** @differentiable */
export function nonCommuting(x: Float64Array, t: number): number {
  let s = 0;
  let p = 1;
  for (let j = 0; j < x.length; j++) {
    s = Math.sin(s) + x[j] * p;
    p *= t;
  }
  return s;
}
/** @differentiable */
export function rows(x: Float64Array, n: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) {
    const t = 0.5 + i / (n + 1);
    let prod = 1;
    let acc = 0;
    for (let j = 0; j < x.length; j++) {
      acc += Math.exp(x[j] * prod);
      prod *= t;
    }
    total += Math.log(acc + 1);
  }
  return total;
}
`;

const fdAll = (f: (...a: any[]) => number, at: any[], i: number) => Array.from({ length: at[i].length }, (_, k) => partial(f, at, i, k)[0]);
const vec = (n: number, phase: number) => Array.from({ length: n }, (_, k) => 0.3 * Math.sin(k + phase) + 0.1);
const f64 = (xs: number[]) => Float64Array.from(xs);

describe('cheap carried values recomputed, commuting transposed loops run forward', () => {
  const { exports: m, result } = load(
    `import { grad, hvp } from 'tsad';\n${SOURCE}\n` +
      [
        'export const gLlsq = grad(llsq);',
        'export const gLlsqAll = grad(llsq, { wrt: [0, 1] });',
        'export const gDiscounted = grad(discounted);',
        'export const gDiscountedAll = grad(discounted, { wrt: [0, 1] });',
        'export const gTwo = grad(twoCarried, { wrt: [0, 1] });',
        'export const gTwoX = grad(twoCarried);',
        'export const gNon = grad(nonCommuting, { wrt: [0, 1] });',
        'export const gNonX = grad(nonCommuting);',
        'export const gRows = grad(rows);',
        'export const hLlsq = hvp(llsq);',
        'export const hDiscounted = hvp(discounted);',
        'export const hRows = hvp(rows);',
      ].join('\n'),
  );

  test('compiles without diagnostics', () => {
    expect(result.diagnostics).toEqual([]);
  });

  test('gradients against finite differences: zero and one trips, powers, running products, two carried values', () => {
    for (const [n, len] of [
      [5, 4],
      [2, 1],
      [0, 3],
      [4, 0],
      [3.5, 2],
    ] as const) {
      const x = vec(len, 1);
      const want = len === 0 ? [] : fdAll(m.llsq, [x, n], 0);
      expectClose(Array.from(m.gLlsq(f64(x), n) as Float64Array), want);
      // With n's cotangent wanted too, the transposed inner loop carries one for t's powers: no fusion, the same x gradient.
      expectClose(Array.from((m.gLlsqAll(f64(x), n) as [Float64Array, number])[0]), want);
      expectClose(Array.from(m.gRows(f64(x), n) as Float64Array), len === 0 ? [] : fdAll(m.rows, [x, n], 0));
    }
    for (const len of [0, 1, 2, 7]) {
      const x = vec(len, 2);
      for (const c of [0.9, -1.3, 0]) {
        const want = len === 0 ? [] : fdAll(m.discounted, [x, c], 0);
        expectClose(Array.from(m.gDiscounted(f64(x), c) as Float64Array), want);
        const [gx, gc] = m.gDiscountedAll(f64(x), c) as [Float64Array, number];
        expectClose(Array.from(gx), want);
        expectClose([gc], partial(m.discounted, [x, c], 1, 0));
        const wantTwo = len === 0 ? [] : fdAll(m.twoCarried, [x, c], 0);
        expectClose(Array.from(m.gTwoX(f64(x), c) as Float64Array), wantTwo);
        const [tx, tt] = m.gTwo(f64(x), c) as [Float64Array, number];
        expectClose(Array.from(tx), wantTwo);
        expectClose([tt], partial(m.twoCarried, [x, c], 1, 0));
      }
    }
  });

  test('a loop whose accumulator is read each iteration (no commuting sums) stays correct', () => {
    for (const len of [0, 1, 3, 8]) {
      const x = vec(len, 3);
      for (const t of [0.7, -1.1]) {
        const want = len === 0 ? [] : fdAll(m.nonCommuting, [x, t], 0);
        expectClose(Array.from(m.gNonX(f64(x), t) as Float64Array), want);
        const [gx, gt] = m.gNon(f64(x), t) as [Float64Array, number];
        expectClose(Array.from(gx), want);
        expectClose([gt], partial(m.nonCommuting, [x, t], 1, 0));
      }
    }
  });

  test('Hessian-vector products against finite differences of the gradient', () => {
    const h = 1e-5;
    const check = (g: (x: Float64Array) => Float64Array, hv: (x: Float64Array, v: Float64Array) => Float64Array, x: number[], v: number[]) => {
      const at = (s: number) => Array.from(g(f64(x.map((xi, q) => xi + s * v[q]))));
      const [up, down] = [at(h), at(-h)];
      expectClose(
        Array.from(hv(f64(x), f64(v))),
        up.map((u, q) => (u - down[q]) / (2 * h)),
        1e-5,
      );
    };
    for (const [n, len] of [
      [4, 3],
      [2, 1],
      [0, 2],
      [3, 0],
    ] as const) {
      check(
        (x) => m.gLlsq(x, n),
        (x, v) => m.hLlsq(x, n, v),
        vec(len, 1),
        vec(len, 4),
      );
      check(
        (x) => m.gRows(x, n),
        (x, v) => m.hRows(x, n, v),
        vec(len, 2),
        vec(len, 5),
      );
    }
    for (const len of [1, 4]) {
      check(
        (x) => m.gDiscounted(x, 0.8),
        (x, v) => m.hDiscounted(x, 0.8, v),
        vec(len, 1),
        vec(len, 3),
      );
    }
  });

  test('the residuals held do not grow with the inner trip count (tape meter), and W(grad) / W(f) stays bounded', () => {
    const file = path.join(workDir(), 'recomputed-carries.ts');
    fs.writeFileSync(file, SOURCE);
    const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } });
    const sf = program.getSourceFile(file)!;
    const measure = (name: string, n: number, policy: 'cheap' | 'save' = 'cheap') => {
      const decl = sf.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === name)!;
      const ir = new ModuleCompiler(nodeHost(), program.getTypeChecker(), ts.factory).lower(decl).program;
      // As the plugin builds grad(f): value and gradient fused, with respect to x.
      const { program: gp, valueAndGrad } = valueAndGradOf(ir, name, { ...DRIVER, policy, wrt: [0] });
      return [64, 512, 4096].map((len) => {
        const x = vec(len, 1);
        const g = evalFn(gp, valueAndGrad, [x, n], [], { tape: true });
        return { peak: g.peakTape ?? Number.NaN, ratio: g.work / evalFn(ir, name, [x, n]).work };
      });
    };
    const n = 4;
    // llsq: one number per outer iteration (before: every power of t as well, n·len more; and t
    // itself, a division, until divisions were recomputed too).
    const l = measure('llsq', n);
    for (const { peak } of l) expect(peak).toBe(n);
    for (const { ratio } of l) expect(ratio).toBeLessThan(3);
    // rows: exp(x_j·prod) is a residual of each inner iteration and stays stored; the product is
    // not: at least one number per inner iteration fewer than under the 'save' policy, which stores both.
    const r = measure('rows', n);
    const saved = measure('rows', n, 'save');
    [64, 512, 4096].forEach((len, q) => expect(r[q].peak).toBeLessThanOrEqual(saved[q].peak - n * len));
    for (const { ratio } of r) expect(ratio).toBeLessThan(4);
  });
});
