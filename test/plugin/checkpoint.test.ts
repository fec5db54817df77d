// Checkpointing loops from TypeScript: `@differentiable({ checkpoint })` on a method and
// `differentiable(fn, { checkpoint })` around an arrow carry the policy to reverse mode
// (ad/checkpoint.ts). The same numbers as storing every iteration; an RK4 integration of 1000
// steps against central finite differences; the emitted code keeps the segments as loops.
import { load, expectClose } from './harness';

const source = (policy: string) => `import { grad, valueAndGrad, vjp, differentiable } from 'tsad';
export class Sq {
  @differentiable({ checkpoint: ${policy} })
  static squarings(x: number): number {
    let y = x;
    for (let i = 0; i < 3; i++) y = y * y;
    return y;
  }
}
export const dSq = grad(Sq.squarings);

/** Damped oscillator x'' = −k·x − c·x', state (x, v), fixed-step RK4 of dt for n steps; the final x. */
export const oscillator = differentiable(
  (x0: number, v0: number, k: number, c: number, n: number): number => {
    const dt = 0.01;
    let x = x0;
    let v = v0;
    for (let i = 0; i < n; i++) {
      const a1 = -k * x - c * v;
      const x2 = x + 0.5 * dt * v, v2 = v + 0.5 * dt * a1;
      const a2 = -k * x2 - c * v2;
      const x3 = x + 0.5 * dt * v2, v3 = v + 0.5 * dt * a2;
      const a3 = -k * x3 - c * v3;
      const x4 = x + dt * v3, v4 = v + dt * a3;
      const a4 = -k * x4 - c * v4;
      x = x + (dt / 6) * (v + 2 * v2 + 2 * v3 + v4);
      v = v + (dt / 6) * (a1 + 2 * a2 + 2 * a3 + a4);
    }
    return x;
  },
  { checkpoint: ${policy} },
);
export const dOsc = grad(oscillator, { wrt: [0, 1, 2, 3] });
export const vgOsc = valueAndGrad(oscillator, { wrt: [2] });
export const vOsc = (x0: number, v0: number, k: number, c: number, n: number) => vjp(oscillator, x0, v0, k, c, n);
`;

const POLICIES = ["'store'", '{ every: 32 }', "'sqrt'", '{ levels: 3 }', '{ every: 1 }'];
const modules = new Map(POLICIES.map((p) => [p, load(source(p))]));

const at = [1, 0.5, 4, 0.3, 1000];
const central = (f: (...a: number[]) => number, i: number, h = 1e-6) => {
  const shift = (s: number) => at.map((v, j) => (j === i ? v + s * h : v));
  return (f(...shift(1)) - f(...shift(-1))) / (2 * h);
};

describe.each(POLICIES)('checkpoint: %s', (policy) => {
  const { exports: m } = modules.get(policy)!;

  test('repeated squaring: 25.62890625 and 136.6875, exactly', () => {
    expect(m.Sq.squarings(1.5)).toBe(25.62890625);
    expect(m.dSq(1.5)).toBe(136.6875);
  });

  test('RK4, 1000 steps: the gradient w.r.t. the initial state and both parameters against central differences', () => {
    const g = m.dOsc(...at);
    const fd = [0, 1, 2, 3].map((i) => central(m.oscillator, i));
    expectClose(g, fd, 1e-7);
    const [value, dk] = m.vgOsc(...at);
    expect(value).toBe(m.oscillator(...at));
    expect(dk).toBe(g[2]);
    const [v2, pullback] = m.vOsc(...at);
    expect(v2).toBe(value);
    expectClose(
      pullback(2).slice(0, 4),
      g.map((x: number) => 2 * x),
      1e-12,
    );
  });
});

test('every policy gives the gradient of storing, to rounding', () => {
  const store = modules.get("'store'")!.exports.dOsc(...at);
  for (const p of POLICIES) expectClose(modules.get(p)!.exports.dOsc(...at), store, 1e-13);
});

