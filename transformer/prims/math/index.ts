// The Math library: unary functions, atan2, hypot, min and max.
// Each unary rule states one partial derivative; `elementwise` builds the JVP from it.
import type { Builder } from '../../ir/build';
import { elementwise, nonDifferentiable, realOp, unary, binary, variadic, anywhere, positive, unitInterval, sumTangents, Partial, reductionCost } from '../helpers';
import type { PrimDef, PrimTestSpec, JvpRule } from '../types';

type UnaryPartial = (b: Builder, x: string, y: string) => string;

// Rounding, sign and |x| are a few instructions; the others are library calls (PrimDef.costly).
const CHEAP_MATH = new Set(['abs', 'sign', 'floor', 'ceil', 'round', 'trunc', 'fround']);

function unaryMath(name: string, partial: UnaryPartial | null, test: PrimTestSpec = anywhere): PrimDef {
  const fn = (Math as unknown as Record<string, (x: number) => number>)[name];
  return {
    name,
    arity: unary,
    typeRule: realOp(name),
    impl: (x) => fn(x as number),
    ...(CHEAP_MATH.has(name) ? {} : { costly: true }),
    jvp:
      partial === null
        ? nonDifferentiable
        : elementwise(
            () =>
              (b, [x], y) =>
                partial(b, x, y),
          ),
    test: partial === null ? { ...test, zeroDerivative: true } : test,
  };
}

const lit = (b: Builder, v: number) => b.lit(v, 'c');
const inv = (b: Builder, d: string) => b.prim('div', [lit(b, 1), d], 'inv');
const sq = (b: Builder, x: string) => b.prim('mul', [x, x], 'sq');
/** 1 − x² */
const oneMinusSq = (b: Builder, x: string) => b.prim('sub', [lit(b, 1), sq(b, x)], 'om');

// Derivatives reuse the primal result y where that is as accurate (exp, sqrt, tanh, tan).
export const sqrt = unaryMath('sqrt', (b, _x, y) => b.prim('div', [lit(b, 0.5), y], 'dsqrt'), { domain: [[0.1, 4]] });
export const cbrt = unaryMath('cbrt', (b, _x, y) => inv(b, b.prim('mul', [lit(b, 3), sq(b, y)], 'three_y2')), { domain: [[0.2, 4]] });
export const exp = unaryMath('exp', (_b, _x, y) => y);
export const expm1 = unaryMath('expm1', (b, _x, y) => b.prim('add', [y, lit(b, 1)], 'dexpm1'));
export const log = unaryMath('log', (b, x) => inv(b, x), positive);
export const log1p = unaryMath('log1p', (b, x) => inv(b, b.prim('add', [lit(b, 1), x], 'one_x')), { domain: [[-0.5, 3]] });
export const log2 = unaryMath('log2', (b, x) => inv(b, b.prim('mul', [x, lit(b, Math.LN2)], 'x_ln2')), positive);
export const log10 = unaryMath('log10', (b, x) => inv(b, b.prim('mul', [x, lit(b, Math.LN10)], 'x_ln10')), positive);
export const sin = unaryMath('sin', (b, x) => b.prim('cos', [x], 'cos'));
export const cos = unaryMath('cos', (b, x) => b.prim('neg', [b.prim('sin', [x], 'sin')], 'dcos'));
export const tan = unaryMath('tan', (b, _x, y) => b.prim('add', [lit(b, 1), sq(b, y)], 'dtan'), { domain: [[-1.2, 1.2]] });
export const asin = unaryMath('asin', (b, x) => inv(b, b.prim('sqrt', [oneMinusSq(b, x)], 'root')), unitInterval);
export const acos = unaryMath('acos', (b, x) => b.prim('neg', [inv(b, b.prim('sqrt', [oneMinusSq(b, x)], 'root'))], 'dacos'), unitInterval);
export const atan = unaryMath('atan', (b, x) => inv(b, b.prim('add', [lit(b, 1), sq(b, x)], 'one_x2')));
export const sinh = unaryMath('sinh', (b, x) => b.prim('cosh', [x], 'cosh'));
export const cosh = unaryMath('cosh', (b, x) => b.prim('sinh', [x], 'sinh'));
export const tanh = unaryMath('tanh', (b, _x, y) => oneMinusSq(b, y));
export const asinh = unaryMath('asinh', (b, x) => inv(b, b.prim('sqrt', [b.prim('add', [sq(b, x), lit(b, 1)], 'x2_1')], 'root')));
export const acosh = unaryMath('acosh', (b, x) => inv(b, b.prim('sqrt', [b.prim('sub', [sq(b, x), lit(b, 1)], 'x2_1')], 'root')), { domain: [[1.2, 4]] });
export const atanh = unaryMath('atanh', (b, x) => inv(b, oneMinusSq(b, x)), unitInterval);
// |x|' = sign(x), so abs'(0) = 0: the minimum-norm subgradient, and never NaN.
export const abs = unaryMath('abs', (b, x) => b.prim('sign', [x], 'sgn'), { domain: [[-3, 3]], kinks: true });
// Piecewise constant: zero derivative wherever it exists.
export const sign = unaryMath('sign', null);
export const floor = unaryMath('floor', null);
export const ceil = unaryMath('ceil', null);
export const round = unaryMath('round', null);
export const trunc = unaryMath('trunc', null);
// Rounding to the nearest float32 is piecewise constant too, but what it stands for is a store at
// lower precision (a Float32Array element, which the front end lowers to fround): its derivative
// is taken as the identity's (straight-through, as AD tools treat a cast to float32), so the
// tangent passes on unchanged, in double precision.
export const fround: PrimDef = {
  ...unaryMath('fround', null),
  jvp: ({ tangents }) => tangents[0] ?? null,
  test: { ...anywhere, straightThrough: true },
};

