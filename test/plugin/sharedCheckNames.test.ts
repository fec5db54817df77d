// The argument check that several wrappers of one function share (size22d: `f_args(where,
// arguments.length, ...)`, emitted once per module) must not take a name the user's module already
// has: a user's `const f_args` made the module fail to load (a second declaration), and a user's
// `function f_args` was replaced by the check (or, declared after it, replaced it: no check ran),
// and a parameter named f_args shadowed the check in every wrapper (fuzz12's F1; names now come from
// transformer/frontend/moduleNames.ts).
// Also a user's local variables named like the emitter's stems (x_dot, x_bar, p_0, sin, mul_bar,
// zero, hv_x_0): the short names (size22c) must not shadow them where the derivative reads them.
import { expectClose, expectTypeError, load } from './harness';

const F = `
/** @differentiable */
export function f(x: number, y: number): number {
  return Math.sin(x * y) + x;
}
export const g = grad(f, { wrt: [0, 1] });
export const vg = valueAndGrad(f, { wrt: [0, 1] });
`;
const gradAt = (x: number, y: number) => [Math.cos(x * y) * y + 1, Math.cos(x * y) * x];

describe("the shared argument check's name", () => {
  test("a user's const f_args: the module loads and both keep working", () => {
    const { exports: m } = load(`import { grad, valueAndGrad } from 'tsad';\nconst f_args = (a: number) => a * 10;\n${F}\nexport const ten = () => f_args(2);\n`);
    expect(m.ten()).toBe(20);
    expectClose(m.g(0.5, 2), gradAt(0.5, 2), 1e-12);
    expectTypeError(() => m.vg(0.5), 'valueAndGrad(f): expects 2 arguments, got 1');
  });

  test("a user's function f_args, declared after the wrappers: the user's calls reach it, the wrappers still check", () => {
    const { exports: m } = load(`import { grad, valueAndGrad } from 'tsad';\n${F}\nexport function f_args(...a: number[]): number { return a.length; }\n`);
    expect(m.f_args(1, 2, 3)).toBe(3);
    expectTypeError(() => m.g(0.5), 'grad(f): expects 2 arguments, got 1');
    expectClose(m.vg(0.5, 2)[1], gradAt(0.5, 2), 1e-12);
  });

  test("a user's function f_args, declared before the wrappers", () => {
    const { exports: m } = load(`import { grad, valueAndGrad } from 'tsad';\nexport function f_args(...a: number[]): number { return a.length; }\n${F}\n`);
    expect(m.f_args(1, 2, 3)).toBe(3);
    expectTypeError(() => m.g(0.5), 'grad(f): expects 2 arguments, got 1');
    expectTypeError(() => m.vg(0.5, 'a'), "valueAndGrad(f): argument 2 'y' must be a number, got string");
  });

  test('a parameter of f named f_args: the wrappers still reach their check', () => {
    const { exports: m } = load(`import { grad, valueAndGrad } from 'tsad';
/** @differentiable */
export function f(f_args: number, y: number): number {
  return Math.sin(f_args * y) + f_args;
}
export const g = grad(f, { wrt: [0, 1] });
export const vg = valueAndGrad(f, { wrt: [0, 1] });
`);
    expectClose(m.g(0.5, 2), gradAt(0.5, 2), 1e-12);
    expectClose(m.vg(0.5, 2)[1], gradAt(0.5, 2), 1e-12);
    expectTypeError(() => m.g(0.5), 'grad(f): expects 2 arguments, got 1');
  });
});

describe("a wrapper's name", () => {
  // The wrapper of grad(f, { wrt: [0, 1] }) was `f_grad_0_1` whatever the module held: a user's
  // function of that name was replaced by the wrapper (or replaced it).
  test("a user's function named like the wrapper keeps its own body, and the wrapper still differentiates", () => {
    const { exports: m } = load(`import { grad } from 'tsad';
${F.split('export const vg')[0]}
export function f_grad_0_1(a: number): number { return a + 1; }
export const f_grad_0_1_2 = (a: number) => a * 3;
`);
    expect(m.f_grad_0_1(1)).toBe(2);
    expect(m.f_grad_0_1_2(2)).toBe(6);
    expectClose(m.g(0.5, 2), gradAt(0.5, 2), 1e-12);
    expectTypeError(() => m.g(0.5), 'grad(f): expects 2 arguments, got 1');
  });
});

describe("the emitter's short names next to the user's names", () => {
  // Module state the derivative reads (passed in as `x_dot_now`, …) and locals named like the
  // emitter's stems: a renamed local that took one of these names would read the wrong value.
  const source = `import { grad, hessian, jvp, vjp } from 'tsad';
let x_dot = 0.5;
const x_bar = new Float64Array([1.5, -0.5, 2]);
let sin = 0.25;
let y_v = 1.25;
let mul_bar = 3;
const zero = 0.75;
/** @differentiable */
export function f(x: number, y: number): number {
  const x_1 = x * y;
  const s = Math.sin(x_1) * x_dot + x_bar[1] * x;
  const p_0 = s + sin;
  const p_1 = p_0 * y * y_v + mul_bar;
  const hv_x_0 = p_1 * zero;
  let t = 0;
  for (let i = 0; i < x_bar.length; i++) t += Math.cos(x_bar[i] * x + hv_x_0) * y;
  return t + p_0 * p_1;
}
export const g = grad(f, { wrt: [0, 1] });
export const h = hessian(f, { wrt: [0, 1] });
export const jv = (x: number, y: number, dx: number, dy: number) => jvp(f, [x, y], [dx, dy]);
export const vj = (x: number, y: number, w: number) => vjp(f, x, y)[1](w);
`;
  test('gradient, Hessian, jvp and vjp against central differences', () => {
    const { exports: m } = load(source);
    const [x, y] = [0.7, -0.4];
    const fd = (fn: (a: number, b: number) => number[], k: number) => {
      const e = 1e-6;
      const up = k === 0 ? fn(x + e, y) : fn(x, y + e);
      const down = k === 0 ? fn(x - e, y) : fn(x, y - e);
      return up.map((u, i) => (u - down[i]) / (2 * e));
    };
    const fx = (a: number, b: number) => [m.f(a, b) as number];
    const g = [fd(fx, 0)[0], fd(fx, 1)[0]];
    expectClose(m.g(x, y), g, 1e-6);
    const H = m.h(x, y) as number[][][][];
    const rows = [0, 1].map((k) => fd((a, b) => m.g(a, b), k));
    expectClose([H[0][0][0][0], H[0][1][0][0], H[1][0][0][0], H[1][1][0][0]], [rows[0][0], rows[1][0], rows[0][1], rows[1][1]], 1e-5);
    expectClose([m.jv(x, y, 0.3, -0.7)[1]], [0.3 * g[0] - 0.7 * g[1]], 1e-6);
    expectClose(m.vj(x, y, 1.5), [1.5 * g[0], 1.5 * g[1]], 1e-6);
  });
});