test('the emitted code runs the segments as nested loops, the store policy as one', () => {
  const loops = (p: string) => (modules.get(p)!.result.outputText.match(/\bfor \(/g) ?? []).length;
  expect(loops('{ every: 32 }')).toBeGreaterThan(loops("'store'"));
  expect(loops('{ levels: 3 }')).toBeGreaterThan(loops('{ every: 32 }'));
});

test('while and do-while loops under { every: k }: the gradient of storing, and a diagnostic-free build', () => {
  const src = (policy: string) => `import { grad, differentiable } from 'tsad';
export const growth = differentiable((u: number, x: number): number => {
  let p = x;
  let s = 0;
  while (p < 50) {
    p = p * (1 + u);
    s = s + Math.sin(p);
  }
  let y = s;
  do {
    y = Math.sin(y) + 1.5 * y + 0.2;
  } while (y < 10);
  return p + y;
}, { checkpoint: ${policy} });
export const d = grad(growth, { wrt: [0, 1] });
`;
  const stored = load(src("'store'"));
  const store = stored.exports;
  const whiles = (text: string) => (text.match(/\bwhile \(/g) ?? []).length;
  for (const policy of ['{ every: 1 }', '{ every: 5 }', "'sqrt'"]) {
    const { exports: m, result } = load(src(policy));
    // Segments are loops of their own; 'sqrt' has no trip count to aim at and leaves while loops.
    if (policy === "'sqrt'") expect(whiles(result.outputText)).toBe(whiles(stored.result.outputText));
    else expect(whiles(result.outputText)).toBeGreaterThan(whiles(stored.result.outputText));
    for (const at of [
      [0.01, 1],
      [0.05, 3],
    ]) {
      expect(m.growth(...at)).toBe(store.growth(...at));
      expectClose(m.d(...at), store.d(...at), 1e-13);
      const h = 1e-7;
      expectClose([m.d(...at)[0]], [(m.growth(at[0] + h, at[1]) - m.growth(at[0] - h, at[1])) / (2 * h)], 1e-5);
    }
  }
});

describe('second order through a checkpointed loop (hessian and hvp: E then J of the remat J made)', () => {
  const src = (policy: string) => `import { grad, hessian, hvp, differentiable } from 'tsad';
export const f = differentiable((x: number, y: number, n: number): number => {
  let a = x;
  let b = y;
  for (let i = 0; i < n; i++) {
    const t = Math.sin(a) * b;
    b = b + 0.01 * a * a;
    a = a + 0.01 * t;
  }
  return a * b;
}, { checkpoint: ${policy} });
export const d = grad(f, { wrt: [0, 1] });
export const h = hessian(f, { wrt: [0, 1] });
export const hv = hvp(f, { wrt: [0, 1] });
`;
  const plain = load(src("'store'")).exports;
  const at = [0.3, 0.7, 40];
  const block = (H: number[][][][]): number[][] => H.map((row) => row.map((b) => b[0][0]));
  test.each(['{ every: 7 }', "'sqrt'"])('%s: the Hessian against differences of the gradient and against storing', (policy) => {
    const { exports: m, result } = load(src(policy));
    expect(result.diagnostics).toEqual([]);
    const H = block(m.h(...at));
    const eps = 1e-6;
    const columns = [0, 1].map((j) => {
      const shift = (s: number) => m.d(...at.map((v, k) => (k === j ? v + s * eps : v)));
      const [up, down] = [shift(1), shift(-1)];
      return up.map((u: number, i: number) => (u - down[i]) / (2 * eps));
    });
    expectClose(H.flat(), [columns[0][0], columns[1][0], columns[0][1], columns[1][1]], 1e-6);
    expectClose(H.flat(), block(plain.h(...at)).flat(), 1e-12);
    const v = [0.4, -1.1];
    expectClose(m.hv(...at, v), [H[0][0] * v[0] + H[0][1] * v[1], H[1][0] * v[0] + H[1][1] * v[1]], 1e-10);
    expectClose(m.hv(...at, v), plain.hv(...at, v), 1e-12);
  });
});
