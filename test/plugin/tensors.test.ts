// Tensors of any rank (number[][][], Float64Array[][], number[][][][]) in differentiable
// functions through the plugin (transformer/frontend/matrices.ts, docs/frontend.md "Tensors"):
// stored flat as (data, d0, …, dk−1). Each primal is checked against the same source run as
// plain JavaScript, each gradient against central differences, jvp against <grad, v>, at sizes
// 0, 1 and larger; a ragged argument is a RangeError naming it and the index path.
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import fc from 'fast-check';
import { expectClose, leaves, load, mapLeaves, partial, workDir } from './harness';
import { ModuleCompiler } from '../../transformer/compile';
import { nodeHost, runtimeEntry } from '../../transformer/plugin/host';
import { evalFn } from '../../transformer/language/interp';
import { gradOf } from '../gen/drivers';

const SOURCE = `import { grad, valueAndGrad, jvp, vjp } from 'tsad';

/** @differentiable */
export function weighted(t: number[][][]): number {
  let s = 0;
  for (let c = 0; c < t.length; c++)
    for (let i = 0; i < t[c].length; i++)
      for (let j = 0; j < t[c][i].length; j++) s += Math.sin(t[c][i][j]) * (c + 1) + t[c][i][j] * t[c][i][j] * (j + 1);
  return s;
}
/** @differentiable */
export function channels(u: number[][][], f: number[][][], lambda: number): number {
  let tv = 0;
  u.forEach((channel, c) => {
    const H = channel.length;
    for (let i = 0; i < H; i++) {
      const W = channel[i].length;
      for (let j = 0; j < W; j++) {
        const dx = j + 1 < W ? channel[i][j + 1] - channel[i][j] : 0;
        tv += Math.sqrt(dx * dx + 1e-6) + lambda * (channel[i][j] - f[c][i][j]) ** 2;
      }
    }
  });
  return tv;
}
/** @differentiable */
export function rowsOf(t: Float64Array[][], w: number[]): number {
  let s = 0;
  for (const m of t) for (const row of m) for (let j = 0; j < row.length; j++) s += row[j] * w[j];
  return s;
}
/** @differentiable */
export function scaled(t: number[][][], k: number): number[][][] {
  return t.map((m) => m.map((row) => row.map((x) => k * x * x)));
}
/** @differentiable */
export function written(t: number[][][], k: number): number {
  const c = t.map((m) => m.map((row) => row.slice()));
  for (let a = 0; a < c.length; a++)
    for (let i = 0; i < c[a].length; i++)
      for (let j = 0; j < c[a][i].length; j++) c[a][i][j] = c[a][i][j] * k + (a > 0 ? c[a - 1][i][j] : 0);
  let s = 0;
  for (let a = 0; a < c.length; a++) for (let i = 0; i < c[a].length; i++) for (let j = 0; j < c[a][i].length; j++) s += c[a][i][j] ** 2;
  return s;
}
/** @differentiable */
export function batch(images: number[][][][], kernel: number[][][]): number {
  let s = 0;
  for (const img of images)
    for (let c = 0; c < img.length; c++)
      for (let i = 0; i < img[c].length; i++)
        for (let j = 0; j < img[c][i].length; j++) s += Math.tanh(kernel[c][0][0] * img[c][i][j]);
  return s;
}
/** @differentiable */
export function literal(a: number, b: number): number {
  const t: number[][][] = [[[a, b], [1, a * b]], [[b, 2], [a, 3]]];
  return t[0][1][1] * t[1][0][0] + t[1][1][0] * t.length + t[0].length * t[0][0].length;
}

export const gWeighted = grad(weighted);
export const vgChannels = valueAndGrad(channels, { wrt: [0, 1, 2] });
export const gRows = grad(rowsOf, { wrt: [0, 1] });
export const jScaled = (t: number[][][], k: number, dt: number[][][], dk: number) => jvp(scaled, [t, k], [dt, dk]);
export const vScaled = (t: number[][][], k: number) => vjp(scaled, t, k);
export const vgWritten = valueAndGrad(written, { wrt: [0, 1] });
export const gBatch = grad(batch, { wrt: [0, 1] });
export const gLiteral = grad(literal, { wrt: [0, 1] });
export const jWeighted = (t: number[][][], dt: number[][][]) => jvp(weighted, [t], [dt]);
`;

