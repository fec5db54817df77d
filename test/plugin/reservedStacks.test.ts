// A counted loop's residual stacks have room for its trip count, and iteration i fills record i
// (constructs/stack/put.ts, issue 22 item 1): the emitted push is one store, with no bounds
// check and no size update. Checked on the emitted code, and by finite differences on loop nests
// that run zero times, a fractional number of times, and store records of several numbers, in
// first and second order (hvp, hessian: J of put).
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { expectClose, load, partial, workDir } from './harness';
import { ModuleCompiler } from '../../transformer/compile';
import { nodeHost, runtimeEntry } from '../../transformer/plugin/host';
import { evalFn } from '../../transformer/language/interp';
import { gradOf } from '../gen/drivers';
import { DRIVER } from '../../transformer/plan/request';
import { useTypeScript } from '../../transformer/frontend/markers';

useTypeScript(ts);

const SOURCE = `
/** @differentiable */
export function powers(x: Float64Array, n: number): number {
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
export function records(x: Float64Array, m: number, k: number): number {
  let s = 0;
  for (let i = 0; i < m; i++) {
    let a = x[0] + i;
    let b = 1;
    for (let j = 0; j < k; j++) {
      const c = Math.sin(a * x[j % x.length]);
      b = b * Math.cos(c) + a;
      a = a * c + Math.exp(-b * b);
    }
    s += a * b;
  }
  return s;
}
`;

const fdAll = (f: (...a: any[]) => number, at: any[], i: number) => Array.from({ length: at[i].length }, (_, k) => partial(f, at, i, k)[0]);
const vec = (n: number, phase: number) => Array.from({ length: n }, (_, k) => 0.3 * Math.sin(k + phase));

describe('reserved stacks', () => {
  const { exports: m, result } = load(
    `import { grad, hvp } from 'tsad';\n${SOURCE}\nexport const gPowers = grad(powers);\nexport const gRecords = grad(records);\nexport const hRecords = hvp(records);\n`,
  );

  test('compiles without diagnostics', () => {
    expect(result.diagnostics).toEqual([]);
  });

  test("a counted loop nest's gradient grows no stack: no bounds check per push", () => {
    // The innermost loops of a function: an inner loop's run reserves its room once (extend,
    // before its loop), and its pushes are single stores.
    const innermost = (name: string) => {
      const sf = ts.createSourceFile('out.js', result.outputText, ts.ScriptTarget.ES2022, true);
      const fn = sf.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && (s.name?.text ?? '').startsWith(name));
      const loops: string[] = [];
      const visit = (node: ts.Node): boolean => {
        let inner = false;
        ts.forEachChild(node, (c) => {
          if (visit(c)) inner = true;
        });
        if (ts.isForStatement(node) && !inner) loops.push(node.getText());
        return inner || ts.isForStatement(node);
      };
      if (fn) visit(fn);
      return loops;
    };
    for (const fn of ['powers$grad', 'records$grad']) {
      const loops = innermost(fn);
      expect(loops.length).toBeGreaterThan(0);
      for (const code of loops) {
        // reserve's growth: `new Float64Array(Math.max(2 * (s.c - s.b), …))`.
        expect(code).not.toMatch(/Math\.max\(2 \* \(/);
        expect(code).not.toMatch(/\.n (\+)?= /);
      }
    }
  });

  test('gradients against finite differences, including loops that run zero times and fractional trip counts', () => {
    for (const [n, len] of [
      [7, 4],
      [0, 3],
      [5, 0],
      [4.5, 2],
    ] as const) {
      const x = vec(len, 1);
      expectClose(Array.from(m.gPowers(Float64Array.from(x), n) as Float64Array), len === 0 ? [] : fdAll(m.powers, [x, n], 0));
    }
    for (const [mm, k] of [
      [3, 4],
      [0, 4],
      [3, 0],
      [2.5, 3.5],
    ] as const) {
      const x = vec(3, 2);
      expectClose(Array.from(m.gRecords(Float64Array.from(x), mm, k) as Float64Array), fdAll(m.records, [x, mm, k], 0), 1e-5);
    }
  });

  test('Hessian-vector products against finite differences of the gradient', () => {
    for (const [mm, k] of [
      [3, 4],
      [0, 2],
      [2, 0],
      [1.5, 2.5],
    ] as const) {
      const x = vec(3, 2);
      const v = vec(3, 5);
      const h = 1e-5;
      const at = (s: number) => Array.from(m.gRecords(Float64Array.from(x.map((xi, q) => xi + s * v[q])), mm, k) as Float64Array);
      const [up, down] = [at(h), at(-h)];
      expectClose(
        Array.from(m.hRecords(Float64Array.from(x), mm, k, Float64Array.from(v)) as Float64Array),
        up.map((u, q) => (u - down[q]) / (2 * h)),
        1e-5,
      );
    }
  });

  test('W(grad) / W(f) stays bounded from n = 64 to 4096 (the interpreter, put included)', () => {
    const file = path.join(workDir(), 'reserved-stacks.ts');
    fs.writeFileSync(file, SOURCE);
    const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } });
    const sf = program.getSourceFile(file)!;
    const decl = sf.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === 'powers')!;
    const ir = new ModuleCompiler(nodeHost(), program.getTypeChecker(), ts.factory).lower(decl).program;
    const { program: gp, grad } = gradOf(ir, 'powers', DRIVER);
    const ratios = [64, 512, 4096].map((n) => {
      const args = [vec(8, 1), n] as never;
      return evalFn(gp, grad, args).work / evalFn(ir, 'powers', args).work;
    });
    expect(Math.max(...ratios)).toBeLessThan(4);
    expect(Math.max(...ratios) / Math.min(...ratios)).toBeLessThan(1.1);
  });
});
