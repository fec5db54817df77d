// A loop's length check (`for (r < d) … w[r]` throws a RangeError when d > w.length) runs in every
// transform of the function, also where the transform reads nothing the loop computes: the
// gradient in a alone of a³ + Σ w[r] does not need the loop, and dead-code removal used to take
// the loop and its check with it, so grad, hessian and hvp returned 3a² (finite numbers) where
// valueAndGrad and vjp threw. Now a check is kept like an effect (constructs/effect `keptAlive`);
// a loop left holding only checks of its invariants is replaced by them, run once under its trip
// guard (opt/checksAlone.ts), so a loop that runs zero times checks nothing, as in the function.
import { expectClose, load } from './harness';

const functions = `
/** @differentiable */
export function flat(a: number, w: Float64Array, d: number, k: number): number {
  let s = 0;
  for (let r = 0; r < d; r++) s += w[r];
  return a * a * a + s * k;
}
/** @differentiable */
export function nest(a: number, w: Float64Array, d: number, k: number): number {
  let s = 0;
  for (let c = 0; c < k; c++) {
    for (let r = 0; r < d; r++) s += w[r] * c;
  }
  return a * a * a + s;
}
/** @differentiable */
export function triangle(a: number, w: Float64Array, d: number, k: number): number {
  let s = 0;
  for (let c = 0; c < k; c++) {
    for (let r = 0; r < c; r++) s += w[r];
  }
  return a * a * a + s + d;
}
/** @differentiable */
export function sumTo(w: Float64Array, d: number): number {
  let s = 0;
  for (let r = 0; r < d; r++) s += w[r];
  return s;
}
/** @differentiable */
export function limited(w: Float64Array, d: number): number {
  if (d > 5) throw new Error('d is too large');
  return w[0] * d;
}
/** Two calls of each: the callees stay functions of their own (not inlined), and nothing of them is needed in a. */
/** @differentiable */
export function calls(a: number, w: Float64Array, d: number, k: number): number {
  return a * a * a + sumTo(w, d) * sumTo(w, k) + limited(w, d) + limited(w, k + 1);
}
/** @differentiable */
export function unread(a: number, w: Float64Array, d: number, k: number): number {
  let s = 0;
  for (let c = 0; c < k; c++) {
    for (let r = 0; r < d; r++) s += w[r] * w[r];
  }
  return s;
}
`;

const NAMES = ['flat', 'nest', 'triangle', 'calls', 'unread'] as const;

// One module per transform: a valueAndGrad beside grad would give grad its def (and the value's loop).
const modules = Object.fromEntries(
  (
    [
      ['grad', (f: string) => `grad(${f}, { wrt: [0] })`],
      ['hessian', (f: string) => `hessian(${f}, { wrt: [0] })`],
      ['hvp', (f: string) => `hvp(${f}, { wrt: [0] })`],
      ['vjp', (f: string) => `(a: number, w: Float64Array, d: number, k: number) => vjp(${f}, a, w, d, k)[1](1)[0]`],
      ['valueAndGrad', (f: string) => `valueAndGrad(${f}, { wrt: [0] })`],
    ] as const
  ).map(([name, call]) => {
    const imp = name === 'vjp' ? 'vjp' : name;
    const text = `import { ${imp} } from 'tsad';\n${functions}\nexport const t = { ${NAMES.map((f) => `${f}: ${call(f)}`).join(', ')} };\n`;
    return [name, load(text).exports.t];
  }),
);

/** A value's JSON, or the error thrown (its message without the transform's name). */
function outcome(f: () => unknown): { readonly throws: boolean; readonly text: string } {
  try {
    const v = f();
    return { throws: false, text: JSON.stringify(v, (_, x) => (ArrayBuffer.isView(x) ? Array.from(x as Float64Array) : x)) };
  } catch (e) {
    return { throws: true, text: `${(e as Error).name}: ${(e as Error).message.replace(/^[a-zA-Z]+\([a-zA-Z]+\): /, '')}` };
  }
}

const w = Float64Array.from([1.5, -2]);
/** Arguments (a, w, d, k) and whether the function's own check throws there. */
const cases: readonly [number, number, number, boolean][] = [
  // d, k, (triangle reads w[r] for r < c, up to k - 2)
  [2, 3, 3, false],
  [3, 1, 1, true],
  [3, 2, 2, true],
  [3, 0, 0, false],
  [0, 5, 5, true],
  [2, 0, 0, false],
  [2, 5, 5, true],
];

describe('a check in a loop whose results the transform does not read', () => {
  test.each(NAMES)('%s: grad, hessian, hvp and vjp throw exactly where valueAndGrad throws, and only there', (f) => {
    const a = 0.7;
    for (const [d, k] of cases) {
      const args = [a, w, d, k] as const;
      const value = outcome(() => modules.valueAndGrad[f](...args)[1]);
      // triangle's check is of c against w's length: it throws when k - 1 > 2; calls' checks are
      // sumTo's, of d and k, and limited's throw when d or k + 1 is over 5.
      const expected = f === 'triangle' ? k - 1 > w.length : f === 'flat' ? d > w.length : f === 'calls' ? d > w.length || k > w.length || d > 5 || k + 1 > 5 : k > 0 && d > w.length;
      expect({ f, d, k, throws: value.throws }).toEqual({ f, d, k, throws: expected });
      for (const t of ['grad', 'hessian', 'hvp', 'vjp'] as const) {
        const got = outcome(() => (t === 'hvp' ? modules.hvp[f](...args, 1) : modules[t][f](...args)));
        if (value.throws) expect({ t, f, d, k, got: got.text }).toEqual({ t, f, d, k, got: value.text });
        else expect({ t, f, d, k, throws: got.throws }).toEqual({ t, f, d, k, throws: false });
      }
    }
  });

  test.each(NAMES)('%s: in range, the derivatives in a are 3a² and 6a (central differences of the value)', (f) => {
    const a = 0.7;
    const h = 1e-5;
    const d = 2;
    const k = 2;
    const value = (x: number) => modules.valueAndGrad[f](x, w, d, k)[0] as number;
    const fd = (value(a + h) - value(a - h)) / (2 * h);
    const slope = f === 'unread' ? 0 : 3 * a * a;
    expectClose([modules.grad[f](a, w, d, k)], [fd], 1e-6);
    expectClose([modules.grad[f](a, w, d, k)], [slope], 1e-12);
    const grad = (x: number) => modules.grad[f](x, w, d, k) as number;
    const curvature = (grad(a + h) - grad(a - h)) / (2 * h);
    expectClose([modules.hessian[f](a, w, d, k)].flat(2), [curvature], 1e-6);
    expectClose([modules.hvp[f](a, w, d, k, 1)].flat(), [curvature], 1e-6);
    expectClose([modules.vjp[f](a, w, d, k)], [slope], 1e-12);
  });
});