// atan2(y, x): ∂/∂y = x/(x²+y²), ∂/∂x = −y/(x²+y²); both taken as 0 at the origin (no NaN).
const atan2Partial =
  (i: number): Partial =>
  (b, [yy, xx]) => {
    const zero = lit(b, 0);
    const r2 = b.prim('add', [sq(b, xx), sq(b, yy)], 'r2');
    const num = i === 0 ? xx : b.prim('neg', [yy], 'ny');
    const safe = b.prim('select', [b.test('eq', [r2, zero], 'origin'), lit(b, 1), r2], 'r2s');
    return b.prim('select', [b.test('eq', [r2, zero], 'origin'), zero, b.prim('div', [num, safe], 'q')], 'datan2');
  };
export const atan2: PrimDef = {
  name: 'atan2',
  arity: binary,
  costly: true,
  typeRule: realOp('atan2'),
  impl: (y, x) => Math.atan2(y as number, x as number),
  jvp: elementwise(atan2Partial),
  test: {
    domain: [
      [0.2, 3],
      [0.2, 3],
    ],
  },
};

// hypot(x̄): ∂/∂xᵢ = xᵢ / y, taken as 0 when y = 0 (hypot(0, 0) has no gradient; 0 is the
// minimum-norm subgradient). hypot() = 0 like JavaScript.
export const hypot: PrimDef = {
  name: 'hypot',
  arity: variadic(0),
  costly: true,
  typeRule: realOp('hypot'),
  impl: (...xs) => Math.hypot(...(xs as number[])),
  cost: reductionCost,
  jvp: elementwise((i) => (b, args, y) => {
    const zero = lit(b, 0);
    const degenerate = b.test('eq', [y, zero], 'degenerate');
    const safe = b.prim('select', [degenerate, lit(b, 1), y], 'ys');
    return b.prim('select', [degenerate, zero, b.prim('div', [args[i], safe], 'q')], 'dhypot');
  }),
  test: { domain: [[-3, 3]], kinks: true },
};
// min/max: the tangent of the first argument equal to the result (ties: the first wins),
// so the derivative is deterministic and is a valid one-sided derivative at ties. With no
// arguments they are JavaScript's constants, min() = Infinity and max() = −Infinity (tangent 0).
function extremumJvp(): JvpRule {
  return ({ b, args, tangents, y }) => {
    let taken = b.lit(false, 'taken');
    const terms = args.map((a, i) => {
      const hit = b.test('eq', [a, y], 'hit');
      const wins = b.test('and', [hit, b.test('not', [taken], 'free')], 'wins');
      taken = b.test('or', [taken, wins], 'taken');
      const t = tangents[i];
      if (t === null) return null;
      const w = b.prim('select', [wins, lit(b, 1), lit(b, 0)], 'w');
      return b.lprim('scale', [w], [t], `${y}_dot`);
    });
    return sumTangents(b, terms, `${y}_dot`);
  };
}
function extremum(name: 'min' | 'max'): PrimDef {
  return {
    name,
    arity: variadic(0),
    typeRule: realOp(name),
    impl: (...xs) => Math[name](...(xs as number[])),
    cost: reductionCost,
    jvp: extremumJvp(),
    test: { domain: [[-3, 3]], kinks: true },
  };
}
export const min = extremum('min');
export const max = extremum('max');
