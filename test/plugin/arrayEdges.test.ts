// Arrays where JavaScript's own rules decide (issue 18): Float32Array stores round to float32,
// lengths read as JavaScript reads them, second order through array literals and boolean
// residuals, forward over reverse of derivatives of array functions, matrix copies, new Array(n)
// with writes, and the hints of the diagnostics about them. Numbers against plain JavaScript
// (the uncompiled function), central differences and hand derivations.
import { compile, directional, expectClose, load, partial } from './harness';

const { exports: m } = load(`import { grad, valueAndGrad, jvp, vjp, hessian, hvp, jacobian, sum, iota } from 'tsad';

/** @differentiable */
export function f32map(x: Float32Array): number {
  const y = x.map((v) => v * 0.1 + Math.sin(v) / 3);
  let s = 0;
  for (let i = 0; i < y.length; i++) s += y[i] * y[i];
  return s;
}
/** @differentiable */
export function f32built(x: number[], c: number): number {
  const a = Float32Array.from(x, (v) => v * c);
  const b = Float32Array.from({ length: x.length }, (_, i) => x[i] / 3 + c);
  const d = new Float32Array(x);
  const e = Float32Array.from(x);
  const f = new Float32Array(x.length).fill(c / 7);
  return sum(a) * 1.5 + sum(b) + sum(d) * c + sum(e) + sum(f) * x[0];
}
/** @differentiable */
export function f32rows(x: Float32Array): Float32Array {
  return x.map((v) => v / 3);
}

/** @differentiable */
export function diffs(a: Float64Array): number {
  const d = Float64Array.from({ length: a.length - 1 }, (_, i) => a[i + 1] - a[i]);
  return sum(d.map((x) => x * x));
}
/** @differentiable */
export function firstN(a: number[], n: number): number {
  const d = Array.from({ length: n }, (_, i) => a[0] * (i + 1));
  return sum(d) + d.length;
}
/** @differentiable */
export function zerosN(a: number[], n: number): number {
  const z = new Float64Array(n);
  return sum(z) + z.length * a[0] + iota(n).length;
}
/** @differentiable */
export function filledN(a: number[], n: number): number {
  const z = new Array(n).fill(a[0]);
  return sum(z);
}
/** @differentiable */
export function sliced(a: number[], s: number, e: number): number {
  const b = a.slice(s, e);
  let t = 0;
  for (let i = 0; i < b.length; i++) t += b[i] * (i + 1);
  return t + b.length;
}

/** @differentiable */
export function literalLoop(x: number, y: number): number {
  let s = 0;
  for (const v of [x, y]) s += v * v * x;
  return s;
}
/** @differentiable */
export function selected(a: number[]): number {
  return sum(a.map((x) => (x > 0 ? x * x * x : x * x)));
}

/** @differentiable */
export function cubic(w: number[]): number {
  let s = 0;
  for (let i = 0; i < w.length; i++) s += w[i] * w[i] * w[0];
  return s;
}
export const hessVec = (w: number[], v: number[]) => jvp(grad(cubic), [w], [v]);
export const hessVecHvp = (w: number[], v: number[]) => hvp(cubic)(w, v);
/** @differentiable */
export function mapped(w: number[]): number {
  return sum(w.map((x) => x * x * w[0]));
}
/** @differentiable */
export function usesGrad(w: number[], c: number): number {
  const d = grad(mapped)(w);
  const [v, d2] = valueAndGrad(mapped)(w);
  return sum(d.map((x) => x * x)) * c + d.length + v * d2[1] + hvp(mapped)(w, w)[0] + jvp(mapped, [w], [w])[1];
}

/** @differentiable */
export function copied(A: number[][]): number {
  const G = A.map((r) => r.map((x) => x * x));
  G[0][0] = G[0][0] * G[1][1];
  const K = G.map((r) => r.slice());
  K[1][0] = 3 * K[0][0];
  const S = A.slice(1);
  return G[1][0] + K[1][0] + K[0][1] * G[0][0] + S[0][1] * S.length;
}

/** @differentiable */
export function holes(x: number[]): number {
  const b: number[] = new Array(x.length);
  for (let i = 0; i < x.length; i++) b[i] = x[i] * x[i];
  const c = new Array<number>(x.length);
  for (let i = 0; i < x.length; i++) c[i] = Math.sin(b[i]);
  return sum(c) + b[0];
}
/** @differentiable */
export function oneHole(x: number[]): number {
  const b: number[] = new Array(x.length + 1);
  for (let i = 0; i < x.length; i++) b[i] = x[i];
  return b[x.length] * x[0] + b[0];
}
/** @differentiable */
export function holesOf(x: number[], n: number): number[] {
  const b: number[] = new Array(n);
  for (let i = 0; i < x.length; i++) b[i] = 2 * x[i];
  return b;
}

export const d = {
  f32map: valueAndGrad(f32map),
  f32built: valueAndGrad(f32built, { wrt: [0, 1] }),
  f32rows: (x: Float32Array, t: Float32Array) => jvp(f32rows, [x], [t]),
  f32rowsVjp: (x: Float32Array) => vjp(f32rows, x),
  diffs: valueAndGrad(diffs),
  firstN: valueAndGrad(firstN),
  zerosN: valueAndGrad(zerosN),
  filledN: valueAndGrad(filledN),
  sliced: valueAndGrad(sliced),
  literalLoop: grad(literalLoop, { wrt: [0, 1] }),
  literalHessian: hessian(literalLoop, { wrt: [0, 1] }),
  literalHvp: hvp(literalLoop, { wrt: [0, 1] }),
  literalJvpGrad: (x: number, y: number, dx: number, dy: number) => jvp(grad(literalLoop, { wrt: [0, 1] }), [x, y], [dx, dy]),
  selected: grad(selected),
  selectedHessian: hessian(selected),
  cubic: grad(cubic),
  usesGrad: valueAndGrad(usesGrad, { wrt: [0, 1] }),
  copied: valueAndGrad(copied),
  holes: valueAndGrad(holes),
  oneHole: valueAndGrad(oneHole),
  holesOf: jacobian(holesOf),
};
`);
const d = m.d;

