// Writes into local arrays (a[i] = v, a[i] += v) through the plugin: value semantics in the IR,
// in place in the emitted code (opt/inplace.ts), checked against central differences and closed forms.
import { compile, load } from './harness';

const { exports: m, result } = load(`import { grad, jvp, vjp, hvp, valueAndGrad, jacobian } from 'tsad';
/** @differentiable */
export function squares(x: Float64Array): Float64Array {
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i] * x[i];
  return out;
}
/** @differentiable */
export function prefixLoss(x: Float64Array): number {
  // p[i] = p[i-1] * x[i] + x[i]: each element reads the one before, written in the same loop.
  const p = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) p[i] = (i > 0 ? p[i - 1] : 1) * x[i] + x[i];
  let s = 0;
  for (let i = 0; i < p.length; i++) s += p[i] * p[i];
  return s;
}
/** @differentiable */
export function rewrite(x: Float64Array, w: number): number {
  // A temporary overwritten for every row, read after each write (gmm's z).
  const d = 3;
  const z = new Float64Array(d);
  let total = 0;
  for (let r = 0; r < x.length / d; r++) {
    for (let c = 0; c < d; c++) z[c] = Math.exp(w * x[r * d + c]);
    for (let c = 1; c < d; c++) z[c] += z[c - 1] * w;
    let sq = 0;
    for (let c = 0; c < d; c++) sq += z[c] * z[c];
    total += Math.log(sq);
  }
  return total;
}
/** @differentiable */
export function twice(x: Float64Array): number {
  const a = x.slice();
  a[0] = a[0] * 3;
  a[0] += x[1];
  a[1]++;
  return a[0] * a[1] + a[2];
}
/** @differentiable */
export function layers(p: { w: Float64Array; b: Float64Array }, x: Float64Array, depth: number): number {
  // A state array rewritten by each layer, read at the loop counter of the loop that writes it.
  const h = x.slice();
  for (let j = 0; j < depth; j++) {
    for (let i = 0; i < h.length; i++) h[i] = Math.tanh(h[i] * p.w[i] + p.b[i]);
  }
  let s = 0;
  for (let i = 0; i < h.length; i++) s += h[i] * p.w[i] + p.b[i];
  return s;
}
export const gLayers = grad(layers, { wrt: [0, 1] });
/** @differentiable */
export function whileRecur(x: Float64Array): number {
  // A while loop writing each element, reading the one written before.
  const b = new Float64Array(x.length);
  let i = 0;
  while (i < x.length) {
    b[i] = Math.sin(x[i]) * (i > 0 ? b[i - 1] : 1) + x[i];
    i++;
  }
  let s = 0;
  for (let j = 0; j < b.length; j++) s += b[j] * b[j];
  return s;
}
export const gWhileRecur = grad(whileRecur);
/** @differentiable */
export function positives(x: Float64Array, c: number): number {
  // An array that grows by push in a loop, with a branch deciding what is pushed.
  const kept: number[] = [];
  for (let i = 0; i < x.length; i++) {
    if (x[i] > 0) kept.push(x[i] * c);
    else kept.push(Math.sin(x[i]), c);
  }
  let s = 0;
  for (let i = 0; i < kept.length; i++) s += kept[i] * kept[i] * (i + 1);
  return s;
}
/** @differentiable */
export function pushed(x: Float64Array): Float64Array {
  const out: number[] = [];
  for (let i = 0; i < x.length; i++) out.push(x[i] * x[i]);
  return Float64Array.from(out);
}
export const gPositives = grad(positives, { wrt: [0, 1] });
export const jPushed = (x: Float64Array, t: Float64Array) => jvp(pushed, [x], [t]);
export const gSquares = (x: Float64Array, ybar: Float64Array) => vjp(squares, x)[1](ybar)[0];
export const jSquares = (x: Float64Array, t: Float64Array) => jvp(squares, [x], [t]);
export const gPrefix = grad(prefixLoss);
export const gRewrite = grad(rewrite, { wrt: [0, 1] });
export const gTwice = grad(twice);
export const hTwice = hvp(twice);
export const jacSquares = jacobian(squares);
`);

const H = 1e-6;
function fdGrad(f: (x: Float64Array) => number, x: Float64Array): number[] {
  return Array.from(x, (_, k) => {
    const p = x.slice();
    const q = x.slice();
    p[k] += H;
    q[k] -= H;
    return (f(p) - f(q)) / (2 * H);
  });
}
function close(actual: ArrayLike<number>, expected: ArrayLike<number>, tol = 1e-6): void {
  expect(actual.length).toBe(expected.length);
  for (let k = 0; k < expected.length; k++) expect(Math.abs(actual[k] - expected[k])).toBeLessThan(tol * Math.max(1, Math.abs(expected[k])));
}
const data = (n: number) => Float64Array.from({ length: n }, (_, i) => 0.3 + 0.5 * Math.sin(1.3 * i));

