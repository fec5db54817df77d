// Arrays in differentiable functions through the plugin (transformer/frontend/arrays.ts,
// docs/frontend.md "Arrays"): each lowering's derivatives against central differences and hand
// derivations, at lengths 0, 1 and larger; every transform taking and returning arrays in the
// kind the user passed (number[], Float64Array, Float32Array); run-time length errors.
import { compile, load } from './harness';

const { exports: m } =
  load(`import { grad, valueAndGrad, jvp, vjp, linearize, jacobian, jacfwd, jacrev, hessian, hvp, sum, dot, prod, iota, scan, gather, scatter, reduceByIndex, stopGradient, NumberArray } from 'tsad';

/** @differentiable */
export function sumsq(a: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * a[i];
  return s;
}
/** @differentiable */
export function sumsqList(a: number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s = s + a[i] * a[i];
  return s;
}
/** @differentiable */
export function sumsq32(a: Float32Array): number {
  let s = 0;
  for (const x of a) s += x * x;
  return s;
}
/** @differentiable */
export function mapSin(a: readonly number[], c: number): number {
  return sum(a.map((x) => Math.sin(c * x)));
}
/** @differentiable */
export function zipped(a: Float64Array, b: Float64Array): number {
  return sum(a.map((x, i) => x * b[i] * b[i] + i * x));
}
/** @differentiable */
export function folded(a: number[]): number {
  return a.reduce((acc, x) => acc * Math.cos(x) + x, 1);
}
/** @differentiable */
export function summed(a: number[]): number {
  return a.reduce((s, x) => s + x, 2) * a.length;
}
/** @differentiable */
export function products(a: number[]): number {
  return prod(a);
}
/** @differentiable */
export function dotted(a: number[], b: Float64Array): number {
  return dot(a, b);
}
/** @differentiable */
export function scaled(a: Float64Array, c: number): Float64Array {
  return a.map((x) => x * c + Math.sin(x));
}
/** @differentiable */
export function built(x: number, n: number): number {
  const v = Float64Array.from({ length: n }, (_, i) => Math.sin(x * i));
  return sum(v);
}
/** @differentiable */
export function filled(x: number, n: number): number {
  const z = new Array(n).fill(x);
  let s = 0;
  for (const v of z) s += v * v;
  return s + sum(new Float64Array(n));
}
/** @differentiable */
export function literal(x: number, y: number): number[] {
  return [x * y, x + y, Math.exp(x)];
}
/** @differentiable */
export function quadratic(mat: Float64Array, v: number[]): number {
  const n = v.length;
  let s = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) s += mat[i * n + j] * v[i] * v[j];
  }
  return s;
}
/** @differentiable */
export function mixed(p: { w: Float64Array; b: number }, x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const r = p.w[i] * x[i] + p.b;
    s += r * r;
  }
  return s;
}
/** @differentiable */
export function pair(t: [Float64Array, number]): number {
  return sum(t[0].map((x) => x * t[1]));
}
/** @differentiable */
export function gathered(a: Float64Array, idx: Int32Array): number {
  let s = 0;
  for (let k = 0; k < idx.length; k++) s += a[idx[k]] * a[idx[k]];
  return s;
}
/** @differentiable */
export function ramp(x: number, n: number): number {
  return dot(iota(n), Float64Array.from({ length: n }, (_, i) => x * x * i));
}
/** @differentiable */
export function untilTen(a: Float64Array): number {
  let i = 0;
  let s = 0;
  while (i < a.length && s < 10) {
    s += a[i] * a[i];
    i++;
  }
  return s;
}
/** @differentiable */
export function second(a: number[]): number {
  return a[1] * a[1];
}
/** @differentiable */
export function softmax(a: number[]): number[] {
  const top = a.reduce((p, x) => Math.max(p, x), -Infinity);
  const e = a.map((x) => Math.exp(x - top));
  const s = sum(e);
  return e.map((x) => x / s);
}
/** @differentiable */
export function quartic(a: Float64Array): number {
  const s = sum(a.map((x) => x * x));
  return s * s;
}
/** @differentiable */
export function weighted(a: Float64Array, flag: boolean, w: number): number {
  const k = flag ? w : 1;
  return sum(a.map((x) => k * x * x));
}
/** @differentiable */
export function pastEnd(a: Float64Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i] * a[i];
  return s;
}
/** @differentiable */
export function smallest(a: number[]): number {
  return a.reduce((p, x) => Math.min(p, x), Infinity);
}
/** @differentiable */
export function cumsum(a: Float64Array): Float64Array {
  return scan(a, '+');
}
/** @differentiable */
export function cumprod(a: number[]): Float64Array {
  return scan(a, '*');
}
/** @differentiable */
export function compound(a: number[]): number {
  // (1 + p)(1 + q) − 1 is associative: compound growth.
  return sum(scan(a, (p, q) => p + q + p * q, 0));
}
/** @differentiable */
export function model(p: { a: number; k: [number, number] }, t: number): number {
  return p.a * Math.exp(-p.k[0] * t) + p.k[1];
}
/** @differentiable */
export function fitLoss(p: { a: number; k: [number, number] }, t: Float64Array, y: Float64Array): number {
  return sum(t.map((ti, i) => (model(p, ti) - y[i]) ** 2)) / t.length;
}
/** @differentiable */
export function selfWeighted(a: Float64Array): number {
  const b = stopGradient(a);
  return sum(a.map((x, i) => x * b[i]));
}
/** @differentiable */
export function branchy(a: Float64Array, c: number): number {
  let b = a;
  if (c > 0) b = a.map((x) => x * c);
  const d = c > 1 ? b : b.map((x) => -x);
  return sum(d);
}
/** @differentiable */
export function iterated(a: Float64Array, n: number): number {
  let b = a;
  for (let k = 0; k < n; k++) b = b.map((x) => Math.sin(x));
  return sum(b);
}
/** @differentiable */
export function both(a: Float64Array, c: number): [number, Float64Array] {
  return [sum(a), a.map((x) => x * c)];
}
/** @differentiable */
export function polys(a: number[], c: number): number {
  const b = a.map((x) => {
    let s = 0;
    let p = 1;
    for (let k = 0; k < 4; k++) {
      s += p;
      p *= x * c;
    }
    return s;
  });
  let t = 0;
  for (let r = 1; r <= 2; r++) t += sum(b.map((y) => y * r + c));
  return t + b.reduce((acc, y) => {
    const z = acc * 0.5;
    return z + Math.sin(y);
  }, 0);
}
/** @differentiable */
export function anyKind(a: NumberArray, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
/** @differentiable */
export function pick3(a: Float64Array, idx: Int32Array): Float64Array {
  return gather(a, idx);
}
/** @differentiable */
export function put(xs: number[], idx: number[], vs: number[]): Float64Array {
  return scatter(xs, idx, vs);
}
/** @differentiable */
export function histAdd(dst: Float64Array, idx: Int32Array, vs: Float64Array): Float64Array {
  return reduceByIndex(dst, idx, vs, '+');
}
/** @differentiable */
export function histMul(dst: Float64Array, idx: Int32Array, vs: Float64Array): Float64Array {
  return reduceByIndex(dst, idx, vs, (h, v) => h * v);
}
/** @differentiable */
export function histMin(dst: Float64Array, idx: Int32Array, vs: Float64Array): Float64Array {
  return reduceByIndex(dst, idx, vs, 'min');
}
/** @differentiable */
export function roughness(a: Float64Array): number {
  // Squared differences of neighbours: reads at i + 1 and i, gathers before the map.
  const d = Float64Array.from({ length: a.length - 1 }, (_, i) => a[i + 1] - a[i]);
  return sum(d.map((x) => x * x)) + sum(a.map((x, i) => x * a[a.length - 1 - i]));
}
/** @differentiable */
export function slices(a: number[], k: number): number {
  const head = a.slice(0, k);
  const tail = a.slice(-2);
  const middle = a.slice(1, -1);
  return sum(head.map((x) => x * x)) + 3 * sum(tail) + sum(middle.map((x) => Math.sin(x))) + a.slice(k).length;
}
/** @differentiable */
export function minTimesSum(a: Float64Array): number {
  return a.reduce((q, x) => Math.min(q, x), Infinity) * sum(a);
}
/** @differentiable */
export function folds(a: number[]): number {
  const [total, product] = a.reduce((acc, x) => [acc[0] + x, acc[1] * x] as [number, number], [0, 1] as [number, number]);
  const top = a.reduce((p, x) => Math.max(x, p), -Infinity);
  const weighted = a.reduce((p, x, i) => p + i * x, 0);
  return total * product + (a.length > 0 ? top : 0) + weighted + a.reduce((p, x) => x * p, 1);
}
/** @differentiable */
export function product(a: Float64Array): number {
  return prod(a);
}
/** @differentiable */
export function prefixProducts(a: Float64Array): number {
  return sum(scan(a, '*'));
}

export const gSumsq = grad(sumsq);
export const hessProducts = hessian(product);
export const hvpPrefixProducts = hvp(prefixProducts);
export const gFolds = grad(folds);
export const hessMinTimesSum = hessian(minTimesSum);
export const gSlices = grad(slices);
export const gRoughness = grad(roughness);
export const vjpPick3 = (a: Float64Array, idx: Int32Array) => vjp(pick3, a, idx);
export const vjpPut = (xs: number[], idx: number[], vs: number[]) => vjp(put, xs, idx, vs);
export const vjpHistAdd = (d: Float64Array, idx: Int32Array, vs: Float64Array) => vjp(histAdd, d, idx, vs);
export const vjpHistMul = (d: Float64Array, idx: Int32Array, vs: Float64Array) => vjp(histMul, d, idx, vs);
export const vjpHistMin = (d: Float64Array, idx: Int32Array, vs: Float64Array) => vjp(histMin, d, idx, vs);
export const gAnyKind = grad(anyKind, { wrt: [0, 1] });
export const gPolys = grad(polys, { wrt: [0, 1] });
export const gSelfWeighted = grad(selfWeighted);
export const gBranchy = grad(branchy, { wrt: [0, 1] });
export const gIterated = grad(iterated);
export const vjpBoth = (a: Float64Array, c: number) => vjp(both, a, c);
export const gFitLoss = grad(fitLoss);
export const gSmallest = grad(smallest);
export const vjpCumsum = (a: Float64Array) => vjp(cumsum, a);
export const vjpCumprod = (a: number[]) => vjp(cumprod, a);
export const jvpCumprod = (a: number[], da: number[]) => jvp(cumprod, [a], [da]);
export const gCompound = grad(compound);
export const gPastEnd = grad(pastEnd);
export const gSumsqList = grad(sumsqList);
export const gSumsq32 = grad(sumsq32);
export const gMapSin = grad(mapSin, { wrt: [0, 1] });
export const gZipped = grad(zipped, { wrt: [0, 1] });
export const gFolded = grad(folded);
export const gSummed = grad(summed);
export const gProducts = grad(products);
export const gDotted = grad(dotted, { wrt: [0, 1] });
export const gBuilt = grad(built);
export const gFilled = grad(filled);
export const gQuadratic = grad(quadratic, { wrt: [1] });
export const gMixed = grad(mixed, { wrt: [0, 1] });
export const gPair = grad(pair);
export const gGathered = grad(gathered);
export const gRamp = grad(ramp);
export const gUntilTen = grad(untilTen);
export const gSecond = grad(second);
export const vgSumsq = valueAndGrad(sumsq);
export const jvpScaled = (a: Float64Array, c: number, da: Float64Array, dc: number) => jvp(scaled, [a, c], [da, dc]);
export const jvpGathered = (a: Float64Array, idx: Int32Array, da: Float64Array) => jvp(gathered, [a, idx], [da, undefined]);
export const vjpScaled = (a: Float64Array, c: number) => vjp(scaled, a, c);
export const linScaled = (a: Float64Array, c: number) => linearize(scaled, a, c);
export const vjpSoftmax = (a: number[]) => vjp(softmax, a);
export const jacSoftmax = jacobian(softmax);
export const jacfwdSoftmax = jacfwd(softmax);
export const jacrevSoftmax = jacrev(softmax);
export const jacLiteral = jacobian(literal, { wrt: [0, 1] });
export const jacScaled = jacrev(scaled, { wrt: [0, 1] });
export const jacSumsq = jacobian(sumsq);
export const hessQuartic = hessian(quartic);
export const hvpQuartic = hvp(quartic);
export const gWeighted = grad(weighted, { wrt: [0, 2] });
`);

