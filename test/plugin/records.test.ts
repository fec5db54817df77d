// Arrays of records and tuples (docs/frontend.md, "Arrays of records"; issue 19, item 2):
// programs written as a TypeScript developer writes them. Each primal is checked against the
// same source run as plain JavaScript, each gradient against central finite differences, each
// jvp against ⟨grad, v⟩, at sizes 0, 1 and larger; then the wrapper's errors.
import * as ts from 'typescript';
import { compile, load, leaves, mapLeaves } from './harness';

const functions = `
import { differentiable } from 'tsad';

export interface Particle { x: number; y: number }
export interface Body { pos: [number, number]; vel: [number, number]; m: number }
export interface Layer { w: number[]; b: number }

/** @differentiable */
export function energy(ps: Particle[]): number {
  let e = 0;
  for (let i = 0; i < ps.length; i++) e += ps[i].x * ps[i].x + Math.sin(ps[i].y);
  return e;
}

/** @differentiable */
export function kinetic(bodies: readonly Body[]): number {
  let k = 0;
  for (const b of bodies) k += 0.5 * b.m * (b.vel[0] * b.vel[0] + b.vel[1] * b.vel[1]);
  return k;
}

/** @differentiable */
export function destructured(ps: Particle[]): number {
  let s = 0;
  for (const { x, y } of ps) s += x * y;
  return s;
}

/** @differentiable */
export function pairs(pts: [number, number][]): number {
  let s = 0;
  for (const [a, b] of pts) s += a * Math.exp(b);
  for (let i = 0; i < pts.length; i++) s += pts[i][0] * pts[i][1];
  return s;
}

/** @differentiable */
export function mapped(ps: Particle[]): number {
  const r = ps.map((p) => Math.hypot(p.x, p.y));
  return r.reduce((a, b) => a + b, 0);
}

/** @differentiable */
export function reduced(ps: Particle[]): number {
  return ps.reduce((acc, p) => acc + p.x * p.y * p.y, 1);
}

/** @differentiable */
export function moved(ps: Particle[], dt: number): Particle[] {
  return ps.map((p) => ({ x: p.x + dt * p.y, y: p.y - dt * p.x }));
}

/** @differentiable */
export function pathLength(pts: readonly [number, number][]): number {
  let len = 0;
  for (let i = 1; i < pts.length; i++) {
    const dx = pts[i][0] - pts[i - 1][0];
    const dy = pts[i][1] - pts[i - 1][1];
    len += Math.sqrt(dx * dx + dy * dy);
  }
  return len;
}

/** @differentiable */
export function step(bodies: Body[], dt: number): number {
  const next = bodies.map((b) => ({ pos: [b.pos[0], b.pos[1]] as [number, number], vel: [b.vel[0], b.vel[1]] as [number, number], m: b.m }));
  for (let i = 0; i < next.length; i++) {
    next[i].vel[1] -= 9.81 * dt;
    next[i].pos[0] += dt * next[i].vel[0];
    next[i].pos[1] += dt * next[i].vel[1];
  }
  let e = 0;
  for (const b of next) e += b.m * (b.pos[0] * b.pos[0] + b.pos[1] * b.pos[1]);
  return e;
}

/** @differentiable */
export function pushed(ps: Particle[]): number {
  const out: Particle[] = [];
  for (const p of ps) out.push({ x: p.x * 2, y: p.y * p.x });
  out.push({ x: 1, y: 2 });
  let s = 0;
  for (let i = 0; i < out.length; i++) s += out[i].x * out[i].y;
  return s;
}

/** @differentiable */
export function replaced(ps: Particle[]): number {
  const q = ps.map((p) => ({ x: p.x, y: p.y }));
  for (let i = 0; i < q.length; i++) q[i] = { x: q[i].y, y: Math.cos(q[i].x) };
  if (q.length > 0) q[0].x = 3 * q[0].x;
  return q.reduce((s, p) => s + p.x * p.y, 0);
}

/** @differentiable */
export function layers(ls: Layer[], x: number[]): number {
  let s = 0;
  for (let l = 0; l < ls.length; l++) {
    let a = ls[l].b;
    for (let j = 0; j < ls[l].w.length; j++) a += ls[l].w[j] * x[j];
    s += Math.tanh(a);
  }
  return s;
}

/** @differentiable */
export function holes(ps: Particle[]): number {
  const q = new Array<Particle>(ps.length);
  for (let i = 0; i < ps.length; i++) q[i] = { x: ps[i].y, y: ps[i].x * ps[i].x };
  const [first] = ps;
  let s = 0;
  for (const p of q) s += p.x * p.y;
  return q.length > 0 ? s + first.x : s;
}

/** @differentiable */
export function tails(ps: readonly Particle[]): number {
  const rest = ps.slice(1);
  const last = ps.slice(-2);
  let s = 0;
  for (const p of rest) s += p.x * Math.exp(p.y);
  for (const { x, y } of last) s += x - y * y;
  return s;
}

/** @differentiable */
export function literal(a: number, b: number): number {
  const pts: { x: number; y: number }[] = [{ x: a, y: b }, { x: b, y: a * a }];
  let s = 0;
  for (const p of pts) s += p.x * p.y;
  return s;
}
`;

