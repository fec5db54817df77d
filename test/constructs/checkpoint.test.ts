// Checkpointing counted loops (ad/checkpoint.ts, constructs/remat/, constructs/loop/segment.ts):
// the same derivatives under every policy, the work counter and the interpreter's tape meter
// showing the trade (recomputation for memory), the dot-product test and gradient = JVPs on the
// checkpointed programs, finite differences on a 1000-step integration, and the emitted
// TypeScript against the interpreter.
import * as fs from 'fs';
import * as path from 'path';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import { typeErrors } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import type { Program } from '../../transformer/ir/syntax';
import type { LoopCheckpoint } from '../../transformer/ad/checkpoint';
import { checkpointProgram } from '../../transformer/ad/checkpoint';
import { gradOf, jvpOf, vjpOf } from '../gen/drivers';
import { emitAndLoad, asReturned } from './emitted';

const SQUARING = `
// Repeated squaring: sq(1.5, 3) = 1.5⁸ = 25.62890625, d/dx = 8·1.5⁷ = 136.6875.
def sq(x: real, n: real ;) -> (real ;) {
  loop(n, x) [|i: real, c: real ;| {
    drop(i)
    mul(c, c)
  }]
}`;

// A damped oscillator x'' = −k·x − c·x' by explicit Euler steps of dt: state (x, v), parameters k, c.
const OSCILLATOR = `
def osc(x0: real, v0: real, k: real, c: real, n: real ;) -> (real ;) {
  let dt = 0.01
  let s0 = <x0, v0>
  let s = loop(n, k, c, dt, s0) [|i: real, k: real, c: real, dt: real, s: <real, real> ;| {
    drop(i)
    let <x, v> = s
    let kx = mul(k, x)
    let cv = mul(c, v)
    let f = add(kx, cv)
    let a = neg(f)
    let dx = mul(dt, v)
    let dv = mul(dt, a)
    let x1 = add(x, dx)
    let v1 = add(v, dv)
    <x1, v1>
  }]
  let <xn, vn> = s
  drop(vn)
  xn
}`;

const POLICIES: readonly LoopCheckpoint[] = ['store', { every: 1 }, { every: 2 }, { every: 3 }, { every: 32 }, 'sqrt', { levels: 3 }, { levels: 4 }];
const name = (c: LoopCheckpoint) => JSON.stringify(c);
const grad = (p: Program, fn: string, c: LoopCheckpoint, args: number[]) => {
  const g = gradOf(p, fn, { simplify: true, checkpoint: c });
  return evalFn(g.program, g.grad, args, [], { tape: true });
};

