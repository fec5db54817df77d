// Mixing taped and compiled code with arrays (docs/frontend.md, "Taped mode", "Mixing"): a
// compiled callee of arrays called from taped code is one tape entry (its compiled gradient for
// the whole array), and a function that must run taped, called from compiled code, is an opaque
// call of that code whose derivatives come from its taped copies (a custom VJP).
import { compile, load, partial, expectClose } from './harness';

const tsad = require('tsad') as { tsad$tape: { stats(): { nodes: number; edges: number } } };

describe('a compiled function of arrays called from taped code', () => {
  const { exports: m, result } = load(`import { grad } from 'tsad';
/** @differentiable */
export function energy(xs: Float64Array, k: number): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += Math.sin(k * xs[i]) * xs[i];
  return s;
}
/** @differentiable */
export function walk(xs: Float64Array, n: number): number {
  return n === 0 ? 0 : energy(xs, n) + walk(xs, n - 1);
}
/** The scale active too: the entry has a partial for it beside the array's. */
/** @differentiable */
export function scaled(xs: number[], k: number, n: number): number {
  return n === 0 ? k : energy(new Float64Array(xs), k) * scaled(xs, k, n - 1);
}
export const dWalk = grad(walk);
export const dScaled = grad(scaled, { wrt: [0, 1] });
`);

  test('builds: only the recursive functions run taped', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
    const notes = result.messages.filter((s) => /note TSAD2001/.test(s));
    expect(notes.map((s) => s.match(/'(\w+)' runs taped/)?.[1]).sort()).toEqual(['scaled', 'walk']);
  });

  test('each call is one tape entry with a partial per element: m + 2n nodes', () => {
    for (const [len, n] of [
      [3, 1],
      [5, 4],
      [8, 10],
    ]) {
      const xs = Float64Array.from({ length: len }, (_, i) => 0.3 + 0.17 * i);
      const g = m.dWalk(xs, n) as Float64Array;
      expect(tsad.tsad$tape.stats()).toEqual({ nodes: len + 2 * n, edges: n * len + 2 * n - 1 });
      expect(g).toBeInstanceOf(Float64Array);
      for (let k = 0; k < len; k++) expectClose([g[k]], partial(m.walk, [Array.from(xs), n], 0, k), 1e-5);
    }
  });

  test('an array built in taped code and an active number: the gradient agrees with central differences', () => {
    const xs = [0.4, -0.7, 1.1];
    const [gx, gk] = m.dScaled(xs, 0.9, 3);
    for (let k = 0; k < xs.length; k++) expectClose([gx[k]], partial(m.scaled, [xs, 0.9, 3], 0, k), 1e-5);
    expectClose([gk], partial(m.scaled, [xs, 0.9, 3], 1, 0), 1e-5);
  });
});

/** The determinant by expansion along the first row (recursive, on Float64Array). */
const DET = `/** @differentiable */
export function det(a: Float64Array, n: number): number {
  if (n === 1) return a[0];
  let s = 0;
  for (let j = 0; j < n; j++) {
    const minor = new Float64Array((n - 1) * (n - 1));
    for (let r = 1; r < n; r++) {
      let k = 0;
      for (let c = 0; c < n; c++) {
        if (c === j) continue;
        minor[(r - 1) * (n - 1) + k] = a[r * n + c];
        k++;
      }
    }
    s += (j % 2 === 0 ? 1 : -1) * a[j] * det(minor, n - 1);
  }
  return s;
}`;