test('a loop writing each element: primal, vjp (2·x·ȳ), jvp and jacobian', () => {
  const x = data(5);
  close(
    m.squares(x),
    Array.from(x, (v) => v * v),
  );
  const ybar = data(5).map((v) => v + 1);
  close(
    m.gSquares(x, ybar),
    Array.from(x, (v, k) => 2 * v * ybar[k]),
  );
  const t = data(5).map((v) => v - 0.2);
  const [y, yDot] = m.jSquares(x, t);
  close(
    y,
    Array.from(x, (v) => v * v),
  );
  close(
    yDot,
    Array.from(x, (v, k) => 2 * v * t[k]),
  );
  const J = m.jacSquares(x);
  for (let r = 0; r < 5; r++)
    close(
      J[r],
      Array.from(x, (v, c) => (r === c ? 2 * v : 0)),
    );
});

test('elements that read the element written before them: the gradient against central differences', () => {
  for (const n of [0, 1, 2, 7]) {
    const x = data(n);
    close(m.gPrefix(x), fdGrad(m.prefixLoss, x), 1e-5);
  }
});

test('a temporary overwritten every row and read after each write (as in a Gaussian mixture)', () => {
  const x = data(9);
  const w = 0.7;
  const [gx, gw] = m.gRewrite(x, w);
  close(
    gx,
    fdGrad((y) => m.rewrite(y, w), x),
    1e-5,
  );
  close([gw], [(m.rewrite(x, w + H) - m.rewrite(x, w - H)) / (2 * H)], 1e-5);
});

test('compound writes and ++ on a copy: gradient and Hessian-vector product by hand', () => {
  const x = Float64Array.from([2, 5, 7]);
  // a0 = 3 x0 + x1, a1 = x1 + 1, f = a0 a1 + x2
  expect(m.twice(x)).toBeCloseTo((3 * 2 + 5) * 6 + 7, 12);
  close(m.gTwice(x), [3 * 6, 6 + 11, 1]);
  // H = [[0, 3, 0], [3, 2, 0], [0, 0, 0]]
  close(m.hTwice(x, Float64Array.from([1, 0, 0])), [0, 3, 0]);
  close(m.hTwice(x, Float64Array.from([0, 1, 0])), [3, 2, 0]);
  expect(Array.from(x)).toEqual([2, 5, 7]);
});

test('a while loop writing each element: the gradient against central differences, and no copy per element', () => {
  for (const n of [0, 1, 2, 7]) {
    const x = data(n);
    close(m.gWhileRecur(x), fdGrad(m.whileRecur, x), 1e-5);
  }
  const text = result.outputText;
  const grad = text.slice(text.indexOf('function whileRecur$grad'), text.indexOf('\n}\n', text.indexOf('function whileRecur$grad')));
  expect(grad).toContain('while (');
  expect(grad).not.toMatch(/\.slice\(\)/);
});

test('the emitted primal writes in place: no copy of the array per element', () => {
  const text = result.outputText;
  const body = text.slice(text.indexOf('function squares'), text.indexOf('}', text.indexOf('for (', text.indexOf('function squares'))));
  expect(body).not.toMatch(/\.slice\(\)/);
});

test('an object of arrays read many times, and a state array rewritten layer by layer: gradients against central differences', () => {
  const w = data(4).map((v) => v - 0.1);
  const b = data(4).map((v) => 0.2 * v);
  const x = data(4).map((v) => 1 - v);
  const [gp, gx] = m.gLayers({ w, b }, x, 3);
  close(
    gp.w,
    fdGrad((y) => m.layers({ w: y, b }, x, 3), w),
    1e-5,
  );
  close(
    gp.b,
    fdGrad((y) => m.layers({ w, b: y }, x, 3), b),
    1e-5,
  );
  close(
    gx,
    fdGrad((y) => m.layers({ w, b }, y, 3), x),
    1e-5,
  );
});