// ---- references ----

const H = 1e-6;
type Args = unknown[];

/** Central differences of a scalar function in scalar k of argument i (numbers or arrays). */
function fd(f: (...a: any[]) => number, args: Args, i: number, k?: number): number {
  const shifted = (s: number) =>
    args.map((a, j) => {
      if (j !== i) return a;
      if (typeof a === 'number') return a + s;
      const c = Array.isArray(a) ? [...a] : new Float64Array(a as Float64Array);
      c[k!] += s;
      return c;
    });
  return (f(...shifted(H)) - f(...shifted(-H))) / (2 * H);
}

function fdGrad(f: (...a: any[]) => number, args: Args, i: number): number[] {
  const a = args[i];
  if (typeof a === 'number') return [fd(f, args, i)];
  return Array.from({ length: (a as ArrayLike<number>).length }, (_, k) => fd(f, args, i, k));
}

function close(actual: ArrayLike<number> | number, expected: ArrayLike<number> | number, tol = 1e-6): void {
  const a = typeof actual === 'number' ? [actual] : Array.from(actual);
  const e = typeof expected === 'number' ? [expected] : Array.from(expected);
  expect(a.length).toBe(e.length);
  a.forEach((x, i) => {
    if (!(Math.abs(x - e[i]) <= tol * Math.max(1, Math.abs(e[i])))) throw new Error(`element ${i}: got ${x}, expected ${e[i]} (got [${a}], expected [${e}])`);
  });
}

