// Guarded singular points (issue 18, item 1): a `?:` whose untaken side has an infinite or NaN
// partial at the point (1/r, x/r, √ at 0) must not leak NaN into any derivative: the select's
// test guards the computation of that side's partials in the transposed code, as it guards the
// side itself (ad/guards.ts; JAX's `where` trap, jax#1052). At the origin the references are hand
// derivations along the branch taken; away from it, central finite differences.
import { directional, expectClose, load, partial } from './harness';

const { exports: m, result } = load(`import { derivative, grad, jvp, vjp, linearize, hessian, hvp } from 'tsad';

// A JVP rule guarding its singular point.
export function safeNorm(x: number, y: number): number { return Math.sqrt(x * x + y * y); }
derivative(safeNorm, (x, y, dx, dy) => {
  const r = Math.sqrt(x * x + y * y);
  return [r, r === 0 ? 0 : (x * dx + y * dy) / r];
});
/** @differentiable */
export function useNorm(x: number, y: number): number { return 3 * safeNorm(x, y) + x; }

// The mirror: a VJP rule guarding it in the pullback (forward mode transposes the pullback).
export function pbNorm(x: number, y: number): number { return Math.sqrt(x * x + y * y); }
derivative.vjp(pbNorm, (x, y) => {
  const r = Math.sqrt(x * x + y * y);
  return [r, (ct) => [r === 0 ? 0 : ct * x / r, r === 0 ? 0 : ct * y / r]];
});
/** @differentiable */
export function usePb(x: number, y: number): number { return 3 * pbNorm(x, y) + x; }

// Plain code: the singular value is computed before the test, the select picks.
/** @differentiable */
export function clamped(x: number, y: number): number {
  const r = Math.sqrt(x * x + y * y);
  return r > 0 ? r : 0;
}
/** @differentiable */
export function scaled(x: number, y: number): number {
  const r = Math.sqrt(x * x + y * y);
  return x * (r === 0 ? 0 : 1 / r) + y;
}

export const gNorm = grad(safeNorm, { wrt: [0, 1] });
export const gUse = grad(useNorm, { wrt: [0, 1] });
export const vNorm = (x: number, y: number, ct: number) => vjp(safeNorm, x, y)[1](ct);
export const tNorm = (x: number, y: number, dx: number, dy: number) => jvp(safeNorm, [x, y], [dx, dy]);
export const lNorm = (x: number, y: number, dx: number, dy: number) => { const [v, f] = linearize(safeNorm, x, y); return [v, f(dx, dy)]; };
export const hUse = hessian(useNorm, { wrt: [0, 1] });
export const hvUse = hvp(useNorm, { wrt: [0, 1] });
export const tgUse = (x: number, y: number, dx: number, dy: number) => jvp(grad(useNorm, { wrt: [0, 1] }), [x, y], [dx, dy]);

export const gPb = grad(pbNorm, { wrt: [0, 1] });
export const gUsePb = grad(usePb, { wrt: [0, 1] });
export const vPb = (x: number, y: number, ct: number) => vjp(pbNorm, x, y)[1](ct);
export const tPb = (x: number, y: number, dx: number, dy: number) => jvp(pbNorm, [x, y], [dx, dy]);
export const lPb = (x: number, y: number, dx: number, dy: number) => { const [v, f] = linearize(pbNorm, x, y); return [v, f(dx, dy)]; };
export const tUsePb = (x: number, y: number, dx: number, dy: number) => jvp(usePb, [x, y], [dx, dy]);

export const gClamped = grad(clamped, { wrt: [0, 1] });
export const vClamped = (x: number, y: number, ct: number) => vjp(clamped, x, y)[1](ct);
export const tClamped = (x: number, y: number, dx: number, dy: number) => jvp(clamped, [x, y], [dx, dy]);
export const lClamped = (x: number, y: number, dx: number, dy: number) => { const [v, f] = linearize(clamped, x, y); return [v, f(dx, dy)]; };
export const hClamped = hessian(clamped, { wrt: [0, 1] });
export const tgClamped = (x: number, y: number, dx: number, dy: number) => jvp(grad(clamped, { wrt: [0, 1] }), [x, y], [dx, dy]);

export const gScaled = grad(scaled, { wrt: [0, 1] });
export const vScaled = (x: number, y: number, ct: number) => vjp(scaled, x, y)[1](ct);
export const tScaled = (x: number, y: number, dx: number, dy: number) => jvp(scaled, [x, y], [dx, dy]);
export const lScaled = (x: number, y: number, dx: number, dy: number) => { const [v, f] = linearize(scaled, x, y); return [v, f(dx, dy)]; };
export const hScaled = hessian(scaled, { wrt: [0, 1] });
export const hvScaled = hvp(scaled, { wrt: [0, 1] });
`);

