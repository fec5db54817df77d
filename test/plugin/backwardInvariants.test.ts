// Loop-invariant reads after differentiation (opt/licm.ts, hoistInvariantsAfterAD; issue 22, gmm):
// T builds the backward loops after the source's licm ran, and the loop over rows of a triangular
// factor reads `x[col] − μ[col]` again in every iteration, forward and backward. The backend now
// moves such reads out of every finished def's loops, under the loop's `trip > 0`. Checked by
// counting the emitted gradient's reads of an array (a Proxy: per column, not per row), by the
// interpreter's work counter on the gradient def as the backend runs it, against central
// differences with loops that run zero times, and with a read under a branch that must stay there.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { expectClose, load, partial, workDir } from './harness';
import { ModuleCompiler } from '../../transformer/compile';
import { nodeHost, runtimeEntry } from '../../transformer/plugin/host';
import { evalFn } from '../../transformer/language/interp';
import { findDef } from '../../transformer/ir/program';
import { hoistInvariantsAfterAD } from '../../transformer/opt/licm';
import { valueAndGradOf } from '../gen/drivers';
import { DRIVER } from '../../transformer/plan/request';
import { useTypeScript } from '../../transformer/frontend/markers';

useTypeScript(ts);

const SOURCE = `
/** z = L(x − μ) for a strictly lower triangular L stored column by column, then |z|² (gmm's shape). */
/** @differentiable */
export function tri(l: Float64Array, mu: Float64Array, x: number[], d: number): number {
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
/** x[next] is read only where the inner loop runs (next < d): never past the end. */
/** @differentiable */
export function ahead(l: Float64Array, x: number[], d: number): number {
  let s = 0;
  let li = 0;
  for (let col = 0; col < d; col++) {
    const next = col + 1;
    for (let r = next; r < d; r++) {
      s += l[li] * l[li] * x[next];
      li++;
    }
  }
  return s;
}
/** z[r + 1] += z[r]·l[li]: a recurrence, whose backward loop reads the cotangent it adds to. */
/** @differentiable */
export function recur(l: Float64Array, x: number[], d: number): number {
  const z = new Float64Array(d + 1);
  for (let r = 0; r < d; r++) z[r] = x[r];
  let li = 0;
  for (let r = 0; r < d; r++) {
    z[r + 1] += z[r] * l[li];
    li++;
  }
  let s = 0;
  for (let r = 0; r <= d; r++) s += z[r] * z[r];
  return s;
}
/** w[k] is read only under the branch, which the test never takes (k is past the end of w). */
/** @differentiable */
export function branch(l: Float64Array, w: number[], d: number, k: number): number {
  let s = 0;
  for (let col = 0; col < d; col++) {
    for (let r = 0; r < d; r++) {
      const v = l[col * d + r];
      if (v > 10) {
        s += Math.exp(w[k] * v);
      } else {
        s += v * v * w[0];
      }
    }
  }
  return s;
}
`;

/** An array whose element reads are counted (and those past its end). */
function counted(xs: number[]): { array: number[]; reads: () => number; outside: () => number } {
  let reads = 0;
  let outside = 0;
  const array = new Proxy(xs, {
    get(t, key) {
      if (typeof key === 'string' && /^\d+$/.test(key)) {
        reads++;
        if (Number(key) >= t.length) outside++;
      }
      return Reflect.get(t, key);
    },
  });
  return { array, reads: () => reads, outside: () => outside };
}

const vec = (n: number, phase: number) => Array.from({ length: n }, (_, k) => 0.3 * Math.sin(k + phase) + 0.1);
const f64 = (xs: number[]) => Float64Array.from(xs);
const fdAll = (f: (...a: any[]) => number, at: any[], i: number) => Array.from({ length: at[i].length }, (_, k) => partial(f, at, i, k)[0]);