const data = (n: number, shift = 0) => Array.from({ length: n }, (_, i) => 0.3 + 0.7 * Math.sin(1.3 * i + shift));
const LENGTHS = [0, 1, 5];

// ---- each lowering against central differences ----

describe.each(LENGTHS)('length %i', (n) => {
  const a = data(n);
  const b = data(n, 1);

  test('a loop reading a[i]: grad is 2a, as a Float64Array / number[] / Float32Array of full length', () => {
    const g = m.gSumsq(Float64Array.from(a));
    expect(g).toBeInstanceOf(Float64Array);
    close(
      g,
      a.map((x) => 2 * x),
    );
    const gl = m.gSumsqList(a);
    expect(Array.isArray(gl)).toBe(true);
    close(
      gl,
      a.map((x) => 2 * x),
    );
    const a32 = Float32Array.from(a);
    const g32 = m.gSumsq32(a32);
    expect(g32).toBeInstanceOf(Float32Array);
    close(
      g32,
      Array.from(a32, (x) => 2 * x),
      1e-6,
    );
  });

  test('.map with a free scalar, and sum: grad in the array and in the scalar', () => {
    const [ga, gc] = m.gMapSin(a, 0.7);
    expect(Array.isArray(ga)).toBe(true);
    close(
      ga,
      a.map((x) => 0.7 * Math.cos(0.7 * x)),
    );
    close(
      gc,
      a.reduce((s, x) => s + x * Math.cos(0.7 * x), 0),
    );
    close(ga, fdGrad(m.mapSin, [a, 0.7], 0));
  });

  test('.map reading another array at its own index (a zip)', () => {
    const [ga, gb] = m.gZipped(Float64Array.from(a), Float64Array.from(b));
    close(
      ga,
      a.map((_, i) => b[i] * b[i] + i),
    );
    close(
      gb,
      a.map((x, i) => 2 * x * b[i]),
    );
  });

  test('.reduce: a general left fold and the sum', () => {
    close(m.gFolded(a), fdGrad(m.folded, [a], 0));
    // (2 + Σa)·n: every partial is n.
    close(
      m.gSummed(a),
      a.map(() => n),
    );
  });

  test('prod and dot', () => {
    close(
      m.gProducts(a),
      a.map((_, i) => a.reduce((p, x, j) => (j === i ? p : p * x), 1)),
    );
    const [ga, gb] = m.gDotted(a, Float64Array.from(b));
    close(ga, b);
    expect(gb).toBeInstanceOf(Float64Array);
    close(gb, a);
  });

  test('builders: Float64Array.from({ length }), new Array(n).fill(x), new Float64Array(n), iota', () => {
    // Σ_i sin(x i): d/dx = Σ i cos(x i).
    close(
      m.gBuilt(0.4, n),
      Array.from({ length: n }, (_, i) => i * Math.cos(0.4 * i)).reduce((s, v) => s + v, 0),
    );
    expect(m.gBuilt(0.4, n)).toBeCloseTo(fd(m.built, [0.4, n], 0), 6);
    close(m.gFilled(0.4, n), 2 * 0.4 * n);
    // Σ i · x² i = x² Σ i²: d/dx = 2x Σ i².
    close(m.gRamp(0.4, n), 2 * 0.4 * Array.from({ length: n }, (_, i) => i * i).reduce((s, v) => s + v, 0));
  });

  test('arrays inside objects and tuples, and a matrix stored flat', () => {
    const w = Float64Array.from(b);
    const x = Float64Array.from(a);
    const [gp, gx] = m.gMixed({ w, b: 0.3 }, x);
    expect(gp.w).toBeInstanceOf(Float64Array);
    close(
      gp.w,
      a.map((xi, i) => 2 * (b[i] * xi + 0.3) * xi),
    );
    close(
      gp.b,
      a.reduce((s, xi, i) => s + 2 * (b[i] * xi + 0.3), 0),
    );
    close(
      gx,
      a.map((xi, i) => 2 * (b[i] * xi + 0.3) * b[i]),
    );
    const [gt, gs] = m.gPair([x, 1.5]);
    close(
      gt,
      a.map(() => 1.5),
    );
    close(
      gs,
      a.reduce((s, v) => s + v, 0),
    );
    const mat = a.map((_, i) => a.map((__, j) => 1 + i + 2 * j));
    // v·M·v with M stored flat: the gradient is (M + Mᵀ) v.
    close(
      m.gQuadratic(Float64Array.from(mat.flat()), b),
      b.map((_, i) => b.reduce((s, vj, j) => s + (mat[i][j] + mat[j][i]) * vj, 0)),
    );
  });

  test('a while loop over an array, and reads at indices from an Int32Array (a constant)', () => {
    close(m.gUntilTen(Float64Array.from(a)), fdGrad(m.untilTen, [Float64Array.from(a)], 0));
    const idx = Int32Array.from({ length: 2 * n }, (_, k) => (3 * k) % Math.max(n, 1));
    const expected = a.map(() => 0);
    if (n > 0) idx.forEach((i) => (expected[i] += 2 * a[i]));
    close(m.gGathered(Float64Array.from(a), idx), expected);
  });

  test('a loop inside a .map callback, maps inside a loop, a .reduce callback with statements', () => {
    const [ga, gc] = m.gPolys(a, 0.6);
    close(ga, fdGrad(m.polys, [a, 0.6], 0));
    close(gc, fd(m.polys, [a, 0.6], 1));
  });

  test('reads at an index computed from the map index (a[i + 1], a[n - 1 - i]) are gathers', () => {
    if (n === 0) return; // a.length − 1 = −1 is not a length
    const g = m.gRoughness(Float64Array.from(a));
    expect(g).toBeInstanceOf(Float64Array);
    close(g, fdGrad(m.roughness, [Float64Array.from(a)], 0));
  });

  test('.slice with JavaScript positions (negative from the end, clamped): a gather', () => {
    for (const k of [0, 2, 7]) close(m.gSlices(a, k), fdGrad(m.slices, [a, k], 0));
  });

  test('.reduce with a tuple accumulator, the index, and Math.max / x * p written either way round', () => {
    close(m.gFolds(a), fdGrad(m.folds, [a], 0));
  });

  test('valueAndGrad', () => {
    const [v, g] = m.vgSumsq(Float64Array.from(a));
    close(
      v,
      a.reduce((s, x) => s + x * x, 0),
    );
    close(
      g,
      a.map((x) => 2 * x),
    );
  });

  test('jvp with array tangents: value and tangent against central differences', () => {
    const da = Float64Array.from(b);
    const [y, dy] = m.jvpScaled(Float64Array.from(a), 0.5, da, 0.25);
    expect(y).toBeInstanceOf(Float64Array);
    expect(dy).toBeInstanceOf(Float64Array);
    close(
      y,
      a.map((x) => x * 0.5 + Math.sin(x)),
    );
    close(
      dy,
      a.map((x, i) => b[i] * (0.5 + Math.cos(x)) + 0.25 * x),
    );
  });

  test('linearize: the linear function of array tangents equals jvp', () => {
    const x = Float64Array.from(a);
    const [y, lin] = m.linScaled(x, 0.5);
    close(
      y,
      a.map((v) => v * 0.5 + Math.sin(v)),
    );
    const dx = Float64Array.from(b);
    const dy = lin(dx, 0.25);
    expect(dy).toBeInstanceOf(Float64Array);
    close(dy, m.jvpScaled(x, 0.5, dx, 0.25)[1]);
    if (n > 0) expect(() => lin(Float64Array.from(a.slice(1)), 0)).toThrow("linearize(scaled)'s linear function: the tangent of 'a' has length");
  });

  test('vjp: the dot-product test <ȳ, J ẋ> = <Jᵀ ȳ, ẋ>', () => {
    const x = Float64Array.from(a);
    const [y, pullback] = m.vjpScaled(x, 0.5);
    close(
      y,
      a.map((v) => v * 0.5 + Math.sin(v)),
    );
    const ybar = Float64Array.from(b);
    const [xbar, cbar] = pullback(ybar);
    expect(xbar).toBeInstanceOf(Float64Array);
    expect(xbar.length).toBe(n);
    const xdot = Float64Array.from(data(n, 2));
    const [, ydot] = m.jvpScaled(x, 0.5, xdot, 0.75);
    const lhs = Array.from(ydot as Float64Array).reduce((s, v, i) => s + v * ybar[i], 0);
    const rhs = Array.from(xbar as Float64Array).reduce((s, v, i) => s + v * xdot[i], 0) + cbar * 0.75;
    expect(lhs).toBeCloseTo(rhs, 10);
  });

  test('jacobian, jacfwd and jacrev of an array-valued function: rows are outputs', () => {
    const s = a.map((x) => Math.exp(x));
    const total = s.reduce((p, v) => p + v, 0);
    const p = s.map((v) => v / total);
    // ∂p_i/∂a_j = p_i (δ_ij − p_j).
    const expected = p.map((pi, i) => p.map((pj, j) => pi * ((i === j ? 1 : 0) - pj)));
    for (const J of [m.jacSoftmax(a), m.jacfwdSoftmax(a), m.jacrevSoftmax(a)]) {
      expect(J.length).toBe(n);
      J.forEach((row: number[], i: number) => {
        expect(Array.isArray(row)).toBe(true);
        close(row, expected[i]);
      });
    }
    const Jx = m.jacSumsq(Float64Array.from(a));
    expect(Jx.length).toBe(1);
    close(
      Jx[0],
      a.map((x) => 2 * x),
    );
    const [Ja, Jc] = m.jacScaled(Float64Array.from(a), 0.5);
    Ja.forEach((row: number[], i: number) =>
      close(
        row,
        a.map((x, j) => (i === j ? 0.5 + Math.cos(x) : 0)),
      ),
    );
    Jc.forEach((row: number[], i: number) => close(row, [a[i]]));
  });

  test('hessian and hvp of an array parameter against the closed form 4(Σa²)I + 8aaᵀ', () => {
    const s2 = a.reduce((s, x) => s + x * x, 0);
    const Hm = a.map((ai, i) => a.map((aj, j) => (i === j ? 4 * s2 : 0) + 8 * ai * aj));
    const got = m.hessQuartic(Float64Array.from(a));
    expect(got.length).toBe(n);
    got.forEach((row: number[], i: number) => close(row, Hm[i]));
    const v = Float64Array.from(b);
    const hv = m.hvpQuartic(Float64Array.from(a), v);
    expect(hv).toBeInstanceOf(Float64Array);
    close(
      hv,
      Hm.map((row) => row.reduce((acc, h, j) => acc + h * v[j], 0)),
    );
  });
});

