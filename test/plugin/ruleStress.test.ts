// Stress programs for s11's rules (firstWrites, hoistInvariantsAfterAD, fuseFill, fuseAdd,
// cond hoistLengths/slots, scalarize, the flat Jacobian's out/offset, the per-program slab pool):
// programs as users write them, each gradient against central differences at several sizes
// (0, 1, odd, even) so zero-trip loops, repeated computed indices and reversed loops are reached.
import { load, partial, expectClose } from './harness';

const functions = `
/** @differentiable */
export function scatterRepeat(x: Float64Array): number {
  const y = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) y[i >> 1] += x[i] * x[i];
  let s = 0;
  for (let i = 0; i < y.length; i++) s += Math.sin(y[i]) * (i + 1);
  return s;
}

/** @differentiable */
export function scatterMod(x: Float64Array): number {
  const n = x.length;
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[(i * 3) % n] += Math.exp(x[i]) * 0.5;
  let s = 0;
  for (let i = 0; i < n; i++) s += y[i] * y[i] + x[i] * y[i];
  return s;
}

/** @differentiable */
export function twoWrites(x: Float64Array): number {
  const y = new Float64Array(x.length + 1);
  for (let i = 0; i < x.length; i++) {
    y[i] += x[i];
    y[i + 1] += x[i] * x[i];
  }
  let s = 0;
  for (let i = 0; i < y.length; i++) s += y[i] * y[i] * (i + 2);
  return s;
}

/** @differentiable */
export function reversedHorner(x: Float64Array): number {
  let s = 0;
  for (let i = x.length - 1; i >= 0; i--) s = s * x[i] + Math.cos(x[i]);
  return s;
}

/** @differentiable */
export function reversedFill(x: Float64Array): number {
  const n = x.length;
  const y = new Float64Array(n + 1);
  y[n] = 1;
  for (let i = n - 1; i >= 0; i--) y[i] = y[i + 1] * x[i] + 0.5;
  let s = 0;
  for (let i = 0; i <= n; i++) s += y[i];
  return s;
}

/** @differentiable */
export function triangle(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    let t = 0;
    for (let j = 0; j < i; j++) t += x[j] * x[i - 1 - j];
    s += Math.tanh(t) * x[i];
  }
  return s;
}

/** @differentiable */
export function invariantInner(x: Float64Array, w: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = 0; j < x.length - i; j++) s += x[i] * Math.exp(w * x[0]) * x[j];
  }
  return s;
}

/** @differentiable */
export function accumChain(x: Float64Array): number {
  const n = x.length;
  const a = new Float64Array(n);
  for (let i = 0; i < n; i++) a[i] = x[i] * 2;
  for (let i = 0; i < n; i++) a[i] += Math.sin(x[i]);
  for (let i = 0; i < n; i++) a[n - 1 - i] += x[i] * x[i];
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i] * a[i];
  return s;
}

/** @differentiable */
export function whileBranches(x: Float64Array): number {
  let k = 0;
  let s = 0;
  let flip = false;
  while (k < x.length) {
    if (x[k] > 0) {
      s += x[k] * x[k];
      flip = !flip;
    } else if (flip) {
      s -= Math.sin(x[k]) * s;
    } else {
      s += 0.5 * x[k];
    }
    k++;
  }
  return flip ? s * 2 : s;
}

/** @differentiable */
export function whileFlag(x: Float64Array, c: number): number {
  let i = 0;
  let done = false;
  let s = c;
  while (!done) {
    if (i >= x.length) {
      done = true;
    } else {
      const v = x[i] * s;
      if (v > 1) {
        s = Math.sqrt(v);
      } else {
        s = s + v * c;
      }
      i++;
    }
  }
  return s;
}

/** @differentiable */
export function condLengths(x: Float64Array, p: number): number {
  let s = 0;
  if (p > 0) {
    for (let i = 0; i < x.length; i++) s += x[i] * p;
  } else {
    for (let i = x.length - 1; i >= 0; i--) s = s * 0.5 + x[i] * x[i];
  }
  return s;
}

/** @differentiable */
export function tuples(x: Float64Array): number {
  let acc: [number, number] = [0, 1];
  for (let i = 0; i < x.length; i++) {
    const [a, b] = acc;
    acc = [a + b * x[i], b * Math.cos(x[i])];
  }
  const [u, v] = acc;
  return u * v;
}

/** @differentiable */
export function rows(p: number, q: number, r: number, k: Float64Array): [number, number, number] {
  let a = 0;
  let b = 1;
  const y = new Float64Array(k.length);
  for (let i = 0; i < k.length; i++) y[(i * 2) % k.length] += k[i] * p;
  for (let i = k.length - 1; i >= 0; i--) {
    a += y[i] * y[i] * q + r;
    b *= 1 + 0.1 * k[i] * r;
  }
  const n = k.length;
  const c = n > 0 ? k[n - 1] * a * p : a * q;
  return [a * b, c, b * p];
}
`;