let plainCounter = 0;
/** The source as plain TypeScript compiles it: the doc markers are comments, the transforms unused. */
function plainModule(source: string): Record<string, any> {
  const js = ts.transpileModule(source.replace(/^import .*$/m, ''), { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS } }).outputText;
  const file = path.join(workDir(), `tensors-plain-${plainCounter++}.js`);
  fs.writeFileSync(file, js.replace(/^exports\.(gWeighted|vgChannels|gRows|jScaled|vScaled|vgWritten|gBatch|gLiteral|jWeighted) = .*$/gm, ''));
  return require(file);
}

let m: Record<string, any>;
let plain: Record<string, any>;
beforeAll(() => {
  m = load(SOURCE).exports;
  plain = plainModule(SOURCE);
});

/** A seeded d0 × d1 × … tensor. */
function tensor(seed: number, ...dims: number[]): any {
  let s = seed;
  const next = () => {
    s = (s * 16807 + 11) % 2147483647;
    return (s / 2147483647) * 2 - 1;
  };
  const build = (d: number): any => (d === dims.length - 1 ? Array.from({ length: dims[d] }, next) : Array.from({ length: dims[d] }, () => build(d + 1)));
  return build(0);
}

const fd = (f: (...a: any[]) => any, at: any[], i: number) => leaves(at[i]).map((_, k) => partial(f, at, i, k)[0]);

describe('tensors: reads, loops, for…of, forEach', () => {
  it.each([
    [0, 0, 0],
    [1, 1, 1],
    [2, 3, 4],
    [3, 0, 2],
  ])('grad of a rank-3 loop nest %i × %i × %i matches central differences', (a, b, c) => {
    const t = tensor(7, a, b, c);
    const g = m.gWeighted(t);
    expect(leaves(g)).toHaveLength(a * b * c);
    expect(Array.isArray(g) && g.length).toBe(a === 0 ? 0 : a);
    expectClose(leaves(g), fd(plain.weighted, [t], 0));
  });

  it('forEach over channels: value as plain JavaScript, gradient by central differences', () => {
    for (const [c, h, w] of [
      [3, 0, 1],
      [3, 1, 2],
      [3, 4, 5],
    ]) {
      const u = tensor(3, c, h, w);
      const f = tensor(5, c, h, w);
      const [value, grads] = m.vgChannels(u, f, 0.5);
      expect(value).toBe(plain.channels(u, f, 0.5));
      [0, 1, 2].forEach((i) => expectClose(leaves(grads[i]), fd(plain.channels, [u, f, 0.5], i), 1e-5));
    }
  });

  it('for…of over a Float64Array[][] gives rows of the user’s class, gradient rows too', () => {
    const t = tensor(9, 2, 3, 4).map((mm: number[][]) => mm.map((r) => Float64Array.from(r)));
    const w = [0.5, -1, 2, 0.25];
    const [gt, gw] = m.gRows(t, w);
    expect(gt[1][2]).toBeInstanceOf(Float64Array);
    expectClose(leaves(gt.map((mm: Float64Array[]) => mm.map((r) => Array.from(r)))), fd(plain.rowsOf, [t.map((mm: Float64Array[]) => mm.map((r) => Array.from(r))), w], 0));
    expectClose(leaves(gw), fd(plain.rowsOf, [t.map((mm: Float64Array[]) => mm.map((r) => Array.from(r))), w], 1));
  });

  it('a rank-4 batch and a rank-3 kernel', () => {
    for (const n of [0, 1, 2]) {
      const images = tensor(11, n, 2, 3, 3);
      const kernel = tensor(13, 2, 1, 1);
      const [gi, gk] = m.gBatch(images, kernel);
      expectClose(leaves(gi), fd(plain.batch, [images, kernel], 0));
      expectClose(leaves(gk), fd(plain.batch, [images, kernel], 1));
    }
  });

  it('a tensor literal', () => {
    const [da, db] = m.gLiteral(0.7, -1.3);
    expectClose([da, db], [partial(plain.literal, [0.7, -1.3], 0, 0)[0], partial(plain.literal, [0.7, -1.3], 1, 0)[0]]);
  });
});

