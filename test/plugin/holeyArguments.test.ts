// A number[] with a hole (`new Array(n)` not filled, `delete a[i]`, `[1, , 3]`): JavaScript reads
// `undefined` there (the value is NaN), while reduce, map and forEach skip it. No index check sees
// a hole (it is inside the length), and the derivatives read NaN or skip nothing: grad returned
// [0, 3, 0] for `x[j] * 3` at j = 1 (s15, fuzz24's H1). Every transform refuses such an argument
// with a TypeError naming it and the element; typed arrays have no holes and cost nothing.
import { load } from './harness';

const { exports: m } = load(`import { grad, valueAndGrad, vjp, jvp, hessian, hvp } from 'tsad';
/** @differentiable */
export function tripled(x: number[], j: number): number {
  return x[j] * 3;
}
/** @differentiable */
export function summed(x: number[], w: number): number {
  return x.reduce((s, v) => s + v * w, 0);
}
export const transforms = {
  grad: (x: number[], k: number) => grad(tripled)(x, k),
  valueAndGrad: (x: number[], k: number) => valueAndGrad(summed)(x, k),
  vjp: (x: number[], k: number) => vjp(tripled, x, k)[1](1),
  jvp: (x: number[], k: number) => jvp(summed, [x, k], [x.map(() => 1), 0]),
  hessian: (x: number[], k: number) => hessian(summed, { wrt: [1] })(x, k),
  hvp: (x: number[], k: number) => hvp(tripled, { wrt: [0] })(x, k, [1, 1, 1]),
};
`);

const holey = (): number[] => {
  const a = [0.5, 2, 3];
  delete a[1];
  return a;
};

describe('a number[] argument with a hole is a TypeError in every transform', () => {
  for (const name of ['grad', 'valueAndGrad', 'vjp', 'jvp', 'hessian', 'hvp']) {
    test(name, () => {
      // Plain JavaScript: NaN at the hole (tripled), the hole skipped (summed).
      expect(Number.isNaN(m.tripled(holey(), 1))).toBe(true);
      expect(m.summed(holey(), 2)).toBe(7);
      expect(() => m.transforms[name](holey(), 1)).toThrow(TypeError);
      expect(() => m.transforms[name](holey(), 1)).toThrow(/'x' must be an array of numbers, got no number at element 1 \(a hole or undefined\)/);
      expect(() => m.transforms[name](new Array(3), 1)).toThrow(/element 0/);
      // Dense arrays and typed arrays pass.
      expect(() => m.transforms[name]([0.5, 2, 3], 1)).not.toThrow();
    });
  }
  test('the dense values are the hand derivations', () => {
    expect(Array.from(m.transforms.grad([0.5, 2, 3], 1))).toEqual([0, 3, 0]);
    const [v, g] = m.transforms.valueAndGrad([0.5, 2, 3], 2);
    expect(v).toBe(11);
    expect(Array.from(g)).toEqual([2, 2, 2]);
  });
});
