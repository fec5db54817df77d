// Guards for transposition (ad/guards.ts): what feeds only one alternative of a select is computed
// in that alternative's branch of the transposed code, so an untaken side's infinite or NaN
// partials never meet its zero cotangent; a select of plain tangents keeps its masks.
import { parseProgram } from '../../transformer/language/parse';
import { printDef } from '../../transformer/ir/print';
import { findDef } from '../../transformer/ir/program';
import { gradOf, hvpOf, transposeOf } from '../gen/drivers';
import { evalFn } from '../../transformer/language/interp';

const linear = parseProgram(`
def f(c: bool, u: real, w: real, v: real ; x: real) -> (; real, real) {
  let (; x1, x2) = dup(x)
  let (; a) = scale(u ; x1)
  let (; x3, x4) = dup(x2)
  let (; b) = scale(w ; x3)
  let (; n) = lneg(; b)
  let (; s) = lselect(c ; a, n)
  let (; k) = scale(v ; x4)
  (; s, k)
}`);

test('T computes each alternative of a select in its own branch; what else reads the input stays outside', () => {
  const { program, transposed } = transposeOf(linear, 'f');
  const text = printDef(findDef(program, transposed));
  expect(text).toContain('cond(c, ');
  expect(text).not.toContain('lmask');
  // k is a result, not an alternative: its transpose runs whichever side is taken.
  const [before, after] = text.split('cond(c, ');
  expect(before + after.slice(after.indexOf(']'))).toMatch(/scale\(v ; /);
});

test('an untaken alternative with an infinite partial contributes exactly 0; the dot-product test holds', () => {
  const { program, transposed } = transposeOf(linear, 'f');
  // u = ∞ on the untaken then-side, w = ∞ or NaN on the untaken else-side.
  expect(evalFn(program, transposed, [false, 2, 3, 4], [1, 0]).lin).toEqual([-3]);
  expect(evalFn(program, transposed, [false, Infinity, 3, 4], [1, 0]).lin).toEqual([-3]);
  expect(evalFn(program, transposed, [true, 2, Infinity, 4], [1, 0]).lin).toEqual([2]);
  expect(evalFn(program, transposed, [true, 2, NaN, 4], [1, 5]).lin).toEqual([22]);
  for (const [c, u, w, v, x, s, k] of [
    [true, 0.5, -2, 1.5, 3, 0.7, -1.1],
    [false, 0.5, -2, 1.5, 3, 0.7, -1.1],
  ] as const) {
    const fwd = evalFn(linear, 'f', [c, u, w, v], [x]).lin as number[];
    const back = evalFn(program, transposed, [c, u, w, v], [s, k]).lin as number[];
    expect(fwd[0] * s + fwd[1] * k).toBeCloseTo(x * back[0], 12);
  }
});

test('a select of plain tangents keeps its masks (no branch, no extra work)', () => {
  const p = parseProgram(`
def g(c: bool ; x: real, y: real) -> (; real) {
  let (; s) = lselect(c ; x, y)
  (; s)
}`);
  const { program, transposed } = transposeOf(p, 'g');
  const text = printDef(findDef(program, transposed));
  expect(text).toContain('lmask');
  expect(text).not.toContain('cond(');
});

// A tangent that two selects on the same test both discard (second order through a guard: the
// JVP of `c ? 0 : 1/v` has the select twice, on the value and on its tangent, and both read
// -1/v²·v̇): no single branch can take the shared code, so it gets its own branch on the test.
const shared = parseProgram(`
def f(c: bool, d: bool, u: real ; x: real) -> (; real, real) {
  drop(d)
  let (; a) = scale(u ; x)
  let (; a1, a2) = dup(a)
  let (; z1) = zero(real)
  let (; s) = lselect(c ; z1, a1)
  let (; z2) = zero(real)
  let (; t) = lselect(c ; z2, a2)
  (; s, t)
}`);

// The same, read only where d also holds: the shared code runs only where both tests agree.
const sharedNested = parseProgram(`
def f(c: bool, d: bool, u: real ; x: real) -> (; real, real) {
  let (; a) = scale(u ; x)
  let (; a1, a2) = dup(a)
  let (; z1) = zero(real)
  let (; s) = lselect(c ; z1, a1)
  let (; s2) = lmask(d ; s)
  let (; t) = lmaskn(c ; a2)
  let (; t2) = lmask(d ; t)
  (; s2, t2)
}`);

test('a value two selects on the same test both discard: its infinite partial contributes exactly 0', () => {
  for (const [p, live] of [
    [shared, (c: boolean) => !c],
    [sharedNested, (c: boolean, d: boolean) => !c && d],
  ] as const) {
    const { program, transposed } = transposeOf(p, 'f');
    for (const c of [true, false]) {
      for (const d of [true, false]) {
        const want = live(c, d) ? [2 * (1 + 5)] : [0];
        expect(evalFn(program, transposed, [c, d, 2], [1, 5]).lin).toEqual(want);
        if (!live(c, d)) {
          expect(evalFn(program, transposed, [c, d, Infinity], [1, 5]).lin).toEqual([0]);
          expect(evalFn(program, transposed, [c, d, NaN], [1, 5]).lin).toEqual([0]);
        }
        // The dot-product test.
        const fwd = evalFn(p, 'f', [c, d, 1.5], [3]).lin as number[];
        const back = evalFn(program, transposed, [c, d, 1.5], [0.7, -1.1]).lin as number[];
        expect(fwd[0] * 0.7 - fwd[1] * 1.1).toBeCloseTo(3 * back[0], 12);
      }
    }
  }
});

// A copy that the cond passes to no body at all is never read (hvp of a guarded function, erased,
// passes a partial that both bodies drop): it must not keep the shared code outside the branch.
const unread = parseProgram(`
def f(c: bool, u: real ; x: real) -> (; real) {
  let (; a) = scale(u ; x)
  let (; a1, a2) = dup(a)
  let (; y) = cond(c ; a1, a2) [|; p: real, q: real| {
    drop(q)
    (; p)
  }, |; p: real, q: real| {
    drop(p)
    drop(q)
    let (; z) = zero(real)
    (; z)
  }]
  (; y)
}`);

test('a value the only reading body may need, and a copy no body reads: exactly 0 where the body is not taken', () => {
  const { program, transposed } = transposeOf(unread, 'f');
  expect(evalFn(program, transposed, [true, 2], [3]).lin).toEqual([6]);
  expect(evalFn(program, transposed, [false, 2], [3]).lin).toEqual([0]);
  expect(evalFn(program, transposed, [false, Infinity], [3]).lin).toEqual([0]);
  expect(evalFn(program, transposed, [false, NaN], [3]).lin).toEqual([0]);
});

const reciprocal = parseProgram(`
def f(x: real ;) -> (real ;) {
  let zero = 0
  let nz = ne(x, zero)
  let one = 1
  let r = div(one, x)
  let y = select(nz, r, zero)
  (y ;)
}`);

test('reverse mode through a select: an infinite derivative in the untaken branch gives 0', () => {
  for (const simplify of [false, true]) {
    const { program, grad } = gradOf(reciprocal, 'f', { simplify });
    expect(evalFn(program, grad, [0]).nl[0]).toBe(0);
    expect(evalFn(program, grad, [2]).nl[0]).toBe(-0.25);
  }
});

test('second order: the Hessian of the guarded reciprocal is 0 at 0 and 2/x³ elsewhere', () => {
  const { program, hvp } = hvpOf(reciprocal, 'f', { simplify: true });
  expect(evalFn(program, hvp, [0, 1]).nl[0]).toBe(0);
  expect(evalFn(program, hvp, [2, 1]).nl[0]).toBeCloseTo(0.25, 14);
});

test('a select inside a cond body is guarded too (each body is transposed on its own)', () => {
  const p = parseProgram(`
def f(x: real ;) -> (real ;) {
  let yes = true
  let y = cond(yes, x) [|a: real ;| {
    let zero = 0
    let nz = ne(a, zero)
    let one = 1
    let r = div(one, a)
    select(nz, r, zero)
  }, |a: real ;| {
    (a ;)
  }]
  (y ;)
}`);
  for (const simplify of [false, true]) {
    const { program, grad } = gradOf(p, 'f', { simplify });
    expect(evalFn(program, grad, [0]).nl[0]).toBe(0);
    expect(evalFn(program, grad, [2]).nl[0]).toBe(-0.25);
  }
});

test('a cond branch reading a value computed before it: the untaken branch gets no NaN from its partials', () => {
  const p = parseProgram(`
def f(x: real ;) -> (real ;) {
  let zero = 0
  let pos = gt(x, zero)
  let l = log(x)
  let y = cond(pos, l) [|a: real ;| { let s = sin(a) in (s ;) }, |a: real ;| { drop(a) let c = 0 in (c ;) }]
  (y ;)
}`);
  for (const simplify of [false, true]) {
    const { program, grad } = gradOf(p, 'f', { simplify });
    expect(evalFn(program, grad, [0]).nl[0]).toBe(0);
    expect(evalFn(program, grad, [-1]).nl[0]).toBe(0);
    expect(evalFn(program, grad, [2]).nl[0]).toBeCloseTo(Math.cos(Math.log(2)) / 2, 14);
    const { program: h, hvp } = hvpOf(p, 'f', { simplify });
    expect(evalFn(h, hvp, [0, 1]).nl[0]).toBe(0);
  }
});

// Ordinary branches: the guards move a side's backward code into its branch; the work of the
// gradient and of the Hessian-vector product must not grow. Bounds: the interpreter's work before
// the guards (commit 9917d7d, strong zeros), per point [grad, hvp], unsimplified and simplified.
const ORDINARY: readonly { name: string; src: string; points: number[][]; before: Record<'plain' | 'simplified', number[][]> }[] = [
  {
    name: 'huber (a cond passing a value computed before it through one branch)',
    src: `
def f(r: real, d: real ;) -> (real ;) {
  let half = 0.5
  let rr = mul(r, r)
  let loss0 = mul(half, rr)
  let big = gt(r, d)
  let loss = cond(big, r, d, loss0) [|a: real, b: real, l: real ;| {
    drop(l)
    let hb = mul(b, b)
    let t = sub(a, hb)
    let v = mul(b, t)
    (v ;)
  }, |a: real, b: real, l: real ;| {
    drop(a)
    drop(b)
    (l ;)
  }]
  (loss ;)
}`,
    points: [
      [3, 1],
      [0.5, 1],
    ],
    before: {
      plain: [
        [20, 62],
        [13, 35],
      ],
      simplified: [
        [18, 50],
        [12, 28],
      ],
    },
  },
  {
    name: 'a cond whose branches read every operand',
    src: `
def f(x: real, y: real ;) -> (real ;) {
  let s = sin(x)
  let c = gt(x, y)
  let v = cond(c, s, y) [|a: real, b: real ;| { let m = mul(a, b) in (m ;) }, |a: real, b: real ;| { let m = add(a, b) in (m ;) }]
  (v ;)
}`,
    points: [
      [1, 0.5],
      [0.2, 0.5],
    ],
    before: {
      plain: [
        [8, 30],
        [8, 24],
      ],
      simplified: [
        [8, 26],
        [8, 20],
      ],
    },
  },
  {
    name: 'a select of computed sides',
    src: `
def f(x: real, y: real ;) -> (real ;) {
  let zero = 0
  let pos = gt(x, zero)
  let a = mul(x, x)
  let two = 2
  let b = mul(two, y)
  let v = select(pos, a, b)
  (v ;)
}`,
    points: [
      [1, 2],
      [-1, 2],
    ],
    before: {
      plain: [
        [11, 34],
        [11, 34],
      ],
      simplified: [
        [10, 26],
        [10, 26],
      ],
    },
  },
  {
    name: 'a select of parameters',
    src: `
def f(x: real, y: real ;) -> (real ;) {
  let zero = 0
  let pos = gt(x, zero)
  let v = select(pos, x, y)
  (v ;)
}`,
    points: [
      [1, 2],
      [-1, 2],
    ],
    before: {
      plain: [
        [5, 12],
        [5, 12],
      ],
      simplified: [
        [5, 11],
        [5, 11],
      ],
    },
  },
];

describe('work does not grow for ordinary branches', () => {
  for (const { name, src, points, before } of ORDINARY) {
    test(name, () => {
      const p = parseProgram(src);
      for (const simplify of [false, true]) {
        const { program, grad } = gradOf(p, 'f', { simplify });
        const { program: hp, hvp } = hvpOf(p, 'f', { simplify });
        points.forEach((pt, i) => {
          const [wGrad, wHvp] = before[simplify ? 'simplified' : 'plain'][i];
          expect(evalFn(program, grad, pt).work).toBeLessThanOrEqual(wGrad);
          expect(evalFn(hp, hvp, [...pt, 1, 1]).work).toBeLessThanOrEqual(wHvp);
        });
      }
    });
  }
});