describe('tensors: built, written, returned', () => {
  it('map of maps returns a tensor; jvp by central differences, vjp by the dot-product test', () => {
    for (const dims of [
      [0, 0, 0],
      [1, 1, 1],
      [2, 3, 2],
    ]) {
      const t = tensor(17, ...dims);
      const dt = tensor(19, ...dims);
      const [y, dy] = m.jScaled(t, 1.5, dt, 0.25);
      expect(y).toEqual(plain.scaled(t, 1.5));
      expectClose(leaves(dy), partialDirection(plain.scaled, [t, 1.5], [dt, 0.25]));
      const [y2, pullback] = m.vScaled(t, 1.5);
      expect(y2).toEqual(y);
      const ybar = tensor(23, ...dims);
      const [tbar, kbar] = pullback(ybar);
      const lhs = leaves(dy).reduce((s, v, i) => s + v * leaves(ybar)[i], 0);
      const rhs = leaves(tbar).reduce((s, v, i) => s + v * leaves(dt)[i], 0) + kbar * 0.25;
      expect(Math.abs(lhs - rhs)).toBeLessThan(1e-10 * Math.max(1, Math.abs(lhs)));
    }
  });

  it('writes into a local copy: value as plain JavaScript, gradient by central differences', () => {
    for (const dims of [
      [0, 1, 1],
      [1, 1, 1],
      [3, 2, 4],
    ]) {
      const t = tensor(29, ...dims);
      const [value, [gt, gk]] = m.vgWritten(t, 0.8);
      expect(value).toBe(plain.written(t, 0.8));
      expectClose(leaves(gt), fd(plain.written, [t, 0.8], 0), 1e-5);
      expectClose([gk], fd(plain.written, [t, 0.8], 1), 1e-5);
    }
  });

  it('jvp equals <grad, v>', () => {
    const t = tensor(31, 2, 3, 2);
    const dt = tensor(37, 2, 3, 2);
    const [, dy] = m.jWeighted(t, dt);
    const g = leaves(m.gWeighted(t));
    expect(dy).toBeCloseTo(
      g.reduce((s, v, i) => s + v * leaves(dt)[i], 0),
      10,
    );
  });
});

describe('tensors at the boundary', () => {
  it('a ragged argument is a RangeError naming the argument and the index path', () => {
    expect(() => m.gWeighted([[[1, 2], [3]]])).toThrow(new RangeError("grad(weighted): 't' must be a rectangular tensor (number[][][]): 't[0][1]' has 1 elements, 't[0][0]' has 2"));
    expect(() =>
      m.gWeighted([
        [[1, 2]],
        [
          [3, 4],
          [5, 6],
        ],
      ]),
    ).toThrow(new RangeError("grad(weighted): 't' must be a rectangular tensor (number[][][]): 't[1]' has 2 elements, 't[0]' has 1"));
  });

  it('a value that is not a number is a TypeError naming its index path', () => {
    expect(() => m.gWeighted([[[1, '2']]])).toThrow(new TypeError("grad(weighted): 't[0][0][1]' must be a number, got string"));
    expect(() => m.gWeighted(3)).toThrow(TypeError);
  });

  it('a tangent of another size than its primal is a RangeError', () => {
    expect(() => m.jWeighted(tensor(1, 2, 2, 2), tensor(1, 2, 1, 2))).toThrow(RangeError);
  });
});

describe('tensors: property', () => {
  it('grad of a rank-3 reduction matches central differences at random sizes and values', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 1000 }), (a, b, c, seed) => {
        const t = tensor(seed, a, b, c);
        expect(m.gWeighted(t).length).toBe(a);
        expectClose(leaves(m.gWeighted(t)), fd(plain.weighted, [t], 0), 1e-5);
        const u = tensor(seed + 1, a, b, c);
        const [value] = m.vgChannels(t, u, 0.3);
        expect(value).toBe(plain.channels(t, u, 0.3));
      }),
      { numRuns: 25 },
    );
  });
});