test('a gradient array is as long as its parameter, padded with the zeros the IR leaves out', () => {
  const g = m.gSecond([1, 2, 3, 4, 5]);
  expect(g).toEqual([0, 4, 0, 0, 0]);
});

test('an array literal typed as number[]: its Jacobian in each scalar', () => {
  const [Jx, Jy] = m.jacLiteral(2, 3);
  expect(Jx).toEqual([[3], [1], [Math.exp(2)]]);
  expect(Jy).toEqual([[2], [1], [0]]);
});

test('a constant parameter among arrays: its tangent is undefined, the others differentiate', () => {
  const a = Float64Array.from([1, 2, 3]);
  const [ga, gw] = m.gWeighted(a, true, 2);
  close(ga, [4, 8, 12]);
  close(gw, 14);
  const idx = Int32Array.from([0, 2, 2]);
  const [y, dy] = m.jvpGathered(a, idx, Float64Array.from([1, 1, 1]));
  close(y, 1 + 9 + 9);
  close(dy, 2 + 6 + 6);
});

// ---- run-time errors: checked once per call, naming the transform, function and argument ----

test('a tangent array of the wrong length is a RangeError naming jvp(scaled) and the argument', () => {
  const a = Float64Array.from([1, 2, 3]);
  expect(() => m.jvpScaled(a, 1, Float64Array.from([1, 2]), 0)).toThrow(RangeError);
  expect(() => m.jvpScaled(a, 1, Float64Array.from([1, 2]), 0)).toThrow("jvp(scaled): the tangent of 'a' has length 2, but 'a' has length 3");
});

