// Elements that do not exist, read where the index checks do not look (fuzz24-findings M1, R1,
// H1). JavaScript reads `undefined` there (a NaN value, or a TypeError for a record's field), so
// every transform must throw, as it does for a Float64Array read past its end; none may return
// numbers. Today:
//   M1  a matrix read x[r][c] with c past its row reads the NEXT row's element (finite, wrong
//       value and gradient), with c < 0 or fractional a NaN value and zero gradient;
//   R1  an array of records read past its end (ps[k].a) gives a NaN value and a finite gradient;
//   H1  a hole of a number[] (inside its length) gives a NaN value and a finite gradient; and
//       reduce, which skips holes in JavaScript, gives NaN where JavaScript gives a number.
// These were test.failing on main until s15: each index of a matrix read or write is checked
// within its own dimension, a record's field read checks its element, and a number[] argument
// with a hole is a TypeError naming it. The cases inside the arrays hold the numbers to hand
// derivations (f = g·w², ∂f/∂w = 2g·w, ∂²f/∂w² = 2g).
import { load } from './harness';

const { exports: m } = load(`
import { grad, valueAndGrad, hessian, vjp, jvp } from 'tsad';
interface P { a: number; b: number }
interface Q { v: number[]; c: number }
/** @differentiable */
export function cell(x: number[][], j: number, w: number): number {
  return x[0][j] * w * w;
}
/** @differentiable */
export function diag(x: number[][], k: number, w: number): number {
  let s = 0;
  for (let r = 0; r < x.length; r++) s += x[r][r + k] * w * w;
  return s;
}
/** @differentiable */
export function nextCol(x: number[][], d: number, w: number): number {
  let s = 0;
  for (let r = 0; r < x.length - 1; r++) for (let c = 0; c < d; c++) s += x[r][c] * x[r][c + 1] * w;
  return s;
}
/** @differentiable */
export function writeCol(x: Float64Array, k: number): number {
  const m: number[][] = [
    [0, 0],
    [0, 0],
  ];
  m[0][k] = x[0] * x[1];
  return m[1][0] + m[0][1] * 2;
}
/** @differentiable */
export function rec(ps: P[], k: number, w: number): number {
  return ps[k].a * w * w;
}
/** @differentiable */
export function recLoop(ps: P[], d: number, w: number): number {
  let s = 0;
  for (let i = 0; i < d; i++) s += ps[i].a * w * w;
  return s;
}
/** @differentiable */
export function leaf(qs: Q[], j: number, w: number): number {
  return qs[0].v[j] * w * w;
}
/** @differentiable */
export function sum(x: number[], d: number, w: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] * w * w;
  return s;
}
/** @differentiable */
export function folded(x: number[], d: number, w: number): number {
  return x.reduce((s, v) => s + v * w * w, 0);
}
export const cellT = {
  vg: valueAndGrad(cell, { wrt: [0, 2] }),
  g: grad(cell, { wrt: [0, 2] }),
  h: hessian(cell, { wrt: [2] }),
  vj: (x: number[][], j: number, w: number) => vjp(cell, x, j, w)[1](1),
  jv: (x: number[][], j: number, w: number) => jvp(cell, [x, j, w], [x.map((r) => r.map(() => 0)), 0, 1]),
};
export const diagT = {
  vg: valueAndGrad(diag, { wrt: [0, 2] }),
  g: grad(diag, { wrt: [0, 2] }),
  h: hessian(diag, { wrt: [2] }),
  vj: (x: number[][], j: number, w: number) => vjp(diag, x, j, w)[1](1),
  jv: (x: number[][], j: number, w: number) => jvp(diag, [x, j, w], [x.map((r) => r.map(() => 0)), 0, 1]),
};
export const nextColT = {
  vg: valueAndGrad(nextCol, { wrt: [0, 2] }),
  g: grad(nextCol, { wrt: [0, 2] }),
  h: hessian(nextCol, { wrt: [2] }),
  vj: (x: number[][], d: number, w: number) => vjp(nextCol, x, d, w)[1](1),
  jv: (x: number[][], d: number, w: number) => jvp(nextCol, [x, d, w], [x.map((r) => r.map(() => 0)), 0, 1]),
};
export const writeColT = { vg: valueAndGrad(writeCol), g: grad(writeCol) };
export const recT = {
  vg: valueAndGrad(rec, { wrt: [0, 2] }),
  g: grad(rec, { wrt: [0, 2] }),
  vj: (ps: P[], k: number, w: number) => vjp(rec, ps, k, w)[1](1),
  jv: (ps: P[], k: number, w: number) => jvp(rec, [ps, k, w], [ps.map(() => ({ a: 0, b: 0 })), 0, 1]),
};
export const recLoopT = {
  vg: valueAndGrad(recLoop, { wrt: [0, 2] }),
  g: grad(recLoop, { wrt: [0, 2] }),
  vj: (ps: P[], d: number, w: number) => vjp(recLoop, ps, d, w)[1](1),
  jv: (ps: P[], d: number, w: number) => jvp(recLoop, [ps, d, w], [ps.map(() => ({ a: 0, b: 0 })), 0, 1]),
};
export const leafT = {
  vg: valueAndGrad(leaf, { wrt: [0, 2] }),
  g: grad(leaf, { wrt: [0, 2] }),
  vj: (qs: Q[], j: number, w: number) => vjp(leaf, qs, j, w)[1](1),
};
export const sumT = {
  vg: valueAndGrad(sum, { wrt: [0, 2] }),
  g: grad(sum, { wrt: [0, 2] }),
  h: hessian(sum, { wrt: [2] }),
  vj: (x: number[], d: number, w: number) => vjp(sum, x, d, w)[1](1),
  jv: (x: number[], d: number, w: number) => jvp(sum, [x, d, w], [x.map(() => 0), 0, 1]),
};
export const foldedT = {
  vg: valueAndGrad(folded, { wrt: [2] }),
};
`);