const derivatives = `
import { grad, jvp, vjp, valueAndGrad } from 'tsad';
export const gEnergy = grad(energy);
export const jEnergy = (ps: Particle[], t: Particle[]) => jvp(energy, [ps], [t]);
export const gKinetic = grad(kinetic);
export const jKinetic = (b: Body[], t: Body[]) => jvp(kinetic, [b], [t]);
export const gDestructured = grad(destructured);
export const gPairs = grad(pairs);
export const jPairs = (p: [number, number][], t: [number, number][]) => jvp(pairs, [p], [t]);
export const gMapped = grad(mapped);
export const gReduced = grad(reduced);
export const vMoved = (ps: Particle[], dt: number) => vjp(moved, ps, dt);
export const jMoved = (ps: Particle[], dt: number, t: Particle[], tdt: number) => jvp(moved, [ps, dt], [t, tdt]);
export const gPathLength = grad(pathLength);
export const gStep = grad(step, { wrt: [0, 1] });
export const gPushed = grad(pushed);
export const gReplaced = grad(replaced);
export const gLayers = grad(layers, { wrt: [0, 1] });
export const jLayers = (ls: Layer[], x: number[], tl: Layer[], tx: number[]) => jvp(layers, [ls, x], [tl, tx]);
export const gLiteral = grad(literal, { wrt: [0, 1] });
export const vgEnergy = valueAndGrad(energy);
export const vgKinetic = valueAndGrad(kinetic);
export const vgDestructured = valueAndGrad(destructured);
export const vgPairs = valueAndGrad(pairs);
export const vgMapped = valueAndGrad(mapped);
export const vgReduced = valueAndGrad(reduced);
export const vgPathLength = valueAndGrad(pathLength);
export const vgPushed = valueAndGrad(pushed);
export const vgReplaced = valueAndGrad(replaced);
export const vgStep = valueAndGrad(step, { wrt: [0, 1] });
export const vgLayers = valueAndGrad(layers, { wrt: [0, 1] });
export const vgHoles = valueAndGrad(holes);
export const gHoles = grad(holes);
export const vgTails = valueAndGrad(tails);
export const gTails = grad(tails);
export const vgLiteral = valueAndGrad(literal, { wrt: [0, 1] });
`;