test("a pullback's cotangent of the wrong length is a RangeError", () => {
  const [, pullback] = m.vjpScaled(Float64Array.from([1, 2, 3]), 1);
  expect(() => pullback(Float64Array.from([1]))).toThrow("vjp(scaled)'s pullback: the cotangent has length 1, but the value has length 3");
});

test("hvp's direction of the wrong length is a RangeError", () => {
  expect(() => m.hvpQuartic(Float64Array.from([1, 2]), Float64Array.from([1]))).toThrow("hvp(quartic): v has length 1, but 'a' has length 2");
});

test('a number where an array is expected is a TypeError naming the argument', () => {
  expect(() => m.gSumsq(5)).toThrow("grad(sumsq): argument 1 'a' must be an array of numbers (number[], Float64Array or Float32Array), got number");
});

test('two arrays a map or dot needs equally long are checked once: a RangeError naming the transform, function and arrays', () => {
  expect(() => m.gDotted([1, 2], Float64Array.from([1]))).toThrow(RangeError);
  expect(() => m.gDotted([1, 2], Float64Array.from([1]))).toThrow('grad(dotted): in dotted: the arrays of dot(a, b) must have the same length (2 > 1)');
  expect(() => m.gZipped(Float64Array.from([1, 2]), Float64Array.from([1]))).toThrow(RangeError);
  expect(() => m.gZipped(Float64Array.from([1, 2]), Float64Array.from([1]))).toThrow(
    "grad(zipped): in zipped: the array 'b' read at i in a.map((x, i) => x * b[i] * b[i] + i * x) must be at least as long as 'a' (2 > 1)",
  );
});

