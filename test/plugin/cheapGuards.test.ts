// A trip guard that licm put around index arithmetic it hoisted out of an inner loop
// (`cond(span > 0)[i·d + col]`) is recomputed by the backward pass under the 'cheap' policy
// (ConstructRule.runsOneBody, ad/unzip.ts cheapBranch), like the add and multiply inside it, and
// so is its test (comparisons are cheap prims): the tape keeps one number per column (where the
// column's run of l starts) instead of three, and the guarded indices of the loop over components
// leave the record of every (point, component) (GradBench gmm's shape, issue 22). Checked by the
// interpreter's peak tape and against central differences with loops that run zero times.
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
/** Σ_i Σ_c exp(−|L(x_i − μ_c)|²/2) with L strictly lower triangular, column by column (gmm's loops). */
/** @differentiable */
export function mix(l: Float64Array, mu: Float64Array, x: Float64Array, d: number, k: number, n: number): number {
  const z = new Float64Array(d);
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < k; c++) {
      for (let r = 0; r < d; r++) z[r] = x[i * d + r] - mu[c * d + r];
      let li = 0;
      for (let col = 0; col < d; col++) {
        for (let r = col + 1; r < d; r++) {
          z[r] += l[li] * (x[i * d + col] - mu[c * d + col]);
          li++;
        }
      }
      let s = 0;
      for (let r = 0; r < d; r++) s += z[r] * z[r];
      total += Math.exp(-0.5 * s);
    }
  }
  return total;
}
/** The guarded code is not all cheap here (a log of an invariant): it stays on the tape, and right. */
/** @differentiable */
export function logs(a: Float64Array, y: number, d: number): number {
  let s = 0;
  for (let col = 0; col < d; col++) {
    for (let r = col + 1; r < d; r++) s += a[r] * Math.log(y + col);
  }
  return s;
}
/** A branch the user wrote, choosing an index from data it reads, in a loop that then overwrites that data. */
/** @differentiable */
export function pick(a: Float64Array, w: Float64Array, n: number): number {
  const b = new Float64Array(n);
  for (let i = 0; i < n; i++) b[i] = a[i];
  let s = 0;
  for (let i = 0; i < n; i++) {
    let j = i;
    if (b[i] > 0.2) j = n - 1 - i;
    s += w[j] * b[i] * b[i];
    b[i] = s;
  }
  return s;
}
`;

const vec = (n: number, phase: number) => Array.from({ length: n }, (_, k) => 0.3 * Math.sin(k + phase) + 0.1);
const f64 = (xs: number[]) => Float64Array.from(xs);
const fdAll = (f: (...a: any[]) => number, at: any[], i: number) => Array.from({ length: at[i].length }, (_, k) => partial(f, at, i, k)[0]);

describe('cheap trip guards are recomputed by the backward pass, not taped', () => {
  const { exports: m, result } = load(
    `import { grad } from 'tsad';\n${SOURCE}\nexport const gMix = grad(mix, { wrt: [0, 1, 2] });\nexport const gLogs = grad(logs, { wrt: [0, 1] });\nexport const gPick = grad(pick, { wrt: [0, 1] });\n`,
  );

  test('compiles without diagnostics', () => {
    expect(result.diagnostics).toEqual([]);
  });

  test('gradients against central differences, with every loop running zero times, once and more', () => {
    for (const [d, k, n] of [
      [0, 2, 2],
      [1, 2, 2],
      [2, 1, 1],
      [3, 0, 2],
      [3, 2, 0],
      [4, 3, 2],
    ]) {
      const at = [vec((d * (d - 1)) / 2, 1), vec(k * d, 3), vec(n * d, 2), d, k, n];
      const g = m.gMix(...at.map((v) => (Array.isArray(v) ? f64(v) : v))) as Float64Array[];
      for (const w of [0, 1, 2]) expectClose(Array.from(g[w]), fdAll(m.mix, at, w));
    }
    for (const d of [0, 1, 2, 5]) {
      const a = vec(d, 4);
      const [ga, gy] = m.gLogs(f64(a), 1.3, d) as [Float64Array, number];
      expectClose(Array.from(ga), fdAll(m.logs, [a, 1.3, d], 0));
      expectClose([gy], [partial(m.logs, [a, 1.3, d], 1, 0)[0]]);
    }
    for (const n of [0, 1, 2, 7]) {
      const at = [vec(n, 6), vec(n, 7), n];
      const [ga, gw] = m.gPick(f64(at[0] as number[]), f64(at[1] as number[]), n) as Float64Array[];
      expectClose(Array.from(ga), fdAll(m.pick, at, 0));
      expectClose(Array.from(gw), fdAll(m.pick, at, 1));
    }
  });

  test('the tape holds one number per column and three per (point, component), whatever the sizes', () => {
    const file = path.join(workDir(), 'cheap-guards.ts');
    fs.writeFileSync(file, SOURCE);
    const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } });
    const decl = program.getSourceFile(file)!.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === 'mix')!;
    const ir = new ModuleCompiler(nodeHost(), program.getTypeChecker(), ts.factory).lower(decl).program;
    const { program: gp, valueAndGrad } = valueAndGradOf(ir, 'mix', { ...DRIVER, wrt: [0, 1, 2] });
    const peak = (d: number, k: number, n: number) => {
      const args = [vec((d * (d - 1)) / 2, 1), vec(k * d, 3), vec(n * d, 2), d, k, n];
      return evalFn(gp, valueAndGrad, args as never[], [], { tape: true }).peakTape ?? Number.NaN;
    };
    // Per (point, component): the column records' start, the inner trip count, z's start and then
    // z (d numbers) and each column's start of l (d numbers); per point a few more. With the
    // guarded indices i·d + col and c·d + col taped as well, it was 3d per column record.
    for (const [d, k, n] of [
      [8, 3, 4],
      [20, 2, 3],
    ]) {
      expect(peak(d, k, n)).toBeLessThanOrEqual(n * (k * (2 * d + 3) + 8));
    }
  });
});