/** The directional derivative of f's output leaves along `dir` by central differences. */
function partialDirection(f: (...a: any[]) => any, at: any[], dir: any[]): number[] {
  const h = 1e-5;
  const shift = (s: number) =>
    at.map((a, j) => {
      const d = leaves(dir[j]);
      return mapLeaves(a, (x, idx) => x + s * d[idx]);
    });
  const up = leaves(f(...shift(h)));
  const down = leaves(f(...shift(-h)));
  return up.map((u, j) => (u - down[j]) / (2 * h));
}

const LAYERS = `import { grad, valueAndGrad, jvp, vjp } from 'tsad';

export interface Layer {
  W: number[][];
  b: number[];
}
/** @differentiable */
export function net(layers: Layer[], x: number[]): number {
  let a = x.slice();
  for (let l = 0; l < layers.length; l++) {
    const W = layers[l].W;
    const z = new Array<number>(W.length).fill(0);
    for (let i = 0; i < W.length; i++) {
      let s = layers[l].b[i];
      for (let j = 0; j < a.length; j++) s += W[i][j] * a[j];
      z[i] = Math.tanh(s);
    }
    a = z;
  }
  let out = 0;
  for (const v of a) out += v * v;
  return out;
}
/** @differentiable */
export function direct(layers: Layer[]): number {
  let s = 0;
  for (let l = 0; l < layers.length; l++)
    for (let i = 0; i < layers[l].W.length; i++)
      for (let j = 0; j < layers[l].W[i].length; j++) s += Math.sin(layers[l].W[i][j]) * (l + 1) + layers[l].b.length * layers[l].b[i];
  return s;
}
/** @differentiable */
export function ragged(ps: { w: number[]; c: number }[]): number {
  let s = 0;
  for (let k = 0; k < ps.length; k++) for (let j = 0; j < ps[k].w.length; j++) s += ps[k].c * ps[k].w[j] ** 2;
  return s;
}
/** @differentiable */
export function tail(layers: Layer[]): Layer[] {
  return layers.slice(1);
}
/** @differentiable */
export function forEachLayer(layers: Layer[], k: number): number {
  let s = 0;
  layers.forEach((layer, l) => {
    for (let i = 0; i < layer.b.length; i++) s += k * layer.b[i] * (l + 1) + layer.W[i][0] ** 2;
  });
  const [first] = layers;
  return s + first.b[0];
}

/** @differentiable */
export function peek(ps: { w: number[]; c: number }[], j: number): number {
  return ps[1].w[j] * ps[0].c;
}

export const gPeek = grad(peek, { wrt: [0] });
export const vgNet = valueAndGrad(net, { wrt: [0, 1] });
export const gDirect = grad(direct);
export const gRagged = grad(ragged);
export const jNet = (ls: Layer[], x: number[], dls: Layer[], dx: number[]) => jvp(net, [ls, x], [dls, dx]);
export const vTail = (ls: Layer[]) => vjp(tail, ls);
export const gForEach = grad(forEachLayer, { wrt: [0, 1] });
`;

