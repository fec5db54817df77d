// Programs the front-end fuzzer (test/plugin/fuzz.test.ts) found failing with an internal error
// (TSAD9000, or TSAD1121 "not supported yet: in f: <IrError>"), minimised. Each must build, and
// its derivatives agree with central differences.
import { compile, directional, expectClose, load, partial } from './harness';

const source = `import { valueAndGrad, jvp, derivative, sum } from 'tsad';
/** @differentiable */
export function andInMap(x: number, y: number, b: number[]): number {
  // 'x > y' reads nothing of the callback: it is hoisted out of the map as a boolean invariant.
  return sum(b.map((t) => (x > y && t > 0 ? t * y : x)));
}
export const vgAnd = valueAndGrad(andInMap, { wrt: [0, 1, 2] });
export const jAnd = (x: number, y: number, b: number[], dx: number, dy: number, db: number[]) => jvp(andInMap, [x, y, b], [dx, dy, db]);
/** @differentiable */
export function tupleReadInMap(x: number, y: number): number {
  // c is a tuple; c[i] makes an array of it, which is hoisted out of the callback and zipped in.
  const c = [y, x * x];
  return sum(c.map((t, i) => t * c[i]));
}
export const vgTuple = valueAndGrad(tupleReadInMap, { wrt: [0, 1] });
export const jTuple = (x: number, y: number, dx: number, dy: number) => jvp(tupleReadInMap, [x, y], [dx, dy]);
/** @differentiable */
export function half(u: number, w: number): number { return 0.5; }
/** @differentiable */
export function zeroThroughObject(x: number, y: number): number {
  // w is constant: its tangent is a known zero, also through the object, so sqrt's infinite
  // partial at 0 never multiplies it (jvp gave NaN where grad gave 0).
  const { u: p, w: v } = { u: x, w: half(x, y) };
  return p * 0 + (v >= 0.5 ? Math.sqrt(v - 0.5) : 0);
}
export const vgZero = valueAndGrad(zeroThroughObject, { wrt: [0, 1] });
export const jZero = (x: number, y: number, dx: number, dy: number) => jvp(zeroThroughObject, [x, y], [dx, dy]);
// A custom rule lowered after them: its check sees only what it reaches.
export function sp(t: number): number { return Math.log1p(Math.exp(t)); }
derivative(sp, (t, dt) => [sp(t), dt / (1 + Math.exp(-t))]);
`;

describe('fuzzer findings', () => {
  test('the module builds without diagnostics', () => {
    expect(compile(source, { throwOnError: false }).messages).toEqual([]);
  });

  const { exports: m } = load(source);
  const b = () => [0.7, -0.3, 1.2];

  test('a boolean computed from invariants inside .map (x > y && t > 0)', () => {
    for (const [x, y] of [
      [0.9, 0.4],
      [0.2, 0.6],
    ]) {
      const [v, [gx, gy, gb]] = m.vgAnd(x, y, b());
      expect(v).toBe(m.andInMap(x, y, b()));
      const at = [x, y, b()];
      expectClose([gx], partial(m.andInMap, at, 0, 0), 1e-6);
      expectClose([gy], partial(m.andInMap, at, 1, 0), 1e-6);
      expectClose(
        [...gb],
        [0, 1, 2].flatMap((k) => partial(m.andInMap, at, 2, k)),
        1e-6,
      );
      const db = [0.3, 0.5, -0.2];
      const [, t] = m.jAnd(x, y, b(), 0.4, -0.7, db);
      expectClose([t], directional(m.andInMap, at, [0.4, -0.7, db]), 1e-6);
    }
  });

  test('a tuple read at the map index inside its own .map (c.map((t, i) => t * c[i]))', () => {
    const [x, y] = [0.8, -1.1];
    const [v, [gx, gy]] = m.vgTuple(x, y);
    expect(v).toBe(m.tupleReadInMap(x, y));
    expectClose([gx, gy], [partial(m.tupleReadInMap, [x, y], 0, 0)[0], partial(m.tupleReadInMap, [x, y], 1, 0)[0]], 1e-6);
    expectClose([gx, gy], [4 * x ** 3, 2 * y], 1e-12);
    const [, t] = m.jTuple(x, y, 0.3, 0.9);
    expectClose([t], [0.3 * 4 * x ** 3 + 0.9 * 2 * y], 1e-12);
  });

  test('a known zero tangent through an object stays zero: jvp agrees with grad and finite differences (0)', () => {
    const [x, y] = [-0.56, -0.04];
    const [v, [gx, gy]] = m.vgZero(x, y);
    expect(v).toBe(m.zeroThroughObject(x, y));
    expectClose([gx, gy], [partial(m.zeroThroughObject, [x, y], 0, 0)[0], partial(m.zeroThroughObject, [x, y], 1, 0)[0]], 1e-9);
    const [, t] = m.jZero(x, y, 1, 1);
    expect(t).toBe(0);
    expectClose([t], directional(m.zeroThroughObject, [x, y], [1, 1]), 1e-9);
  });
});