describe('a recursive determinant called from compiled code: a custom VJP from its taped copy', () => {
  const { exports: m, result } = load(`import { grad, jvp, hvp, hessian, vjp, valueAndGrad } from 'tsad';
${DET}
/** Compiled: it calls det, which runs taped. */
/** @differentiable */
export function outer(a: Float64Array, n: number): number {
  const d = det(a, n);
  let q = 0;
  for (let i = 0; i < a.length; i++) q += a[i] * a[i];
  return Math.sin(d) + 0.1 * d * q;
}
/** The taped callee inside a counted loop: one call per iteration (zero trips: none). */
/** @differentiable */
export function looped(a: Float64Array, n: number, reps: number): number {
  let s = 0;
  for (let i = 0; i < reps; i++) s += Math.cos(0.3 * i + det(a, n)) * a[i % a.length];
  return s;
}
export const dOuter = grad(outer);
export const vgOuter = valueAndGrad(outer);
export function vjpOuter(a: Float64Array, n: number) {
  return vjp(outer, a, n);
}
export function jvpOuter(a: Float64Array, n: number, v: Float64Array) {
  return jvp(outer, [a, n], [v, 0]);
}
export const hvpOuter = hvp(outer);
export const hessOuter = hessian(outer);
export const dLooped = grad(looped);
export const hvpLooped = hvp(looped);
export const dDet = grad(det, { wrt: [0, 1] });
`);
  const matrix = (n: number) => Float64Array.from({ length: n * n }, (_, i) => Math.sin(1.3 * i + 0.4) + (i % (n + 1) === 0 ? 1.5 : 0));
  const fd = (f: (...a: any[]) => number, args: any[], i: number, len: number) =>
    Array.from(
      { length: len },
      (_, k) =>
        partial(
          f,
          args.map((a) => (a instanceof Float64Array ? Array.from(a) : a)),
          i,
          k,
        )[0],
    );

  test('builds: the note names only det; outer and looped run compiled', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
    const notes = result.messages.filter((s) => /note TSAD2001/.test(s));
    expect(notes.map((s) => s.match(/'(\w+)' runs taped/)?.[1])).toEqual(['det']);
    // Compiled: its gradient calls the taped copy of det once, through the runtime's VJP (grad
    // shares valueAndGrad's def, outer$vg).
    const body = result.outputText.slice(result.outputText.indexOf('function outer$vg'));
    const own = body.slice(0, body.indexOf('\nfunction ', 1));
    expect(own.match(/tapedVjp\(/g)).toHaveLength(1);
    expect(own).not.toMatch(/new tsad\$rt\.tsad\$tape\.Tape/);
  });

  test('grad and valueAndGrad agree with central differences (n = 1 … 4); the tape holds only det', () => {
    for (const n of [1, 2, 3, 4]) {
      const a = matrix(n);
      const g = m.dOuter(a, n) as Float64Array;
      const tapeOfDet = tsad.tsad$tape.stats();
      expect(g).toBeInstanceOf(Float64Array);
      expectClose(Array.from(g), fd(m.outer, [a, n], 0, n * n), 1e-5);
      m.dDet(a, n);
      expect(tapeOfDet).toEqual(tsad.tsad$tape.stats());
      const [v, vg] = m.vgOuter(a, n);
      expect(v).toBeCloseTo(m.outer(a, n), 12);
      expectClose(Array.from(vg as Float64Array), Array.from(g), 1e-12);
    }
  });

  test('vjp: the pullback may run twice; jvp agrees with <grad, v>', () => {
    const n = 3;
    const a = matrix(n);
    const v = Float64Array.from({ length: n * n }, (_, i) => Math.cos(i));
    const [y, pullback] = m.vjpOuter(a, n);
    expect(y).toBeCloseTo(m.outer(a, n), 12);
    const g = m.dOuter(a, n) as Float64Array;
    for (const ct of [1, -2.5]) {
      const [ga, gn] = pullback(ct);
      expectClose(
        Array.from(ga as Float64Array),
        Array.from(g, (x) => ct * x),
        1e-12,
      );
      // n only sizes and indexes: no derivative (its differences are NaN: det of a fractional size).
      expect(gn).toBe(0);
    }
    const [y2, dy] = m.jvpOuter(a, n, v);
    expect(y2).toBeCloseTo(m.outer(a, n), 12);
    expectClose([dy], [g.reduce((s, x, i) => s + x * v[i], 0)], 1e-10);
  });

  test('hvp and hessian (forward over the taped VJP) agree with differences of the gradient', () => {
    const n = 3;
    const a = matrix(n);
    const v = Float64Array.from({ length: n * n }, (_, i) => 0.5 - 0.1 * i);
    const hv = m.hvpOuter(a, n, v) as Float64Array;
    const h = 1e-5;
    const shifted = (s: number) =>
      m.dOuter(
        Float64Array.from(a, (x, i) => x + s * v[i]),
        n,
      ) as Float64Array;
    const up = shifted(h);
    const down = shifted(-h);
    expectClose(
      Array.from(hv),
      Array.from(up, (u, i) => (u - down[i]) / (2 * h)),
      1e-5,
    );
    const H = m.hessOuter(a, n) as number[][];
    const hvFromH = H.map((row) => row.reduce((s, x, j) => s + x * v[j], 0));
    expectClose(hvFromH, Array.from(hv), 1e-9);
  });

  test('in a counted loop: the gradient agrees with central differences; zero trips give zeros', () => {
    const n = 3;
    const a = matrix(n);
    for (const reps of [0, 1, 4]) {
      const g = m.dLooped(a, n, reps) as Float64Array;
      expectClose(Array.from(g), fd(m.looped, [a, n, reps], 0, n * n), 1e-5);
    }
    expect(Array.from(m.dLooped(a, n, 0) as Float64Array)).toEqual(new Array(n * n).fill(0));
    // Forward over reverse through the loop: one second-order run of det per iteration.
    const v = Float64Array.from({ length: n * n }, (_, i) => 0.2 * i - 0.7);
    const h = 1e-5;
    for (const reps of [0, 3]) {
      const hv = m.hvpLooped(a, n, reps, v) as Float64Array;
      const up = m.dLooped(
        Float64Array.from(a, (x, i) => x + h * v[i]),
        n,
        reps,
      ) as Float64Array;
      const down = m.dLooped(
        Float64Array.from(a, (x, i) => x - h * v[i]),
        n,
        reps,
      ) as Float64Array;
      expectClose(
        Array.from(hv),
        Array.from(up, (u, i) => (u - down[i]) / (2 * h)),
        1e-5,
      );
    }
  });
});