describe('arrays of records holding matrices and arrays of different sizes (a network’s layers)', () => {
  let r: Record<string, any>;
  let p: Record<string, any>;
  beforeAll(() => {
    r = load(LAYERS).exports;
    p = plainModule(LAYERS.replace(/^export const (gPeek|vgNet|gDirect|gRagged|jNet|vTail|gForEach) = .*$/gm, ''));
  });
  const layer = (seed: number, rows: number, cols: number) => ({ W: tensor(seed, rows, cols), b: tensor(seed + 1, rows) });
  const sizes: [number, number][][] = [
    [],
    [[1, 1]],
    [
      [4, 3],
      [2, 4],
      [1, 2],
    ],
  ];

  it.each(sizes.map((s) => [s]))('per-layer sizes %j: value as plain JavaScript, gradient by central differences', (dims) => {
    const ls = dims.map(([rows, cols], k) => layer(40 + k, rows, cols));
    const x = tensor(3, dims[0]?.[1] ?? 2);
    const [value, [gl, gx]] = r.vgNet(ls, x);
    expect(value).toBe(p.net(ls, x));
    expect(gl.map((l: any) => [l.W.length, l.b.length])).toEqual(dims.map(([rows]) => [rows, rows]));
    expectClose(leaves(gl), fd(p.net, [ls, x], 0), 1e-5);
    expectClose(leaves(gx), fd(p.net, [ls, x], 1), 1e-5);
    expectClose(leaves(r.gDirect(ls)), fd(p.direct, [ls], 0), 1e-5);
    const [ga, gk] = r.gForEach(ls.length > 0 ? ls : [layer(1, 1, 1)], 0.5);
    const at = [ls.length > 0 ? ls : [layer(1, 1, 1)], 0.5];
    expectClose(leaves(ga), fd(p.forEachLayer, at, 0), 1e-5);
    expectClose([gk], fd(p.forEachLayer, at, 1), 1e-5);
  });

  it('jvp equals <grad, v>, and vjp of a slice of layers passes the dot-product test', () => {
    const ls = [layer(5, 3, 2), layer(7, 1, 3)];
    const dls = [layer(9, 3, 2), layer(11, 1, 3)];
    const x = tensor(13, 2);
    const dx = tensor(15, 2);
    const [y, dy] = r.jNet(ls, x, dls, dx);
    expect(y).toBe(p.net(ls, x));
    const [, [gl, gx]] = r.vgNet(ls, x);
    const dot = (a: any, b: any) => leaves(a).reduce((s, v, i) => s + v * leaves(b)[i], 0);
    expect(dy).toBeCloseTo(dot(gl, dls) + dot(gx, dx), 10);
    const [t, pullback] = r.vTail(ls);
    expect(t).toEqual(p.tail(ls));
    const tbar = [layer(17, 1, 3)];
    const [lbar] = pullback(tbar);
    expect(lbar.map((l: any) => [l.W.length, l.W[0].length, l.b.length])).toEqual([
      [3, 2, 3],
      [1, 3, 1],
    ]);
    expect(dot(lbar, dls)).toBeCloseTo(dot(tbar, [dls[1]]), 12);
  });

  it('arrays of a field may differ in length from element to element', () => {
    const ps = [
      { w: [1, 2, 3], c: 0.5 },
      { w: [], c: 2 },
      { w: [-1], c: 3 },
    ];
    const g = r.gRagged(ps);
    expect(g.map((e: any) => e.w.length)).toEqual([3, 0, 1]);
    expectClose(leaves(g), fd(p.ragged, [ps], 0));
    // One read at starts[i] + j, checked inside element i's array (never the next element's).
    const qs = [
      { w: [1, 2], c: 0.5 },
      { w: [3], c: 2 },
    ];
    const gq = r.gPeek(qs, 0);
    expect(gq).toEqual([
      { w: [0, 0], c: 3 },
      { w: [0.5], c: 0 },
    ]);
    expect(() => r.gPeek(qs, 1)).toThrow(RangeError);
    expect(() => r.gPeek(qs, -1)).toThrow(RangeError);
  });

  it('a matrix field that is not rectangular is a RangeError naming the index path', () => {
    expect(() => r.gDirect([{ W: [[1, 2], [3]], b: [0, 0] }])).toThrow(
      new RangeError("grad(direct): 'layers[0].W' must be rectangular (number[][]): 'layers[0].W[1]' has 1 elements, 'layers[0].W[0]' has 2"),
    );
    expect(() => r.gDirect([{ W: [[1, 'x']], b: [0] }])).toThrow(new TypeError("grad(direct): 'layers[0].W[0][1]' must be a number, got string"));
  });
});

