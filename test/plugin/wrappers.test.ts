// The wrappers a transform call becomes own what they keep and what they hand back: a pullback
// (vjp) or linear function (linearize) computes from the arguments as they were at the call,
// whatever the caller writes into its arrays afterwards, and every array or tuple a wrapper
// returns is new (never the caller's primal, tangent or cotangent, never a residual a closure
// still reads). Argument checks read the first number of an array or matrix.
import { compile, load, expectClose, expectTypeError } from './harness';

const source = `
import { vjp, jvp, linearize, hvp, grad } from 'tsad';

/** @differentiable */
export function cubes(w: number[]): number {
  let s = 0;
  for (const x of w) s += x * x * x;
  return s;
}

/** @differentiable */
export function cubes64(w: Float64Array): number {
  let s = 0;
  for (let i = 0; i < w.length; i++) s += w[i] * w[i] * w[i];
  return s;
}

/** @differentiable */
export function cubesM(m: number[][]): number {
  let s = 0;
  for (let i = 0; i < m.length; i++) for (let j = 0; j < m[i].length; j++) s += m[i][j] * m[i][j] * m[i][j];
  return s;
}

/** @differentiable */
export function weighted(p: { a: Float64Array; b: number[] }, c: number): number {
  let s = 0;
  for (let i = 0; i < p.a.length; i++) s += p.a[i] * p.a[i] * p.b[i] * c;
  return s;
}

/** @differentiable */
export function total(w: number[]): number {
  let s = 0;
  for (const x of w) s += 2 * x;
  return s;
}

/** @differentiable */
export function same(w: number[]): number[] {
  return w;
}

/** @differentiable */
export function same64(w: Float64Array): Float64Array {
  return w;
}

/** @differentiable */
export function sameTuple(t: [number, number]): [number, number] {
  return t;
}

/** @differentiable */
export function exps(w: Float64Array): Float64Array {
  return w.map((x) => Math.exp(x));
}

/** @differentiable */
export function half(w: Float64Array): number {
  let s = 0;
  for (let i = 0; i < w.length; i++) s += 0.5 * w[i] * w[i];
  return s;
}

/** @differentiable */
export function halfTuple(t: [number, number]): number {
  return 0.5 * (t[0] * t[0] + t[1] * t[1]);
}

export const vjpCubes = (w: number[]) => vjp(cubes, w);
export const linCubes = (w: number[]) => linearize(cubes, w);
export const vjpCubes64 = (w: Float64Array) => vjp(cubes64, w);
export const linCubes64 = (w: Float64Array) => linearize(cubes64, w);
export const vjpCubesM = (m: number[][]) => vjp(cubesM, m);
export const linCubesM = (m: number[][]) => linearize(cubesM, m);
export const vjpWeighted = (p: { a: Float64Array; b: number[] }, c: number) => vjp(weighted, p, c);
export const linWeighted = (p: { a: Float64Array; b: number[] }, c: number) => linearize(weighted, p, c);
export const vjpTotal = (w: number[]) => vjp(total, w);
export const vjpSame = (w: number[]) => vjp(same, w);
export const jvpSame = (w: number[], t: number[]) => jvp(same, [w], [t]);
export const linSame = (w: number[]) => linearize(same, w);
export const vjpSame64 = (w: Float64Array) => vjp(same64, w);
export const jvpSame64 = (w: Float64Array, t: Float64Array) => jvp(same64, [w], [t]);
export const linSame64 = (w: Float64Array) => linearize(same64, w);
export const vjpSameTuple = (t: [number, number]) => vjp(sameTuple, t);
export const jvpSameTuple = (t: [number, number], d: [number, number]) => jvp(sameTuple, [t], [d]);
export const vjpExps = (w: Float64Array) => vjp(exps, w);
export const hvpHalf = hvp(half);
export const hvpHalfTuple = hvp(halfTuple);
export const gradCubes = grad(cubes);
export const gradCubes64 = grad(cubes64);
export const gradCubesM = grad(cubesM);
export const gradWeighted = grad(weighted);
`;

const { exports: m, result } = load(source);

test('the snippet compiles cleanly', () => {
  expect(result.typeErrors.map(String)).toEqual([]);
  expect(result.diagnostics).toEqual([]);
});

