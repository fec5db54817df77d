// Derivatives of one function that share code in a module must each stay the derivative they
// name (fuzz23, s14). Three ways they share:
// - a helper with a loop called from two places stays a call, and its gradient's JVP is one def:
//   jvp(grad(f)) reads both of its results, hvp(f) only the tangent, so a def narrowed to the
//   results one caller reads (opt/unreadResults) must not be what the other calls;
// - grad beside a valueAndGrad of the same parameters runs that wrapper's body: its argument
//   checks, the count they report and the transform they name must be grad's own;
// - a Hessian's tangent stacks are pushed at the iterations a branch takes, and the same
//   derivative called again with another branch pattern must not read the last call's pushes.
// References: central differences of the gradient, plain JavaScript's throws, exact equalities.
import { expectClose, load } from './harness';

const add = (a: Float64Array, v: Float64Array, h: number) => a.map((t, i) => t + h * v[i]);
/** (g(a + h·v) − g(a − h·v)) / 2h for a gradient g of the array argument. */
const central = (g: (a: Float64Array) => Float64Array, a: Float64Array, v: Float64Array, h = 1e-6) => {
  const p = g(add(a, v, h));
  const m = g(add(a, v, -h));
  return Array.from(p, (t, i) => (t - m[i]) / (2 * h));
};

describe('a helper whose gradient JVP two transforms read differently', () => {
  const { exports: m } = load(`
import { grad, hvp, jvp } from 'tsad';
/** @differentiable */
export function pair(x: Float64Array, w: Float64Array, n: number): [number, number] {
  let a = 0;
  let b = 0;
  for (let i = 0; i < n; i++) {
    a += x[i] * w[i] * x[i];
    b += Math.sin(x[i]) * a + w[i];
  }
  if (b > 50) throw new RangeError(\`b is \${b}\`);
  return [a, b];
}
/** @differentiable */
export function f(x: Float64Array, w: Float64Array, n: number): number {
  const [a] = pair(x, w, n);
  const [, b] = pair(w, x, n - 1);
  return a + b * a;
}
export const both = (x: Float64Array, w: Float64Array, n: number, v: Float64Array) => jvp(grad(f, { wrt: [0] }), [x, w, n], [v, w.map(() => 0), 0]);
export const hx = hvp(f, { wrt: [0] });
export const hw = hvp(f, { wrt: [1] });
export const hxw = hvp(f, { wrt: [0, 1] });
export const g = grad(f, { wrt: [0, 1] });
`);
  const x = new Float64Array([0.3, -0.51, 0.72, -0.93]);
  const w = new Float64Array([0.21, -0.357, 0.504, -0.651]);
  const v = new Float64Array([0.5, -0.5, -1.5, -2.5]);
  const u = new Float64Array([1, 2, 3, 4]);

  test.each([1, 3, 4, 2.5])('n = %p: jvp(grad) is [grad, H·v], hvp in x, w and both is H·v', (n) => {
    const gx = (a: Float64Array) => m.g(a, w, n)[0];
    const gw = (b: Float64Array) => m.g(x, b, n)[1];
    const [grad, tangent] = m.both(x, w, n, v);
    expect(Array.from(grad)).toEqual(Array.from(gx(x)));
    expectClose(Array.from(tangent), central(gx, x, v), 1e-6);
    expect(Array.from(m.hx(x, w, n, v))).toEqual(Array.from(tangent));
    expectClose(Array.from(m.hw(x, w, n, u)), central(gw, w, u), 1e-6);
    const [hx, hw] = m.hxw(x, w, n, [v, u]);
    const h = 1e-6;
    const [px, pw] = m.g(add(x, v, h), add(w, u, h), n);
    const [mx, mw] = m.g(add(x, v, -h), add(w, u, -h), n);
    expectClose(
      Array.from(hx),
      Array.from(px, (t: number, i: number) => (t - mx[i]) / (2 * h)),
      1e-6,
    );
    expectClose(
      Array.from(hw),
      Array.from(pw, (t: number, i: number) => (t - mw[i]) / (2 * h)),
      1e-6,
    );
  });

  test('the helper still throws where the result nobody reads is large, and checks its reads', () => {
    const big = new Float64Array([3, 3, 3, 3]);
    for (const call of [() => m.both(big, big, 4, v), () => m.hx(big, big, 4, v), () => m.hw(big, big, 4, u), () => m.g(big, big, 4)]) {
      expect(call).toThrow(/b is \d/);
    }
    const short = new Float64Array([0.1, 0.2, 0.3]);
    for (const call of [() => m.both(short, w, 4, v.subarray(0, 3)), () => m.hx(short, w, 4, v.subarray(0, 3)), () => m.hw(short, w, 4, u), () => m.g(short, w, 4)]) {
      expect(call).toThrow(RangeError);
      expect(call).toThrow(/reads 'x\[i\]' past its end \(4 > 3\)/);
    }
  });
});