const PUSHED = `import { grad, vjp } from 'tsad';

/** @differentiable */
export function pushedRows(x: number[], n: number): number {
  const out: number[][] = [];
  for (let i = 0; i < n; i++) {
    const row: number[] = [];
    for (let j = 0; j < x.length; j++) row.push(x[j] * (i + 1) + j);
    out.push(row);
  }
  let s = 0;
  for (let i = 0; i < out.length; i++) for (let j = 0; j < out[i].length; j++) s += Math.sin(out[i][j]);
  return s + out.length;
}
/** @differentiable */
export function stacked(m: number[][], k: number): number[][][] {
  const out: number[][][] = [];
  for (let c = 0; c < 2; c++) out.push(m.map((row) => row.map((v) => v * (c + k))));
  return out;
}
/** @differentiable */
export function ragged(x: number[]): number {
  const out: number[][] = [];
  out.push([x[0], x[1]]);
  out.push([x[0]]);
  return out[1][0];
}

export const gPushed = grad(pushedRows, { wrt: [0] });
export const vStacked = (m: number[][], k: number) => vjp(stacked, m, k);
export const gRagged = grad(ragged);
`;

describe('matrices and tensors built by pushing rows', () => {
  let r: Record<string, any>;
  let p: Record<string, any>;
  beforeAll(() => {
    r = load(PUSHED).exports;
    p = plainModule(PUSHED.replace(/^export const (gPushed|vStacked|gRagged) = .*$/gm, ''));
  });

  it.each([0, 1, 3])('rows pushed onto [] (%i of them): gradient by central differences', (n) => {
    const x = tensor(41, 3);
    expectClose(
      leaves(r.gPushed(x, n)),
      fd((xx: number[]) => p.pushedRows(xx, n), [x], 0),
    );
  });

  it('matrices pushed onto a tensor, returned: value as plain JavaScript, vjp by the dot-product test', () => {
    for (const [a, b] of [
      [0, 0],
      [1, 1],
      [2, 3],
    ]) {
      const m = tensor(43, a, b);
      const [y, pullback] = r.vStacked(m, 0.5);
      expect(y).toEqual(p.stacked(m, 0.5));
      const ybar = tensor(47, 2, a, b);
      const [mbar, kbar] = pullback(ybar);
      const dm = tensor(53, a, b);
      const [yp, ym] = [
        p.stacked(
          mapLeaves(m, (v, i) => v + 1e-6 * leaves(dm)[i]),
          0.5 + 1e-6,
        ),
        p.stacked(
          mapLeaves(m, (v, i) => v - 1e-6 * leaves(dm)[i]),
          0.5 - 1e-6,
        ),
      ];
      const lhs = leaves(yp).reduce((s, v, i) => s + ((v - leaves(ym)[i]) / 2e-6) * leaves(ybar)[i], 0);
      const rhs = leaves(mbar).reduce((s, v, i) => s + v * leaves(dm)[i], 0) + kbar;
      expect(Math.abs(lhs - rhs)).toBeLessThan(1e-6 * Math.max(1, Math.abs(lhs)));
    }
  });

  it('a row of another length is a RangeError (a matrix is rectangular)', () => {
    expect(() => r.gRagged([1, 2])).toThrow(RangeError);
  });
});

describe('pushing a row that JavaScript would share', () => {
  const codes = (body: string) =>
    load(`import { grad } from 'tsad';\n/** @differentiable */\nexport function f(x: number[]): number {\n${body}\n}\nexport const g = grad(f);\n`, { throwOnError: false }).result.diagnostics.map(
      (d) => d.code - 900000,
    );
  it('a parameter or an array written after it is pushed is TSAD1123, and so is a row of a written tensor taken whole; a new row at its last use builds', () => {
    expect(codes('const out: number[][] = []; out.push(x); out[0][0] = 2; return x[0];')).toEqual([1123]);
    expect(codes('const out: number[][] = []; const r = [x[0], 1]; out.push(r); r[0] = 5; return out[0][0];')).toEqual([1123]);
    expect(codes('const out: number[][] = []; for (let i = 0; i < 2; i++) { const r: number[] = []; r.push(x[i]); out.push(r); } return out[1][0];')).toEqual([]);
    // A row of a written tensor used as a whole would be a second name for it in JavaScript.
    expect(codes('const t: number[][][] = [[[x[0], 1]]]; const r = t[0][0]; t[0][0][0] = 5; return r[0];')).toEqual([1123]);
    expect(codes('const t: number[][][] = [[[x[0], 1]]]; t[0][0][0] = 5; return t[0][0][0] + t[0][0].length;')).toEqual([]);
  });
});