describe('remat', () => {
  test('prints and parses back; the checker types its body and the primal J keeps', () => {
    const src = 'def f(x: real ;) -> (real ;) {\n  remat(x) [|y: real ;| {\n    mul(y, y)\n  }]\n}\n';
    const p = parseProgram(src);
    expect(printProgram(p)).toBe(src);
    expect(typeErrors(p)).toEqual([]);
    expect(evalFn(p, 'f', [3])).toEqual({ nl: [9], lin: [], work: 1 });
    const j = jvpOf(p, 'f');
    expect(printProgram(j.program)).toMatch(/remat\(x ; x_dot\) \[\|y: real ; y_dot: real\| \{[\s\S]*\}, \|y\w*: real ;\| \{/);
  });

  test.each([
    ['no body', 'def f(x: real ;) -> (real ;) {\n  remat(x) []\n}', 'remat takes one body'],
    ['a primal body of another type', 'def f(x: real ;) -> (real ;) {\n  remat(x ; ) [|y: real ;| {\n    mul(y, y)\n  }, |y: real ;| {\n    gt(y, y)\n  }]\n}', 'the second body of remat'],
  ])('rejects %s', (_, src, message) => {
    expect(typeErrors(parseProgram(src, 't.lina')).join('\n')).toContain(message);
  });

  test('a result nobody reads is pruned from both bodies: the forward half does not compute it', () => {
    const p = parseProgram('def f(x: real ;) -> (real ;) {\n  let (a, b) = remat(x) [|y: real ;| {\n    let s = sin(y)\n    let c = exp(y)\n    (s, c ;)\n  }]\n  drop(b)\n  a\n}');
    const g = gradOf(p, 'f', { simplify: true });
    const fwd = printProgram({ ...g.program, defs: g.program.defs.filter((d) => d.name === 'f.fwd') });
    expect(fwd).toContain('remat(');
    expect(fwd).not.toContain('exp(');
    expect(evalFn(g.program, g.grad, [0.3]).nl[0]).toBe(Math.cos(0.3));
  });

  test('reverse mode through remat recomputes: the tape holds the operand, not the residuals', () => {
    const p = parseProgram('def f(x: real ;) -> (real ;) {\n  remat(x) [|y: real ;| {\n    let s = sin(y)\n    mul(s, y)\n  }]\n}');
    const v = vjpOf(p, 'f', { simplify: true });
    expect(printProgram(v.program)).toContain('type f.tape = <real>');
    const g = gradOf(p, 'f', { simplify: true });
    const x = 0.7;
    expect(evalFn(g.program, g.grad, [x]).nl[0]).toBeCloseTo(Math.cos(x) * x + Math.sin(x), 14);
  });
});

describe('repeated squaring under each policy', () => {
  const p = parseProgram(SQUARING);
  test.each(POLICIES.map((c) => [name(c), c] as const))('%s: sq(1.5, 3) = 25.62890625, d/dx = 136.6875', (_, c) => {
    const g = gradOf(p, 'sq', { simplify: true, checkpoint: c });
    expect(evalFn(g.program, 'sq', [1.5, 3]).nl).toEqual([25.62890625]);
    expect(evalFn(g.program, g.grad, [1.5, 3]).nl).toEqual([136.6875, 0]);
  });

  test.each([0, -1, NaN, 0.5, 2.5, 7, 10])('trip count %p: every policy agrees with forward mode, and with store bit for bit', (n) => {
    const j = jvpOf(p, 'sq');
    const expected = evalFn(j.program, j.jvp, [1.01, n], [1, 0]).lin[0] as number;
    // (store itself cannot run a non-integer trip count backwards yet: its reversed loop indexes the stacks with m − j − 1.)
    const store = Number.isInteger(n) ? grad(p, 'sq', 'store', [1.01, n]).nl[0] : undefined;
    for (const c of POLICIES.filter((x) => x !== 'store')) {
      const r = grad(p, 'sq', c, [1.01, n]).nl[0] as number;
      if (Number.isNaN(expected)) expect(r).toBeNaN();
      else expect(rel(r, expected)).toBeLessThan(1e-14);
      if (store !== undefined) expect(r).toBe(store);
    }
  });

  test('work and the peak tape: n residuals stored, or ⌈n/k⌉ snapshots and one segment, for about twice the work', () => {
    const n = 1024;
    const args = [1, n];
    const store = grad(p, 'sq', 'store', args);
    expect(store.peakTape).toBe(n);
    for (const k of [8, 32, 128]) {
      const r = grad(p, 'sq', { every: k }, args);
      // A snapshot is the carried value (the remat's other operands are the counter and invariants).
      expect(r.peakTape).toBe(Math.ceil(n / k) + k);
      expect(r.work).toBeLessThanOrEqual(2 * store.work + 20 * (n / k) + 20);
      expect(r.work).toBeGreaterThan(store.work);
    }
    const sqrt = grad(p, 'sq', 'sqrt', args);
    expect(sqrt.peakTape).toBe(32 + 32);
    const l3 = grad(p, 'sq', { levels: 3 }, args);
    expect(l3.peakTape!).toBeLessThan(sqrt.peakTape!);
    expect(l3.work).toBeGreaterThan(sqrt.work);
    // Two levels of segments: two more forward sweeps, plus a counter offset per level and iteration.
    expect(l3.work).toBeLessThanOrEqual(4 * store.work);
  });

  test('peak tape grows as √n under sqrt and as n under store', () => {
    const peaks = [256, 4096].map((n) => [grad(p, 'sq', 'store', [1, n]).peakTape!, grad(p, 'sq', 'sqrt', [1, n]).peakTape!]);
    expect(peaks[1][0] / peaks[0][0]).toBe(16);
    expect(peaks[1][1] / peaks[0][1]).toBe(4);
  });
});

describe('a damped oscillator, 1000 Euler steps', () => {
  const p = parseProgram(OSCILLATOR);
  const at = [1, 0.5, 4, 0.3, 1000];
  const fd = (i: number, h = 1e-6) => {
    const f = (s: number) =>
      evalFn(
        p,
        'osc',
        at.map((v, j) => (j === i ? v + s * h : v)),
      ).nl[0] as number;
    return (f(1) - f(-1)) / (2 * h);
  };
  const expected = [0, 1, 2, 3].map((i) => fd(i));

  test.each(POLICIES.map((c) => [name(c), c] as const))('%s: gradient against central differences', (_, c) => {
    const r = grad(p, 'osc', c, at).nl as number[];
    [0, 1, 2, 3].forEach((i) => expect(rel(r[i], expected[i])).toBeLessThan(1e-7));
    expect(r[4]).toBe(0);
  });

  test.each([{ every: 32 }, 'sqrt', { levels: 3 }] as LoopCheckpoint[])('%p: the gradient equals the JVPs along each axis, and the dot-product test holds', (c) => {
    const j = jvpOf(p, 'osc');
    const g = grad(p, 'osc', c, at).nl as number[];
    [0, 1, 2, 3].forEach((i) => {
      const e = at.map((_, k) => (k === i ? 1 : 0));
      expect(rel(g[i], evalFn(j.program, j.jvp, at, e).lin[0] as number)).toBeLessThan(1e-12);
    });
    const v = vjpOf(p, 'osc', { simplify: true, checkpoint: c });
    const fwd = evalFn(v.program, v.fwd, at);
    const tape = fwd.nl[1];
    const xDot = [0.3, -1.2, 0.7, 2.1, 0.4];
    const ybar = 1.7;
    const lin = linOf(p, c);
    const yDot = evalFn(lin.program, lin.lin, [evalFn(lin.program, lin.fwd, at).nl[1]], xDot).lin[0] as number;
    const bars = evalFn(v.program, v.bwd, [tape], [ybar]).lin as number[];
    expect(rel(ybar * yDot, dot(bars, xDot))).toBeLessThan(1e-12);
  });

  test('memory: store keeps 1000 states, every 32 keeps 32 snapshots and one segment', () => {
    const store = grad(p, 'osc', 'store', at);
    const every = grad(p, 'osc', { every: 32 }, at);
    expect(store.peakTape!).toBeGreaterThanOrEqual(2000);
    expect(every.peakTape!).toBeLessThan(store.peakTape! / 4);
    expect(every.work).toBeLessThanOrEqual(2 * store.work);
  });
});

import { linearizeOf } from '../gen/drivers';
import { rel, dot } from './reference';
function linOf(p: Program, c: LoopCheckpoint) {
  return linearizeOf(p, 'osc', { simplify: true, checkpoint: c });
}

test('examples/ir/remat.lina: the tape holds the operands; 136.6875 and 16·1.5¹⁵', () => {
  const p = parseProgram(fs.readFileSync(path.join(__dirname, '../../examples/ir/remat.lina'), 'utf8'), 'remat.lina');
  expect(printProgram(vjpOf(p, 'sq', { simplify: true }).program)).toContain('type sq.tape = <real, real>');
  expect(grad(p, 'sq', 'store', [1.5, 3]).nl).toEqual([136.6875, 0]);
  const g = grad(p, 'sq4', 'store', [1.5]);
  expect(g.nl).toEqual([16 * 1.5 ** 15]);
  // Each segment's two squares live only while its remat is transposed.
  expect(g.peakTape).toBe(2);
});

describe('other shapes', () => {
  // Σ_{i<n} t_i with t_i = x^(i+1) built by an inner loop over the outer counter, and a branch.
  const NESTED = `
def nest(x: real, n: real ;) -> (real ;) {
  let zero = 0
  let (s) = loop(n, x, zero) [|i: real, x: real, s: real ;| {
    let one = 1
    let m = add(i, one)
    let t = loop(m, x, one) [|j: real, x: real, t: real ;| {
      drop(j)
      mul(t, x)
    }]
    let big = gt(t, one)
    let u = cond(big, t) [|a: real ;| { sin(a) }, |a: real ;| { mul(a, a) }]
    add(s, u)
  }]
  s
}`;
  const p = parseProgram(NESTED);
  const at = [1.07, 9];
  const store = grad(p, 'nest', 'store', at).nl;
  test('store against central differences', () => {
    const h = 1e-6;
    const f = (x: number) => evalFn(p, 'nest', [x, at[1]]).nl[0] as number;
    expect(rel(store[0] as number, (f(at[0] + h) - f(at[0] - h)) / (2 * h))).toBeLessThan(1e-7);
  });
  test.each(POLICIES.filter((c) => c !== 'store').map((c) => [name(c), c] as const))('%s: nested loops and a cond, inner loops checkpointed too', (_, c) => {
    const r = grad(p, 'nest', c, at).nl as number[];
    r.forEach((g, k) => expect(rel(g, store[k] as number)).toBeLessThan(1e-13));
  });

  test("with U's recompute policy inside the segments too", () => {
    for (const c of [{ every: 2 }, 'sqrt', { levels: 3 }] as LoopCheckpoint[]) {
      const g = gradOf(p, 'nest', { simplify: true, checkpoint: c, policy: 'recompute' });
      const r = evalFn(g.program, g.grad, at).nl as number[];
      r.forEach((v, k) => expect(rel(v, store[k] as number)).toBeLessThan(1e-13));
    }
  });

  test('forward mode ignores the policy', () => {
    const j = jvpOf(p, 'nest', { checkpoint: 'sqrt' });
    expect(printProgram(j.program)).not.toContain('remat');
  });
});

describe('while loops: { every: k } strip-mines them, the other policies leave them', () => {
  const p = parseProgram(fs.readFileSync(path.join(__dirname, '../../examples/ir/while.lina'), 'utf8'), 'while.lina');
  // grow(0.01, 50, 1): p·1.01ⁿ passes 50 after 394 steps.
  const args = [0.01, 50, 1];
  const gradOfSum = (c: LoopCheckpoint) => {
    const q = parseProgram(
      `${fs.readFileSync(path.join(__dirname, '../../examples/ir/while.lina'), 'utf8')}\ndef total(u: real, limit: real, x: real ;) -> (real ;) {\n  let (p, s) = grow(u, limit, x)\n  add(p, s)\n}`,
    );
    const g = gradOf(q, 'total', { simplify: true, checkpoint: c });
    return { g, r: evalFn(g.program, g.grad, args, [], { tape: true }) };
  };

  test.each([1, 2, 7, 32, 1000])('every %i: the same gradient as storing, fewer values held', (k) => {
    const store = gradOfSum('store').r;
    const { g, r } = gradOfSum({ every: k });
    expect(printProgram(g.program)).toContain('remat(');
    (r.nl as number[]).forEach((v, i) => expect(rel(v, store.nl[i] as number)).toBeLessThan(1e-13));
    if (k >= 7 && k <= 32) expect(r.peakTape!).toBeLessThan(store.peakTape! / 3);
    // One more forward sweep, the counter and the segment's condition per step; with k = 1 the
    // condition runs three times per step.
    expect(r.work).toBeLessThanOrEqual((k === 1 ? 4 : 3) * store.work);
  });

  test("Newton's square root: d/da = 1/(2√a) under every 2, and the emitted code agrees", () => {
    for (const a of [0.25, 2, 9, 1e4]) {
      const g = gradOf(p, 'sqrt', { simplify: true, checkpoint: { every: 2 } });
      const d = evalFn(g.program, g.grad, [a]).nl[0] as number;
      expect(rel(d, 1 / (2 * Math.sqrt(a)))).toBeLessThan(1e-9);
      expect(emitAndLoad(g.program).fns.get(g.grad)!(a)).toBe(d);
    }
  });

  test("'sqrt' and { levels } leave a while loop as it is", () => {
    for (const c of ['sqrt', { levels: 3 }] as LoopCheckpoint[]) expect(printProgram(checkpointProgram(p, ['grow'], c))).not.toContain('remat(');
  });
});

describe('the pre-pass', () => {
  test('rewrites loops in callees too, and leaves a program without loops alone', () => {
    const p = parseProgram(`${SQUARING}\ndef g(x: real ;) -> (real ;) {\n  let n = 5\n  sq(x, n)\n}`);
    const q = checkpointProgram(p, ['g'], { every: 2 });
    expect(printProgram(q)).toContain('remat(');
    const plain = parseProgram('def h(x: real ;) -> (real ;) {\n  mul(x, x)\n}');
    expect(checkpointProgram(plain, ['h'], 'sqrt')).toEqual(plain);
    expect(checkpointProgram(p, ['g'], 'store')).toBe(p);
  });

  test.each([{ every: 0 }, { every: 1.5 }, { levels: 0 }, 'binomial'] as unknown as LoopCheckpoint[])('rejects %p with a message', (c) => {
    expect(() => checkpointProgram(parseProgram(SQUARING), ['sq'], c)).toThrow(/checkpoint must be 'store', 'sqrt', \{ every: k \} or \{ levels: L \}/);
  });
});

describe('emitted TypeScript', () => {
  test.each([{ every: 3 }, 'sqrt', { levels: 3 }] as LoopCheckpoint[])('%p: the emitted gradient agrees with the interpreter', (c) => {
    for (const [src, fn, args] of [
      [SQUARING, 'sq', [1.5, 3]],
      [SQUARING, 'sq', [1.0001, 100]],
      [OSCILLATOR, 'osc', [1, 0.5, 4, 0.3, 200]],
    ] as const) {
      const g = gradOf(parseProgram(src), fn, { simplify: true, checkpoint: c });
      const { fns } = emitAndLoad(g.program);
      expect(fns.get(g.grad)!(...args)).toEqual(asReturned(evalFn(g.program, g.grad, [...args])));
    }
  });
});