describe('grad beside valueAndGrad of the same function', () => {
  const { exports: m } = load(`
import { grad, valueAndGrad } from 'tsad';
/** @differentiable */
export function f(x: number, y: number): number {
  if (x > 10) throw new RangeError(\`x is \${x}\`);
  return Math.sin(x) * y * y;
}
/** @differentiable */
export function s(a: Float64Array, c: number): number {
  let t = 0;
  for (let i = 0; i < a.length; i++) t += a[i] * a[i] * c;
  return t;
}
/** @differentiable */
export function c(x: number, w: Float64Array, d: number): number {
  let t = 0;
  for (let r = 0; r < d; r++) t += w[r] * w[r] * x;
  return t;
}
export const vg = valueAndGrad(f);
export const g = grad(f);
export const vgc = valueAndGrad(c);
export const gc = grad(c);
export const g1 = grad(f, { wrt: [1] });
export const vg10 = valueAndGrad(f, { wrt: [1, 0] });
export const g10 = grad(f, { wrt: [1, 0] });
export const gs = grad(s);
export const vgs = valueAndGrad(s);
`);

  test('each wrapper names its own transform and counts its own arguments', () => {
    expect(() => m.g(1)).toThrow('grad(f): expects 2 arguments, got 1');
    expect(() => m.g(1, 2, 3)).toThrow('grad(f): expects 2 arguments, got 3');
    expect(() => m.vg(1)).toThrow('valueAndGrad(f): expects 2 arguments, got 1');
    expect(() => m.g1()).toThrow('grad(f): expects 2 arguments, got 0');
    expect(() => m.g10('a', 2)).toThrow("grad(f): argument 1 'x' must be a number, got string");
    expect(() => m.vg10('a', 2)).toThrow("valueAndGrad(f): argument 1 'x' must be a number, got string");
    expect(() => m.gs(1, 2)).toThrow(/^grad\(s\): argument 1 'a' must be an array of numbers/);
    expect(() => m.vgs(1, 2)).toThrow(/^valueAndGrad\(s\): argument 1 'a' must be an array of numbers/);
    expect(() => m.gs(['x', 1], 2)).toThrow("grad(s): argument 1 'a' element 0 must be a number, got string");
    expect(() => m.g.apply(null, [0.5, 2, undefined])).toThrow('grad(f): expects 2 arguments, got 3');
  });

  test('a length check inside the derivative names the transform that was called', () => {
    const w = new Float64Array([1, 2]);
    expect(() => m.gc(0.5, w, 3)).toThrow("grad(c): in c: the loop for (… i < d …) reads 'w[i]' past its end (3 > 2)");
    expect(() => m.vgc(0.5, w, 3)).toThrow("valueAndGrad(c): in c: the loop for (… i < d …) reads 'w[i]' past its end (3 > 2)");
    expect(m.gc(0.5, w, 2)).toBe(5);
  });

  test("the gradient is valueAndGrad's, and a throw in the function passes through both", () => {
    expect(m.g(0.5, 2)).toBe(m.vg(0.5, 2)[1]);
    expect(m.g(0.5, 2)).toBeCloseTo(Math.cos(0.5) * 4, 14);
    expect(m.g1(0.5, 2)).toBe(2 * Math.sin(0.5) * 2);
    expect(m.g10(0.5, 2)).toEqual(m.vg10(0.5, 2)[1]);
    expect(m.g.call({}, 0.5, 2)).toBe(m.vg(0.5, 2)[1]);
    expect(() => m.g(11, 1)).toThrow('x is 11');
    expect(() => m.vg(11, 1)).toThrow('x is 11');
    expect(Array.from(m.gs(new Float32Array([1, 2]), 0.5))).toEqual([1, 2]);
    expect(Array.from(m.gs([1, 2], 0.5))).toEqual(Array.from(m.vgs([1, 2], 0.5)[1]));
  });
});

