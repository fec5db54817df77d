// Int32Array state (issue 22, the while-loop-with-state shape): the IR types an Int32Array as an
// array whose elements are 32-bit integers (`array<real; int32>`, ir/types.ts), every write into
// one is JavaScript's own conversion (ToInt32, the `toint32` primitive: truncated, wrapped past
// ±2³¹, NaN and ±∞ to 0), and the emitted gradient holds it as an Int32Array, so that `% 2` and
// the comparisons of a search run on integers. Each program is checked against plain JavaScript:
// the value the gradient's forward pass computes is the source's, bit for bit (a wrapped or NaN
// write included), the gradient agrees with central differences, and the interpreter agrees
// with the emitted code.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { compile, expectClose, load, partial, workDir } from './harness';
import { ModuleCompiler } from '../../transformer/compile';
import { nodeHost, runtimeEntry } from '../../transformer/plugin/host';
import { evalFn } from '../../transformer/language/interp';
import { parseProgram } from '../../transformer/language/parse';
import { typeErrors } from '../../transformer/language/check';
import { printType } from '../../transformer/ir/printType';
import { gradOf } from '../gen/drivers';
import { emitAndLoad } from '../constructs/emitted';
import { DRIVER } from '../../transformer/plan/request';
import { useTypeScript } from '../../transformer/frontend/markers';

useTypeScript(ts);

const SOURCE = `
/** @differentiable */
export function parity(a: Float64Array, rounds: number): number {
  const n = a.length;
  const seen = new Int32Array(n);
  let t = 0;
  for (let k = 0; k < rounds; k++) {
    const j = (k * 7) % n;
    seen[j] = seen[j] + 1;
    t += seen[j] % 2 === 1 ? a[j] : -a[j] * a[j];
  }
  return t;
}
/** @differentiable */
export function fractions(x: number): number {
  const s = new Int32Array(4);
  s[0] = x * 2.5;
  s[1] = -x * 2.5;
  s[2] = 3;
  s[2] += x;
  s[3] = 7;
  s[3] *= x;
  s[2]++;
  return s[0] * x + s[1] * x * x + s[2] * x + s[3];
}
/** @differentiable */
export function wraps(x: number): number {
  const s = new Int32Array(4);
  s[0] = Math.round(x) * 3e9;
  s[1] = x / 0;
  s[2] = (x - x) / (x - x);
  s[3] = -Math.round(x) * 5e9;
  return (s[0] + s[3]) * 1e-9 * x + (s[1] + s[2] + 1) * x;
}
/** @differentiable */
export function copies(a: Float64Array): number {
  const s = new Int32Array(a);
  const f = new Float64Array(s);
  f[1] = a[1] * 0.5;
  const g = Float64Array.from(s);
  g[0] = a[0] * 0.25;
  const c = s.slice();
  c[2] = a[2] * 2.5;
  const m = s.map((v) => v * 0.5 + a[0]);
  return s[0] * a[0] + f[1] * a[1] + g[0] * a[0] + c[2] * a[2] + m[0] * a[1] + m[1];
}
/** @differentiable */
export function literal(x: number): number {
  const s = new Int32Array([1.5, x * 2.5, 4e9]);
  const a = Array.from(s);
  a[0] = x * 2.5;
  return s[0] * x + s[1] * x + s[2] * 1e-9 * x + a[0] * a[1];
}
/** @differentiable */
export function indexed(x: Float64Array, idx: Int32Array): number {
  let t = 0;
  for (let i = 0; i < idx.length; i++) t += idx[i] % 2 === 0 ? x[i] * idx[i] : x[i] * x[i];
  return t;
}
/** @differentiable */
export function search(a: Float64Array, n: number): number {
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
`;

const vec = (n: number, seed: number) => Array.from({ length: n }, (_, k) => Math.sin(k * 1.3 + seed) * 1.7);

/** Each program's arguments (arrays as plain arrays: the interpreter's values) and the index of the one differentiated. */
const CASES: Record<string, unknown[][]> = {
  parity: [[vec(5, 1), 23]],
  fractions: [[1.3], [0.7], [-2.2]],
  wraps: [[0.7], [1.2]],
  copies: [[[1.4, -2.7, 3.3]], [[-0.4, 2.2, 1.9]]],
  literal: [[1.3], [-0.7]],
  indexed: [[vec(4, 2), [2, 3, -4, 5]]],
  search: [[vec(16, 3), 4]],
};

/** The arguments as the emitted code takes them: arrays as Float64Array, the index array as Int32Array. */
const typed = (fn: string, args: unknown[]) => args.map((a, i) => (Array.isArray(a) ? (fn === 'indexed' && i === 1 ? Int32Array.from(a) : Float64Array.from(a)) : a));