describe('invariant reads leave the backward loops too', () => {
  const { exports: m, result } = load(
    `import { grad } from 'tsad';\n${SOURCE}\n` +
      ['export const gTri = grad(tri, { wrt: [0, 1] });', 'export const gAhead = grad(ahead);', 'export const gBranch = grad(branch);', 'export const gRecur = grad(recur, { wrt: [0, 1] });'].join(
        '\n',
      ),
  );

  test('compiles without diagnostics', () => {
    expect(result.diagnostics).toEqual([]);
  });

  test('the emitted gradient reads x once per column (forward and backward), not once per row', () => {
    for (const d of [8, 40]) {
      const x = counted(vec(d, 2));
      m.gTri(f64(vec((d * (d - 1)) / 2, 1)), f64(vec(d, 3)), x.array, d);
      // Two reads per column (the forward and the backward loop over rows), the argument check's
      // one, and its scan of a number[] for holes (x.includes(undefined): d).
      expect(x.reads()).toBeLessThanOrEqual(3 * d + 1);
      expect(x.outside()).toBe(0);
    }
  });

  test('gradients against central differences, with loops that run zero times (d = 0, 1) and once', () => {
    for (const d of [0, 1, 2, 3, 6]) {
      const at = [vec((d * (d - 1)) / 2, 1), vec(d, 3), vec(d, 2), d];
      const [gl, gmu] = m.gTri(f64(at[0] as number[]), f64(at[1] as number[]), at[2], d) as [Float64Array, Float64Array];
      expectClose(Array.from(gl), fdAll(m.tri, at, 0));
      expectClose(Array.from(gmu), fdAll(m.tri, at, 1));
      const x = counted(vec(d, 4));
      const ga = m.gAhead(f64(at[0] as number[]), x.array, d) as Float64Array;
      expectClose(Array.from(ga), fdAll(m.ahead, [at[0], vec(d, 4), d], 0));
      // The inner loop of the last column runs zero times: its x[next] (past the end) is never read.
      expect(x.outside()).toBe(0);
    }
  });

  test('a backward loop that reads the cotangent it adds to keeps its order (no forward fusion): right', () => {
    for (const d of [0, 1, 2, 5]) {
      const at = [vec(d, 1), vec(d, 2), d];
      const [gl, gx] = m.gRecur(f64(at[0] as number[]), at[1], d) as [Float64Array, number[]];
      expectClose(Array.from(gl), fdAll(m.recur, at, 0));
      expectClose(Array.from(gx), fdAll(m.recur, at, 1));
    }
  });

  test('a read under a branch stays under it: a branch never taken never reads', () => {
    for (const d of [0, 1, 4]) {
      const l = vec(d * d, 5);
      const w = counted([0.5, 1.5, 2.5]);
      const g = m.gBranch(f64(l), w.array, d, 7) as Float64Array;
      expect(w.outside()).toBe(0);
      expectClose(Array.from(g), fdAll(m.branch, [l, [0.5, 1.5, 2.5], d, 7], 0));
    }
  });

  test('the interpreter: the gradient as the backend runs it does the invariant work once per column', () => {
    const file = path.join(workDir(), 'backward-invariants.ts');
    fs.writeFileSync(file, SOURCE);
    const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } });
    const decl = program.getSourceFile(file)!.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === 'tri')!;
    const ir = new ModuleCompiler(nodeHost(), program.getTypeChecker(), ts.factory).lower(decl).program;
    const { program: gp, valueAndGrad } = valueAndGradOf(ir, 'tri', { ...DRIVER, wrt: [0, 1] });
    const before = findDef(gp, valueAndGrad);
    const after = hoistInvariantsAfterAD(before, () => undefined);
    const hoisted = { ...gp, defs: gp.defs.map((d) => (d === before ? after : d)) };
    const saved = (d: number) => {
      const args = [vec((d * (d - 1)) / 2, 1), vec(d, 3), vec(d, 2), d];
      const [b, a] = [evalFn(gp, valueAndGrad, args), evalFn(hoisted, valueAndGrad, args)];
      expect(a.nl).toEqual(b.nl);
      return b.work - a.work;
    };
    // Per row, forward and backward: two reads and a subtraction each time, now per column.
    for (const d of [8, 32]) expect(saved(d)).toBeGreaterThanOrEqual(2 * 3 * ((d * (d - 1)) / 2 - 2 * d));
    // Zero-trip loops: the guard costs a test and a branch per column at most (and, since s14,
    // one more for the operands of the element checks moved with the invariants).
    for (const d of [0, 1]) expect(Math.abs(saved(d))).toBeLessThanOrEqual(9);
  });

  test('backward loops over rows whose sums commute (l̄[li] += y twice; z̄ only read) run forward: no stack of li per column', () => {
    const file = path.join(workDir(), 'backward-chains.ts');
    fs.writeFileSync(file, SOURCE);
    const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } });
    const gradient = (name: string, wrt: number[]) => {
      const decl = program.getSourceFile(file)!.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === name)!;
      const ir = new ModuleCompiler(nodeHost(), program.getTypeChecker(), ts.factory).lower(decl).program;
      const { program: gp, valueAndGrad } = valueAndGradOf(ir, name, { ...DRIVER, wrt });
      return (args: unknown[]) => evalFn(gp, valueAndGrad, args as never[], [], { tape: true }).peakTape ?? Number.NaN;
    };
    const [ahead, tri] = [gradient('ahead', [0]), gradient('tri', [0, 1])];
    for (const d of [6, 30]) {
      const l = vec((d * (d - 1)) / 2, 1);
      // One number per column (where its run of l starts); before, the backward pass also refilled
      // a stack with the column's li to read it backwards (2d − 1 numbers at the peak). In tri the
      // loop over rows also reads z̄ (an lpeek) beside its sums; in ahead it adds twice at l̄[li].
      expect(tri([l, vec(d, 3), vec(d, 2), d])).toBeLessThanOrEqual(d);
      expect(ahead([l, vec(d, 2), d])).toBeLessThanOrEqual(d);
    }
  });
});
