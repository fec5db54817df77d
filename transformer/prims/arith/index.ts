// + - * / % ** and unary minus.
import { elementwise, realOp, binary, unary, anywhere, sumTangents } from '../helpers';
import type { PrimDef, JvpRule } from '../types';
import { REAL } from '../../ir/syntax';

const num = (v: unknown) => v as number;

// d(a + b) = ȧ + ḃ: already linear, no scaling needed.
const addJvp: JvpRule = ({ b, tangents, y }) => sumTangents(b, tangents, `${y}_dot`);

export const add: PrimDef = {
  name: 'add',
  cheap: true,
  sums: true,
  signs: [1, 1],
  arity: binary,
  typeRule: realOp('add'),
  impl: (a, b) => num(a) + num(b),
  jvp: addJvp,
  test: anywhere,
};

// d(a − b) = ȧ − ḃ
export const sub: PrimDef = {
  name: 'sub',
  cheap: true,
  signs: [1, -1],
  arity: binary,
  typeRule: realOp('sub'),
  impl: (a, b) => num(a) - num(b),
  jvp: ({ b, tangents: [da, db], y }) => {
    if (db === null) return da;
    if (da === null) return b.lprim('lneg', [], [db], `${y}_dot`);
    return b.lprim('ladd', [], [da, b.lprim('lneg', [], [db], `${y}_dot`)], `${y}_dot`);
  },
  // x - 0 is x for every x (-0 - 0 is -0); 0 - x is not (0 - 0 is +0, -x is -0).
  fold: ([, b]) => (b === 0 && !Object.is(b, -0) ? { arg: 0 } : undefined),
  test: anywhere,
};

export const neg: PrimDef = {
  name: 'neg',
  cheap: true,
  signs: [-1],
  arity: unary,
  typeRule: realOp('neg'),
  impl: (a) => -num(a),
  jvp: ({ b, tangents: [da], y }) => (da === null ? null : b.lprim('lneg', [], [da], `${y}_dot`)),
  test: anywhere,
};

// d(a·b) = b·ȧ + a·ḃ
export const mul: PrimDef = {
  name: 'mul',
  cheap: true,
  arity: binary,
  typeRule: realOp('mul'),
  impl: (a, b) => num(a) * num(b),
  jvp: elementwise(
    (i) =>
      (_b, [x, z]) =>
        i === 0 ? z : x,
  ),
  fold: ([a, b]) => (b === 1 ? { arg: 0 } : a === 1 ? { arg: 1 } : undefined),
  test: anywhere,
};

// mul0(u, v) = v === 0 ? 0 : u·v, the erased strong-zero scaling (a cotangent v of an untaken
// branch is exactly 0). d = v·u̇ + u·v̇ with the same convention: where v is exactly 0 the u̇ term
// is 0 whatever u̇ is (u may be NaN there), and an exact-zero v̇ contributes 0 whatever u is.
export const mul0: PrimDef = {
  name: 'mul0',
  arity: binary,
  typeRule: realOp('mul0'),
  impl: (a, b) => (num(b) === 0 ? 0 : num(a) * num(b)),
  jvp: ({ b, args: [u, v], tangents: [du, dv], y }) => {
    let viaU: string | null = null;
    if (du !== null) {
      const vanishes = b.test('eq', [v, b.lit(0, 'zero')], 'vanishes');
      viaU = b.lprim('lselect', [vanishes], [b.zero(REAL), b.lprim('scale', [v], [du], `${y}_dot`)], `${y}_dot`);
    }
    const viaV = dv === null ? null : b.lprim('scale0', [u], [dv], `${y}_dot`);
    return sumTangents(b, [viaU, viaV], `${y}_dot`);
  },
  test: anywhere,
};

// d(a/b) = ȧ/b − (y/b)·ḃ
export const div: PrimDef = {
  name: 'div',
  // One divide is a few cycles; stacked, the quotient is a tape slot written and read back (lstm's
  // gates stored 1/(1+e) and 1/(1+e)² per element: 14 numbers where 8 do).
  cheap: true,
  arity: binary,
  typeRule: realOp('div'),
  impl: (a, b) => num(a) / num(b),
  jvp: elementwise((i) => (i === 0 ? (b, [, d]) => b.prim('div', [b.lit(1, 'one'), d], 'inv') : (b, [, d], y) => b.prim('neg', [b.prim('div', [y, d], 'q')], 'dq'))),
  fold: ([, b]) => (b === 1 ? { arg: 0 } : undefined),
  test: {
    domain: [
      [-3, 3],
      [0.5, 3],
    ],
  },
};

// JS `%` is fmod: a − trunc(a/b)·b, so ∂/∂a = 1 and ∂/∂b = −trunc(a/b) (away from jumps).
export const mod: PrimDef = {
  name: 'mod',
  arity: binary,
  typeRule: realOp('mod'),
  impl: (a, b) => num(a) % num(b),
  // ∂/∂a = 1 passes ȧ through unscaled: no `scale(1 ; ȧ)`, and no literal 1 that the forward
  // half would have to build and drop.
  jvp: ({ b, args: [a, d], tangents: [da, dd], y }) => {
    const viaD = dd === null ? null : b.lprim('scale', [b.prim('neg', [b.prim('trunc', [b.prim('div', [a, d], 'q')], 'k')], 'dk')], [dd], `${y}_dot`);
    return sumTangents(b, [da, viaD], `${y}_dot`);
  },
  test: {
    domain: [
      [0.3, 3],
      [0.7, 1.3],
    ],
  },
};

// x ** e. ∂/∂x = e·x^(e−1), taken as 0 when e = 0 (x^0 is constant even at x = 0, where
// 0·0^−1 would be NaN). ∂/∂e = ln(x)·y, taken as 0 when y = 0 (0^e is flat in e for e > 0; ln 0 · 0
// would be NaN). For x < 0 the exponent derivative is NaN: x^e has no real extension there.
export const pow: PrimDef = {
  name: 'pow',
  arity: binary,
  costly: true,
  typeRule: realOp('pow'),
  impl: (a, b) => num(a) ** num(b),
  jvp: elementwise((i) =>
    i === 0
      ? (b, [x, e]) => {
          const zero = b.lit(0, 'zero');
          const em1 = b.prim('sub', [e, b.lit(1, 'one')], 'em1');
          const slope = b.prim('mul', [e, b.prim('pow', [x, em1], 'xp')], 'slope');
          return b.prim('select', [b.test('eq', [e, zero], 'flat'), zero, slope], 'dx');
        }
      : (b, [x], y) => {
          const zero = b.lit(0, 'zero');
          const slope = b.prim('mul', [b.prim('log', [x], 'lnx'), y], 'slope');
          return b.prim('select', [b.test('eq', [y, zero], 'flat'), zero, slope], 'de');
        },
  ),
  // pow(x, 1) is x for every x, NaN included; pow(x, 0) is 1 for every x, NaN included.
  fold: ([, b]) => (b === 1 ? { arg: 0 } : b === 0 ? { literal: 1 } : undefined),
  test: {
    domain: [
      [0.2, 3],
      [-2, 2],
    ],
  },
};