const flat = (g: unknown): number[] => (typeof g === 'number' ? [g] : Array.from(g as ArrayLike<number>));

const EXPORTS = Object.keys(CASES)
  .map((fn) => `export const vg_${fn} = valueAndGrad(${fn});\n`)
  .join('');

/** The source text of the emitted function `name` (to its closing brace at column 0). */
function emitted(text: string, name: string): string {
  const start = text.indexOf(`function ${name}(`);
  return start < 0 ? '' : text.slice(start, text.indexOf('\n}', start) + 2);
}

describe('Int32Array state', () => {
  const { exports: m, result } = load(`import { valueAndGrad } from 'tsad';\n${SOURCE}\n${EXPORTS}`);
  const file = path.join(workDir(), 'int32-state.ts');
  fs.writeFileSync(file, SOURCE);
  const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } });
  const ir = (fn: string) => {
    const decl = program.getSourceFile(file)!.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === fn)!;
    return new ModuleCompiler(nodeHost(), program.getTypeChecker(), ts.factory).lower(decl).program;
  };

  test('compiles without diagnostics', () => expect(result.diagnostics).toEqual([]));

  test.each(Object.keys(CASES))("%s: the gradient's value is JavaScript's, bit for bit (wrapped, NaN and fractional writes), and its gradient agrees with central differences", (fn) => {
    for (const args of CASES[fn]) {
      const [value, g] = m[`vg_${fn}`](...typed(fn, args));
      expect(value).toBe(m[fn](...typed(fn, args)));
      const at = args.map((a) => (fn === 'indexed' && a === args[1] ? Int32Array.from(a as number[]) : a));
      const n = typeof args[0] === 'number' ? 1 : (args[0] as number[]).length;
      const fd = Array.from({ length: n }, (_, k) => partial((...xs: any[]) => m[fn](...typed(fn, xs)), at as never, 0, k)[0]);
      expectClose(flat(g), fd, 1e-6);
    }
  });

  test('what JavaScript stores: 3e9 wraps to −1294967296, −5e9 to −705032704, ±∞ and NaN to 0 (trunc kept 3e9 and NaN: a wrong value and gradient)', () => {
    // d/dx of (s0 + s3)·1e−9·x + (s1 + s2 + 1)·x with the stored (constant) s: s0 + s3 in units of 1e9, plus 1.
    const [value, g] = m.vg_wraps(0.7);
    const stored = (-1294967296 + -705032704) * 1e-9;
    expect(value).toBeCloseTo(stored * 0.7 + 0.7, 12);
    expect(g).toBeCloseTo(stored + 1, 12);
  });

  test('copies between kinds: new Int32Array(a) truncates, new Float64Array(s) and Float64Array.from(s) hold reals, s.slice() and s.map(f) are Int32Arrays', () => {
    const a = [1.4, -2.7, 3.3];
    const [value, g] = m.vg_copies(Float64Array.from(a));
    // s = [1, −2, 3]; f[1] = a1/2; g[0] = a0/4; c[2] = ToInt32(2.5 a2) = 8; m = ToInt32(s/2 + a0) = [1, 0].
    expect(value).toBeCloseTo(1 * a[0] + 0.5 * a[1] * a[1] + 0.25 * a[0] * a[0] + 8 * a[2] + 1 * a[1] + 0, 12);
    expectClose(flat(g), [1 + 0.5 * a[0], a[1] + 1, 8], 1e-12);
  });

  test.each(Object.keys(CASES))('%s: the interpreter agrees with the emitted code (value and gradient)', (fn) => {
    const p = ir(fn);
    const { program: gp, grad } = gradOf(p, fn, DRIVER);
    for (const args of CASES[fn]) {
      expect(evalFn(p, fn, args as never).nl[0]).toBe(m[fn](...typed(fn, args)));
      const g = evalFn(gp, grad, args as never).nl[0];
      expectClose(flat(g as never), flat(m[`vg_${fn}`](...typed(fn, args))[1]), 1e-12);
    }
  });

  test('the gradient holds the state as Int32Array and stores into it without Math.trunc (Float64Array and Math.trunc before)', () => {
    const gradient = emitted(result.outputText, 'search$vg_0');
    expect(gradient).toMatch(/const used = new Int32Array\(/);
    expect(gradient).toMatch(/const col = new Int32Array\(/);
    expect(gradient).not.toMatch(/const (used|col) = new Float64Array/);
    // Stores into col: `col_k[r] = c | 0` (the typed array's own conversion), not Math.trunc(c).
    expect(gradient).toMatch(/col\w*\[\w+\] = [\w +]+ \| 0;/);
    expect(gradient).not.toMatch(/\] = Math\.trunc\(/);
  });

  test('the IR type prints and parses as array<real; int32>, equal to array<real> for the checker, and is no vector space (a tangent is never held as integers)', () => {
    const p = parseProgram('def f(a: array<real; int32>, i: real ;) -> (real ;) {\n  index(a, i) []\n}');
    const t = p.defs[0].nlParams[0].type!;
    expect(printType(t)).toBe('array<real; int32>');
    expect(typeErrors(p)).toEqual([]);
    expect(typeErrors(parseProgram('def f(; a: array<real; int32>) -> (; array<real; int32>) { (; a) }')).join('\n')).toMatch(/not a vector space/);
    expect(typeErrors(parseProgram('def f(; a: array<real>) -> (; array<real>) { (; a) }'))).toEqual([]);
  });

  test('gpu(...) of a function writing into an Int32Array is refused, naming the conversion (toint32 is not on the GPU)', () => {
    const found = (
      compile(
        `import { grad } from 'tsad';\nimport { gpu } from 'tsad/webgpu';\n/** @differentiable */\nfunction f(a: Float64Array): number { const s = new Int32Array(4); let t = 0; for (let i = 0; i < 4; i++) { s[i] = a[i] * 3; t += s[i] * a[i]; } return t; }\nexport const g = gpu(grad(f));\n`,
        { throwOnError: false },
      ).diagnostics ?? []
    ).map((d) => String(d.messageText));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/not on the GPU yet: it uses the primitive 'toint32'/);
  });
});