describe('an expression-tree evaluator and a function taking functions, called from compiled code', () => {
  const { exports: m, result } = load(`import { grad, jvp, hvp } from 'tsad';
type Expr = { op: '+' | '*'; l: Expr; r: Expr } | { op: 'sin'; l: Expr } | { k: number } | { x: true };
/** Recursive over the tree: constants are read from k by index. */
/** @differentiable */
export function evaluate(e: Expr, k: Float64Array, x: number): number {
  if ('k' in e) return k[e.k];
  if ('x' in e) return x;
  if (e.op === 'sin') return Math.sin(evaluate(e.l, k, x));
  const a = evaluate(e.l, k, x);
  const b = evaluate(e.r, k, x);
  return e.op === '+' ? a + b : a * b;
}
// k0 * sin(k1 * x) + k2 * x
const TREE: Expr = { op: '+', l: { op: '*', l: { k: 0 }, r: { op: 'sin', l: { op: '*', l: { k: 1 }, r: { x: true } } } }, r: { op: '*', l: { k: 2 }, r: { x: true } } };
/** Not recursive itself: it runs taped because evaluate recurses. */
/** @differentiable */
export function model(k: Float64Array, x: number): number {
  return evaluate(TREE, k, x);
}
/** Compiled: a least-squares fit over the data, one call of the model per point. */
/** @differentiable */
export function fit(k: Float64Array, xs: Float64Array, ys: Float64Array): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    const r = model(k, xs[i]) - ys[i];
    s += r * r;
  }
  return s;
}
/** A function taking a function (what was TSAD1105): the midpoint rule. */
/** @differentiable */
export function integrate(f: (t: number) => number, a: number, b: number): number {
  const n = 16;
  const h = (b - a) / n;
  let s = 0;
  for (let i = 0; i < n; i++) s += f(a + (i + 0.5) * h);
  return s * h;
}
/** @differentiable */
export function area(x: number): number {
  return integrate((t) => Math.exp(-t * t * x), 0, x);
}
/** Compiled: it calls area, which runs taped. */
/** @differentiable */
export function loss(x: number, w: number): number {
  return Math.sin(w * area(x)) + area(w);
}
export const dFit = grad(fit);
export const hvpFit = hvp(fit);
export const dLoss = grad(loss, { wrt: [0, 1] });
export function jvpLoss(x: number, w: number, dx: number, dw: number) {
  return jvp(loss, [x, w], [dx, dw]);
}
export const hvpLoss = hvp(loss, { wrt: [0, 1] });
`);
  const k = Float64Array.from([1.3, 0.7, -0.4]);
  const xs = Float64Array.from([0.1, 0.5, 1.2, 2.0]);
  const ys = Float64Array.from([0.2, 0.1, 0.9, 1.1]);
  const plain = (a: Float64Array) => Array.from(a);

  test('builds: notes for the functions that run taped, none for fit and loss', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
    const notes = result.messages.filter((s) => /note TSAD2001/.test(s)).map((s) => s.match(/'(\w+)' runs taped/)?.[1]);
    expect(notes.sort()).toEqual(['area', 'evaluate', 'integrate', 'model']);
  });

  test('the fit: gradient and hvp agree with central differences', () => {
    const g = m.dFit(k, xs, ys) as Float64Array;
    for (let i = 0; i < 3; i++) expectClose([g[i]], partial(m.fit, [plain(k), plain(xs), plain(ys)], 0, i), 1e-5);
    const v = Float64Array.from([0.3, -1, 0.5]);
    const hv = m.hvpFit(k, xs, ys, v) as Float64Array;
    const h = 1e-5;
    const up = m.dFit(
      Float64Array.from(k, (x, i) => x + h * v[i]),
      xs,
      ys,
    ) as Float64Array;
    const down = m.dFit(
      Float64Array.from(k, (x, i) => x - h * v[i]),
      xs,
      ys,
    ) as Float64Array;
    expectClose(
      Array.from(hv),
      Array.from(up, (u, i) => (u - down[i]) / (2 * h)),
      1e-5,
    );
  });

  test('the function of functions: grad, jvp and hvp agree with central differences', () => {
    const [x, w] = [0.8, 1.7];
    const [gx, gw] = m.dLoss(x, w);
    expectClose([gx, gw], [partial(m.loss, [x, w], 0, 0)[0], partial(m.loss, [x, w], 1, 0)[0]], 1e-5);
    const [y, dy] = m.jvpLoss(x, w, 0.6, -0.2);
    expect(y).toBeCloseTo(m.loss(x, w), 12);
    expectClose([dy], [0.6 * gx - 0.2 * gw], 1e-10);
    const [hx, hw] = m.hvpLoss(x, w, [1, 0.5]);
    const h = 1e-5;
    const [ux, uw] = m.dLoss(x + h, w + 0.5 * h);
    const [dx, dw] = m.dLoss(x - h, w - 0.5 * h);
    expectClose([hx, hw], [(ux - dx) / (2 * h), (uw - dw) / (2 * h)], 1e-5);
  });
});