describe('second order through tangent stacks pushed under a branch, called again and again', () => {
  const functions = `
/** @differentiable */
export function sparse(x: Float64Array, s: number): number {
  let r = s;
  for (let i = 0; i < x.length; i++) {
    if (x[i] > 0) r = Math.sin(r * x[i]) + r;
    else r = r + x[i];
  }
  return r * r;
}
/** @differentiable */
export function nest(x: Float64Array, s: number): number {
  let r = s;
  for (let i = 0; i < x.length; i++) {
    for (let j = 0; j < i; j++) {
      if (x[j] * x[i] > 0.1) r = r * Math.cos(x[j] - r * 0.1);
      else if (x[j] < -1) continue;
      else r = r + x[j] * s;
    }
  }
  return r;
}
/** @differentiable */
export function walk(x: Float64Array, s: number): number {
  let r = s;
  let i = 0;
  while (i < x.length) {
    if (x[i] > 0) r = Math.exp(-r * r * x[i]) + r * 0.5;
    i += x[i] > 1 ? 2 : 1;
  }
  return r;
}
/** @differentiable */
export function stop(x: Float64Array, s: number): number {
  let r = s;
  for (let i = 0; i < x.length; i++) {
    if (x[i] > 2) break;
    if (x[i] > 0) r = r * r * x[i] + 0.1;
  }
  return r;
}
`;
  const names = ['sparse', 'nest', 'walk', 'stop'];
  const exportsOf = (tag: string) =>
    names
      .map((n) => `export const h_${n}${tag} = hvp(${n}, { wrt: [0] });\nexport const H_${n}${tag} = hessian(${n}, { wrt: [0] });\nexport const g_${n}${tag} = grad(${n}, { wrt: [0] });`)
      .join('\n');
  const src = `import { grad, hessian, hvp } from 'tsad';\n${functions}\n${exportsOf('')}\n`;
  const { exports: m } = load(src);
  // Inputs whose branch patterns differ from call to call: every sign, lengths 0 to 8.
  let seed = 3;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const inputs = Array.from({ length: 40 }, () => {
    const x = Float64Array.from({ length: Math.floor(rnd() * 9) }, () => (rnd() < 0.5 ? rnd() * 2.5 : -rnd() * 2));
    return { x, s: rnd() * 2 - 1, v: x.map((_, i) => 0.5 - 0.3 * i) };
  });

  test.each(names)('%s: hvp and the Hessian agree with central differences of the gradient at every call', (n) => {
    let checked = 0;
    for (const { x, s, v } of inputs) {
      const g = (a: Float64Array) => m[`g_${n}`](a, s);
      const fd = central(g, x, v);
      // Only where the gradient is smooth around x (no branch flips within the steps).
      const coarse = central(g, x, v, 4e-6);
      if (!fd.every((t, i) => Math.abs(t - coarse[i]) <= 1e-4 * (1 + Math.abs(t)))) continue;
      checked++;
      const hv = Array.from(m[`h_${n}`](x, s, v) as Float64Array);
      expectClose(hv, fd, 1e-5);
      const H = m[`H_${n}`](x, s) as number[][];
      expectClose(
        H.map((row) => row.reduce((a, t, j) => a + t * v[j], 0)),
        fd,
        1e-5,
      );
    }
    expect(checked).toBeGreaterThan(20);
  });

  test('a second call reads nothing the first pushed: the same numbers as a module called once per input', () => {
    // Three fresh modules, each called once; m has run all the inputs before.
    for (const { x, s, v } of [inputs[0], inputs[7], inputs[13]]) {
      const fresh = load(src).exports;
      for (const n of names) {
        expect(Array.from(m[`h_${n}`](x, s, v) as Float64Array)).toEqual(Array.from(fresh[`h_${n}`](x, s, v) as Float64Array));
        expect(m[`H_${n}`](x, s)).toEqual(fresh[`H_${n}`](x, s));
      }
    }
  });
});
