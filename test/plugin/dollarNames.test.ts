// The emitter declares names of its own in a derivative: the writing form's `$out` and `$at` (a
// flat Jacobian), the slab stacks live in (`$slab`), the owned-array bookkeeping (`$own`, `$gen`,
// `$hot`, `$hg`), an element-wise loop's `$n`, `$r`, `$k`, `$a0`. It took them as they are,
// assuming no IR name starts with `$`; but a user's variable or parameter may, and its name goes
// into the IR unchanged. A user's `$out` in a function whose flat Jacobian is taken made the
// module fail to load (a second declaration of `$out`; fuzz12-findings P1), and so did a
// parameter named `$slab` or a local named `$own` beside the emitter's. Each is checked against
// central differences and against the source run as plain JavaScript.
import { expectClose, load, partial, runPlain } from './harness';

const writerSource = `import { jacobian, jacrev, jacfwd } from 'tsad';
/** @differentiable */
export function f(x: [number, number], k: number): [number, number, number] {
  const $out = x[0] * k;
  const $at = Math.sin(x[1]) * $out;
  return [$out, $at * x[0], x[0] + x[1] * k];
}
export const j1 = jacobian(f, { flat: true });
export const j2 = jacrev(f, { flat: true, wrt: [0, 1] });
export const j3 = jacfwd(f, { flat: true });
`;

const bookkeepingSource = `import { grad, hessian, valueAndGrad, vjp } from 'tsad';
/** @differentiable */
export function f(x: Float64Array, idx: Int32Array, $own: number, $gen: number): number {
  const y = new Float64Array(x.length);
  for (let i = 0; i < idx.length; i++) y[idx[i]] += x[i] * $own;
  let s = 0;
  let $hot = 1;
  for (let i = 0; i < y.length; i++) {
    s += Math.sin(y[i] * $hot) * $gen;
    $hot += y[i] * 0.1;
  }
  const $slab: number[] = [];
  for (let i = 0; i < x.length; i++) if (x[i] > 0) $slab.push(x[i] * s);
  for (let i = 0; i < $slab.length; i++) s += $slab[i] * $slab[i];
  return s;
}
/** @differentiable */
export function p(x: Float64Array, $slab: number, $hg: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.sin(x[i] * $slab) * $hg + s * 0.5;
  return s;
}
export const g = grad(f, { wrt: [0, 2, 3] });
export const vg = valueAndGrad(f, { wrt: [0, 2, 3] });
export const h = hessian(f, { wrt: [2, 3] });
export const vj = (x: Float64Array, idx: Int32Array, a: number, b: number) => vjp(f, x, idx, a, b)[1](1);
export const gp = grad(p, { wrt: [0, 1, 2] });
export const hp = hessian(p, { wrt: [1, 2] });
`;

const f64 = (xs: number[]) => Float64Array.from(xs);
const flat = (v: unknown): number[] => (typeof v === 'number' ? [v] : Array.from(v as ArrayLike<unknown>).flatMap(flat));

describe("a user's names that start with $ beside the emitter's own", () => {
  test('locals $out and $at in a function whose flat Jacobian is taken', () => {
    const m = load(writerSource).exports;
    const plain = runPlain(writerSource.replace(/^import .*$/m, 'const jacobian = () => 0, jacrev = jacobian, jacfwd = jacobian;'));
    const at: [number, number] = [0.5, 1.2];
    // Rows are the three results, columns the inputs x[0], x[1] (and k for j1/j3).
    const columns = (count: number) => Array.from({ length: count }, (_, c) => (c < 2 ? partial(plain.f, [at, 3], 0, c) : partial(plain.f, [at, 3], 1, 0)));
    const rowMajor = (cols: number[][]) => cols[0].flatMap((_, r) => cols.map((col) => col[r]));
    // jacobian and jacfwd differentiate in x (their default wrt), jacrev here in x and k.
    const inX = rowMajor(columns(2));
    expectClose(Array.from(m.j1(at, 3).data as Float64Array), inX, 1e-7);
    expectClose(Array.from(m.j3(at, 3).data as Float64Array), inX, 1e-7);
    expectClose(Array.from(m.j2(at, 3).data as Float64Array), rowMajor(columns(3)), 1e-7);
  });

  test("$own, $gen, $hot, $slab and $hg in functions whose derivatives use the emitter's slab and owned arrays", () => {
    const m = load(bookkeepingSource).exports;
    const plain = runPlain(bookkeepingSource.replace(/^import .*$/m, 'const grad = () => 0, hessian = grad, valueAndGrad = grad, vjp = grad;'));
    const args = [f64([0.3, 1.1, -0.4]), Int32Array.from([0, 0, 2]), 1.5, 2];
    // The differences perturb plain arrays (the harness's leaves), which the plain function reads alike.
    const plainArgs = [[0.3, 1.1, -0.4], [0, 0, 2], 1.5, 2];
    const expected = [0, 1, 2].flatMap((k) => partial(plain.f, plainArgs, 0, k)).concat(partial(plain.f, plainArgs, 2, 0), partial(plain.f, plainArgs, 3, 0));
    expectClose(flat(m.g(...args)), expected, 1e-6);
    const [value, gradient] = m.vg(...args);
    expect(value).toBe(plain.f(...plainArgs));
    expectClose(flat(gradient), expected, 1e-6);
    const [xBar, , ownBar, genBar] = m.vj(...args);
    expectClose([...flat(xBar), ownBar, genBar], expected, 1e-6);
    // The Hessian's columns: central differences of the gradient in $own and $gen.
    const gradOf = (x: number[], idx: number[], a: number, b: number) => flat(m.vg(f64(x), Int32Array.from(idx), a, b)[1]).slice(3);
    const hessian = [...partial(gradOf, plainArgs, 2, 0), ...partial(gradOf, plainArgs, 3, 0)];
    expectClose(flat(m.h(...args)), hessian, 1e-5);

    const pArgs = [[0.7, -0.2, 1.3], 0.8, -1.5];
    const pExpected = [0, 1, 2].flatMap((k) => partial(plain.p, pArgs, 0, k)).concat(partial(plain.p, pArgs, 1, 0), partial(plain.p, pArgs, 2, 0));
    expectClose(flat(m.gp(...pArgs)), pExpected, 1e-6);
    const pGrad = (...a: unknown[]) => flat(m.gp(...a)).slice(3);
    expectClose(flat(m.hp(...pArgs)), [...partial(pGrad, pArgs, 1, 0), ...partial(pGrad, pArgs, 2, 0)], 1e-5);
  });
});
