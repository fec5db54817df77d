// A position an inner loop moves by a fixed integer step per iteration (GradBench gmm's `li`,
// carried over the columns of a packed triangle) is not stored per column: the backward pass
// rewinds it from its final value, li before a column = li after it − step · the column's trip
// count (constructs/loop/rewind.ts), and the rewinding loop is fused with the backward loop over
// the columns (constructs/loop/fuseFill.ts, both running backwards). That is exact only where
// every value of the position is an integer of at most 2²³ (exact in the GPU's f32 too) and the
// start is not −0; any other start (fractional, NaN, −0, past 2²³) or end takes the forward recurrence again, which gives the
// forward values bit for bit. Checked by the interpreter's peak tape, by the positions themselves
// (∂/∂x of x·li is li: JavaScript's own arithmetic, compared exactly), by central differences with
// loops that run zero times, and by a −0 start whose sign reaches the gradient (∂/∂x of x/li).
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
/** Entry (r, col) weighted by the position where the walk over the upper triangle is: ∂/∂x = li. */
/** @differentiable */
export function walk(x: Float64Array, o: number, d: number): number {
  let s = 0;
  let li = o;
  for (let col = 0; col < d; col++) {
    for (let r = col + 1; r < d; r++) {
      s += x[r * 8 + col] * li;
      li++;
    }
  }
  return s;
}
/** The lower triangle by columns: column 0 runs no row, so a −0 start is still −0 in column 1. */
/** @differentiable */
export function lower(x: Float64Array, o: number, d: number): number {
  let s = 0;
  let li = o;
  for (let col = 0; col < d; col++) {
    for (let r = 0; r < col; r++) {
      s += x[r * 8 + col] / li;
      li += 1;
    }
  }
  return s;
}
/** A step of 2⁴⁸: 32 steps from 1 pass 2⁵³, where the 1 is rounded away (the end is no 32-bit integer). */
/** @differentiable */
export function jump(x: Float64Array, o: number, d: number): number {
  let s = 0;
  let li = o;
  for (let col = 0; col < d; col++) {
    for (let r = 0; r < d; r++) {
      s += x[r * 8 + col] * li;
      li += 281474976710656;
    }
  }
  return s;
}
/** A step of 2¹⁰: from 2⁻⁴⁰ the fraction is rounded away at 2¹³, and the end is a 32-bit integer (the start is not). */
/** @differentiable */
export function hop(x: Float64Array, o: number, d: number): number {
  let s = 0;
  let li = o;
  for (let col = 0; col < d; col++) {
    for (let r = 0; r < d; r++) {
      s += x[r * 8 + col] * li;
      li += 1024;
    }
  }
  return s;
}
/** Downwards by 2, rows of a length the column decides (a fractional d gives fractional spans). */
/** @differentiable */
export function down(x: Float64Array, o: number, d: number): number {
  let s = 0;
  let li = o;
  for (let col = 0; col < d; col++) {
    for (let r = col; r < d; r++) {
      s += x[r * 8 + col] * li;
      li -= 2;
    }
  }
  return s;
}
/** Squares weighted by the position: its Hessian-vector product differentiates the rewinding backward pass. */
/** @differentiable */
export function quad(x: Float64Array, o: number, d: number): number {
  let s = 0;
  let li = o;
  for (let col = 0; col < d; col++) {
    for (let r = col + 1; r < d; r++) {
      s += x[r * 8 + col] * x[r * 8 + col] * li;
      li++;
    }
  }
  return s;
}
/** gmm's triangle: the position indexes l, and its final value is read too. */
/** @differentiable */
export function tri(l: Float64Array, x: Float64Array, o: number, d: number): number {
  let s = 0;
  let li = o;
  for (let col = 0; col < d; col++) {
    for (let r = col + 1; r < d; r++) {
      s += l[li] * x[r] * x[col];
      li++;
    }
  }
  return (s * s + x[0]) * (1 / li > 0 ? 1 : 2);
}
/** Σ_i Σ_c exp(−|L(x_i − μ_c)|²/2), L strictly lower triangular, column by column (gmm's loops). */
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
`;

const vec = (n: number, phase: number) => Array.from({ length: n }, (_, k) => 0.3 * Math.sin(k + phase) + 0.1);
const f64 = (xs: number[]) => Float64Array.from(xs);
const fdAll = (f: (...a: any[]) => number, at: any[], i: number) => Array.from({ length: at[i].length }, (_, k) => partial(f, at, i, k)[0]);

/** What JavaScript computes for ∂/∂x of Σ x[r·8 + col]·li: each entry gets the position it was read at (or `of` it), added to 0. */
function positions(o: number, d: number, rows: (col: number) => [number, number], step: number, of = (li: number) => li): number[] {
  const g = new Float64Array(64);
  let li = o;
  for (let col = 0; col < d; col++) {
    const [from, to] = rows(col);
    for (let r = from; r < to; r++) {
      g[r * 8 + col] += of(li);
      li += step;
    }
  }
  return Array.from(g);
}

const STARTS = [0, 1, 3, -0, -7, 2 ** -40, 0.1, 0.5, -2.5, Number.NaN, 2 ** 31 - 2, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 52 - 1, 2 ** 53 - 2, -(2 ** 53), 1e300, Infinity, -Infinity];
const SIZES = [0, 1, 2, 2.5, 5, 8];

describe('positions moved by a fixed step are rewound by the backward pass, not stored', () => {
  const { exports: m, result } = load(
    `import { grad, hvp } from 'tsad';\n${SOURCE}\nexport const gQuad = grad(quad, { wrt: [0] });\nexport const hvQuad = hvp(quad, { wrt: [0] });\n` +
      ['walk', 'lower', 'jump', 'hop', 'down'].map((f) => `export const g_${f} = grad(${f}, { wrt: [0] });\n`).join('') +
      `export const gTri = grad(tri, { wrt: [0, 1] });\nexport const gMix = grad(mix, { wrt: [0, 1, 2] });\n`,
  );

  test('compiles without diagnostics; the backward loop over the columns carries the position down, with no stack of them', () => {
    expect(result.diagnostics).toEqual([]);
    const text = result.outputText;
    const body = text.slice(text.indexOf('function walk$grad'), text.indexOf('function walk_grad'));
    // One stack only: the replay's, sized 0 where the guard holds. Unfused, the rewinding loop
    // filled a second one, d numbers per run.
    expect(body.match(/tsad\$reserve\(/g)).toHaveLength(1);
    expect(body).toMatch(/const (\w+) = \w+ \? 0 : d;\s*const (\w+) = tsad\$reserve\(\$slab, \1\);/);
  });

  test("every position is JavaScript's own, bit for bit, whatever the start (fractional, NaN, huge, −0) and size", () => {
    const cases: [string, (col: number, d: number) => [number, number], number][] = [
      ['walk', (col, d) => [col + 1, d], 1],
      ['jump', (_col, d) => [0, d], 2 ** 48],
      ['hop', (_col, d) => [0, d], 2 ** 10],
      ['down', (col, d) => [col, d], -2],
    ];
    for (const [f, rows, step] of cases) {
      for (const o of STARTS) {
        for (const d of SIZES) {
          const g = Array.from(m[`g_${f}`](f64(vec(64, 1)), o, d) as Float64Array);
          expect([f, o, d, g]).toEqual([f, o, d, positions(o, d, (col) => rows(col, d), step)]);
        }
      }
    }
  });

  test('a −0 start stays −0 where no row has run yet (∂/∂x of x/li is −∞ there)', () => {
    // Column 0 runs no row; column 1 reads li = o at row 0, then li = o + 1 …
    const g = m.g_lower(f64(vec(64, 1)), -0, 3) as Float64Array;
    expect(g[0 * 8 + 1]).toBe(-Infinity);
    expect(g[0 * 8 + 2]).toBe(1);
    expect(g[1 * 8 + 2]).toBe(1 / 2);
    const g0 = m.g_lower(f64(vec(64, 1)), 0, 3) as Float64Array;
    expect(g0[0 * 8 + 1]).toBe(Infinity);
    for (const o of [-0, 0, 2, 0.25, -3]) {
      for (const d of [0, 1, 2, 4]) {
        const g1 = Array.from(m.g_lower(f64(vec(64, 1)), o, d) as Float64Array);
        const expected = positions(
          o,
          d,
          (col) => [0, col],
          1,
          (li) => 1 / li,
        );
        expect([o, d, g1]).toEqual([o, d, expected]);
      }
    }
  });

  test('gradients against central differences, with integer starts and loops that run zero times', () => {
    for (const o of [0, 2, -0]) {
      for (const d of [0, 1, 2, 5]) {
        const at = [vec(2 + (d * (d - 1)) / 2, 1), vec(Math.max(d, 1), 2), o, d];
        const [gl, gx] = m.gTri(f64(at[0] as number[]), f64(at[1] as number[]), o, d) as Float64Array[];
        expectClose(Array.from(gl), fdAll(m.tri, at, 0));
        expectClose(Array.from(gx), fdAll(m.tri, at, 1));
      }
    }
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
  });

  test('Hessian-vector products through the rewinding backward pass: H·v = 2·li·v, against differences of the gradient', () => {
    const v = f64(vec(64, 5));
    for (const o of [0, 3, 0.5, -0]) {
      for (const d of [0, 1, 4]) {
        const x = vec(64, 2);
        const hv = Array.from(m.hvQuad(f64(x), o, d, v) as Float64Array);
        const expected = positions(o, d, (col) => [col + 1, d], 1).map((li, k) => 2 * li * v[k]);
        expectClose(hv, expected, 1e-12);
        const h = 1e-6;
        const gp = m.gQuad(f64(x.map((t, k) => t + h * v[k])), o, d) as Float64Array;
        const gm = m.gQuad(f64(x.map((t, k) => t - h * v[k])), o, d) as Float64Array;
        expectClose(
          hv,
          Array.from(gp, (p, k) => (p - gm[k]) / (2 * h)),
          1e-6,
        );
      }
    }
  });

  test('a start that is no integer reads no element: a RangeError, as the value is NaN', () => {
    // The positions o, o + 1, … are not elements of l: JavaScript reads undefined and its value is
    // NaN; the gradient was 0 in l (every add at them dropped) until s14 checked such reads.
    for (const o of [0.5, Number.NaN, -1.5]) {
      const d = 4;
      expect(() => m.gTri(f64(vec(6, 1)), f64(vec(d, 2)), o, d)).toThrow(RangeError);
    }
  });

  test('the tape holds no position per column: z and a few numbers per (point, component)', () => {
    const file = path.join(workDir(), 'rewound-positions.ts');
    fs.writeFileSync(file, SOURCE);
    const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } });
    const decl = program.getSourceFile(file)!.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === 'mix')!;
    const ir = new ModuleCompiler(nodeHost(), program.getTypeChecker(), ts.factory).lower(decl).program;
    const { program: gp, valueAndGrad } = valueAndGradOf(ir, 'mix', { ...DRIVER, wrt: [0, 1, 2] });
    const peak = (d: number, k: number, n: number) => {
      const args = [vec((d * (d - 1)) / 2, 1), vec(k * d, 3), vec(n * d, 2), d, k, n];
      return evalFn(gp, valueAndGrad, args as never[], [], { tape: true }).peakTape ?? Number.NaN;
    };
    // Per (point, component): z (d numbers), the final position, the trip count and z's start;
    // with each column's position stored it was d more.
    for (const [d, k, n] of [
      [8, 3, 4],
      [20, 2, 3],
    ]) {
      expect(peak(d, k, n)).toBeLessThanOrEqual(n * (k * (d + 4) + 8));
    }
  });
});
