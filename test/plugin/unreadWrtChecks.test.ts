// A loop whose trip count is checked against an array's length (`for (r < d) … w[r]` throws a
// RangeError when d > w.length) must throw in every derivative where valueAndGrad throws, even
// when the derivative's own numbers do not need the loop: with respect to a parameter the function
// never reads (the gradient is 0), or one it reads only linearly (the Hessian is 0). There nothing
// of the loop is left for the derivative to compute, and dead-code removal took the check with it
// (fuzz12-findings P2; fuzz13 found grad does the same in a module of its own). A loop that runs
// zero times reads nothing and must not throw. Each transform is in a module of its own: a
// valueAndGrad beside it would share its def, whose forward loop computes the value.
import { load } from './harness';

const functions = `
/** @differentiable */
export function unread(x: number, w: Float64Array, d: number): number {
  let s = 0;
  for (let r = 0; r < d; r++) s += w[r] * w[r];
  return s;
}
/** @differentiable */
export function linear(x: number, w: Float64Array, d: number): number {
  let s = 0;
  for (let r = 0; r < d; r++) s += w[r] * w[r] + x;
  return s;
}
/** @differentiable */
export function bilinear(x: number, w: Float64Array, d: number): number {
  let s = 0;
  for (let r = 0; r < d; r++) s += w[r] * x;
  return s;
}
`;

type Fn = 'unread' | 'linear' | 'bilinear';
type Kind = 'grad' | 'hessian' | 'hvp';
const modules = new Map<string, (...a: unknown[]) => unknown>();
function derivative(kind: Kind, fn: Fn): (x: number, w: Float64Array, d: number) => unknown {
  const key = `${kind}:${fn}`;
  if (!modules.has(key)) modules.set(key, load(`import { ${kind} } from 'tsad';\n${functions}\nexport const t = ${kind}(${fn}, { wrt: [0] });\n`).exports.t);
  const t = modules.get(key)!;
  // hvp's direction in x is 1: H·1 is H's one entry.
  return (x, w, d) => (kind === 'hvp' ? t(x, w, d, 1) : t(x, w, d));
}

const w = Float64Array.from([1, 2]);
const pastEnd = /past its end \(3 > 2\)/;
// In range (d = 2) and run zero times (d = 0): [grad, hessian, hvp].
const inRange: Record<Fn, [number, number[][], number]> = { unread: [0, [[0]], 0], linear: [2, [[0]], 0], bilinear: [3, [[0]], 0] };
const zeroTrips: [number, number[][], number] = [0, [[0]], 0];
const kinds: Kind[] = ['grad', 'hessian', 'hvp'];
const plus0 = (v: unknown): unknown => (typeof v === 'number' ? v + 0 : Array.isArray(v) ? v.map(plus0) : v);

describe('a checked trip count past an array\u2019s end throws in every derivative, whatever wrt reads', () => {
  test('valueAndGrad throws for each function (the reference)', () => {
    const vg = load(
      `import { valueAndGrad } from 'tsad';\n${functions}\nexport const a = valueAndGrad(unread, { wrt: [0] });\nexport const b = valueAndGrad(linear, { wrt: [0] });\nexport const c = valueAndGrad(bilinear, { wrt: [0] });\n`,
    ).exports;
    for (const f of [vg.a, vg.b, vg.c]) expect(() => f(0.5, w, 3)).toThrow(pastEnd);
  });

  for (const fn of ['unread', 'linear', 'bilinear'] as Fn[]) {
    kinds.forEach((kind, k) => {
      test(`${kind}(${fn}): in range and zero trips give the derivative`, () => {
        expect(plus0(derivative(kind, fn)(0.5, w, 2))).toEqual(inRange[fn][k]);
        expect(plus0(derivative(kind, fn)(0.5, w, 0))).toEqual(zeroTrips[k]);
      });
    });
  }

  // These pass on main: the derivative reads the loop.
  for (const [kind, fn] of [
    ['grad', 'linear'],
    ['grad', 'bilinear'],
    ['hessian', 'bilinear'],
    ['hvp', 'bilinear'],
  ] as [Kind, Fn][]) {
    test(`${kind}(${fn}) throws past the end`, () => expect(() => derivative(kind, fn)(0.5, w, 3)).toThrow(pastEnd));
  }

  // P2: the check went with the loop nobody reads (main 75f05b2 returned 0 or [[0]]); a check is now
  // kept by dead-code removal (checks22f).
  for (const [kind, fn] of [
    ['grad', 'unread'],
    ['hessian', 'unread'],
    ['hvp', 'unread'],
    ['hessian', 'linear'],
    ['hvp', 'linear'],
  ] as [Kind, Fn][]) {
    test(`${kind}(${fn}) throws past the end`, () => expect(() => derivative(kind, fn)(0.5, w, 3)).toThrow(pastEnd));
  }
});
