// A matrix literal whose rows are arrays already, `[k1, k2]` passed as Float64Array[] (issue 19,
// rkf45's stage lists): the rows appended one after another, as `m.push(row)` does. JavaScript's
// literal holds k1 itself, not a copy; writes.ts refuses a write through either name, so the
// copy is not observable. Values are compared with the same source run as plain JavaScript,
// gradients with central differences, jvp with ⟨grad, v⟩.
import { compile, load, partial, expectClose, runPlain } from './harness';

const functions = `
/** @differentiable */
function combine(y: Float64Array, h: number, ks: Float64Array[], cs: number[]): Float64Array {
  const out = y.slice();
  for (let s = 0; s < ks.length; s++) {
    for (let i = 0; i < out.length; i++) out[i] += h * cs[s] * ks[s][i];
  }
  return out;
}

/** @differentiable */
function field(y: Float64Array, a: number): Float64Array {
  return y.map((v, i) => Math.sin(a * v + i));
}

/** @differentiable */
export function stages(y: Float64Array, a: number): number {
  const k1 = field(y, a);
  const k2 = field(combine(y, 0.5, [k1], [1]), a);
  const k3 = field(combine(y, 0.5, [k1, k2], [0.25, 0.75]), a);
  const next = combine(y, 0.1, [k1, k2, k3], [1 / 6, 2 / 3, 1 / 6]);
  let s = 0;
  for (let i = 0; i < next.length; i++) s += next[i] * next[i];
  return s;
}

/** @differentiable */
export function mixed(x: number[], a: number): number {
  const r = x.map((v) => v * a);
  const m: number[][] = [r, x.map((v) => v + 1), [...x]];
  let s = 0;
  for (let i = 0; i < m.length; i++) for (let j = 0; j < m[i].length; j++) s += (i + 1) * m[i][j] * m[i][j];
  return s;
}

/** @differentiable */
export function blocks(x: number[], a: number): number {
  const m1 = x.map((v) => [v, a * v]);
  const m2 = x.map((v) => [v * v, a]);
  const t: number[][][] = [m1, m2, m1];
  let s = 0;
  for (const m of t) for (const row of m) s += row[0] * row[1];
  return s + t.length;
}

/** @differentiable */
export function ragged(x: number[], y: number[]): number {
  const m: number[][] = [x, y];
  return m.length + m[0].length;
}
`;

const source = `
import { valueAndGrad, jvp } from 'tsad';
${functions}
export const gStages = valueAndGrad(stages, { wrt: [0, 1] });
export const jStages = (y: Float64Array, a: number, dy: Float64Array, da: number) => jvp(stages, [y, a], [dy, da]);
export const gMixed = valueAndGrad(mixed, { wrt: [0, 1] });
export const gBlocks = valueAndGrad(blocks, { wrt: [0, 1] });
export const gRagged = valueAndGrad(ragged, { wrt: [0, 1] });
`;

const plainModule = (): Record<string, any> => runPlain(functions);

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 1.3;

describe('a matrix literal of arrays', () => {
  const { exports: m, result } = load(source);
  const plain = plainModule();

  test('builds with no diagnostics', () => {
    expect(result.messages).toEqual([]);
  });

  test.each([0, 1, 3])('[k1, k2] of Float64Array stages at size %i', (n) => {
    const y = Float64Array.from({ length: n }, (_, i) => rand(i));
    const [value, [gy, ga]] = m.gStages(y, 0.7) as [number, [Float64Array, number]];
    expect(value).toBe(plain.stages(y, 0.7));
    const f = (v: number[], a: number) => plain.stages(Float64Array.from(v), a);
    expectClose(
      Array.from(gy),
      Array.from(y, (_, k) => partial(f, [Array.from(y), 0.7], 0, k)[0]),
    );
    expectClose([ga], partial(f, [Array.from(y), 0.7], 1, 0));
    const dy = Float64Array.from({ length: n }, (_, i) => rand(7 + i));
    const [primal, tangent] = m.jStages(y, 0.7, dy, -0.3);
    expect(primal).toBe(value);
    expectClose([tangent], [Array.from(gy).reduce((s, g, i) => s + g * dy[i], 0) - 0.3 * ga]);
  });

  test.each([0, 1, 4])('[r, x.map(f), [...x]] as number[][] at size %i', (n) => {
    const x = Array.from({ length: n }, (_, i) => rand(3 * i));
    const [value, [gx, ga]] = m.gMixed(x, 1.5);
    expect(value).toBe(plain.mixed(x, 1.5));
    expectClose(
      gx,
      x.map((_, k) => partial(plain.mixed, [x, 1.5], 0, k)[0]),
    );
    expectClose([ga], partial(plain.mixed, [x, 1.5], 1, 0));
  });

  test.each([0, 1, 3])('[m1, m2, m1] as number[][][] at size %i', (n) => {
    const x = Array.from({ length: n }, (_, i) => rand(5 * i));
    const [value, [gx, ga]] = m.gBlocks(x, -0.6);
    expect(value).toBe(plain.blocks(x, -0.6));
    expectClose(
      gx,
      x.map((_, k) => partial(plain.blocks, [x, -0.6], 0, k)[0]),
    );
    expectClose([ga], partial(plain.blocks, [x, -0.6], 1, 0));
  });

  test('rows of different lengths are a RangeError (a matrix is rectangular)', () => {
    expect(m.gRagged([1, 2], [3, 4])[0]).toBe(4);
    expect(() => m.gRagged([1, 2], [3])).toThrow(RangeError);
  });
});

describe('what stays refused', () => {
  test('a write into a row after it went into the literal (JavaScript would show it through the matrix)', () => {
    const r = compile(
      `
/** @differentiable */
export function f(x: number[]): number {
  const r = x.slice();
  const m: number[][] = [r, x];
  r[0] = 5;
  return m[0][0];
}`,
      { throwOnError: false },
    );
    expect(r.messages.join('\n')).toContain('TSAD1123');
  });

  test('a write into the matrix of rows that are other arrays', () => {
    const r = compile(
      `
/** @differentiable */
export function f(x: number[]): number {
  const r = x.slice();
  const m: number[][] = [r, r];
  m[0][0] = 5;
  return m[1][0];
}`,
      { throwOnError: false },
    );
    expect(r.messages.join('\n')).toContain('TSAD1122');
  });
});
