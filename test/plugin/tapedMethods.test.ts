// Methods called through an interface in taped code (docs/frontend.md, "Taped mode"): which body
// runs depends on the object's class at run time, so the taped copy dispatches on it; each
// derivative is checked against central finite differences.
import { load, partial, expectClose } from './harness';

describe('a method called through an interface with two implementations', () => {
  const { exports: m, result } = load(`import { grad, valueAndGrad, jvp } from 'tsad';
interface Shape {
  area(scale: number): number;
}
class Circle implements Shape {
  constructor(readonly r: number) {}
  area(scale: number): number {
    return Math.PI * this.r * this.r * scale * scale;
  }
}
class Rect implements Shape {
  constructor(readonly w: number, readonly h: number) {}
  area(scale: number): number {
    return this.w * this.h * Math.exp(scale) + this.corner(scale);
  }
  corner(scale: number): number {
    return 0.1 * this.w * Math.sin(scale);
  }
}
/** A square is a Rect whose corner term differs: its own method, through this. */
class Square extends Rect {
  constructor(side: number) {
    super(side, side);
  }
  corner(scale: number): number {
    return this.w * scale * scale * scale;
  }
}
/** A rounded rect is a Rect that inherits every method. */
class Rounded extends Rect {}
/** @differentiable */
export function total(scale: number, shapes: Shape[]): number {
  let s = 0;
  for (let i = 0; i < shapes.length; i++) s += shapes[i].area(scale);
  return s;
}
export const dTotal = grad(total);
export const vgFields = valueAndGrad(total, { wrt: [1] });
export const pushTotal = (k: number, shapes: Shape[], dk: number) => jvp(total, [k, shapes], [dk, undefined as never]);
export const shapes = (): Shape[] => [new Circle(1.5), new Rect(2, 3), new Square(0.7), new Rounded(1.1, 0.4), new Circle(0.5)];
export const makeCircle = (r: number) => new Circle(r);
export const makeRect = (w: number, h: number) => new Rect(w, h);
export const makeSquare = (s: number) => new Square(s);
`);

  test('runs taped, with a note naming the objects with methods', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
    expect(result.messages.some((s) => /note TSAD2001: 'total' runs taped: it calls methods of 'shapes'/.test(s))).toBe(true);
  });

  test('grad and jvp with respect to a parameter dispatch on each object class (subclasses, this calls)', () => {
    for (const k of [0.3, 1.7]) {
      const ref = partial((x: number) => m.total(x, m.shapes()), [k], 0, 0);
      expectClose([m.dTotal(k, m.shapes())], ref);
      const [v, t] = m.pushTotal(k, m.shapes(), 0.5);
      expect(v).toBe(m.total(k, m.shapes()));
      expectClose([t], [0.5 * ref[0]]);
    }
  });

  test('grad with respect to the objects fields: one cotangent object per instance', () => {
    const k = 0.6;
    const [v, g] = m.vgFields(k, m.shapes());
    expect(v).toBe(m.total(k, m.shapes()));
    const fd = (make: (...a: number[]) => unknown, at: number[], i: number, j: number) =>
      partial(
        (...xs: number[]) => {
          const list = m.shapes();
          list[i] = make(...xs);
          return m.total(k, list);
        },
        at,
        j,
        0,
      )[0];
    expectClose([g[0].r], [fd(m.makeCircle, [1.5], 0, 0)]);
    expectClose([g[1].w, g[1].h], [fd(m.makeRect, [2, 3], 1, 0), fd(m.makeRect, [2, 3], 1, 1)]);
    // The square's one side feeds both w and h.
    expectClose([g[2].w + g[2].h], [fd(m.makeSquare, [0.7], 2, 0)]);
  });

  test('an object whose class has no taped copy is a TypeError naming it, never another body', () => {
    const own = { area: (scale: number) => scale };
    expect(() => m.dTotal(0.5, [own])).toThrow(/calls 'area' of an object whose own property 'area' is a function/);
    class Other {
      area(scale: number) {
        return 2 * scale;
      }
    }
    expect(() => m.dTotal(0.5, [new Other()])).toThrow(/calls 'area' of an instance of Other, and tsad has no taped copy/);
  });
});