describe('a taped callee that writes into its array parameter', () => {
  const { exports: m, result } = load(`import { grad, hvp, jacobian } from 'tsad';
/** The k-th smallest by recursive partitioning, in place: it reorders xs. */
/** @differentiable */
export function select(xs: number[], lo: number, hi: number, k: number): number {
  if (lo === hi) return xs[lo];
  const p = xs[hi];
  let i = lo;
  for (let j = lo; j < hi; j++) {
    if (xs[j] < p) {
      const t = xs[i];
      xs[i] = xs[j];
      xs[j] = t;
      i++;
    }
  }
  const t = xs[i];
  xs[i] = xs[hi];
  xs[hi] = t;
  if (k === i) return xs[i];
  return k < i ? select(xs, lo, i - 1, k) : select(xs, i + 1, hi, k);
}
/** Reads xs after select reordered it, as JavaScript does. */
/** @differentiable */
export function spread(xs: number[]): number {
  const m = select(xs, 0, xs.length - 1, 1);
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += (xs[i] - m) * (xs[i] - m) * (i + 1);
  return s;
}
export const dSpread = grad(spread);
export const hvpSpread = hvp(spread);
export const jacSpread = jacobian(spread);
`);

  test('makes its caller run taped as a whole (an opaque call would keep the caller reading its own copy)', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
    const notes = result.messages.filter((s) => /note TSAD2001/.test(s)).map((s) => s.match(/'(\w+)' runs taped/)?.[1]);
    expect(notes.sort()).toEqual(['select', 'spread']);
  });

  test('taped, each number gets its own cotangent wherever the function moved its node (was the cotangent of the number moved there)', () => {
    const xs = [0.9, -0.3, 2.2, 0.4, 1.5];
    const g = m.dSpread(xs) as number[];
    expect(xs).toEqual([0.9, -0.3, 2.2, 0.4, 1.5]);
    for (let k = 0; k < xs.length; k++) expectClose([g[k]], partial(m.spread, [xs], 0, k), 1e-5);
    expectClose((m.jacSpread(xs) as number[][])[0], g, 1e-12);
    const v = [0.3, -0.2, 0.5, 1, -0.4];
    const hv = m.hvpSpread(xs, v) as number[];
    const h = 1e-5;
    const up = m.dSpread(xs.map((x, i) => x + h * v[i])) as number[];
    const down = m.dSpread(xs.map((x, i) => x - h * v[i])) as number[];
    expectClose(
      hv,
      up.map((u, i) => (u - down[i]) / (2 * h)),
      1e-5,
    );
  });
});