describe('the TypeScript backend never writes reals into an Int32Array', () => {
  // Programs the front end does not write (it copies between kinds itself, frontend/arrays.ts
  // inContainer), as a pass that mixed kinds would leave them: an array held as Int32Array
  // updated, written in place or cloned into a result that holds reals. The emitted
  // code copies into a Float64Array (backend/ts/constructs/array/update.ts, leavesInt32), so it
  // agrees with the interpreter, which stores 2.75 as it is.
  const mixed = (op: string, rest: string) => `def f(x: real ;) -> (real ;) {
  let n = 3
  let z = 0
  let a: array<real; int32> = fill(n, z) []
  let i = 1
  let b: array<real> = ${op}
  ${rest}
}`;
  test.each([
    ['update', mixed('update(a, i, x) []', 'index(b, i) []')],
    ['write (in place)', mixed('write(a, i, x) []', 'index(b, i) []')],
    ['clone, then a write', mixed('clone(a) []', 'let c: array<real> = write(b, i, x) []\n  index(c, i) []')],
  ])('%s', (_, src) => {
    const p = parseProgram(src);
    expect(typeErrors(p)).toEqual([]);
    expect(evalFn(p, 'f', [2.75]).nl[0]).toBe(2.75);
    const { code, fns } = emitAndLoad(p);
    expect(code).toMatch(/new Int32Array\(/);
    expect(fns.get('f')!(2.75)).toBe(2.75);
  });
});

describe('an Int32Array parameter takes an Int32Array', () => {
  // The gradient holds the parameter and its copies as 32-bit integers; a number[] or a
  // Float64Array in its place (a plain JavaScript caller, JSON data) would have its reals truncated
  // where the function's own run keeps them: the check says so instead (fuzz12's finding).
  const source = `import { valueAndGrad } from 'tsad';
/** @differentiable */
export function copyParam(x: Float64Array, idx: Int32Array): number {
  const c = idx.slice();
  c[0] = x[0] * 2.5;
  let t = 0;
  for (let i = 0; i < c.length; i++) t += c[i] * x[i];
  return t;
}
export const vc = valueAndGrad(copyParam);
`;
  test('an Int32Array passes; a number[], a Float64Array and a string are TypeErrors naming idx', () => {
    const { exports: m } = load(source);
    const x = Float64Array.from([1.3, -0.7, 2.2]);
    const [value, dx] = m.vc(x, Int32Array.from([2, 3, -4]));
    // c[0] = ToInt32(3.25) = 3: 3·1.3 + 3·(−0.7) − 4·2.2; d/dx0 = 3 (c[0] is a constant) + 0.
    expect(value).toBeCloseTo(3 * 1.3 + 3 * -0.7 - 4 * 2.2, 12);
    expectClose(Array.from(dx), [3, 3, -4], 1e-12);
    expect(() => m.vc(x, [2, 3, -4])).toThrow(new TypeError("valueAndGrad(copyParam): argument 2 'idx' must be an Int32Array, got an array of length 3"));
    expect(() => m.vc(x, Float64Array.from([2, 3, -4]))).toThrow(new TypeError("valueAndGrad(copyParam): argument 2 'idx' must be an Int32Array, got a Float64Array"));
    expect(() => m.vc(x, 'abc')).toThrow(TypeError);
  });
});
