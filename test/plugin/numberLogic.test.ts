// `a || b` and `a && b` of numbers (docs/frontend.md, "Conditionals"): JavaScript's truthiness,
// 0 and NaN false, checked against the same source run as plain JavaScript and central differences.
import { expectClose, load, runPlain } from './harness';

const SOURCE = `
/** @differentiable */
export function orDefault(x: number, y: number): number {
  const s = Math.sign(x || 1);
  return s * y + (x && y * y) + (x || Math.log(y));
}
`;

describe('|| and && of numbers', () => {
  const { exports: m, result } = load(`${SOURCE}
import { valueAndGrad } from 'tsad';
export const vg = valueAndGrad(orDefault, { wrt: [0, 1] });`);
  const plain = runPlain(SOURCE).orDefault as (x: number, y: number) => number;

  test('builds', () => expect(result.messages).toEqual([]));

  test.each([
    [0, 2],
    [0.5, 1.5],
    [-2, 3],
    [Number.NaN, 2],
  ])('at (%p, %p): the value of plain JavaScript, the gradient of the side taken', (x, y) => {
    const [value, [dx, dy]] = m.vg(x, y);
    expect(value).toBe(plain(x, y));
    if (Number.isNaN(x)) return;
    const h = 1e-6;
    // At x = 0 the function is piecewise: differentiate the side taken there (x held at 0).
    const fdx = x === 0 ? 0 : (plain(x + h, y) - plain(x - h, y)) / (2 * h);
    const fdy = (plain(x, y + h) - plain(x, y - h)) / (2 * h);
    expectClose([dx, dy], [x === 0 ? dx : fdx, fdy], 1e-6);
    if (x === 0) expect(dx).toBe(1);
  });
});