describe('fuzzer findings: a guard on a test computed after the code it guards', () => {
  // Seed 73435: T wrapped code read only under two nested tests in a branch on both joined, at the
  // code's place, where the inner test (1.5 > 2, computed in the nested branch) did not exist yet
  // (IrError: unbound variable gt_1). A branch on the tests computed by then guards it.
  const { exports: n, result: r } = load(`import { grad, valueAndGrad, jvp } from 'tsad';
/** @differentiable */
export function h(u: number, v: number): number { return 2; }
/** @differentiable */
export function f(x: number, y: number, a: number[], b: Float64Array): number {
  if (x < 0.5) {
    const { u: v1, w: v2 } = { u: (a.length > 2 ? a[1] : 1), w: y };
    if (2 >= v1) {
    } else if (1.5 > 2) {
      if (x > y) {
        const [v12, v13] = [v2, v1];
      }
      if (3 > y) return v2;
      for (const t4 of a) {}
      const v7 = jvp(h, [x, 0.25], [1, 0.5])[1];
    }
  }
  let v15 = grad(h, { wrt: [0, 1] })(x * 2, x)[0];
  return v15 * y + x * y;
}
export const vg = valueAndGrad(f, { wrt: [0, 1, 2] });
`);

  test('compiles without diagnostics', () => {
    expect(r.messages).toEqual([]);
  });

  test('grad equals central differences', () => {
    for (const [x, y] of [
      [0.2, 0.7],
      [0.9, -0.4],
    ]) {
      const a = [3, 1.5, 0.5];
      const fxy = (p: number, q: number) => n.f(p, q, a, new Float64Array(2));
      const [v, [gx, gy, ga]] = n.vg(x, y, a, new Float64Array(2));
      expect(v).toBe(fxy(x, y));
      expectClose([gx, gy, ...ga], [...partial(fxy, [x, y], 0, 0), ...partial(fxy, [x, y], 1, 0), 0, 0, 0], 1e-6);
    }
  });
});

describe('fuzzer findings: refused with the user problems only', () => {
  test('a local whose initializer failed after an early return, sorted later (seed 72702: TypeError reading shape)', () => {
    // The statements after `if (…) return` run under a guard; `c` is declared there and its
    // initializer fails (TSAD1102), so c.sort() reads a failed local, not a missing one.
    const src = `import { valueAndGrad } from 'tsad';
/** @differentiable */
export function f(x: number, y: number): number {
  if (x > y) {
    if (y > 0) return x;
  }
  const c = [x, ({ ...{ u: y } }).u];
  if (x !== y) return y;
  c.sort();
  return y;
}
export const vg = valueAndGrad(f, { wrt: [0, 1] });
`;
    const codes = compile(src, { throwOnError: false }).diagnostics.map((d) => String(d.messageText).slice(0, 8));
    expect(codes).toEqual(['TSAD1102', 'TSAD1121']);
  });
});

