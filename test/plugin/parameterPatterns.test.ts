// Destructuring patterns as parameters of marked functions (issue 19): `solve({ lu, perm }: LU, b)`,
// `([x, y]: [number, number])`, renamed and nested fields. A pattern is one argument whose names
// are bound to its parts. Values are compared with the same source run as plain JavaScript,
// gradients with central differences, at sizes 0, 1 and 3.
import * as ts from 'typescript';
import { compile, load, partial, expectClose, leaves, runPlain } from './harness';

const functions = `
export interface LU {
  lu: number[][];
  perm: number[];
}

/** @differentiable */
export function solveLower({ lu, perm }: LU, b: number[]): number[] {
  const n = lu.length;
  const x = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    let s = b[perm[i]];
    for (let k = 0; k < i; k++) s -= lu[i][k] * x[k];
    x[i] = s;
  }
  return x;
}

/** @differentiable */
export function energy(A: number[][], b: number[]): number {
  const perm = A.map((_, i) => A.length - 1 - i);
  const x = solveLower({ lu: A, perm }, b);
  return x.reduce((s, v) => s + v * v, 0);
}

/** @differentiable */
export function polar([x, y]: [number, number], { scale: k, offset }: { scale: number; offset: [number, number] }): number {
  const [ox, oy] = offset;
  return k * Math.hypot(x - ox, y - oy) + Math.atan2(y, x);
}

/** @differentiable */
export function nested({ layer: { w, b } }: { layer: { w: number[]; b: number } }, xs: number[]): number {
  let s = b;
  for (let i = 0; i < xs.length; i++) s += Math.tanh(w[i] * xs[i]);
  return s * s;
}

`;

const source = `
import { valueAndGrad, grad, jvp } from 'tsad';
${functions}
export const gEnergy = valueAndGrad(energy, { wrt: [0, 1] });
export const gPolar = valueAndGrad(polar, { wrt: [0, 1] });
export const gNested = grad(nested, { wrt: [0, 1] });
export const jPolar = (p: [number, number], o: { scale: number; offset: [number, number] }, dp: [number, number], dq: { scale: number; offset: [number, number] }) =>
  jvp(polar, [p, o], [dp, dq]);
`;

const plainModule = (): Record<string, any> => runPlain(functions);

const rand = (k: number) => Math.sin(12.9898 * k) * 0.5;
const matrix = (n: number) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 2 + rand(i) : rand(7 * i + j))));
const vector = (n: number, s = 1) => Array.from({ length: n }, (_, i) => rand(3 * i + s) + 0.3);

describe('destructured parameters', () => {
  const { exports: m, result } = load(source);
  const plain = plainModule();

  test('compiles without diagnostics', () => {
    expect(result.diagnostics.map((d) => d.messageText)).toEqual([]);
  });

  test.each([0, 1, 3])('{ lu, perm }: LU at size %i agrees with plain JavaScript and central differences', (n) => {
    const A = matrix(n);
    const b = vector(n);
    const [value, [gA, gb]] = m.gEnergy(A, b);
    expect(value).toBe(plain.energy(A, b));
    expect(m.solveLower({ lu: A, perm: b.map((_, i) => i) }, b)).toEqual(plain.solveLower({ lu: A, perm: b.map((_, i) => i) }, b));
    expectClose(
      leaves(gA),
      leaves(A).map((_, k) => partial(plain.energy, [A, b], 0, k)[0]),
    );
    expectClose(
      gb,
      b.map((_, k) => partial(plain.energy, [A, b], 1, k)[0]),
    );
  });

  test('tuple and renamed, nested object patterns', () => {
    const p: [number, number] = [0.8, -0.4];
    const o = { scale: 1.3, offset: [0.1, 0.2] as [number, number] };
    const [value, [gp, go]] = m.gPolar(p, o);
    expect(value).toBe(plain.polar(p, o));
    expectClose(
      gp,
      [0, 1].map((k) => partial(plain.polar, [p, o], 0, k)[0]),
    );
    // Leaves of o in key order: offset[0], offset[1], scale.
    expectClose(
      [go.offset[0], go.offset[1], go.scale],
      [0, 1, 2].map((k) => partial(plain.polar, [p, o], 1, k)[0]),
    );
    const [, tangent] = m.jPolar(p, o, [1, 0], { scale: 0, offset: [0, 0] });
    expectClose([tangent], [gp[0]]);
    for (const n of [0, 1, 3]) {
      const layer = { layer: { w: vector(n, 5), b: 0.4 } };
      const xs = vector(n, 9);
      expect(m.nested(layer, xs)).toBe(plain.nested(layer, xs));
      const [gl, gx] = m.gNested(layer, xs);
      expectClose([...leaves(gl.layer.w), gl.layer.b], [...layer.layer.w.map((_, k) => partial(plain.nested, [layer, xs], 0, k + 1)[0]), partial(plain.nested, [layer, xs], 0, 0)[0]]);
      expectClose(
        gx,
        xs.map((_, k) => partial(plain.nested, [layer, xs], 1, k)[0]),
      );
    }
  });
});

test("a write into an array of a destructured parameter is refused with the parameter named (it would change the caller's array)", () => {
  const { diagnostics } = compile(
    `
import { grad } from 'tsad';
/** @differentiable */
export function scaled({ xs }: { xs: number[] }, k: number): number {
  xs[0] *= k;
  return xs[0] * k;
}
export const g = grad(scaled, { wrt: [1] });
`,
    { throwOnError: false },
  );
  const text = diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(text).toHaveLength(1);
  expect(text[0]).toContain("TSAD1122: 'xs' is part of the parameter { xs }: writing into it would change the caller's array");
});
