// A loop reading a[i] at its counter checks its trip count against a's length once (`atmost`,
// constructs/array/checks.ts), and the check's result is a new name for the count. Inside an
// outer loop that name was a residual of every iteration: the backward loop needs its trip count,
// so the count was stacked per run although it is the outer loop's invariant (GradBench gmm's
// `d` in every (point, component) record; issue 22). A check's record now says which operand it
// passes on (ConstructRule.passesOn): the linear half reads that operand, the check stays in the
// forward half. Checked by the interpreter's peak tape, against central differences with loops
// that run zero times, and by the check still throwing where the loop would read past the end.
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
/** Per block c, z = x_c² and then Σ sin(|z|²): the second inner loop reads z[r] for r < d. */
/** @differentiable */
export function blocks(x: Float64Array, w: Float64Array, d: number, k: number): number {
  const z = new Float64Array(d);
  let t = 0;
  for (let c = 0; c < k; c++) {
    for (let r = 0; r < d; r++) z[r] = x[c * d + r] * x[c * d + r];
    let s = 0;
    for (let r = 0; r < d; r++) s += z[r] * z[r] * w[r];
    t += Math.sin(s);
  }
  return t;
}
`;

const vec = (n: number, phase: number) => Array.from({ length: n }, (_, k) => 0.3 * Math.sin(k + phase) + 0.1);
const f64 = (xs: number[]) => Float64Array.from(xs);
const fdAll = (f: (...a: any[]) => number, at: any[], i: number) => Array.from({ length: at[i].length }, (_, k) => partial(f, at, i, k)[0]);

describe('a checked trip count is read from what the check let through, not stacked', () => {
  const { exports: m, result } = load(`import { grad } from 'tsad';\n${SOURCE}\nexport const gBlocks = grad(blocks, { wrt: [0, 1] });\n`);

  test('compiles without diagnostics', () => {
    expect(result.diagnostics).toEqual([]);
  });

  test('gradients against central differences, with loops that run zero times, once and more', () => {
    for (const [d, k] of [
      [0, 2],
      [1, 1],
      [3, 0],
      [3, 2],
      [5, 4],
    ]) {
      const at = [vec(k * d, 1), vec(d, 2), d, k];
      const [gx, gw] = m.gBlocks(f64(at[0] as number[]), f64(at[1] as number[]), d, k) as Float64Array[];
      expectClose(Array.from(gx), fdAll(m.blocks, at, 0));
      expectClose(Array.from(gw), fdAll(m.blocks, at, 1));
    }
  });

  test('the check still runs: the gradient of a loop that would read w past its end throws', () => {
    expect(() => m.gBlocks(f64(vec(6, 1)), f64(vec(2, 2)), 3, 2)).toThrow(RangeError);
  });

  test('the tape holds z and a few numbers per block: the count d is not among them', () => {
    const file = path.join(workDir(), 'passed-checks.ts');
    fs.writeFileSync(file, SOURCE);
    const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } });
    const decl = program.getSourceFile(file)!.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === 'blocks')!;
    const ir = new ModuleCompiler(nodeHost(), program.getTypeChecker(), ts.factory).lower(decl).program;
    const { program: gp, valueAndGrad } = valueAndGradOf(ir, 'blocks', { ...DRIVER, wrt: [0, 1] });
    const peak = (d: number, k: number) => evalFn(gp, valueAndGrad, [vec(k * d, 1), vec(d, 2), d, k] as never[], [], { tape: true }).peakTape ?? Number.NaN;
    for (const [d, k] of [
      [4, 6],
      [16, 3],
    ]) {
      expect(peak(d, k)).toBeLessThanOrEqual(k * (d + 2));
    }
  });
});
