// Loops that keep their state in small local arrays written every iteration (issue 22, item 2): an
// explicit stack (an Int32Array of indices, a Float64Array of partial products) in a while loop.
// Carried values that stay constant (the Int32Array, written with truncated values; the stack's
// top) get no tangent, so reverse mode carries no cotangent for them and stores nothing for it
// (constructs/loop/inactive.ts, cond/jvp.ts). The interpreter's work counter charges a `drop` per
// scalar, so W(f) itself pays the state's size per iteration (the emitted JavaScript does not):
// W(grad)/W(f) is asserted bounded, and the tape the gradient keeps per iteration is asserted too.
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
export function walk(w: Float64Array, x: number): number {
  const n = w.length;
  const nodes = new Int32Array(64);
  const acc = new Float64Array(64);
  nodes[0] = 0;
  acc[0] = x * w[0];
  let top = 1;
  let total = 0;
  while (top > 0) {
    top--;
    const v = nodes[top];
    const a = acc[top];
    const l = 2 * v + 1;
    if (l >= n) {
      total += Math.sin(a);
    } else {
      nodes[top] = l;
      acc[top] = a * w[l];
      top++;
      if (l + 1 < n) {
        nodes[top] = l + 1;
        acc[top] = a + w[l + 1];
        top++;
      }
    }
  }
  return total;
}
/** @differentiable */
export function detMinors(a: Float64Array, n: number): number {
  const used = new Int32Array(n);
  const col = new Int32Array(n + 1);
  const prod = new Float64Array(n + 1);
  prod[0] = 1;
  let r = 0;
  let det = 0;
  while (r >= 0) {
    if (r === n) {
      det += prod[r];
      r--;
      if (r >= 0) {
        used[col[r]] = 0;
        col[r]++;
      }
    } else {
      let c = col[r];
      while (c < n && used[Math.min(c, n - 1)] === 1) c++;
      if (c === n) {
        col[r] = 0;
        r--;
        if (r >= 0) {
          used[col[r]] = 0;
          col[r]++;
        }
      } else {
        col[r] = c;
        used[c] = 1;
        let below = 0;
        for (let k = 0; k < c; k++) below += used[k];
        const s = below % 2 === 0 ? 1 : -1;
        prod[r + 1] = s * prod[r] * a[r * n + c];
        r++;
      }
    }
  }
  return det;
}
/** @differentiable */
export function twoWrites(x: Float64Array, steps: number): number {
  const n = x.length;
  const s = new Float64Array(n);
  for (let i = 0; i < n; i++) s[i] = x[i];
  let k = 0;
  while (k < steps) {
    const i = k % n;
    const j = (3 * k + 1) % n;
    const a = s[i];
    const b = s[j];
    s[i] = a * Math.cos(b);
    s[j] = b + 0.5 * Math.sin(a);
    k++;
  }
  let t = 0;
  for (let i = 0; i < n; i++) t += s[i];
  return t;
}
`;

// Aliasing inside one iteration: an element written twice (the second write reads the first), a
// read after a write, and (n = 1, 2) writes that land on the same element.
const ALIASING = `
/** @differentiable */
export function twice(x: Float64Array, steps: number): number {
  const n = x.length;
  const s = x.slice();
  let k = 0;
  while (k < steps) {
    const i = (5 * k) % n;
    s[i] = s[i] * Math.sin(s[(i + 1) % n]);
    s[i] = s[i] + 0.3 * s[i] * s[i];
    const j = (i + 2) % n;
    s[j] = Math.cos(s[i]) + s[j];
    k++;
  }
  let t = 0;
  for (let q = 0; q < n; q++) t += s[q] * (q + 1);
  return t;
}
`;

// A state array read twice at one element before the iteration overwrites it (lstm's u[i] and
// st[hi]): one read, stored once.
const REREAD = `
/** @differentiable */
export function reread(u: Float64Array, w: Float64Array, steps: number): number {
  const n = u.length;
  const s = u.slice();
  for (let t = 0; t < steps; t++) {
    for (let i = 0; i < n; i++) {
      const f = Math.tanh(s[i] * w[i]);
      const g = s[i] + w[i] * f;
      s[i] = f * g;
    }
  }
  let total = 0;
  for (let i = 0; i < n; i++) total += s[i];
  return total;
}
`;

/** The source text of the emitted function `name` (to its closing brace at column 0). */
function emitted(text: string, name: string): string {
  const start = text.indexOf(`function ${name}(`);
  return start < 0 ? '' : text.slice(start, text.indexOf('\n}', start) + 2);
}

describe('state arrays', () => {
  const file = path.join(workDir(), 'state-arrays.ts');
  fs.writeFileSync(file, SOURCE);
  const ir = (fn: string) => {
    const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } });
    const checker = program.getTypeChecker();
    const sf = program.getSourceFile(file)!;
    const decl = sf.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === fn)!;
    return new ModuleCompiler(nodeHost(), checker, ts.factory).lower(decl).program;
  };
  const inputs: Record<string, (n: number) => unknown[]> = {
    twoWrites: (n) => [Array.from({ length: n }, (_, k) => Math.sin(k)), 200],
    walk: (n) => [Array.from({ length: n }, (_, k) => 1 + 0.001 * Math.sin(k)), 0.3],
    detMinors: (n) => [Array.from({ length: n * n }, (_, k) => Math.sin(k + 1)), n],
  };
  const sizes: Record<string, number[]> = { twoWrites: [8, 64, 512, 1024], walk: [16, 128, 1024], detMinors: [3, 4, 5] };

  test.each(Object.keys(inputs))('%s: W(grad) / W(f) stays bounded as the state or the trip count grows', (fn) => {
    const program = ir(fn);
    const { program: gp, grad } = gradOf(program, fn, DRIVER);
    const ratios = sizes[fn].map((n) => evalFn(gp, grad, inputs[fn](n) as never).work / evalFn(program, fn, inputs[fn](n) as never).work);
    expect(Math.max(...ratios)).toBeLessThan(2);
  });

  test('explicit-stack tree walk: the tape holds at most 9 numbers per node (17 with the Int32Array and the top carrying tangents, 13 with lengths in the branch slots)', () => {
    const program = ir('walk');
    const { program: gp, grad } = gradOf(program, 'walk', DRIVER);
    for (const n of [128, 1024]) expect(evalFn(gp, grad, inputs.walk(n) as never, [], { tape: true }).peakTape! / n).toBeLessThanOrEqual(9);
  });

  test("explicit-stack tree walk: 5 numbers per node (8 before): a number a branch was given and stores as it is comes from the cond's operand, not a slot of its own (the nested cond's copy of `l`, `top`, `top + 1`: 6), and a flag shares a number slot of the other branch (whether a node has a right child, and a leaf's cos a)", () => {
    const program = ir('walk');
    const { program: gp, grad } = gradOf(program, 'walk', DRIVER);
    const perNode = [128, 1024].map((n) => evalFn(gp, grad, inputs.walk(n) as never, [], { tape: true }).peakTape! / n);
    expect(Math.max(...perNode)).toBeLessThanOrEqual(5);
  });

  test('backtracking (expansion by minors): the tape is about half of what it was (11,718 numbers at n = 5)', () => {
    const program = ir('detMinors');
    const { program: gp, grad } = gradOf(program, 'detMinors', DRIVER);
    // 6,510 with the lengths of the arrays a branch writes in its slots; 5,208 with them computed before the loop.
    expect(evalFn(gp, grad, inputs.detMinors(5) as never, [], { tape: true }).peakTape).toBeLessThanOrEqual(5208);
  });

  test('a carried array the loop only writes keeps its length: the tape holds 6 numbers per iteration, no length (8 before)', () => {
    const program = ir('twoWrites');
    const { program: gp, grad } = gradOf(program, 'twoWrites', DRIVER);
    for (const n of [8, 64, 1024]) {
      const x = Array.from({ length: n }, (_, k) => Math.sin(k));
      const [few, many] = [100, 400].map((steps) => evalFn(gp, grad, [x, steps] as never, [], { tape: true }).peakTape!);
      expect((many - few) / 300).toBeLessThanOrEqual(6);
    }
  });

  test("a while loop's forward pass reserves each iteration's numbers at once: one room check per iteration, not one per number", () => {
    const { result } = load(`import { grad } from 'tsad';\n${SOURCE}\nexport const gTwo = grad(twoWrites);\nexport const gWalk = grad(walk, { wrt: [0, 1] });\nexport const gDet = grad(detMinors);\n`);
    expect(result.diagnostics).toEqual([]);
    // A growth step is what a stack of unknown room pays per push (stack emission: `grown`, inline,
    // or the runtime's `tsad$grow` behind the room test, or its `tsad$extend` for a run's room).
    const checks = (fn: string) => (emitted(result.outputText, fn).match(/new Float64Array\(Math\.max\(2 \*|tsad\$grow\(|tsad\$extend\(/g) ?? []).length;
    expect(['twoWrites$grad_0', 'walk$grad', 'detMinors$grad_0'].map((fn) => [fn, checks(fn)])).toEqual([
      ['twoWrites$grad_0', 1],
      ['walk$grad', 1],
      ['detMinors$grad_0', 1],
    ]);
  });

  test("the branches' flags are numbers of the record (1 or 0), not JavaScript arrays of booleans pushed per iteration", () => {
    const { result } = load(`import { grad } from 'tsad';\n${SOURCE}\nexport const gWalk = grad(walk, { wrt: [0, 1] });\nexport const gDet = grad(detMinors);\n`);
    expect(result.diagnostics).toEqual([]);
    for (const fn of ['walk$grad', 'detMinors$grad_0']) expect([fn, emitted(result.outputText, fn).match(/\.push\(/g)]).toEqual([fn, null]);
  });

  test('aliasing in one iteration (an element written twice, a read after a write, writes that coincide), zero trips, hvp: against finite differences', () => {
    const { exports: m, result } = load(`import { grad, hvp } from 'tsad';\n${ALIASING}\nexport const g = grad(twice);\nexport const h = hvp(twice);\n`);
    expect(result.diagnostics).toEqual([]);
    const vec = (n: number, seed: number) => Array.from({ length: n }, (_, k) => 0.3 + 0.4 * Math.sin(seed + 1.7 * k));
    for (const [n, steps] of [
      [7, 0],
      [7, 1],
      [7, 23],
      [2, 9],
      [1, 5],
      [3, 2.5],
    ]) {
      const x = vec(n, n + steps);
      expectClose(
        Array.from(m.g(Float64Array.from(x), steps) as Float64Array),
        Array.from({ length: n }, (_, k) => partial(m.twice, [x, steps], 0, k)[0]),
        1e-6,
      );
      const v = vec(n, 3);
      const eps = 1e-5;
      const at = (e: number) => Array.from(m.g(Float64Array.from(x.map((xi, q) => xi + e * v[q])), steps) as Float64Array);
      const [up, down] = [at(eps), at(-eps)];
      expectClose(
        Array.from(m.h(Float64Array.from(x), steps, Float64Array.from(v)) as Float64Array),
        up.map((u, q) => (u - down[q]) / (2 * eps)),
        1e-5,
      );
    }
  });

  test('an element read twice before it is overwritten is stored once: 2 numbers per inner iteration and an offset per run (3 before: the element twice, and tanh), gradient against finite differences', () => {
    const file = path.join(workDir(), 'state-reread.ts');
    fs.writeFileSync(file, REREAD);
    const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } });
    const decl = program.getSourceFile(file)!.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === 'reread')!;
    const lowered = new ModuleCompiler(nodeHost(), program.getTypeChecker(), ts.factory).lower(decl).program;
    const { program: gp, grad } = gradOf(lowered, 'reread', DRIVER);
    const vec = (n: number, seed: number) => Array.from({ length: n }, (_, k) => 0.4 * Math.sin(seed + k));
    const tape = (steps: number) => evalFn(gp, grad, [vec(16, 1), vec(16, 2), steps] as never, [], { tape: true }).peakTape!;
    expect((tape(12) - tape(4)) / (8 * 16)).toBeLessThanOrEqual(2.2);
    const { exports: m, result } = load(`import { grad } from 'tsad';\n${REREAD}\nexport const g = grad(reread, { wrt: [0, 1] });\n`);
    expect(result.diagnostics).toEqual([]);
    for (const steps of [0, 1, 3]) {
      const [u, w] = [vec(5, 3), vec(5, 4)];
      const [gu, gw] = m.g(Float64Array.from(u), Float64Array.from(w), steps) as Float64Array[];
      const fd = (a: number) => Array.from({ length: 5 }, (_, k) => partial(m.reread, [u, w, steps], a, k)[0]);
      expectClose([...Array.from(gu), ...Array.from(gw)], [...fd(0), ...fd(1)]);
    }
  });

  test('gradients against finite differences', () => {
    const { exports: m, result } = load(
      `import { grad } from 'tsad';\n${SOURCE}\nexport const gTwo = grad(twoWrites);\nexport const gWalk = grad(walk, { wrt: [0, 1] });\nexport const gDet = grad(detMinors);\n`,
    );
    expect(result.diagnostics).toEqual([]);
    const fdAll = (f: (...a: any[]) => number, at: any[], i: number) => Array.from({ length: at[i].length ?? 1 }, (_, k) => partial(f, at, i, k)[0]);
    const x = Array.from({ length: 9 }, (_, k) => Math.sin(k));
    expectClose(Array.from(m.gTwo(Float64Array.from(x), 40)), fdAll(m.twoWrites, [x, 40], 0));
    const w = Array.from({ length: 13 }, (_, k) => 1 + 0.1 * Math.cos(k));
    const [gw, gx] = m.gWalk(Float64Array.from(w), 0.3);
    expectClose([...Array.from(gw as Float64Array), gx], [...fdAll(m.walk, [w, 0.3], 0), partial(m.walk, [w, 0.3], 1, 0)[0]]);
    const a = Array.from({ length: 16 }, (_, k) => Math.sin(k + 1));
    expectClose(Array.from(m.gDet(Float64Array.from(a), 4)), fdAll(m.detMinors, [a, 4], 0));
  });
});