// Σ w³ at w = [1, 2]: the gradient 3w² = [3, 12], the tangent along [1, 1] is 3 + 12 = 15.
describe('a pullback and a linear function read the arguments as they were at the call', () => {
  test('number[]: vjp and linearize, then the caller writes into its array', () => {
    const w = [1, 2];
    const [value, pullback] = m.vjpCubes(w);
    w[0] = 100;
    w.push(7);
    expect(value).toBe(9);
    expect(pullback(1)).toEqual([[3, 12]]);
    const u = [1, 2];
    const [, fLin] = m.linCubes(u);
    u[0] = 100;
    expect(fLin([1, 1])).toBe(15);
  });

  test('Float64Array', () => {
    const w = Float64Array.from([1, 2]);
    const [, pullback] = m.vjpCubes64(w);
    w[0] = 100;
    expect(Array.from(pullback(2)[0])).toEqual([6, 24]);
    const u = Float64Array.from([1, 2]);
    const [, fLin] = m.linCubes64(u);
    u[0] = 100;
    expect(fLin(Float64Array.from([1, 1]))).toBe(15);
  });

  test('a matrix: its numbers and its shape', () => {
    const M = [
      [1, 2],
      [3, 4],
    ];
    const [, pullback] = m.vjpCubesM(M);
    M[0][0] = 100;
    M.push([5, 6]);
    expect(pullback(1)).toEqual([
      [
        [3, 12],
        [27, 48],
      ],
    ]);
    const N = [
      [1, 2],
      [3, 4],
    ];
    const [, fLin] = m.linCubesM(N);
    N[1][1] = 100;
    // Σ 3 m² dm with dm = 1 everywhere: 3 (1 + 4 + 9 + 16).
    expect(
      fLin([
        [1, 1],
        [1, 1],
      ]),
    ).toBe(90);
  });

  test('an object of arrays', () => {
    // Σ a² b c: ∂/∂a = 2 a b c, ∂/∂b = a² c, ∂/∂c = Σ a² b.
    const p = { a: Float64Array.from([1, 2]), b: [3, 4] };
    const [, pullback] = m.vjpWeighted(p, 0.5);
    p.a[0] = 100;
    p.b[1] = 100;
    const [pa, c] = pullback(1);
    expect(Array.from(pa.a)).toEqual([3, 8]);
    expect(pa.b).toEqual([0.5, 2]);
    expect(c).toBe(19);
    const q = { a: Float64Array.from([1, 2]), b: [3, 4] };
    const [, fLin] = m.linWeighted(q, 0.5);
    q.a[1] = 100;
    expectClose([fLin({ a: Float64Array.from([1, 0]), b: [0, 1] }, 0)], [3 + 2]);
  });

  test('a closure that keeps no array still sees the length the array had', () => {
    const wrapper = (name: string) => {
      const text = result.outputText;
      const at = text.indexOf(`function ${name}(`);
      return text.slice(at, text.indexOf('\n}', at));
    };
    expect(wrapper('cubes_vjp')).toMatch(/w = w\.slice\(\)/);
    // grad returns no closure: nothing to copy.
    expect(wrapper('cubes_grad')).not.toMatch(/\.slice\(\)/);
    // Σ 2w is linear: its tape keeps no array, but the cotangent comes back as long as w was.
    const w = [1, 2];
    const [, pullback] = m.vjpTotal(w);
    w.push(3);
    expect(pullback(1)).toEqual([[2, 2]]);
  });
});