const { exports: m, result } = load(functions + derivatives);
const plain = (() => {
  const js = ts.transpileModule(functions.replace(/^import .*$/m, ''), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const exports: Record<string, any> = {};
  new Function('exports', 'require', js)(exports, require);
  return exports;
})();

type V = any;

/** Seeded numbers in [-1, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return (s / 2 ** 32) * 2 - 1;
  };
}

const particles = (n: number, r = rng(n + 1)) => Array.from({ length: n }, () => ({ x: r(), y: r() }));
const bodies = (n: number, r = rng(n + 7)) => Array.from({ length: n }, () => ({ pos: [r(), r()] as [number, number], vel: [r(), r()] as [number, number], m: 1 + r() * 0.5 }));
const tuples = (n: number, r = rng(n + 3)) => Array.from({ length: n }, () => [r(), r()] as [number, number]);
const layersOf = (n: number, k: number, r = rng(n * 10 + k)) => Array.from({ length: n }, () => ({ w: Array.from({ length: k }, () => r()), b: r() }));

/** Central differences of a scalar f at args, with respect to argument i: the same structure as args[i]. */
function fd(f: (...a: V[]) => number, args: V[], i: number): V {
  const h = 1e-6;
  return mapLeaves(args[i], (_x, k) => {
    const at = (s: number) => f(...args.map((a, j) => (j === i ? mapLeaves(a, (y, idx) => (idx === k ? y + s : y)) : a)));
    return (at(h) - at(-h)) / (2 * h);
  });
}

function close(actual: V, expected: V, tol = 1e-6): void {
  const a = leaves(actual);
  const e = leaves(expected);
  expect(a.length).toBe(e.length);
  a.forEach((x, k) => expect(Math.abs(x - e[k])).toBeLessThanOrEqual(tol * (1 + Math.abs(e[k]))));
}

const dot = (a: V, b: V) => leaves(a).reduce((s, x, k) => s + x * leaves(b)[k], 0);

describe('arrays of records: primal as plain JavaScript, gradient by central differences, jvp as <grad, v>', () => {
  const cases: [string, string, (n: number) => V[], number[]][] = [
    ['energy', 'gEnergy', (n) => [particles(n)], [0]],
    ['kinetic', 'gKinetic', (n) => [bodies(n)], [0]],
    ['destructured', 'gDestructured', (n) => [particles(n)], [0]],
    ['pairs', 'gPairs', (n) => [tuples(n)], [0]],
    ['mapped', 'gMapped', (n) => [particles(n)], [0]],
    ['reduced', 'gReduced', (n) => [particles(n)], [0]],
    ['pathLength', 'gPathLength', (n) => [tuples(n)], [0]],
    ['step', 'gStep', (n) => [bodies(n), 0.1], [0, 1]],
    ['pushed', 'gPushed', (n) => [particles(n)], [0]],
    ['replaced', 'gReplaced', (n) => [particles(n)], [0]],
    ['layers', 'gLayers', (n) => [layersOf(n, 3), [0.3, -0.2, 0.5]], [0, 1]],
    ['holes', 'gHoles', (n) => [particles(n)], [0]],
    ['tails', 'gTails', (n) => [particles(n)], [0]],
  ];
  for (const [fn, g, args, wrt] of cases) {
    for (const n of [0, 1, 5]) {
      test(`${fn} at size ${n}`, () => {
        const at = args(n);
        // valueAndGrad's value is tsad's primal (calling m[fn] runs the source itself).
        const [value, grads] = m[`vg${g.slice(1)}`](...at);
        expect(value).toBe(plain[fn](...at));
        expect(m[g](...at)).toEqual(grads);
        const expected = wrt.map((i) => fd(plain[fn], at, i));
        if (wrt.length === 1) close(grads, expected[0]);
        else wrt.forEach((_, k) => close(grads[k], expected[k]));
        // The gradient has the shape of the argument: records of numbers.
        expect(JSON.stringify(mapLeaves(wrt.length === 1 ? grads : grads[0], () => 0))).toBe(JSON.stringify(mapLeaves(at[wrt[0]], () => 0)));
      });
    }
  }

  test('literal of records', () => {
    const [value, grads] = m.vgLiteral(0.7, -1.3);
    close(grads, [fd(plain.literal, [0.7, -1.3], 0), fd(plain.literal, [0.7, -1.3], 1)]);
    expect(value).toBe(plain.literal(0.7, -1.3));
  });

  test('jvp is <grad, v>', () => {
    for (const n of [0, 1, 4]) {
      const ps = particles(n);
      const v = particles(n, rng(99));
      const [y, dy] = m.jEnergy(ps, v);
      expect(y).toBe(plain.energy(ps));
      expect(dy).toBeCloseTo(dot(m.gEnergy(ps), v), 10);
      const bs = bodies(n);
      const vb = bodies(n, rng(5));
      expect(m.jKinetic(bs, vb)[1]).toBeCloseTo(dot(m.gKinetic(bs), vb), 10);
      const ts2 = tuples(n);
      const vt = tuples(n, rng(4));
      expect(m.jPairs(ts2, vt)[1]).toBeCloseTo(dot(m.gPairs(ts2), vt), 10);
      const ls = layersOf(n, 2);
      const vl = layersOf(n, 2, rng(8));
      const [gl, gx] = m.gLayers(ls, [0.1, 0.2]);
      expect(m.jLayers(ls, [0.1, 0.2], vl, [0.5, -1])[1]).toBeCloseTo(dot(gl, vl) + dot(gx, [0.5, -1]), 10);
    }
  });

  test('a result that is an array of records: vjp and jvp', () => {
    for (const n of [0, 1, 3]) {
      const ps = particles(n);
      const [value, pullback] = m.vMoved(ps, 0.25);
      expect(value).toEqual(plain.moved(ps, 0.25));
      const ct = particles(n, rng(17));
      const [bar, dtBar] = pullback(ct);
      // <ct, J v> = <J^T ct, v> for a direction v
      const v = particles(n, rng(23));
      const [y, ydot] = m.jMoved(ps, 0.25, v, 0.5);
      expect(y).toEqual(plain.moved(ps, 0.25));
      expect(dot(ct, ydot)).toBeCloseTo(dot(bar, v) + dtBar * 0.5, 10);
      expect(JSON.stringify(mapLeaves(bar, () => 0))).toBe(JSON.stringify(mapLeaves(ps, () => 0)));
    }
  });
});

describe('arrays of records at the wrapper: errors name the argument and the index path', () => {
  const ps = particles(3);
  test('a value of the wrong kind is a TypeError', () => {
    expect(() => m.gEnergy([{ x: 1, y: 2 }, { x: 1 }])).toThrow(new TypeError("grad(energy): 'ps[1].y' must be a number, got undefined"));
    expect(() => m.gEnergy(5)).toThrow(new TypeError("grad(energy): 'ps' must be an array of records, got number"));
    expect(() => m.gEnergy([{ x: 1, y: 2 }, null])).toThrow(new TypeError("grad(energy): 'ps[1]' must be an object with fields x, y, got null"));
    expect(() => m.gPairs([[1, 2], [3]])).toThrow(new TypeError("grad(pairs): 'pts[1][1]' must be a number, got undefined"));
    expect(() =>
      m.gLayers(
        [
          { w: [1, 2], b: 0 },
          { w: [1, 'a'], b: 0 },
        ],
        [1, 2],
      ),
    ).toThrow(new TypeError("grad(layers): 'ls[1].w[1]' must be a number, got string"));
  });
  test('an array field may differ in length from element to element (its own size per element)', () => {
    const ls = [
      { w: [1, 2], b: 0.5 },
      { w: [-1], b: 0 },
    ];
    const x = [0.25, -0.5];
    const [gl, gx] = m.gLayers(ls, x);
    const sech2 = (a: number) => 1 - Math.tanh(a) ** 2;
    const a0 = 0.5 + 1 * 0.25 + 2 * -0.5;
    const a1 = -1 * 0.25;
    expect(gl[1].w).toHaveLength(1);
    expect(gl[0].w[1]).toBeCloseTo(sech2(a0) * x[1], 12);
    expect(gl[1].w[0]).toBeCloseTo(sech2(a1) * x[0], 12);
    expect(gl[1].b).toBeCloseTo(sech2(a1), 12);
    expect(gx[0]).toBeCloseTo(sech2(a0) * 1 + sech2(a1) * -1, 12);
  });
  test('a tangent or cotangent of another length than its primal is a RangeError', () => {
    expect(() => m.jEnergy(ps, particles(2))).toThrow(new RangeError("jvp(energy): 'tangents[0]' must have 3 elements like its primal, got 2"));
    const [, pullback] = m.vMoved(ps, 0.1);
    expect(() => pullback(particles(4))).toThrow(new RangeError("vjp(moved)'s pullback: 'cotangent' must have 3 elements like its primal, got 4"));
    const ls = layersOf(2, 3);
    expect(() => m.jLayers(ls, [1, 2, 3], layersOf(2, 2), [0, 0, 0])).toThrow(new RangeError("jvp(layers): 'tangents[0][0].w' is 2, but its primal is 3"));
  });
  test('the gradient is new records, and the argument is left as it was', () => {
    const before = JSON.stringify(ps);
    const g = m.gEnergy(ps);
    expect(JSON.stringify(ps)).toBe(before);
    expect(g).not.toBe(ps);
    expect(g[0]).not.toBe(ps[0]);
  });
});

describe('arrays of records: what is not supported is a diagnostic with a code', () => {
  const refused = (body: string): string => {
    const r = compile(`import { differentiable, grad } from 'tsad';\ninterface P { x: number; y: number }\n${body}\nexport const g = grad(f);\n`, { throwOnError: false });
    return r.messages.join('\n');
  };
  test.each([
    ['a boolean field', '/** @differentiable */ function f(ps: { on: boolean; x: number }[]): number { return ps.length; }', 'TSAD1120', 'element.on is boolean'],
    ['an array of records in a field', '/** @differentiable */ function f(ls: { ps: P[] }[]): number { return ls.length; }', 'TSAD1120', 'element.ps is { x: number; y: number }[]'],
    ['a write into a parameter', '/** @differentiable */ function f(ps: P[]): number { ps[0].x = 1; return ps[0].x; }', 'TSAD1122', "'ps' is a parameter"],
    [
      'a field write into records another array holds',
      '/** @differentiable */ function f(ps: P[]): number { const q = ps.map((p) => p); q[0].x = 2; return q[0].x + ps[0].x; }',
      'TSAD1123',
      "the fields of 'q' are written",
    ],
    [
      'a field write after pushing a shared record',
      '/** @differentiable */ function f(ps: P[]): number { const q: P[] = []; q.push(ps[0]); q[0].x = 2; return ps[0].x; }',
      'TSAD1123',
      'the record pushed',
    ],
    [
      'a whole array field written',
      '/** @differentiable */ function f(ls: { w: number[] }[]): number { const q = ls.map((l) => ({ w: [l.w[0], l.w[1]] })); q[0].w = [1, 2]; return q[0].w[0]; }',
      'TSAD1122',
      'write its elements, .w[j] = v',
    ],
    ['a computed index into a tuple field', '/** @differentiable */ function f(ps: [number, number][], k: number): number { return ps[0][k]; }', 'TSAD1121', 'indexed by a number literal'],
  ])('%s', (_what, source, code, words) => {
    const messages = refused(source);
    expect(messages).toContain(code);
    expect(messages).toContain(words);
    expect(messages).not.toContain('TSAD9');
  });
});

test('loops write and push into the columns in place: no copy of a column per element', () => {
  // Loops and branches carry an array of records as its columns, each an array of its own.
  const text = result.outputText;
  // (Their grads call the valueAndGrad defs of the same parameters.)
  for (const fn of ['step$vg', 'pushed$vg', 'replaced$vg']) {
    const start = text.indexOf(`function ${fn}`);
    expect(start).toBeGreaterThan(0);
    expect(text.slice(start, text.indexOf('\n}\n', start))).not.toMatch(/\.slice\(\)/);
  }
});

describe('arrays of records through linearize and hvp', () => {
  const src = `
import { differentiable, linearize, hvp } from 'tsad';
interface P { x: number; y: number }
/** @differentiable */
export function spread(ps: P[]): number {
  let s = 0;
  for (const p of ps) s += Math.sin(p.x) * p.y * p.y;
  return s;
}
export const lin = (ps: P[]) => linearize(spread, ps);
export const hv = hvp(spread);
`;
  const { exports: h } = load(src);
  test('linearize: the linear function of a tangent array of records is <grad, v>; hvp against differences of jvp', () => {
    for (const n of [0, 1, 4]) {
      const ps = particles(n);
      const v = particles(n, rng(31));
      const [y, f] = h.lin(ps);
      const plainSpread = (q: V) => q.reduce((s: number, p: V) => s + Math.sin(p.x) * p.y * p.y, 0);
      expect(y).toBe(plainSpread(ps));
      // ∂/∂x = cos(x) y², ∂/∂y = 2 sin(x) y
      const g = ps.map((p: V) => ({ x: Math.cos(p.x) * p.y * p.y, y: 2 * Math.sin(p.x) * p.y }));
      expect(f(v)).toBeCloseTo(dot(g, v), 10);
      // H v: ∂²/∂x² = -sin(x) y², ∂²/∂x∂y = 2 cos(x) y, ∂²/∂y² = 2 sin(x)
      const hv = h.hv(ps, v);
      const expected = ps.map((p: V, k: number) => ({
        x: -Math.sin(p.x) * p.y * p.y * v[k].x + 2 * Math.cos(p.x) * p.y * v[k].y,
        y: 2 * Math.cos(p.x) * p.y * v[k].x + 2 * Math.sin(p.x) * v[k].y,
      }));
      close(hv, expected, 1e-9);
    }
  });
});

test('the split and join helpers print in ES module output and for an old target too', () => {
  const src = `import { differentiable, grad } from 'tsad';
interface P { x: number; y: number }
/** @differentiable */
export function f(ps: P[]): number { return ps.reduce((s, p) => s + p.x * p.y, 0); }
export const g = grad(f);
`;
  for (const compilerOptions of [
    { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2015 },
  ]) {
    const out = compile(src, { compilerOptions }).outputText;
    expect(out).toContain('function tsad$splitRecords(ps, path, layout, where, tangent, like, irLike)');
    expect(out).toContain('function tsad$joinRecords(columns, layout, like, irLike)');
    // Parsed as JavaScript: the output is too.
    expect(
      () =>
        new Function(
          out
            .replace(/^import .*$/gm, '')
            .replace(/^export (?=const|function)/gm, '')
            .replace(/^export .*$/gm, ''),
        ),
    ).not.toThrow();
  }
});

test('a gradient of tuples that hold a typed array and two numbers (which look like the IR columns of a matrix) comes back right', () => {
  const src = `import { differentiable, grad } from 'tsad';
/** @differentiable */
export function f(ps: [Float64Array, number, number][]): number {
  let s = 0;
  for (const [w, a, b] of ps) s += w[0] * a + w[1] * b * b;
  return s;
}
export const g = grad(f);
`;
  const { exports: h } = load(src);
  const ps = [0, 1, 2].map((k) => [Float64Array.from([k + 0.5, k - 0.25]), k * 0.3 + 0.1, 1 - k * 0.2] as [Float64Array, number, number]);
  const g = h.g(ps);
  expect(g.length).toBe(3);
  g.forEach((gk: V, k: number) => {
    const [w, a, b] = ps[k];
    expect(gk[0]).toBeInstanceOf(Float64Array);
    close([...gk[0], gk[1], gk[2]], [a, b * b, w[0], 2 * w[1] * b], 1e-12);
  });
});