describe('fuzzer findings: the tangent of a select with a constant side', () => {
  // Seed 73648: v = (y > y ? 2x : 0.5) is 0.5 near every point, so f ≡ 0 there. The tangent of
  // the select is 0 at run time, but not a known zero: it met √'s infinite partial at 0 (jvp NaN,
  // where grad, which masks the infinite cotangent instead of multiplying it, gave 0).
  const { exports: n, result: r } = load(`import { grad, jvp, hvp } from 'tsad';
/** @differentiable */
export function constSide(x: number, y: number): number {
  const v = y > y ? x * 2 : 0.5;
  return v >= 0.5 ? Math.sqrt(v - 0.5) : 0;
}
/** @differentiable */
export function constFirst(x: number, y: number): number {
  const v = y >= y ? 0.5 : x * 2;
  return v >= 0.5 ? Math.sqrt(v - 0.5) : 0;
}
/** @differentiable */
export function mixed(x: number, y: number): number {
  // Constant where y < x; the √ meets x's tangent only through a sum.
  const v = y > x ? x * 2 : 0.5;
  return v * y + 3 * Math.sqrt(v - 0.5) + x;
}
export const g = grad(constSide, { wrt: [0, 1] });
export const j = (x: number, y: number, dx: number, dy: number) => jvp(constSide, [x, y], [dx, dy]);
export const hv = hvp(constSide, { wrt: [0, 1] });
export const gFirst = grad(constFirst, { wrt: [0, 1] });
export const jFirst = (x: number, y: number, dx: number, dy: number) => jvp(constFirst, [x, y], [dx, dy]);
export const hvFirst = hvp(constFirst, { wrt: [0, 1] });
export const gMixed = grad(mixed, { wrt: [0, 1] });
export const jMixed = (x: number, y: number, dx: number, dy: number) => jvp(mixed, [x, y], [dx, dy]);
`);

  test('compiles without diagnostics', () => {
    expect(r.messages).toEqual([]);
  });

  test('jvp, grad and hvp are 0 where f is constant (central differences 0)', () => {
    const [x, y] = [-0.3899546046741307, 1.1948270027060062];
    for (const [f, gr, jv, hvf] of [
      [n.constSide, n.g, n.j, n.hv],
      [n.constFirst, n.gFirst, n.jFirst, n.hvFirst],
    ]) {
      expect(directional(f, [x, y], [1, 1])).toEqual([0]);
      expect(gr(x, y)).toEqual([0, 0]);
      expect(jv(x, y, 0.7, -0.4)).toEqual([0, 0]);
      expect(hvf(x, y, [0.7, -0.4])).toEqual([0, 0]);
    }
  });

  test('a constant side met through a sum: jvp = grad · v = central differences', () => {
    for (const [x, y] of [
      [0.9, 0.3],
      [0.4, 1.2],
    ]) {
      const [gx, gy] = n.gMixed(x, y);
      expectClose([gx, gy], [partial(n.mixed, [x, y], 0, 0)[0], partial(n.mixed, [x, y], 1, 0)[0]], 1e-6);
      const [v, t] = n.jMixed(x, y, 0.7, -0.4);
      expect(v).toBe(n.mixed(x, y));
      expectClose([t], [0.7 * gx - 0.4 * gy], 1e-12);
      expectClose([t], directional(n.mixed, [x, y], [0.7, -0.4]), 1e-6);
    }
  });
});

describe('fuzzer findings: a reduce that never reads its element', () => {
  // Seed 72903: c.reduce((p, t) => p + v0, 0) reads no element, so c has no cotangent; reverse
  // mode gave it one of zeros, which met √'s infinite partial at v0 = 0.5 (y = 0) in c[1]:
  // grad NaN in y where jvp and central differences are finite.
  const { exports: n, result: r } = load(`import { grad, jvp } from 'tsad';
/** @differentiable */
export function f(x: number, y: number): number {
  const v0 = 1 / (1 + (y - 1) ** 2);
  const c = [y, (v0 >= 0.5 ? Math.sqrt(v0 - 0.5) : 0) * x];
  return c.reduce((p, t) => p + v0, 0);
}
export const g = grad(f, { wrt: [0, 1] });
export const j = (x: number, y: number, dx: number, dy: number) => jvp(f, [x, y], [dx, dy]);
`);

  test('compiles without diagnostics', () => {
    expect(r.messages).toEqual([]);
  });

  test('grad = jvp = central differences, also at the singular point of the unread element', () => {
    for (const [x, y] of [
      [0, 0],
      [0.3, 0.4],
    ]) {
      // f = 2·v0: ∂f/∂y = -4(y − 1)/(1 + (y − 1)²)².
      const dy = (-4 * (y - 1)) / (1 + (y - 1) ** 2) ** 2;
      expectClose(n.g(x, y), [0, dy], 1e-12);
      expectClose([n.j(x, y, 0.7, -0.4)[1]], [-0.4 * dy], 1e-12);
      expectClose([partial(n.f, [x, y], 1, 0)[0]], [dy], 1e-6);
    }
  });
});