describe('what a wrapper returns is new', () => {
  test('vjp and jvp of a function returning its parameter: a new primal, tangent and cotangent', () => {
    for (const [v, j, make] of [
      [m.vjpSame, m.jvpSame, (xs: number[]) => xs],
      [m.vjpSame64, m.jvpSame64, (xs: number[]) => Float64Array.from(xs)],
      [m.vjpSameTuple, m.jvpSameTuple, (xs: number[]) => xs],
    ] as const) {
      const w = make([3, 4]);
      const [value, pullback] = v(w);
      expect(value).not.toBe(w);
      expect(Array.from(value)).toEqual([3, 4]);
      const ct = make([1, 2]);
      const [bar] = pullback(ct);
      expect(bar).not.toBe(ct);
      expect(Array.from(bar)).toEqual([1, 2]);
      const t = make([5, 6]);
      const [y, dy] = j(w, t);
      expect(y).not.toBe(w);
      expect(dy).not.toBe(t);
      expect(Array.from(dy)).toEqual([5, 6]);
    }
  });

  test('linearize of a function returning its parameter', () => {
    for (const [lin, make] of [
      [m.linSame, (xs: number[]) => xs],
      [m.linSame64, (xs: number[]) => Float64Array.from(xs)],
    ] as const) {
      const w = make([3, 4]);
      const [value, fLin] = lin(w);
      expect(value).not.toBe(w);
      const t = make([5, 6]);
      const out = fLin(t);
      expect(out).not.toBe(t);
      expect(Array.from(out)).toEqual([5, 6]);
    }
  });

  test('the value vjp returns is not the residual its pullback reads', () => {
    // exp's derivative is its value: writing into the returned value must not change the pullback.
    const w = Float64Array.from([0, 1]);
    const [value, pullback] = m.vjpExps(w);
    value[0] = 100;
    value[1] = 100;
    expectClose(Array.from(pullback(Float64Array.from([1, 1]))[0]), [1, Math.E], 1e-14);
  });

  test('hvp: H·v of ½|x|² is v, handed back as a new value', () => {
    const v = Float64Array.from([1, 2]);
    const out = m.hvpHalf(Float64Array.from([3, 4]), v);
    expect(out).not.toBe(v);
    expect(Array.from(out)).toEqual([1, 2]);
    const vt: [number, number] = [1, 2];
    const outT = m.hvpHalfTuple([3, 4], vt);
    expect(outT).not.toBe(vt);
    expect(outT).toEqual([1, 2]);
  });
});

describe('argument checks read the first number of an array or matrix', () => {
  test('number[] and Float64Array parameters', () => {
    expectTypeError(() => m.gradCubes(['1', '2']), "grad(cubes): argument 1 'w' element 0 must be a number, got string");
    expectTypeError(() => m.gradCubes([null]), "grad(cubes): argument 1 'w' element 0 must be a number, got null");
    expectTypeError(() => m.vjpCubes([[1], [2]]), "vjp(cubes): argument 1 'w' element 0 must be a number, got an array of length 1");
    expectTypeError(() => m.gradCubes64(BigInt64Array.from([1n])), "grad(cubes64): argument 1 'w' element 0 must be a number, got bigint");
    // The empty array has no first number to check.
    expect(m.gradCubes([])).toEqual([]);
  });

  test("a matrix: its first row, then that row's first number", () => {
    expectTypeError(() => m.gradCubesM([1, 2]), "grad(cubesM): argument 1 'm' row 0 must be an array of numbers (number[], Float64Array or Float32Array), got number");
    expectTypeError(() => m.gradCubesM([['1']]), "grad(cubesM): argument 1 'm' row 0 element 0 must be a number, got string");
    expectTypeError(() => m.gradCubesM(5), "grad(cubesM): argument 1 'm' must be a matrix (number[][] or Float64Array[]), got number");
    expect(m.gradCubesM([[]])).toEqual([[]]);
  });

  test('arrays inside objects, named by their path', () => {
    expectTypeError(() => m.gradWeighted({ a: Float64Array.from([1]), b: ['3'] }, 1), "grad(weighted): argument 1 'p.b' element 0 must be a number, got string");
  });

  test('tangents and cotangents', () => {
    const [, pullback] = m.vjpSame([1, 2]);
    expectTypeError(() => pullback(['1', 2]), "vjp(same)'s pullback: argument 1 'cotangent' element 0 must be a number, got string");
    expectTypeError(() => m.jvpSame([1, 2], [undefined, 2]), "jvp(same): tangents[0] 'w' element 0 must be a number, got undefined");
    expectTypeError(() => m.jvpSame(['1', 2], [1, 2]), "jvp(same): primals[0] 'w' element 0 must be a number, got string");
    const [, fLin] = m.linCubesM([[1, 2]]);
    expectTypeError(() => fLin([['x', 1]]), "linearize(cubesM)'s linear function: argument 1 'm' row 0 element 0 must be a number, got string");
    expectTypeError(() => m.hvpHalf(Float64Array.from([1]), ['1']), "hvp(half): argument 2 'v' element 0 must be a number, got string");
  });
});