/** The blocks H[a][b] (1 × 1 each) of hessian(f, { wrt: [0, 1] }) as a 2 × 2 matrix. */
const blocks = (h: number[][][][]): number[] => [h[0][0][0][0], h[0][1][0][0], h[1][0][0][0], h[1][1][0][0]];

const norm = (x: number, y: number) => Math.sqrt(x * x + y * y);
const use = (x: number, y: number) => 3 * norm(x, y) + x;
const clampedRef = (x: number, y: number) => {
  const r = norm(x, y);
  // biome-ignore lint/complexity/useMathMinMax: the reference mirrors the source's r > 0 ? r : 0 (NaN gives 0)
  return r > 0 ? r : 0;
};
const scaledRef = (x: number, y: number) => {
  const r = norm(x, y);
  return x * (r === 0 ? 0 : 1 / r) + y;
};

/** ∇f at (x, y) by central differences. */
const fdGrad = (f: (x: number, y: number) => number, x: number, y: number) => [0, 1].map((i) => partial(f, [x, y], i, 0)[0]);
/** The Hessian of f at (x, y), by central differences of an exact gradient. */
const fdHessian = (g: (x: number, y: number) => number[], x: number, y: number) => [0, 1].flatMap((i) => [0, 1].map((j) => partial((a: number, b: number) => g(a, b)[j], [x, y], i, 0)[0]));

const AWAY: readonly (readonly [number, number])[] = [
  [0.6, -0.8],
  [-1.3, 0.4],
  [2, 1.5],
];

test('compiles without diagnostics', () => {
  expect(result.diagnostics).toEqual([]);
});

describe('a JVP rule guarding r = 0', () => {
  test("at the origin: every mode gives the rule's derivative, 0 (∂/∂x of 3r + x is 1)", () => {
    expect(m.gNorm(0, 0)).toEqual([0, 0]);
    expect(m.gUse(0, 0)).toEqual([1, 0]);
    expect(m.vNorm(0, 0, 2)).toEqual([0, 0]);
    expect(m.tNorm(0, 0, 0.3, -0.7)).toEqual([0, 0]);
    expect(m.lNorm(0, 0, 0.3, -0.7)).toEqual([0, 0]);
    // Second order differentiates the rule: its tangent is 0 on the branch taken.
    expect(blocks(m.hUse(0, 0))).toEqual([0, 0, 0, 0]);
    expect(m.hvUse(0, 0, [1, 2])).toEqual([0, 0]);
    expect(m.tgUse(0, 0, 1, 2)).toEqual([
      [1, 0],
      [0, 0],
    ]);
  });

  test('away from it: finite differences', () => {
    for (const [x, y] of AWAY) {
      expectClose(m.gNorm(x, y), fdGrad(norm, x, y));
      expectClose(m.gUse(x, y), fdGrad(use, x, y));
      expectClose(
        m.vNorm(x, y, 2),
        fdGrad(norm, x, y).map((g) => 2 * g),
      );
      expectClose([m.tNorm(x, y, 0.3, -0.7)[1]], directional(norm, [x, y], [0.3, -0.7]));
      expectClose([m.lNorm(x, y, 0.3, -0.7)[1]], directional(norm, [x, y], [0.3, -0.7]));
      const H = fdHessian(m.gUse, x, y);
      expectClose(blocks(m.hUse(x, y)), H);
      expectClose(m.hvUse(x, y, [1, 2]), [H[0] + 2 * H[1], H[2] + 2 * H[3]]);
      expectClose(m.tgUse(x, y, 1, 2)[1], [H[0] + 2 * H[1], H[2] + 2 * H[3]]);
    }
  });
});