test('an array read at i may be longer than the mapped one, as JavaScript allows: its first n elements are zipped', () => {
  // zipped = Σ a_i b_i² + i a_i over the map's n = |a| elements; b's later elements have zero gradient.
  const a = Float64Array.from([0.5, -1.5]);
  const b = Float64Array.from([2, 3, 7, 11]);
  expect(m.zipped(a, b)).toBe(0.5 * 4 + (-1.5 * 9 + -1.5));
  const [ga, gb] = m.gZipped(a, b);
  close(ga, [4, 9 + 1]);
  close(gb, [2 * 0.5 * 2, 2 * -1.5 * 3, 0, 0]);
});

test('a counted loop reading a[i] past the end is a RangeError, checked once before the loop', () => {
  close(m.gPastEnd(Float64Array.from([1, 2, 3]), 2), [2, 4, 0]);
  expect(() => m.gPastEnd(Float64Array.from([1, 2]), 3)).toThrow(RangeError);
  expect(() => m.gPastEnd(Float64Array.from([1, 2]), 3)).toThrow("grad(pastEnd): in pastEnd: the loop for (… i < n …) reads 'a[i]' past its end (3 > 2)");
});

// ---- the scan and reduce combinators (array-adjoints-map-reduce-scan.md §5, exact numbers) ----

test('prod with zero, one and two zero factors: exact, no division (§5 examples 2-4)', () => {
  expect(m.gProducts([2, 3, 4])).toEqual([12, 8, 6]);
  expect(m.gProducts([2, 0, 4])).toEqual([0, 8, 0]);
  expect(m.gProducts([0, 3, 0])).toEqual([0, 0, 0]);
});

test('.reduce with Math.min: one update at the smallest, the lowest index winning a tie (§5 example 5)', () => {
  expect(m.gSmallest([3, 1, 2, 1])).toEqual([0, 1, 0, 0]);
});