/** The tsad diagnostics of a source, as `line:col CODE` with the message. */
function diagnosticsOf(src: string): string[] {
  const r = compile(src, { throwOnError: false });
  return r.diagnostics.map((d) => {
    const { line, character } = d.file!.getLineAndCharacterOfPosition(d.start!);
    const text = typeof d.messageText === 'string' ? d.messageText : d.messageText.messageText;
    return `${line + 1}:${character + 1} ${text}`;
  });
}

describe('a variable holding a differentiable function', () => {
  test('a let assigned another function is an error at the assignment, not the first function differentiated', () => {
    const src = `import { differentiable, grad } from 'tsad';
let f = differentiable((x: number) => x * x);
f = differentiable((x: number) => x * x * x);
export const d = grad(f);`;
    const found = diagnosticsOf(src);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^3:1 TSAD1009: 'f' holds a differentiable function \(declared with let on line 2\) and is assigned again here/);
    expect(found[0]).toContain('hint: hold a differentiable function in a const');
    // Inside a differentiable function that calls it, too; and `f += …`, `[f] = …` are assignments.
    for (const write of ['[f] = [(x: number) => x];', 'for (f of [(x: number) => x]) {}', 'var h = 0; h++;']) {
      const inner = `import { differentiable, grad } from 'tsad';
let f = differentiable((x: number) => x * x);
${write}
/** @differentiable */
function g(x: number) { return f(x) + x; }
export const d = grad(g);`;
      const out = diagnosticsOf(inner);
      // Writing another variable is no reason to refuse f.
      if (write.startsWith('var')) expect(out).toEqual([]);
      else expect(out.map((m) => m.slice(0, m.indexOf(':', 5)))).toEqual([`3:${write.search(/\bf\b/) + 1} TSAD1009`]);
    }
  });

  test('a let never assigned again, or a var, still works', () => {
    const { exports: m, result } = load(`import { differentiable, grad } from 'tsad';
let f = differentiable((x: number) => x * x * x);
var h = differentiable((x: number) => Math.sin(x));
export const d = grad(f);
export const e = grad(h);`);
    expect(result.diagnostics).toEqual([]);
    expect(m.d(2)).toBe(12);
    expect(m.e(0.5)).toBeCloseTo(Math.cos(0.5), 14);
  });
});

describe('aliases of a transform', () => {
  test('a const alias, a renamed import, a namespace member and an alias in a const chain compile', () => {
    const { exports: m, result } = load(`import { grad as derivativeOf, hvp } from 'tsad';
import * as tsad from 'tsad';
const g = tsad.grad;
const h = g;
const v = hvp;
/** @differentiable */
function f(x: number) { return x * x * x; }
export const d1 = g(f);
export const d2 = h(f);
export const d3 = derivativeOf(f);
export const d4 = tsad.grad(f);
export const d5 = (x: number) => v(f)(x, 1);`);
    expect(result.diagnostics).toEqual([]);
    for (const d of [m.d1, m.d2, m.d3, m.d4]) expect(d(3)).toBe(27);
    expect(m.d5(3)).toBe(18);
  });

  test('a transform held by a let, passed or stored is an error at the use', () => {
    const found = diagnosticsOf(`import { grad, jvp } from 'tsad';
/** @differentiable */
function f(x: number) { return x * x; }
let g = grad;
export const d = g(f);
export const table = { grad, j: jvp };
export type G = typeof grad;
const call = (t: unknown) => t;
export const e = call(grad);`);
    expect(found.map((m) => m.slice(0, m.indexOf(':', 5)))).toEqual(['4:9 TSAD1010', '6:24 TSAD1010', '6:33 TSAD1010', '9:23 TSAD1010']);
    expect(found[0]).toContain("'g' holds the transform grad in a let");
    expect(found[1]).toContain('the transform grad is used here as a value, not called');
    expect(found[2]).toContain('the transform jvp is used here as a value');
  });
});