type Transforms = Record<string, (...a: any[]) => unknown>;
const T = (name: string): Transforms => m[`${name}T`];
const w = 1.5;
/** Typed arrays as plain arrays, numbers rounded to 12 digits, for toEqual. */
const norm = (o: unknown): unknown =>
  typeof o === 'number'
    ? Number(o.toPrecision(12))
    : ArrayBuffer.isView(o) || Array.isArray(o)
      ? Array.from(o as ArrayLike<unknown>, norm)
      : o && typeof o === 'object'
        ? Object.fromEntries(Object.entries(o).map(([k, v]) => [k, norm(v)]))
        : o;
/** Throws, as a missing element must make every transform do (a RangeError, or JavaScript's TypeError for a record's field). */
const throwsMissing = (f: () => unknown): void => {
  let result: unknown;
  try {
    result = f();
  } catch (e) {
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).name === 'RangeError' || (e as Error).name === 'TypeError').toBe(true);
    return;
  }
  throw new Error(`returned ${JSON.stringify(norm(result))} where JavaScript reads a missing element`);
};

const X = () => [
  [1, 2],
  [3, 4],
  [5, 6],
];

describe('M1: a matrix column past its row', () => {
  test('inside the row: hand derivations (g = x[0][1] = 2)', () => {
    const t = T('cell');
    expect(norm(t.vg(X(), 1, w))).toEqual(
      norm([
        2 * w * w,
        [
          [
            [0, w * w],
            [0, 0],
            [0, 0],
          ],
          2 * 2 * w,
        ],
      ]),
    );
    expect(norm(t.g(X(), 1, w))).toEqual(
      norm([
        [
          [0, w * w],
          [0, 0],
          [0, 0],
        ],
        2 * 2 * w,
      ]),
    );
    expect(norm(t.h(X(), 1, w))).toEqual([[4]]);
    expect(norm((t.jv(X(), 1, w) as number[])[1])).toEqual(norm(2 * 2 * w));
  });
  test('plain JavaScript reads undefined past the row', () => {
    expect(X()[0][2] * w * w).toBeNaN();
  });
  for (const j of [2, 3, -1, 0.5]) {
    test.each(['vg', 'g', 'h', 'vj', 'jv'])(`x[0][${j}]: %s throws (M1)`, (k) => {
      throwsMissing(() => T('cell')[k](X(), j, w));
    });
  }
  test('a square matrix diagonal inside: trace·w²', () => {
    const sq = [
      [1, 2],
      [3, 4],
    ];
    expect(norm(T('diag').vg(sq, 0, w))).toEqual(
      norm([
        5 * w * w,
        [
          [
            [w * w, 0],
            [0, w * w],
          ],
          2 * 5 * w,
        ],
      ]),
    );
  });
  test.each(['vg', 'g', 'h', 'vj', 'jv'])('x[r][r + 1] on a 2×2 matrix reads x[1][2]: %s throws (M1)', (k) => {
    const sq = [
      [1, 2],
      [3, 4],
    ];
    throwsMissing(() => T('diag')[k](sq, 1, w));
  });
  test('the next column inside the row (d = 1): hand derivations', () => {
    const x2 = [
      [1, 2],
      [4, 8],
    ];
    expect(norm(T('nextCol').vg(x2, 1, w))).toEqual(
      norm([
        2 * w,
        [
          [
            [2 * w, 1 * w],
            [0, 0],
          ],
          2,
        ],
      ]),
    );
  });
  // The off-by-one the checks exist for: c < x[0].length reads x[0][2], which the flat row-major
  // buffer holds as x[1][0] (4): main returns [10·w, …] where JavaScript's value is NaN.
  test.each(['vg', 'g', 'h', 'vj', 'jv'])('the next column past the row (d = 2): %s throws (M1)', (k) => {
    const x2 = [
      [1, 2],
      [4, 8],
    ];
    throwsMissing(() => T('nextCol')[k](x2, 2, w));
  });
});

