// The reference for checks of reads past an array's end (checksReachProperty, checksShapes): the
// function run as plain JavaScript on arrays behind a Proxy that records reads at or past their
// length, and the transforms of tsad that must agree with it and with one another. Every function
// takes (x: Float64Array, w: Float64Array, d: number, k: number).
import { load } from './harness';

export interface PlainRun {
  readonly value: number;
  readonly pastEnd: boolean;
  readonly negative: boolean;
  /** A read at an index that is not a whole number (undefined in JavaScript too). */
  readonly fractional?: boolean;
  /** The message of an Error the function throws itself. */
  readonly thrown?: string;
}

/** Plain JavaScript's value on arrays that record a read at or past their length (or before 0). */
export function plainReads(f: (...a: unknown[]) => number, x: Float64Array, w: Float64Array, d: number, k: number): PlainRun {
  let pastEnd = false;
  let negative = false;
  let fractional = false;
  const watch = (a: Float64Array) =>
    new Proxy(a, {
      get(t, p) {
        if (typeof p === 'string' && /^-?\d+$/.test(p)) {
          if (Number(p) >= t.length) pastEnd = true;
          if (Number(p) < 0) negative = true;
        } else if (typeof p === 'string' && (/^-?\d*\.\d+(e-?\d+)?$/.test(p) || p === 'NaN' || p === 'Infinity' || p === '-Infinity')) {
          fractional = true;
        }
        const v = Reflect.get(t, p, t);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
  try {
    return { value: f(watch(x), watch(w), d, k), pastEnd, negative, fractional };
  } catch (e) {
    return { value: Number.NaN, pastEnd, negative, fractional, thrown: (e as Error).message };
  }
}

const round = (v: unknown): unknown =>
  ArrayBuffer.isView(v) ? Array.from(v as Float64Array, (z) => +(z + 0).toPrecision(10)) : Array.isArray(v) ? v.map(round) : typeof v === 'number' ? +(v + 0).toPrecision(10) : v;

function outcome(f: () => unknown): unknown {
  try {
    return round(f());
  } catch (e) {
    return (e as Error).name === 'RangeError' ? 'throws RangeError' : `throws ${(e as Error).name}: ${(e as Error).message}`;
  }
}

type Transform = (x: Float64Array, w: Float64Array, d: number, k: number) => unknown;

/**
 * valueAndGrad, grad (in x and w, and in x alone), vjp, jvp, and hessian and hvp in x of each
 * named function of `text`: one module per transform, since two transforms of one function share
 * defs (valueAndGrad's forward loop computes the value and so keeps what grad alone might drop).
 */
export function transformsOf(text: string, names: readonly string[]): Record<string, Record<string, Transform>> {
  const each = (imports: string, make: (f: string) => string) =>
    load(`import { ${imports} } from 'tsad';\n${text}\nexport const t = { ${names.map((n) => `${n}: ${make(n)}`).join(', ')} };\n`).exports.t;
  const sig = '(x: Float64Array, w: Float64Array, d: number, k: number)';
  return {
    valueAndGrad: each('valueAndGrad', (f) => `valueAndGrad(${f}, { wrt: [0, 1] })`),
    grad: each('grad', (f) => `grad(${f}, { wrt: [0, 1] })`),
    gradX: each('grad', (f) => `grad(${f}, { wrt: [0] })`),
    vjp: each('vjp', (f) => `${sig} => vjp(${f}, x, w, d, k)[1](1).slice(0, 2)`),
    jvp: each('jvp', (f) => `${sig} => jvp(${f}, [x, w, d, k], [x.map((_, i) => 1 - i), w.map((_, i) => 0.5 + i), 0, 0])[1]`),
    hessian: each('hessian', (f) => `hessian(${f}, { wrt: [0] })`),
    hvp: each('hvp', (f) => `${sig} => hvp(${f}, { wrt: [0] })(x, w, d, k, x.map((_, i) => 1 + i))`),
  };
}

/**
 * Checks every transform of function `name` at (x, w, d, k) against plain JavaScript: a user's
 * Error everywhere the function throws one; where it reads past an end, a RangeError in every
 * transform (tsad checks a read at a loop's own counter in its body) or in none, the value then
 * NaN (another read past the end reads undefined, as JavaScript does); otherwise no error, the
 * value to 10 digits, and the transforms agreeing (gradients, jvp = gradient · direction, hvp =
 * Hessian · v). Returns false where the case is not one this reference covers (a read before 0).
 */
export function checkAgainstPlain(
  t: Record<string, Record<string, Transform>>,
  plain: (...a: unknown[]) => number,
  name: string,
  x: Float64Array,
  w: Float64Array,
  d: number,
  k: number,
  strict = false,
): boolean {
  const ref = plainReads(plain, x, w, d, k);
  if (strict) return checkStrictly(t, ref, plain, name, x, w, d, k);
  if (ref.negative) return false;
  const got = Object.fromEntries(Object.entries(t).map(([kind, fns]) => [kind, outcome(() => fns[name](x, w, d, k))]));
  try {
    if (ref.thrown !== undefined && !ref.pastEnd) {
      for (const v of Object.values(got)) expect(v).toBe(`throws Error: ${ref.thrown}`);
      return true;
    }
    const thrown = Object.entries(got)
      .filter(([, v]) => v === 'throws RangeError')
      .map(([n]) => n);
    // A local array (a pushed number[]) is not behind the Proxy: a NaN value is the sign of a read
    // past its end, and then every transform throws or none does, as for the parameters.
    if (ref.pastEnd || (Number.isNaN(ref.value) && thrown.length === Object.keys(got).length)) {
      if (got.valueAndGrad !== 'throws RangeError') expect((got.valueAndGrad as [number])[0]).toBeNaN();
      expect(thrown).toEqual(got.valueAndGrad === 'throws RangeError' ? Object.keys(got) : []);
      return true;
    }
    expect(thrown).toEqual([]);
    const [value, [xBar, wBar]] = got.valueAndGrad as [number, [number[], number[]]];
    expect(value).toBe(round(ref.value));
    expect({ grad: got.grad, vjp: got.vjp, gradX: got.gradX }).toEqual({ grad: [xBar, wBar], vjp: [xBar, wBar], gradX: xBar });
    const dir = [...Array.from(x, (_, i) => 1 - i), ...Array.from(w, (_, i) => 0.5 + i)];
    const jvpRef = [...xBar, ...wBar].reduce((acc, v, i) => acc + v * dir[i], 0);
    expect(Math.abs((got.jvp as number) - jvpRef)).toBeLessThanOrEqual(1e-8 * Math.max(1, Math.abs(jvpRef)));
    // H·v from the Hessian's rows, against hvp: the same derivative by two plans.
    const h = got.hessian as number[][];
    expect(Array.isArray(h)).toBe(true);
    const hvRef = h.map((row) => row.reduce((acc, v, j) => acc + v * (1 + j), 0));
    (got.hvp as number[]).forEach((v, i) => expect(Math.abs(v - hvRef[i])).toBeLessThanOrEqual(1e-8 * Math.max(1, Math.abs(hvRef[i]))));
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${JSON.stringify(got)}\nat x.length ${x.length}, w.length ${w.length}, d ${d}, k ${k}`);
  }
  return true;
}

/**
 * The strict reference (readChecks.ts): wherever plain JavaScript reads a parameter's element
 * past its end, before its start or at a fraction, every transform throws a RangeError (never a
 * number computed from the elements that are there); where it reads none, none throws, the
 * value is JavaScript's to 10 digits and the transforms agree (as in checkAgainstPlain).
 */
function checkStrictly(t: Record<string, Record<string, Transform>>, ref: PlainRun, plain: (...a: unknown[]) => number, name: string, x: Float64Array, w: Float64Array, d: number, k: number): boolean {
  const got = Object.fromEntries(Object.entries(t).map(([kind, fns]) => [kind, outcome(() => fns[name](x, w, d, k))]));
  try {
    const bad = ref.pastEnd || ref.negative || ref.fractional === true;
    if (ref.thrown !== undefined && !bad) {
      for (const v of Object.values(got)) expect(v).toBe(`throws Error: ${ref.thrown}`);
      return true;
    }
    const thrown = Object.entries(got)
      .filter(([, v]) => v === 'throws RangeError')
      .map(([n]) => n);
    if (bad) {
      expect(thrown).toEqual(Object.keys(got));
      return true;
    }
    expect(thrown).toEqual([]);
    const [value, [xBar, wBar]] = got.valueAndGrad as [number, [number[], number[]]];
    expect(value).toBe(round(ref.value));
    // The gradient against central differences of plain JavaScript (an independent reference).
    const fd = (a: Float64Array, i: number): number => {
      const h = 1e-5;
      const at = (v: number) => {
        const b = Float64Array.from(a);
        b[i] = v;
        return a === x ? plain(b, w, d, k) : plain(x, b, d, k);
      };
      return (at(a[i] + h) - at(a[i] - h)) / (2 * h);
    };
    [...Array.from(x, (_, i) => [fd(x, i), xBar[i]]), ...Array.from(w, (_, i) => [fd(w, i), wBar[i]])].forEach(([ref, v]) =>
      expect(Math.abs(v - ref)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(ref))),
    );
    expect({ grad: got.grad, vjp: got.vjp, gradX: got.gradX }).toEqual({ grad: [xBar, wBar], vjp: [xBar, wBar], gradX: xBar });
    const dir = [...Array.from(x, (_, i) => 1 - i), ...Array.from(w, (_, i) => 0.5 + i)];
    const jvpRef = [...xBar, ...wBar].reduce((acc, v, i) => acc + v * dir[i], 0);
    expect(Math.abs((got.jvp as number) - jvpRef)).toBeLessThanOrEqual(1e-8 * Math.max(1, Math.abs(jvpRef)));
    const h = got.hessian as number[][];
    expect(Array.isArray(h)).toBe(true);
    const hvRef = h.map((row) => row.reduce((acc, v, j) => acc + v * (1 + j), 0));
    (got.hvp as number[]).forEach((v, i) => expect(Math.abs(v - hvRef[i])).toBeLessThanOrEqual(1e-8 * Math.max(1, Math.abs(hvRef[i]))));
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${JSON.stringify(got)}\nat x.length ${x.length}, w.length ${w.length}, d ${d}, k ${k}`);
  }
  return true;
}