/** What JavaScript itself gives: the value, or the error's class and message. */
function outcome(f: () => unknown): unknown {
  try {
    return f();
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
}

describe('5: a Float32Array local holds float32 values, as JavaScript stores them', () => {
  test('.map of a Float32Array: the compiled primal is the function value exactly, the gradient is the double one', () => {
    const x = new Float32Array([0.3, 0.7, 0.11, -2.5]);
    const [v, g] = d.f32map(x);
    expect(v).toBe(m.f32map(x));
    expect(g).toBeInstanceOf(Float32Array);
    // The rounding's derivative is the identity's: d/dx Σ y², y = x/10 + sin(x)/3.
    const want = [...x].map((t) => 2 * Math.fround(t * 0.1 + Math.sin(t) / 3) * (0.1 + Math.cos(t) / 3));
    expectClose([...g], want.map(Math.fround), 1e-7);
  });

  test('Float32Array.from (with and without a callback, from { length }), new Float32Array(a), new Float32Array(n).fill(x)', () => {
    for (const [x, c] of [
      [[0.1, 0.2, 0.7], 0.3],
      [[1 / 3], 2.2],
      [[], 1.1],
    ] as [number[], number][]) {
      // x = []: x[0] is undefined and sum(f) * x[0] NaN in JavaScript; compiled, the read past
      // the end is a RangeError (frontend/readChecks.ts), never a gradient of a NaN value.
      if (x.length === 0) {
        expect(Number.isNaN(m.f32built(x, c))).toBe(true);
        expect(() => d.f32built(x, c)).toThrow(RangeError);
        continue;
      }
      const [v, [gx, gc]] = d.f32built(x, c);
      expect(v).toBe(m.f32built(x, c));
      const plain = (xs: number[], cc: number) => m.f32built(xs, cc);
      // Central differences of a function that rounds are off by the rounding: the straight-through
      // derivative is the one of the same function computed in double precision.
      const double = (xs: number[], cc: number) =>
        1.5 * cc * xs.reduce((s, t) => s + t, 0) + xs.reduce((s, t) => s + t / 3 + cc, 0) + cc * xs.reduce((s, t) => s + t, 0) + xs.reduce((s, t) => s + t, 0) + ((xs.length * cc) / 7) * (xs[0] ?? 0);
      expect(plain(x, c)).toBeCloseTo(double(x, c), 5);
      expectClose([...gx, gc], [...partialAll(double, [x, c], 0, x.length), ...partial(double, [x, c], 1, 0)], 1e-5);
    }
  });

  test('jvp and vjp of a function returning a Float32Array: the primal rounded, the tangent not', () => {
    const x = new Float32Array([0.1, 2]);
    const [y, t] = d.f32rows(x, new Float32Array([1, 1]));
    expect([...y]).toEqual([...m.f32rows(x)]);
    expectClose([...t], [1 / 3, 1 / 3].map(Math.fround), 1e-7);
    const [y2] = d.f32rowsVjp(x);
    expect([...y2]).toEqual([...m.f32rows(x)]);
  });
});

function partialAll(f: (...a: any[]) => number, at: any[], i: number, n: number): number[] {
  return Array.from({ length: n }, (_, k) => partial(f, at, i, k)[0]);
}

describe('6: lengths from user code as JavaScript reads them', () => {
  test('Float64Array.from({ length: a.length - 1 }) of an empty array is empty (ToLength clamps to 0)', () => {
    expect(d.diffs(new Float64Array([]))).toEqual([0, new Float64Array([])]);
    const a = new Float64Array([1, 3, 2.5]);
    const [v, g] = d.diffs(a);
    expect(v).toBe(m.diffs(a));
    expectClose(
      [...g],
      partialAll((x: number[]) => m.diffs(Float64Array.from(x)), [[...a]], 0, 3),
    );
  });

  test.each([3, 2.7, 0, -1, -0.5, NaN])('Array.from({ length: %p }): truncated, NaN and negatives 0', (n) => {
    const a = [1.5, 2];
    const [v, g] = d.firstN(a, n);
    expect(v).toBe(m.firstN(a, n));
    expectClose(
      g,
      partialAll((x: number[]) => m.firstN(x, n), [a], 0, 2),
    );
  });

  test.each([3, 2.7, 0, -0.5, NaN, -1, -2.5])('new Float64Array(%p), iota: ToIndex (a negative length is the same RangeError)', (n) => {
    const a = [1.5, 2];
    const want = outcome(() => m.zerosN(a, n));
    const got = outcome(() => d.zerosN(a, n)[0]);
    expect(typeof got === 'string' ? got.replace(/^RangeError: valueAndGrad\(zerosN\): /, 'RangeError: ') : got).toEqual(want);
  });

  test.each([3, 0, 2.5, -1, NaN])('new Array(%p).fill(x): a RangeError unless the length is a whole number', (n) => {
    const a = [1.5, 2];
    const want = outcome(() => m.filledN(a, n));
    const got = outcome(() => d.filledN(a, n)[0]);
    if (typeof want === 'string') expect(got).toMatch(/^RangeError: valueAndGrad\(filledN\): Invalid array length/);
    else expect(got).toBe(want);
  });

  test.each([
    [1, 3],
    [1.7, 2.9],
    [-2, -0.5],
    [NaN, 2],
    [0, NaN],
    [-Infinity, Infinity],
    [3, 1],
  ])('.slice(%p, %p): positions truncated, NaN as 0', (s, e) => {
    const a = [1, 2, 3, 4];
    const [v, g] = d.sliced(a, s, e);
    expect(v).toBe(m.sliced(a, s, e));
    expectClose(
      g,
      partialAll((x: number[]) => m.sliced(x, s, e), [a], 0, 4),
    );
  });
});

describe('12: second order through a number[] literal and through selects inside a map', () => {
  test('for (const v of [x, y]): hessian, hvp and jvp(grad) against central differences of grad', () => {
    const at: [number, number] = [1.5, 2];
    const g = (x: number, y: number) => d.literalLoop(x, y);
    expectClose(g(...at), [3 * 1.5 ** 2 + 4, 2 * 1.5 * 2]);
    const H = d.literalHessian(...at).map((row: number[][][]) => row.map((b) => b[0][0]));
    const fd = [0, 1].map((i) => partial(g, at, i, 0));
    // H[a][b] = ∂²f/∂a∂b: column i of the finite differences of the gradient.
    expectClose(H.flat(), [fd[0][0], fd[1][0], fd[0][1], fd[1][1]], 1e-5);
    const v = [1, 0.5];
    const hv = directional(g, at, v);
    expectClose(d.literalHvp(...at, v), hv, 1e-5);
    const [grad, tangent] = d.literalJvpGrad(...at, ...v);
    expectClose(grad, g(...at));
    expectClose(tangent, hv, 1e-5);
  });

  test('a select in a map callback (its predicates a boolean residual array): hessian', () => {
    const a = [1.5, -2, 0.5];
    const H = d.selectedHessian(a);
    const fd = partialAll((x: number[]) => d.selected(x)[0], [a], 0, 3).map((_, i) => partial((x: number[]) => [...d.selected(x)], [a], 0, i));
    expectClose(H.flat(), fd.flat(), 1e-5);
  });
});

describe('13: forward over reverse of a derivative of an array function', () => {
  test('jvp(grad(f), [w], [v]) at the top level is [∇f, H·v], as hvp gives', () => {
    for (const [w, v] of [
      [
        [1.5, 2],
        [1, 0.5],
      ],
      [
        [0.5, -1, 2],
        [0, 1, -1],
      ],
      [[3], [1]],
      [[], []],
    ] as [number[], number[]][]) {
      const [g, hv] = m.hessVec(w, v);
      expectClose([...g], [...d.cubic(w)]);
      expectClose([...hv], [...m.hessVecHvp(w, v)], 1e-12);
      if (w.length)
        expectClose(
          [...hv],
          directional((x: number[]) => [...d.cubic(x)], [w], [v]),
          1e-5,
        );
    }
  });

  test('grad, valueAndGrad, hvp and jvp of an array function inside a marked function, differentiated again', () => {
    const at: [number[], number] = [[1.5, 2, -0.5], 3];
    const [v, [gw, gc]] = d.usesGrad(...at);
    expect(v).toBeCloseTo(m.usesGrad(...at), 12);
    expectClose([...gw, gc], [...partialAll(m.usesGrad, at, 0, 3), ...partial(m.usesGrad, at, 1, 0)], 1e-5);
  });

  test("reverse mode over a derivative's loop with an array parameter is TSAD1007 with a hint that works", () => {
    const r = compile(
      `import { grad, sum } from 'tsad';
/** @differentiable */
function cubic(w: number[]): number { let s = 0; for (let i = 0; i < w.length; i++) s += w[i] ** 3; return s; }
/** @differentiable */
function outer(w: number[]): number { return sum(grad(cubic)(w)); }
export const g = grad(outer);`,
      { throwOnError: false },
    );
    expect(r.messages.join('\n')).toMatch(/TSAD1007: grad\(outer\).*cannot take 'w', which holds number\[\]\n {2}hint: use forward mode over the derivative, jvp\(grad\(f\), \[w\], \[v\]\), or hvp/);
  });
});

describe('15: copies of a written matrix', () => {
  test('m.map((r) => r.slice()) copies, m.slice(1) reads rows: values and gradient against central differences', () => {
    const A = [
      [1, 2],
      [3, 4],
      [0.5, -1],
    ];
    const [v, g] = d.copied(A);
    expect(v).toBe(m.copied(A));
    const fd = A.flatMap((row, i) => row.map((_, j) => partial((M: number[][]) => m.copied(M), [A], 0, i * 2 + j)[0]));
    expectClose(g.flat(), fd, 1e-5);
  });

  const diagnosticsOf = (body: string) =>
    compile(`import { grad } from 'tsad';\n/** @differentiable */\nfunction f(A: number[][]): number {\n${body}\n}\nexport const g = grad(f);`, { throwOnError: false }).messages.join('\n');

  test('TSAD1123 on a written matrix suggests a copy that works (row by row), not .slice()', () => {
    const text = diagnosticsOf('  const G = A.map((r) => r.slice());\n  let H = G;\n  G[0][0] = 2;\n  H = A;\n  return H[0][0];');
    expect(text).toMatch(/TSAD1123: 'G' is written into .* \(G\.map\(\(r\) => r\.slice\(\)\)\)/);
    expect(text).toMatch(/hint: tsad's matrices are values, JavaScript's are arrays of shared rows: copy a written matrix row by row, m\.map\(\(r\) => r\.slice\(\)\)/);
  });

  test.each([
    ['const K = A.map((r) => r);\n  K[0][0] = 2;\n  return A[0][0] + K[0][0];', /TSAD1122: 'K' is written into, so it must start as a new matrix whose rows are new too/],
    ['const K = A.slice();\n  K[0][0] = 2;\n  return A[0][0] + K[0][0];', /TSAD1122: 'K' is written into, so it must start as a new matrix/],
    ['const G = A.map((r) => r.slice());\n  const K = G.map((r) => r);\n  G[0][0] = 2;\n  return K[0][0];', /TSAD1123: 'G' is written into, and G\.map\(\(r\) => r\) would share its rows/],
  ])('a matrix whose rows JavaScript would share with another is refused: %s', (body, want) => {
    expect(diagnosticsOf(`  ${body}`)).toMatch(want);
  });
});

describe('18: hints that fit the case', () => {
  const messages = (src: string) => compile(`import { grad, hessian, jacobian } from 'tsad';\n${src}`, { throwOnError: false }).messages.join('\n');

  test('TSAD1105 for a default or optional parameter says how to write it, not what values are', () => {
    const text = messages('/** @differentiable */\nexport function f(x: number, y: number = 2): number { return x * y; }\nexport const g = grad(f);');
    expect(text).toMatch(/TSAD1105: parameters of a differentiable function must be names or destructuring patterns.*\n {2}hint: write each parameter as a name with a type/);
    expect(text).not.toMatch(/differentiable values are numbers, tuples/);
  });

  test('TSAD1121 for the shape limits of jacobian and hessian names the transforms that take every shape', () => {
    const text = messages(
      '/** @differentiable */\nexport function g(p: { a: number[]; b: number }): number { return p.a[0] * p.b; }\n/** @differentiable */\nexport function h(a: number[], b: number[]): number { return a[0] * b[0]; }\nexport const j = jacobian(g);\nexport const hh = hessian(h, { wrt: [0, 1] });',
    );
    const hints = text.split('\n').filter((l) => l.startsWith('  hint:'));
    expect(hints).toHaveLength(2);
    for (const h of hints) expect(h).toMatch(/for others use vjp \(rows\), jvp \(columns\) or hvp/);
    expect(text).not.toMatch(/read with a\[i\] and a\.length/);
  });
});

describe('20: new Array(n) followed by writes', () => {
  test('writing every element: values and gradient', () => {
    const x = [1, 2, -0.5];
    const [v, g] = d.holes(x);
    expect(v).toBe(m.holes(x));
    expectClose(g, partialAll(m.holes, [x], 0, 3));
  });

  test('an element never written reads as NaN, as undefined does in JavaScript arithmetic', () => {
    const [v, g] = d.oneHole([1, 2]);
    expect(v).toBeNaN();
    expect(m.oneHole([1, 2])).toBeNaN();
    expect(g[0]).toBeNaN();
    expect(g[1]).toBe(0);
  });

  test('new Array(n) takes what JavaScript takes: a whole length (RangeError: Invalid array length otherwise)', () => {
    expect(d.holesOf([1, 2], 2)).toEqual([
      [2, 0],
      [0, 2],
    ]);
    for (const n of [2.5, -1]) {
      expect(() => m.holesOf([1, 2], n)).toThrow(/Invalid array length/);
      expect(() => d.holesOf([1, 2], n)).toThrow(/^jacobian\(holesOf\): Invalid array length/);
    }
  });
});