describe('a VJP rule guarding r = 0 (its transpose is the forward rule)', () => {
  test('at the origin: 0 in reverse and in forward mode', () => {
    expect(m.gPb(0, 0)).toEqual([0, 0]);
    expect(m.gUsePb(0, 0)).toEqual([1, 0]);
    expect(m.vPb(0, 0, 2)).toEqual([0, 0]);
    expect(m.tPb(0, 0, 0.3, -0.7)).toEqual([0, 0]);
    expect(m.lPb(0, 0, 0.3, -0.7)).toEqual([0, 0]);
    expect(m.tUsePb(0, 0, 0.3, -0.7)).toEqual([0, 0.3]);
  });

  test('away from it: finite differences', () => {
    for (const [x, y] of AWAY) {
      expectClose(m.gPb(x, y), fdGrad(norm, x, y));
      expectClose(m.gUsePb(x, y), fdGrad(use, x, y));
      expectClose(
        m.vPb(x, y, 2),
        fdGrad(norm, x, y).map((g) => 2 * g),
      );
      expectClose([m.tPb(x, y, 0.3, -0.7)[1]], directional(norm, [x, y], [0.3, -0.7]));
      expectClose([m.lPb(x, y, 0.3, -0.7)[1]], directional(norm, [x, y], [0.3, -0.7]));
      expectClose([m.tUsePb(x, y, 0.3, -0.7)[1]], directional(use, [x, y], [0.3, -0.7]));
    }
  });
});

describe('plain code: r > 0 ? r : 0', () => {
  test('at the origin the branch taken is the constant 0: every derivative is 0', () => {
    expect(m.gClamped(0, 0)).toEqual([0, 0]);
    expect(m.vClamped(0, 0, 2)).toEqual([0, 0]);
    expect(m.tClamped(0, 0, 0.3, -0.7)).toEqual([0, 0]);
    expect(m.lClamped(0, 0, 0.3, -0.7)).toEqual([0, 0]);
    expect(blocks(m.hClamped(0, 0))).toEqual([0, 0, 0, 0]);
    expect(m.tgClamped(0, 0, 1, 2)).toEqual([
      [0, 0],
      [0, 0],
    ]);
  });

  test('away from it: finite differences', () => {
    for (const [x, y] of AWAY) {
      expectClose(m.gClamped(x, y), fdGrad(clampedRef, x, y));
      expectClose(
        m.vClamped(x, y, 2),
        fdGrad(clampedRef, x, y).map((g) => 2 * g),
      );
      expectClose([m.tClamped(x, y, 0.3, -0.7)[1]], directional(clampedRef, [x, y], [0.3, -0.7]));
      expectClose([m.lClamped(x, y, 0.3, -0.7)[1]], directional(clampedRef, [x, y], [0.3, -0.7]));
      const H = fdHessian(m.gClamped, x, y);
      expectClose(blocks(m.hClamped(x, y)), H);
      expectClose(m.tgClamped(x, y, 1, 2)[1], [H[0] + 2 * H[1], H[2] + 2 * H[3]]);
    }
  });
});