const source = `
import { grad, hessian, hvp, jacrev, jacobian } from 'tsad';
${functions}
export const g = {
  scatterRepeat: grad(scatterRepeat),
  scatterMod: grad(scatterMod),
  twoWrites: grad(twoWrites),
  reversedHorner: grad(reversedHorner),
  reversedFill: grad(reversedFill),
  triangle: grad(triangle),
  accumChain: grad(accumChain),
  whileBranches: grad(whileBranches),
  tuples: grad(tuples),
};
export const g2 = {
  invariantInner: grad(invariantInner, { wrt: [0, 1] }),
  whileFlag: grad(whileFlag, { wrt: [0, 1] }),
  condLengths: grad(condLengths, { wrt: [0, 1] }),
};
export const f = { scatterRepeat, scatterMod, twoWrites, reversedHorner, reversedFill, triangle, accumChain, whileBranches, tuples, invariantInner, whileFlag, condLengths, rows };
export const hv = {
  scatterRepeat: hvp(scatterRepeat),
  reversedFill: hvp(reversedFill),
  triangle: hvp(triangle),
  accumChain: hvp(accumChain),
  tuples: hvp(tuples),
};
export const hTriangle = hessian(triangle);
export const jRows = jacrev(rows, { wrt: [0, 1, 2], flat: true });
export const jRowsF = jacobian(rows, { wrt: [0, 1, 2], flat: true });
`;

const load1 = load(source);
const m = load1.exports;
const rand = (k: number) => Math.sin(12.9898 * k + 1) * 0.9;
const vec = (n: number, seed: number) => Float64Array.from({ length: n }, (_, i) => rand(seed + 7 * i));
const fdGrad = (fn: (x: Float64Array) => number, x: Float64Array): number[] =>
  Array.from(
    x,
    (_, k) =>
      partial(
        (v: any) => fn(v),
        [Array.from(x)].map((a) => a as any),
        0,
        k,
      )[0],
  );
// partial works on plain arrays; the functions take Float64Array, so convert on the way in.
const asF =
  (fn: (...a: any[]) => any) =>
  (...a: any[]) =>
    fn(...a.map((v) => (Array.isArray(v) ? Float64Array.from(v) : v)));
const sizes = [0, 1, 2, 3, 4, 5, 6, 9];

describe('gradients of loops through s11 rules against central differences', () => {
  for (const name of Object.keys(m.g)) {
    test(name, () => {
      for (const n of sizes) {
        for (const seed of [1, 5]) {
          const x = vec(n, seed * 13 + n);
          const got = Array.from(m.g[name](x) as Float64Array);
          expect(got.length).toBe(n);
          expectClose(got, fdGrad(asF(m.f[name]), x), 1e-5);
        }
      }
    });
  }
  for (const name of Object.keys(m.g2)) {
    test(`${name} (array and number)`, () => {
      for (const n of sizes) {
        for (const c of [0.7, -0.4, 1.3]) {
          const x = vec(n, n * 3 + 2);
          const [gx, gc] = m.g2[name](x, c);
          const F = asF(m.f[name]);
          expectClose(
            Array.from(gx as Float64Array),
            Array.from(x, (_, k) => partial(F, [Array.from(x), c], 0, k)[0]),
            1e-5,
          );
          expectClose([gc], partial(F, [Array.from(x), c], 1, 0), 1e-5);
        }
      }
    });
  }
  test('hvp against differences of the gradient', () => {
    const h = 1e-6;
    for (const name of Object.keys(m.hv)) {
      for (const n of [0, 1, 3, 6]) {
        const x = vec(n, 40 + n);
        const v = vec(n, 90 + n);
        const up = m.g[name](Float64Array.from(x, (xi, i) => xi + h * v[i])) as Float64Array;
        const down = m.g[name](Float64Array.from(x, (xi, i) => xi - h * v[i])) as Float64Array;
        expectClose(
          Array.from(m.hv[name](x, v) as Float64Array),
          Array.from(up, (u, i) => (u - down[i]) / (2 * h)),
          1e-5,
        );
      }
    }
  });
  test('hessian of a nested triangular loop, column by column', () => {
    const h = 1e-6;
    for (const n of [0, 1, 2, 5]) {
      const x = vec(n, 7 + n);
      const H = m.hTriangle(x);
      for (let k = 0; k < n; k++) {
        const up = m.g.triangle(Float64Array.from(x, (xi, i) => (i === k ? xi + h : xi))) as Float64Array;
        const down = m.g.triangle(Float64Array.from(x, (xi, i) => (i === k ? xi - h : xi))) as Float64Array;
        const row = Array.from(H[k] ?? H.subarray?.(k * n, k * n + n));
        expectClose(
          row as number[],
          Array.from(up, (u, i) => (u - down[i]) / (2 * h)),
          1e-5,
        );
      }
    }
  });
});

