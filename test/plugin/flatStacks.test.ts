// A loop nest's gradient keeps one flat stack per residual kind for all runs of an inner loop,
// each run at its offset (constructs/loop/flatten.ts, issue 22 item 1): no stack object per
// inner run. Checked on the emitted code (no stack literal inside a loop), by finite differences
// (inner loops of zero trips, triangular trip counts, a while loop inside a counted one), in
// second order (hvp: J of extend and of put/at with a base), and by the work counter.
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
export function two(x: Float64Array, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const t = -1 + (i * 2) / n;
    let r = Math.sin(t);
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
export function three(x: Float64Array, n: number, m: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) {
    let a = x[i % x.length];
    for (let k = 0; k < m; k++) {
      let b = a + k;
      for (let j = 0; j < x.length; j++) {
        b = Math.sin(b * x[j]) + a;
      }
      a = a * b;
    }
    s += a;
  }
  return s;
}
/** @differentiable */
export function triangle(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    let p = x[i];
    for (let j = 0; j < i; j++) {
      p = p * Math.cos(x[j]) + x[j];
    }
    s += p * p;
  }
  return s;
}
/** @differentiable */
export function halving(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    let v = x[i];
    let k = 0;
    while (k < i) {
      v = Math.sin(v) * x[k];
      k++;
    }
    s += v;
  }
  return s;
}
`;

const fdAll = (f: (...a: any[]) => number, at: any[], i: number) => Array.from({ length: at[i].length }, (_, k) => partial(f, at, i, k)[0]);
const vec = (n: number, phase: number) => Array.from({ length: n }, (_, k) => 0.3 * Math.sin(k + phase) + 0.1);

/** The stack literals `{ a, b, c, n }` built inside a loop of the gradient of `name` in the emitted module. */
function stacksInLoops(text: string, name: string): string[] {
  const sf = ts.createSourceFile('out.js', text, ts.ScriptTarget.ES2022, true);
  const fn = sf.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && (s.name?.text ?? '').startsWith(`${name}$grad`));
  if (!fn) throw new Error(`no gradient of ${name} in the emitted module`);
  const found: string[] = [];
  const visit = (node: ts.Node, inLoop: boolean): void => {
    if (ts.isObjectLiteralExpression(node) && inLoop) {
      const keys = node.properties.map((p) => (p.name && ts.isIdentifier(p.name) ? p.name.text : '')).join(',');
      if (keys === 'a,b,c,n') found.push(node.getText());
    }
    const loop = ts.isForStatement(node) || ts.isWhileStatement(node) || ts.isDoStatement(node) || ts.isForOfStatement(node);
    ts.forEachChild(node, (c) => visit(c, inLoop || loop));
  };
  visit(fn, false);
  return found;
}

describe('flat stacks for inner loops', () => {
  const { exports: m, result } = load(
    `import { grad, hvp } from 'tsad';\n${SOURCE}\nexport const gTwo = grad(two);\nexport const gThree = grad(three);\nexport const gTriangle = grad(triangle);\nexport const gHalving = grad(halving);\nexport const hThree = hvp(three);\nexport const hTriangle = hvp(triangle);\nexport const hHalving = hvp(halving);\n`,
  );

  test('compiles without diagnostics', () => {
    expect(result.diagnostics).toEqual([]);
  });

  test("a two- and three-level nest's gradient builds no stack object per inner run, nor one with a while loop inside", () => {
    for (const fn of ['two', 'three', 'triangle', 'halving']) expect([fn, stacksInLoops(result.outputText, fn)]).toEqual([fn, []]);
  });

  test('gradients against finite differences: zero-trip inner loops, triangular trip counts, a while loop inside', () => {
    for (const [n, len] of [
      [7, 4],
      [0, 3],
      [5, 0],
      [3.5, 2],
    ] as const) {
      const x = vec(len, 1);
      expectClose(Array.from(m.gTwo(Float64Array.from(x), n) as Float64Array), len === 0 ? [] : fdAll(m.two, [x, n], 0));
    }
    // len 0 with n > 0: x[i % x.length] reads x[NaN] past the end (undefined in JavaScript): a
    // RangeError since s14, even where no later statement uses it.
    expect(() => m.gThree(Float64Array.from([]), 2, 2)).toThrow(RangeError);
    for (const [n, mm, len] of [
      [3, 2, 3],
      [0, 2, 3],
      [3, 0, 3],
      [2.5, 1.5, 2],
    ] as const) {
      const x = vec(len, 2);
      expectClose(Array.from(m.gThree(Float64Array.from(x), n, mm) as Float64Array), fdAll(m.three, [x, n, mm], 0), 1e-5);
    }
    for (const len of [0, 1, 2, 6]) {
      const x = vec(len, 3);
      expectClose(Array.from(m.gTriangle(Float64Array.from(x)) as Float64Array), len === 0 ? [] : fdAll(m.triangle, [x], 0));
      expectClose(Array.from(m.gHalving(Float64Array.from(x)) as Float64Array), len === 0 ? [] : fdAll(m.halving, [x], 0));
    }
  });

  test('Hessian-vector products against finite differences of the gradient', () => {
    const h = 1e-5;
    const check = (g: (x: Float64Array) => Float64Array, hv: (x: Float64Array, v: Float64Array) => Float64Array, x: number[], v: number[]) => {
      const at = (s: number) => Array.from(g(Float64Array.from(x.map((xi, q) => xi + s * v[q]))));
      const [up, down] = [at(h), at(-h)];
      expectClose(
        Array.from(hv(Float64Array.from(x), Float64Array.from(v))),
        up.map((u, q) => (u - down[q]) / (2 * h)),
        1e-5,
      );
    };
    for (const [n, mm] of [
      [3, 2],
      [0, 2],
      [2, 0],
      [1.5, 2.5],
    ] as const) {
      check(
        (x) => m.gThree(x, n, mm),
        (x, v) => m.hThree(x, n, mm, v),
        vec(3, 2),
        vec(3, 5),
      );
    }
    for (const len of [1, 2, 5]) {
      check(m.gTriangle, m.hTriangle, vec(len, 1), vec(len, 4));
      check(m.gHalving, m.hHalving, vec(len, 2), vec(len, 3));
    }
  });

  test('W(grad) / W(f) stays bounded from n = 64 to 4096 (the interpreter, flat stacks included)', () => {
    const file = path.join(workDir(), 'flat-stacks.ts');
    fs.writeFileSync(file, SOURCE);
    const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } });
    const sf = program.getSourceFile(file)!;
    const ratios = (name: string, args: (n: number) => unknown[]) => {
      const decl = sf.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === name)!;
      const ir = new ModuleCompiler(nodeHost(), program.getTypeChecker(), ts.factory).lower(decl).program;
      const { program: gp, grad } = gradOf(ir, name, DRIVER);
      return [64, 512, 4096].map((n) => evalFn(gp, grad, args(n) as never).work / evalFn(ir, name, args(n) as never).work);
    };
    // The interpreter runs the same flat stacks (extend, put and at at a base, presize): its gradient is the emitted one.
    const interpreted = (name: string, args: unknown[]) => {
      const decl = sf.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === name)!;
      const ir = new ModuleCompiler(nodeHost(), program.getTypeChecker(), ts.factory).lower(decl).program;
      const { program: gp, grad } = gradOf(ir, name, DRIVER);
      return Array.from(evalFn(gp, grad, args as never).nl[0] as ArrayLike<number>);
    };
    expectClose(interpreted('three', [vec(3, 1), 4, 3]), Array.from(m.gThree(Float64Array.from(vec(3, 1)), 4, 3) as Float64Array), 1e-12);
    expectClose(interpreted('triangle', [vec(5, 1)]), Array.from(m.gTriangle(Float64Array.from(vec(5, 1))) as Float64Array), 1e-12);
    for (const r of [ratios('two', (n) => [vec(8, 1), n]), ratios('three', (n) => [vec(3, 1), n, 2])]) {
      expect(Math.max(...r)).toBeLessThan(4);
      expect(Math.max(...r) / Math.min(...r)).toBeLessThan(1.1);
    }
  });
});