test("scan(a, '+') and scan(a, '*') through vjp and jvp (§5 examples 7 and 8)", () => {
  const [y, pullback] = m.vjpCumsum(Float64Array.from([1, 2, 3, 4]));
  close(y, [1, 3, 6, 10]);
  const [abar] = pullback(Float64Array.from([1, 1, 1, 1]));
  expect(abar).toBeInstanceOf(Float64Array);
  close(abar, [4, 3, 2, 1]);
  const [p, pb] = m.vjpCumprod([2, 3, 4]);
  close(p, [2, 6, 24]);
  expect(pb(Float64Array.from([1, 1, 1]))[0]).toEqual([16, 10, 6]);
  const [, dp] = m.jvpCumprod([2, 3, 4], [1, 1, 1]);
  close(dp, [1, 5, 26]);
});

test.each(LENGTHS)('scan with an associative lambda at length %i: grad against central differences', (n) => {
  const a = data(n).map((x) => x / 4);
  close(m.gCompound(a), fdGrad(m.compound, [a], 0));
});

test('a .map callback passing an object parameter to a marked function (its numbers go in as invariants)', () => {
  const t = Float64Array.from([0, 0.5, 1, 2]);
  const y = Float64Array.from([1, 0.7, 0.5, 0.2]);
  const p = { a: 0.9, k: [0.8, 0.1] as [number, number] };
  const g = m.gFitLoss(p, t, y);
  const loss = (q: typeof p) => m.fitLoss(q, t, y);
  const h = 1e-6;
  close(g.a, (loss({ ...p, a: p.a + h }) - loss({ ...p, a: p.a - h })) / (2 * h));
  close(
    g.k,
    [0, 1].map((j) => (loss({ ...p, k: p.k.map((v, i) => (i === j ? v + h : v)) as [number, number] }) - loss({ ...p, k: p.k.map((v, i) => (i === j ? v - h : v)) as [number, number] })) / (2 * h)),
  );
});

test('arrays through stopGradient, if/?: joins, loop-carried arrays and tuple results', () => {
  close(m.gSelfWeighted(Float64Array.from([1, 2, 3])), [1, 2, 3]);
  // c = 0.5: b = 0.5a, d = −b: Σd = −0.5Σa.
  const [ga, gc] = m.gBranchy(Float64Array.from([1, 2, 3]), 0.5);
  close(ga, [-0.5, -0.5, -0.5]);
  close(gc, -6);
  const a = [0.3, -0.7, 1.1];
  close(
    m.gIterated(Float64Array.from(a), 2),
    a.map((x) => Math.cos(Math.sin(x)) * Math.cos(x)),
  );
  const [v, pullback] = m.vjpBoth(Float64Array.from([1, 2]), 2);
  close(v[0], 3);
  close(v[1], [2, 4]);
  const [abar, cbar] = pullback([1, Float64Array.from([1, 1])]);
  close(abar, [3, 3]);
  close(cbar, 3);
});

test('arrays in a nested transform work (the gradient padded to its array), in a custom derivative are a diagnostic, not a crash', () => {
  const { exports: n } = load(`import { grad, sum } from 'tsad';
/** @differentiable */
function f(a: Float64Array): number { return sum(a.map((x) => x * x * x)); }
/** @differentiable */
export function g(a: Float64Array): number { return sum(grad(f)(a)); }
export const d = grad(g);`);
  // g(a) = Σ 3a², so ∇g = 6a.
  close(n.d(Float64Array.from([1, -2, 0.5])), [6, -12, 3]);
  close(n.d(new Float64Array(0)), []);
  const custom = compile(
    `import { grad, sum, derivative } from 'tsad';
export function f(a: Float64Array): number { return sum(a); }
derivative(f, (a: Float64Array, da: Float64Array) => [f(a), sum(da)]);
export const d = grad(f);`,
    { throwOnError: false },
  );
  expect(custom.messages.join('\n')).toMatch(/TSAD1111: a custom derivative of 'f', which takes or returns arrays, is not supported yet/);
});

test('ArrayLike<number> (tsad NumberArray) parameters: any array goes in, a Float64Array gradient comes out', () => {
  const [ga, gb] = m.gAnyKind([1, 2], Float32Array.from([3, 4]));
  expect(ga).toBeInstanceOf(Float64Array);
  close(ga, [3, 4]);
  close(gb, [1, 2]);
});