const FLAT = `import { grad } from 'tsad';

/** @differentiable */
export function flatSum(t: number[][][], c: number): number {
  const values = t.map((m) => m[c]).flat();
  const all = t.flat();
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i] * values[i] * (i + 1);
  for (const row of all) s += Math.sin(row[0]) * all.length;
  return s;
}
export const gFlat = grad(flatSum, { wrt: [0] });
`;

describe('.flat of a matrix or tensor', () => {
  it('the data one level less: gradient by central differences', () => {
    const r = load(FLAT).exports;
    const p = plainModule(FLAT.replace(/^export const gFlat = .*$/m, ''));
    for (const dims of [
      [0, 1, 1],
      [1, 2, 1],
      [3, 2, 4],
    ]) {
      const t = tensor(59, ...dims);
      expectClose(
        leaves(r.gFlat(t, 1 % dims[1])),
        fd((tt: any) => p.flatSum(tt, 1 % dims[1]), [t], 0),
      );
    }
  });
});

const SECOND = `import { hvp } from 'tsad';

/** @differentiable */
export function quartic(t: number[][][]): number {
  let s = 0;
  for (let a = 0; a < t.length; a++) for (let i = 0; i < t[a].length; i++) for (let j = 0; j < t[a][i].length; j++) s += t[a][i][j] ** 4 * (a + 1) + t[a][i][j] * t[0][0][0];
  return s;
}
export const hQuartic = hvp(quartic);
`;

describe('second order through a tensor', () => {
  it('hvp matches a hand derivation', () => {
    const r = load(SECOND).exports;
    const t = tensor(61, 2, 2, 3);
    const v = tensor(67, 2, 2, 3);
    const hv = leaves(r.hQuartic(t, v));
    const x = leaves(t);
    const d = leaves(v);
    // H = diag(12 x² (a + 1)) + (e0 1ᵀ + 1 e0ᵀ), so Hv = 12 x² (a + 1) v + e0 Σv + v0 1.
    const sumV = d.reduce((s, y) => s + y, 0);
    const expected = x.map((xi, k) => 12 * xi * xi * (Math.floor(k / 6) + 1) * d[k] + d[0] + (k === 0 ? sumV : 0));
    expectClose(hv, expected, 1e-10);
  });
});

describe('reverse mode through tensors costs a constant times the primal (interpreter work counter)', () => {
  const file = path.join(workDir(), 'tensor-complexity.ts');
  fs.writeFileSync(
    file,
    `/** @differentiable */
export function cube(t: number[][][]): number {
  let s = 0;
  for (let a = 0; a < t.length; a++) for (let i = 0; i < t[a].length; i++) for (let j = 0; j < t[a][i].length; j++) s += t[a][i][j] * t[a][i][j];
  return s;
}
`,
  );
  const ir = (fn: string) => {
    const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, skipLibCheck: true, types: [], paths: { tsad: [runtimeEntry()] } });
    const sf = program.getSourceFile(file)!;
    const decl = sf.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === fn)!;
    return new ModuleCompiler(nodeHost(), program.getTypeChecker(), ts.factory).lower(decl).program;
  };

  test('cube: W(grad) / W(f) is bounded for n × n × n from 4 to 16', () => {
    const program = ir('cube');
    const { program: gp, grad } = gradOf(program, 'cube', { simplify: true, policy: 'cheap' });
    const ratios: number[] = [];
    for (const n of [4, 8, 16]) {
      const t = [Array.from({ length: n * n * n }, (_, k) => Math.sin(k)), n, n, n];
      ratios.push(evalFn(gp, grad, [t] as never).work / evalFn(program, 'cube', [t] as never).work);
    }
    expect(Math.max(...ratios)).toBeLessThan(8);
    expect(ratios[2]).toBeLessThanOrEqual(ratios[0] * 1.1);
  });
});