describe('arrays go in as the callee declares them', () => {
  const { exports: m, result } = load(`import { grad } from 'tsad';
/** Declares number[] and uses what only arrays have (concat). */
/** @differentiable */
export function chain(xs: number[], n: number): number {
  if (n === 0) return xs.concat([1]).reduce((s, x) => s + x * x, 0);
  return Math.sin(chain(xs, n - 1)) + xs[0];
}
/** Compiled: its array is a Float64Array. */
/** @differentiable */
export function top(a: Float64Array): number {
  return chain(a as unknown as number[], 3) * a[1];
}
export const dTop = grad(top);
`);

  test('a number[] parameter of a taped callee gets an array from a compiled caller holding a Float64Array', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
    const a = Float64Array.from([0.3, -0.8, 0.5]);
    const g = m.dTop(a) as Float64Array;
    for (let k = 0; k < 3; k++) expectClose([g[k]], partial(m.top, [Array.from(a)], 0, k), 1e-5);
  });
});

describe('past second order', () => {
  test('reverse mode over a gradient that calls a taped callee is TSAD1121 at the call site, naming the limit', () => {
    const r = compile(
      `import { grad } from 'tsad';
/** @differentiable */
export function rec(x: number, n: number): number {
  return n === 0 ? x : Math.sin(rec(x, n - 1)) * x;
}
/** @differentiable */
export function loss(x: number): number {
  return rec(x, 3) * x;
}
/** @differentiable */
export function h(x: number): number {
  const g = grad(loss)(x);
  return g * g;
}
export const dH = grad(h);
`,
      { throwOnError: false },
    );
    expect(r.messages.filter((s) => / - error /.test(s))).toEqual([expect.stringMatching(/error TSAD1121: grad\(h\) is not supported yet: tapedHvp: .*up to second order/)]);
  });
});

describe('Jacobians and linearize of a compiled function returning an array that calls a taped callee', () => {
  const { exports: m, result } = load(`import { jacobian, jacrev, jacfwd, linearize } from 'tsad';
/** @differentiable */
export function rec(x: number, n: number): number {
  return n === 0 ? x : Math.sin(rec(x, n - 1)) * x;
}
/** @differentiable */
export function vec(x: number, y: number): number[] {
  return [rec(x, 3) * y, rec(y, 2) + x];
}
export const J = jacobian(vec, { wrt: [0, 1] });
export const Jr = jacrev(vec, { wrt: [0, 1] });
export const Jf = jacfwd(vec, { wrt: [0, 1] });
export function lin(x: number, y: number) {
  return linearize(vec, x, y);
}
`);

  test('every form agrees with central differences; only rec runs taped', () => {
    expect(result.messages.filter((s) => /note TSAD2001/.test(s)).map((s) => s.match(/'(\w+)' runs taped/)?.[1])).toEqual(['rec']);
    const [x, y] = [0.6, 1.3];
    const columns = [0, 1].map((j) => partial(m.vec, [x, y], j, 0));
    for (const jac of [m.J, m.Jr, m.Jf]) {
      const [dx, dy] = jac(x, y) as number[][][];
      expectClose(
        dx.map((r) => r[0]),
        columns[0],
        1e-6,
      );
      expectClose(
        dy.map((r) => r[0]),
        columns[1],
        1e-6,
      );
    }
    const [v, tangent] = m.lin(x, y);
    expectClose(v, m.vec(x, y), 1e-12);
    expectClose(tangent(1, 0), columns[0], 1e-6);
    expectClose(tangent(0, 1), columns[1], 1e-6);
  });
});