describe('writes the value semantics cannot express are diagnostics, not wrong derivatives', () => {
  const messages = (body: string) =>
    compile(
      `import { grad } from 'tsad';
/** @differentiable */
export function f(x: Float64Array, o: { w: Float64Array }): number {
${body}
}
export const g = grad(f);`,
      { throwOnError: false },
    ).messages.join('\n');

  test.each([
    ['x[0] = 1;\n  return x[0];', /TSAD1122: 'x' is a parameter: writing into it would change the caller's array; write into a copy instead: const x2 = x.slice\(\)/],
    ['const w = o.w;\n  w[0] = 2;\n  return w[0];', /TSAD1122: 'w' is written into, so it must start as a new array/],
    // `const c = b` and `for (const v of b)` with no write inside now build (aliasing.test.ts).
    ['const b = x.slice();\n  let c = b;\n  b[0] = 3;\n  c = x;\n  return c[0];', /TSAD1123: 'b' is written into and also used here as a whole/],
    ['const b = x.slice();\n  let s = 0;\n  for (const v of b) {\n    s += v;\n    b[1] = s;\n  }\n  return s;', /TSAD1123: 'b' is written into and also used here as a whole/],
    ['const b = new Float32Array(2);\n  b[0] = x[0];\n  return b[0];', /TSAD1122: 'b' is a Float32Array, which rounds what is written into it/],
    ['const b = x.slice();\n  b.copyWithin(0, 1);\n  return b[0];', /TSAD1122: this method changes the array it is called on/],
    ['x.push(1);\n  return x[0];', /TSAD1122: 'x' is a parameter/],
  ])('%s', (body, expected) => {
    expect(messages(body)).toMatch(expected);
  });

  test('a written array returned, passed to sum, or measured is fine', () => {
    expect(messages('const b = x.slice();\n  b[0] = 3;\n  const n = b.length;\n  return b[0] * n + b.reduce((s, v) => s + v, 0);')).toBe('');
  });

  test('for…of over a written array whose loop does not write it is fine (each element read once per trip, as in JavaScript)', () => {
    expect(messages('const b = x.slice();\n  b[0] = 3;\n  let s = 0;\n  for (const v of b) s += v * v;\n  return s;')).toBe('');
  });
});

test('push: arrays that grow in a loop, in both modes, against central differences', () => {
  const x = Float64Array.from([0.5, -0.3, 1.2, -0.8, 0.1]);
  const c = 0.7;
  const [gx, gc] = m.gPositives(x, c);
  close(
    gx,
    fdGrad((y) => m.positives(y, c), x),
    1e-5,
  );
  close([gc], [(m.positives(x, c + H) - m.positives(x, c - H)) / (2 * H)], 1e-5);
  const t = Float64Array.from([1, 2, 3, 4, 5]);
  const [y, yDot] = m.jPushed(x, t);
  close(
    y,
    Array.from(x, (v) => v * v),
  );
  close(
    yDot,
    Array.from(x, (v, k) => 2 * v * t[k]),
  );
  // Long enough to outgrow the first buffer of the tangent several times (16, 32, 64, ...).
  const long = Float64Array.from({ length: 100 }, (_, k) => Math.sin(k));
  const [, longDot] = m.jPushed(long, long);
  close(
    longDot,
    Array.from(long, (v) => 2 * v * v),
  );
});

test('forward mode through a loop of pushes grows the tangent into spare room (no copy per push)', () => {
  const text = result.outputText;
  const jvpCode = text.slice(text.indexOf('function pushed$jvp'), text.indexOf('\n}\n', text.indexOf('function pushed$jvp')));
  expect(jvpCode).toMatch(/_dot(_\d+)? = new Float64Array\(\w+\.buffer, \w+\.byteOffset, \w+\)/);
  expect(jvpCode).toMatch(/new Float64Array\(Math\.max\(16, 2 \* \w+\)\)\.subarray\(0, \w+\)/);
});

describe('an Int32Array of indices written in a loop is a constant', () => {
  const { exports: e } = load(`import { grad, gather, sum } from 'tsad';
/** @differentiable */
export function picked(x: Float64Array, k: number): number {
  const idx = new Int32Array(k);
  for (let j = 0; j < k; j++) idx[j] = (j * 7 + 1.9) % x.length; // truncated toward zero, as JavaScript stores it
  return sum(gather(x, idx).map((v) => v * v * x[0]));
}
export const d = grad(picked);`);

  test('the indices are truncated as JavaScript truncates them, and the gradient agrees with central differences', () => {
    const x = Float64Array.from({ length: 6 }, (_, i) => 0.3 + 0.2 * i);
    const idx = Array.from({ length: 4 }, (_, j) => Math.trunc((j * 7 + 1.9) % 6));
    expect(e.picked(x, 4)).toBeCloseTo(
      idx.reduce((s, i) => s + x[i] * x[i] * x[0], 0),
      12,
    );
    close(
      e.d(x, 4),
      fdGrad((y) => e.picked(y, 4), x),
      1e-5,
    );
  });
});

test('an array literal TypeScript types as number[] (const c = [x, 2 * x, 3]) can be written into: in a loop, in a branch (was TSAD1122 "c is [number, number, number]")', () => {
  const { exports: e, result: r } = load(`import { valueAndGrad, jvp, sum } from 'tsad';
/** @differentiable */
export function f(x: number): number {
  const c = [x, 2 * x, 3];
  for (let i = 0; i < c.length; i++) c[i] = c[i] * x;
  return sum(c);
}
/** @differentiable */
export function g(x: number): number {
  const c = [x, 2 * x, 3];
  if (x > 0) c[1] = x * x;
  c[2] += x;
  return sum(c);
}
export const vf = valueAndGrad(f);
export const vg = valueAndGrad(g);
export const tg = (x: number) => jvp(g, [x], [1]);
`);
  expect(r.diagnostics).toEqual([]);
  // f = 3x² + 3x; g = x + x² + 3 + x for x > 0, x + 2x + 3 + x otherwise.
  for (const x of [1.5, -0.5]) {
    expect(e.vf(x)).toEqual([e.f(x), expect.closeTo(6 * x + 3, 12)]);
    const dg = x > 0 ? 2 + 2 * x : 4;
    expect(e.vg(x)).toEqual([e.g(x), expect.closeTo(dg, 12)]);
    expect(e.tg(x)).toEqual([e.g(x), expect.closeTo(dg, 12)]);
  }
});