describe('M2: a matrix write past its row', () => {
  const x2 = () => Float64Array.from([2, 3]);
  test('inside the row: hand derivations (f = 2·x0·x1)', () => {
    expect(norm(T('writeCol').vg(x2(), 1))).toEqual([12, [6, 4]]);
  });
  // JavaScript grows row 0 (m[1][0] stays 0: f = 0); main writes the flat slot of m[1][0] (6).
  for (const k of [2, -1]) {
    test.each(['vg', 'g'])(`m[0][${k}] = …: %s gives JavaScript's value or throws (M2)`, (t) => {
      let r: unknown;
      try {
        r = T('writeCol')[t](x2(), k);
      } catch (e) {
        expect(e).toBeInstanceOf(RangeError);
        return;
      }
      expect(norm(r)).toEqual(t === 'vg' ? [0, [0, 0]] : [0, 0]);
    });
  }
});

const PS = () => [
  { a: 1, b: 2 },
  { a: 3, b: 4 },
];

describe('R1: an array of records read past its end', () => {
  test('inside: hand derivations', () => {
    expect(norm(T('rec').vg(PS(), 1, w))).toEqual(
      norm([
        3 * w * w,
        [
          [
            { a: 0, b: 0 },
            { a: w * w, b: 0 },
          ],
          2 * 3 * w,
        ],
      ]),
    );
    expect(norm(T('recLoop').vg(PS(), 2, w))).toEqual(
      norm([
        4 * w * w,
        [
          [
            { a: w * w, b: 0 },
            { a: w * w, b: 0 },
          ],
          2 * 4 * w,
        ],
      ]),
    );
  });
  test('plain JavaScript throws a TypeError', () => {
    expect(() => PS()[2].a).toThrow(TypeError);
  });
  for (const k of [2, -1, 0.5]) {
    test.each(['vg', 'g', 'vj', 'jv'])(`ps[${k}].a: %s throws (R1)`, (t) => {
      throwsMissing(() => T('rec')[t](PS(), k, w));
    });
  }
  test.each(['vg', 'g', 'vj', 'jv'])('a loop to d = 3 over 2 records: %s throws (R1)', (t) => {
    throwsMissing(() => T('recLoop')[t](PS(), 3, w));
  });
});

describe('R2: an array leaf of a record read between two elements', () => {
  const QS = () => [
    { v: [1, 2, 3], c: 2 },
    { v: [4, 5, 6], c: 3 },
  ];
  test('inside: hand derivations', () => {
    expect(norm(T('leaf').vg(QS(), 1, w))).toEqual(
      norm([
        2 * w * w,
        [
          [
            { v: [0, w * w, 0], c: 0 },
            { v: [0, 0, 0], c: 0 },
          ],
          2 * 2 * w,
        ],
      ]),
    );
  });
  test.each(['vg', 'g', 'vj'])('qs[0].v[3]: %s throws (checked today)', (t) => {
    throwsMissing(() => T('leaf')[t](QS(), 3, w));
  });
  test.each(['vg', 'g', 'vj'])('qs[0].v[0.5]: %s throws (R2)', (t) => {
    throwsMissing(() => T('leaf')[t](QS(), 0.5, w));
  });
});

describe('H1: a hole in a number[]', () => {
  const holey = (): number[] => {
    const x = [0.3, 1, 1.7];
    delete x[1];
    return x;
  };
  test('dense: hand derivations', () => {
    expect(norm(T('sum').vg([0.3, 1, 1.7], 0, w))).toEqual(norm([3 * w * w, [[w * w, w * w, w * w], 2 * 3 * w]]));
  });
  test('plain JavaScript reads undefined at the hole, and reduce skips it', () => {
    const x = holey();
    expect(1 in x).toBe(false);
    expect(x[1]).toBeUndefined();
    expect(x.reduce((s, v) => s + v * w * w, 0)).toBeCloseTo(2 * w * w, 12);
  });
  test.each(['vg', 'g', 'h', 'vj', 'jv'])('a loop over the holey array: %s throws (H1)', (t) => {
    throwsMissing(() => T('sum')[t](holey(), 0, w));
  });
  test('reduce over the holey array: valueAndGrad gives JavaScript value (which skips the hole), or throws (H1)', () => {
    let r: unknown;
    try {
      r = T('folded').vg(holey(), 0, w);
    } catch (e) {
      expect(e).toBeInstanceOf(TypeError);
      return;
    }
    expect(norm(r)).toEqual(norm([2 * w * w, 2 * 2 * w]));
  });
});