describe('the slab pool: results outlive later calls, interleaved modules, re-entry', () => {
  test('a gradient returned earlier is not overwritten by later calls of any size, in either module', () => {
    const other = load(source).exports;
    const kept: Array<[string, Float64Array, number[]]> = [];
    for (const n of [5, 3, 9, 0, 6]) {
      for (const [mod, tag] of [
        [m, 'a'],
        [other, 'b'],
      ] as const) {
        for (const name of Object.keys(mod.g)) {
          const x = vec(n, n + name.length);
          const r = mod.g[name](x) as Float64Array;
          kept.push([`${tag}.${name}.${n}`, r, Array.from(r)]);
        }
      }
    }
    for (const [label, r, copy] of kept) expect([label, Array.from(r)]).toEqual([label, copy]);
    // and they were right
    for (const name of Object.keys(m.g)) {
      const x = vec(6, 6 + name.length);
      expectClose(Array.from(m.g[name](x) as Float64Array), Array.from(other.g[name](x) as Float64Array), 1e-12);
    }
  });
  test('a gradient called from inside a function that another gradient differentiates', () => {
    // hvp is forward over reverse: the reverse pass runs inside the tangent program, per call.
    const x = vec(5, 3);
    const v = vec(5, 4);
    const a = Array.from(m.hv.triangle(x, v) as Float64Array);
    const b1 = Array.from(m.g.triangle(x) as Float64Array);
    const b = Array.from(m.hv.triangle(x, v) as Float64Array);
    expect(b).toEqual(a);
    expect(Array.from(m.g.triangle(x) as Float64Array)).toEqual(b1);
  });
});

describe('flat Jacobian through loops: out, offset, out aliasing the array argument', () => {
  for (const n of [0, 1, 4, 15]) {
    test(`k of length ${n}`, () => {
      const k = vec(n, 11 + n);
      const at = [0.8, -0.6, 0.3];
      const F = (p: number, q: number, r: number) => m.f.rows(p, q, r, k);
      const cols = [0, 1, 2].map((j) => partial(F, at, j, 0));
      const ref = [0, 1, 2].flatMap((row) => cols.map((c) => c[row]));
      for (const J of [m.jRows, m.jRowsF]) {
        const out = new Float64Array(13).fill(9);
        const r = J(...at, k, out, 2);
        expect(r.data).toBe(out);
        expectClose(Array.from(out.subarray(2, 11)), ref, 1e-5);
        expect([out[0], out[1], out[11], out[12]]).toEqual([9, 9, 9, 9]);
        // out is also k: the call must read k as it found it
        const shared = new Float64Array(Math.max(9, n));
        shared.set(k);
        const ks = shared.subarray(0, n);
        const exp2 = [...J(...at, Float64Array.from(ks)).data];
        if (n >= 9) {
          J(...at, shared, shared);
          expectClose(Array.from(shared.subarray(0, 9)), exp2, 1e-12);
          // at an offset inside the part of k the loops read
          const shared2 = Float64Array.from(k);
          const before = Array.from(shared2);
          J(...at, shared2, shared2, 4);
          expectClose(Array.from(shared2.subarray(4, 13)), exp2, 1e-12);
          expect(Array.from(shared2.subarray(0, 4)).concat(Array.from(shared2.subarray(13)))).toEqual(before.slice(0, 4).concat(before.slice(13)));
        }
        expectClose(exp2, ref, 1e-5);
      }
    });
  }
});