test('gather, scatter and reduceByIndex through vjp, with the exact numbers of §5 examples 10, 11, 13-15', () => {
  const f64 = (xs: number[]) => Float64Array.from(xs);
  const i32 = (xs: number[]) => Int32Array.from(xs);
  const [g, pg] = m.vjpPick3(f64([1, 2, 3, 4]), i32([0, 2, 2]));
  close(g, [1, 3, 3]);
  const [abar, idxbar] = pg(f64([1, 2, 3]));
  close(abar, [1, 0, 5, 0]);
  expect(idxbar).toBeUndefined();
  const [y, pp] = m.vjpPut([10, 20, 30, 40, 50], [1, 3], [7, 8]);
  close(y, [10, 7, 30, 8, 50]);
  const [xbar, , vbar] = pp(f64([1, 2, 3, 4, 5]));
  expect(xbar).toEqual([1, 0, 3, 0, 5]);
  expect(vbar).toEqual([2, 4]);
  const [h, ph] = m.vjpHistAdd(f64([0, 0, 0]), i32([0, 2, 0, 1, 5]), f64([1, 2, 3, 4, 5]));
  close(h, [4, 4, 2]);
  const [dbar, , vsbar] = ph(f64([1, 10, 100]));
  close(vsbar, [1, 100, 1, 10, 0]);
  close(dbar, [1, 10, 100]);
  const [hm, pm] = m.vjpHistMul(f64([1, 1]), i32([0, 0, 1, 1, 1]), f64([2, 3, 0, 5, 2]));
  close(hm, [6, 0]);
  const [dm, , vm] = pm(f64([1, 1]));
  close(vm, [3, 2, 10, 0, 0]);
  close(dm, [6, 0]);
  const [hn, pn] = m.vjpHistMin(f64([5, 0]), i32([0, 0, 1]), f64([3, 1, 2]));
  close(hn, [1, 0]);
  const [dn, , vn] = pn(f64([1, 1]));
  close(vn, [0, 1, 0]);
  close(dn, [0, 1]);
});

test('gather outside its array and scatter with a repeated index are RangeErrors naming the transform', () => {
  expect(() => m.vjpPick3(Float64Array.from([1, 2]), Int32Array.from([0, 2]))).toThrow(RangeError);
  expect(() => m.vjpPick3(Float64Array.from([1, 2]), Int32Array.from([0, 2]))).toThrow('vjp(pick3): gather: idx[1] = 2 is not an index of a (length 2)');
  expect(() => m.vjpPut([1, 2, 3], [0, 0], [1, 2])).toThrow(/^vjp\(put\): scatter: idx repeats the index 0/);
});

test('second order through a min reduction: the Hessian of min(a)·Σa is the closed form where the minimum is unique', () => {
  // At [2, 3, 4], f = a0 (a0 + a1 + a2) locally.
  const H = m.hessMinTimesSum(Float64Array.from([2, 3, 4]));
  expect(H).toEqual([
    [2, 1, 1],
    [1, 0, 0],
    [1, 0, 0],
  ]);
});

test("second order through prod and scan (forward over the combinators' reverse rules): closed forms", () => {
  expect(m.hessProducts(Float64Array.from([2, 3, 4]))).toEqual([
    [0, 4, 3],
    [4, 0, 2],
    [3, 2, 0],
  ]);
  expect(m.hessProducts(Float64Array.from([2, 0, 4]))).toEqual([
    [0, 4, 0],
    [4, 0, 2],
    [0, 2, 0],
  ]);
  // Σ scan(a, '*') = a0 + a0 a1 + a0 a1 a2: H e0 = [0, 1 + a2, a1].
  close(m.hvpPrefixProducts(Float64Array.from([2, 3, 4]), Float64Array.from([1, 0, 0])), [0, 5, 3]);
});

test('jvp of a map whose body raises to a literal power at negative elements: the literal exponent has no tangent (was NaN: 0 · ln(x) · y with a materialised zero)', () => {
  const { exports: e } = load(`import { jvp, valueAndGrad, sum } from 'tsad';
/** @differentiable */
export function f(a: number[]): number {
  return sum(a.map((t) => Math.pow(t, 2) + t ** 3));
}
export const t = (a: number[], da: number[]) => jvp(f, [a], [da]);
export const vg = valueAndGrad(f);
`);
  const a = [0.5, -2, -0.25];
  const da = [1, -0.5, 2];
  const [value, tangent] = e.t(a, da);
  expect(value).toBe(e.f(a));
  const [, g] = e.vg(a);
  expect(g).toEqual(a.map((x) => expect.closeTo(2 * x + 3 * x * x, 12)));
  expect(tangent).toBeCloseTo(
    a.reduce((s, x, i) => s + (2 * x + 3 * x * x) * da[i], 0),
    12,
  );
});

test("xs.reduce((p, x) => p + x, c): the compiled value is JavaScript's left fold from c, to the last bit (was c + sum(xs), rounded differently)", () => {
  const { exports: e } = load(`import { jvp, valueAndGrad } from 'tsad';
/** @differentiable */
export function f(b: Float64Array, c: number): number {
  return b.reduce((p, t) => p + t, c);
}
export const vg = valueAndGrad(f, { wrt: [0, 1] });
export const t = (b: Float64Array, c: number) => jvp(f, [b, c], [b, 1]);
`);
  const b = Float64Array.from([0.5316964129451662, 0.4057719383854419, -0.2591093599330634]);
  const c = Math.sqrt(10);
  const [value, [gb, gc]] = e.vg(b, c);
  expect(value).toBe(e.f(b, c));
  expect(Array.from(gb)).toEqual([1, 1, 1]);
  expect(gc).toBe(1);
  const [tv, tt] = e.t(b, c);
  expect(tv).toBe(e.f(b, c));
  expect(tt).toBeCloseTo(1 + b[0] + b[1] + b[2], 14);
});