describe('plain code: x * (r === 0 ? 0 : 1 / r) + y', () => {
  test('at the origin the branch taken is x·0 + y: gradient (0, 1), Hessian 0', () => {
    expect(m.gScaled(0, 0)).toEqual([0, 1]);
    expect(m.vScaled(0, 0, 2)).toEqual([0, 2]);
    expect(m.tScaled(0, 0, 0.3, -0.7)).toEqual([0, -0.7]);
    expect(m.lScaled(0, 0, 0.3, -0.7)).toEqual([0, -0.7]);
    expect(blocks(m.hScaled(0, 0))).toEqual([0, 0, 0, 0]);
    expect(m.hvScaled(0, 0, [1, 2])).toEqual([0, 0]);
  });

  test('away from it: finite differences', () => {
    for (const [x, y] of AWAY) {
      expectClose(m.gScaled(x, y), fdGrad(scaledRef, x, y));
      expectClose(
        m.vScaled(x, y, 2),
        fdGrad(scaledRef, x, y).map((g) => 2 * g),
      );
      expectClose([m.tScaled(x, y, 0.3, -0.7)[1]], directional(scaledRef, [x, y], [0.3, -0.7]));
      expectClose([m.lScaled(x, y, 0.3, -0.7)[1]], directional(scaledRef, [x, y], [0.3, -0.7]));
      const H = fdHessian(m.gScaled, x, y);
      expectClose(blocks(m.hScaled(x, y)), H);
      expectClose(m.hvScaled(x, y, [1, 2]), [H[0] + 2 * H[1], H[2] + 2 * H[3]]);
    }
  });
});

// Second order through a guard (a fuzzer finding): f differentiates h's tangent code, where the
// select on v === 0 appears twice (on the value and on its tangent) and both discard -1/v²·v̇.
describe('a guard inside a nested transform: f = jvp(h, …)[1] with h = u · (v === 0 ? 0 : 1 / v)', () => {
  const { exports: n, result: r } = load(`import { grad, jvp, vjp, linearize, hessian, hvp } from 'tsad';
/** @differentiable */
export function h(u: number, v: number): number { return u * (v === 0 ? 0 : 1 / v); }
/** @differentiable */
export function f(x: number, y: number): number { return jvp(h, [x, y], [1, 0.5])[1]; }
/** @differentiable */
export function fg(x: number, y: number): number { return grad(h, { wrt: [0, 1] })(x, y)[1]; }
export const g = grad(f, { wrt: [0, 1] });
export const v = (x: number, y: number, ct: number) => vjp(f, x, y)[1](ct);
export const t = (x: number, y: number, dx: number, dy: number) => jvp(f, [x, y], [dx, dy]);
export const l = (x: number, y: number, dx: number, dy: number) => { const [w, d] = linearize(f, x, y); return [w, d(dx, dy)]; };
export const H = hessian(f, { wrt: [0, 1] });
export const hv = hvp(f, { wrt: [0, 1] });
export const tg = (x: number, y: number, dx: number, dy: number) => jvp(grad(f, { wrt: [0, 1] }), [x, y], [dx, dy]);
export const gg = grad(fg, { wrt: [0, 1] });
export const Hg = hessian(fg, { wrt: [0, 1] });
`);
  // h's tangent along (1, 0.5), and ∂h/∂v, by hand.
  const fRef = (x: number, y: number) => (y === 0 ? 0 : 1 / y - (0.5 * x) / (y * y));
  const fgRef = (x: number, y: number) => (y === 0 ? 0 : -x / (y * y));

  test('compiles without diagnostics', () => {
    expect(r.diagnostics).toEqual([]);
  });

  test('at v = 0 the branch taken is the constant 0: every derivative of f is 0', () => {
    for (const x of [1, -0.5, 0]) {
      expect(n.g(x, 0)).toEqual([0, 0]);
      expect(n.v(x, 0, 2)).toEqual([0, 0]);
      expect(n.t(x, 0, 0.3, -0.7)).toEqual([0, 0]);
      expect(n.l(x, 0, 0.3, -0.7)).toEqual([0, 0]);
      expect(blocks(n.H(x, 0))).toEqual([0, 0, 0, 0]);
      expect(n.hv(x, 0, [1, 2])).toEqual([0, 0]);
      expect(n.tg(x, 0, 1, 2)).toEqual([
        [0, 0],
        [0, 0],
      ]);
      expect(n.gg(x, 0)).toEqual([0, 0]);
      expect(blocks(n.Hg(x, 0))).toEqual([0, 0, 0, 0]);
    }
  });

  test('away from it: finite differences', () => {
    for (const [x, y] of AWAY) {
      expectClose(n.g(x, y), fdGrad(fRef, x, y));
      expectClose(
        n.v(x, y, 2),
        fdGrad(fRef, x, y).map((d) => 2 * d),
      );
      expectClose([n.t(x, y, 0.3, -0.7)[1]], directional(fRef, [x, y], [0.3, -0.7]));
      expectClose(n.gg(x, y), fdGrad(fgRef, x, y));
      const Hf = fdHessian(n.g, x, y);
      expectClose(blocks(n.H(x, y)), Hf);
      expectClose(n.hv(x, y, [1, 2]), [Hf[0] + 2 * Hf[1], Hf[2] + 2 * Hf[3]]);
      expectClose(n.tg(x, y, 1, 2)[1], [Hf[0] + 2 * Hf[1], Hf[2] + 2 * Hf[3]]);
      expectClose(blocks(n.Hg(x, y)), fdHessian(n.gg, x, y));
    }
  });
});

// Third order through a guard (long fuzz run 41001): h = u · (u === 0 ? 0 : 1 / u) + v is 1 + v
// away from u = 0 and v at it, so every derivative of h past the first in u is 0, there too.
describe('a guard under hvp or jvp inside f: grad and hessian of f at u = 0 (and x = 0)', () => {
  const { exports: n, result: r } = load(`import { grad, jvp, hvp, hessian } from 'tsad';
/** @differentiable */
export function h(u: number, v: number): number { return u * (u === 0 ? 0 : 1 / u) + v; }
/** @differentiable */
export function viaHvp(x: number, y: number): number { return hvp(h)(x, y, 1); }
/** @differentiable */
export function viaJvp(x: number, y: number): number { return jvp(h, [x, y], [1, 0.5])[1]; }
// x / (1 / x) is x² away from 0; at 0 its partials are infinite (found by guardsProperties).
/** @differentiable */
export function k(x: number, y: number): number { return x !== 0 ? x - x / (1 / x) : 0.5; }
/** @differentiable */
export function viaHvpK(x: number, y: number): number { return hvp(k, { wrt: [0, 1] })(x, y, [1, 2])[0]; }
export const gHvp = grad(viaHvp, { wrt: [0, 1] });
export const gHvpK = grad(viaHvpK, { wrt: [0, 1] });
export const gJvp = grad(viaJvp, { wrt: [0, 1] });
export const hJvp = hessian(viaJvp, { wrt: [0, 1] });
`);

  test('compiles without diagnostics', () => {
    expect(r.diagnostics).toEqual([]);
  });

  test('all 0, at u = 0 as elsewhere', () => {
    for (const [x, y] of [
      [0, 0],
      [0, 2],
      [1, 2],
      [-0.5, 1],
    ]) {
      expect(n.gHvp(x, y)).toEqual([0, 0]);
      expect(n.gHvpK(x, y)).toEqual([0, 0]);
      expect(n.gJvp(x, y)).toEqual([0, 0]);
      expect(blocks(n.hJvp(x, y))).toEqual([0, 0, 0, 0]);
    }
  });
});

// The same inside a loop (long fuzz run 71001, seeds 72659, 74048): the guarded code reads only
// the loop's invariants, and hoisted out of the loop its partials (1/u², 2/u³ at u = 0) met the
// sum of the iterations' cotangents, 0, outside: grad NaN in y where jvp was right.
describe('hvp of a guarded h in a loop: the code feeding a side of the guard stays next to it', () => {
  const { exports: n, result: r } = load(`import { valueAndGrad, jvp, hvp } from 'tsad';
/** @differentiable */
export function h(u: number, v: number): number { return u - u * (u === 0 ? 0 : 1 / u); }
/** @differentiable */
export function f(x: number, y: number, b: number[]): number {
  let s = 0;
  for (const t of b) s += hvp(h)(y, t, 1) * x + t * y;
  return s;
}
export const vg = valueAndGrad(f, { wrt: [0, 1, 2] });
export const j = (x: number, y: number, b: number[], dx: number, dy: number, db: number[]) => jvp(f, [x, y, b], [dx, dy, db]);
`);

  test('compiles without diagnostics', () => {
    expect(r.diagnostics).toEqual([]);
  });

  test('h is u - 1 away from 0 and u at it: every second derivative is 0, so f = y · Σ b', () => {
    for (const [x, y] of [
      [0, 0],
      [0.3, 0],
      [0, 0.4],
      [-0.5, 1.5],
    ]) {
      const b = [0, 0.5, -1];
      const [v, [gx, gy, gb]] = n.vg(x, y, b);
      expect(v).toBe(n.f(x, y, b));
      expect([gx, gy, ...gb]).toEqual([0, -0.5, y, y, y]);
      expect(n.j(x, y, b, 0.3, -0.7, [0.2, 0.5, 0.8])[1]).toBeCloseTo(-0.7 * -0.5 + 1.5 * y, 12);
      if (y !== 0) expectClose([gy], partial(n.f, [x, y, b], 1, 0), 1e-6);
    }
  });
});

// The if/else analogue: u = √x is invariant in the loop and read only by the branch x > 1.
// Hoisted out of the loop, its backward code met the sum of the iterations' cotangents outside,
// 0 where no iteration takes the branch, and √'s infinite partial at x = 0: grad and hvp NaN in x.
describe('a loop-invariant value read by one branch of an if stays next to it', () => {
  const { exports: n, result: r } = load(`import { grad, jvp, hvp } from 'tsad';
/** @differentiable */
export function f(x: number, y: number): number {
  let s = 0;
  for (let i = 0; i < 3; i++) {
    const u = Math.sqrt(x);
    if (x > 1) s += u * y;
    else s += y;
  }
  return s;
}
export const g = grad(f, { wrt: [0, 1] });
export const hv = hvp(f, { wrt: [0, 1] });
export const j = (x: number, y: number, dx: number, dy: number) => jvp(f, [x, y], [dx, dy]);
`);

  test('compiles without diagnostics', () => {
    expect(r.diagnostics).toEqual([]);
  });

  test('f = 3y for x ≤ 1: grad [0, 3] and hvp 0 at x = 0, where √ has an infinite partial', () => {
    for (const y of [2, 0]) {
      expect(n.g(0, y)).toEqual([0, 3]);
      expect(n.hv(0, y, [0.6, -0.3])).toEqual([0, 0]);
      expect(n.j(0, y, 0.6, -0.3)[1]).toBeCloseTo(-0.9, 12);
    }
  });

  test('and where the branch is taken, grad and jvp agree with central differences', () => {
    const [x, y] = [2.5, 0.7];
    const [gx, gy] = n.g(x, y);
    expectClose([gx, gy], [partial(n.f, [x, y], 0, 0)[0], partial(n.f, [x, y], 1, 0)[0]], 1e-6);
    expectClose([gx, gy], [(3 * y) / (2 * Math.sqrt(x)), 3 * Math.sqrt(x)], 1e-12);
    expectClose([n.j(x, y, 0.6, -0.3)[1]], [0.6 * gx - 0.3 * gy], 1e-12);
  });
});
