// Views of typed arrays (docs/frontend.md, "Views"): `const c = b.subarray(k)` shares b's numbers
// in JavaScript, and a write through either name is seen through the other. Each program is
// checked against the same source run as plain JavaScript (primal, bit for bit) and central
// differences of it (the gradient), and its jvp against ⟨gradient, v⟩.
import { compile, expectClose, load, runPlain } from './harness';

type Arg = number | Float64Array | Float64Array[];
const copy = (a: Arg): Arg => (typeof a === 'number' ? a : a instanceof Float64Array ? a.slice() : a.map((r) => r.slice()));
const flat = (a: Arg): number[] => (typeof a === 'number' ? [a] : a instanceof Float64Array ? Array.from(a) : a.flatMap((r) => Array.from(r)));

/** a with its leaf k moved by s. */
function shifted(a: Arg, k: number, s: number): Arg {
  if (typeof a === 'number') return a + s;
  const c = copy(a);
  if (c instanceof Float64Array) c[k] += s;
  else {
    const cols = (c as Float64Array[])[0].length;
    (c as Float64Array[])[Math.floor(k / cols)][k % cols] += s;
  }
  return c;
}

/** Builds `fn` with valueAndGrad and jvp over every argument, and checks both against plain JavaScript. */
function agrees(source: string, fn: string, inputs: Arg[][]): void {
  const wrt = inputs[0].map((_, i) => i);
  const { exports: m, result } = load(`${source}
import { valueAndGrad as vgViews, jvp as jvpViews } from 'tsad';
export const vgOf = vgViews(${fn}, { wrt: [${wrt.join(', ')}] });
export const jvpOf = (p: any, t: any) => jvpViews(${fn}, p, t);
`);
  expect(result.messages).toEqual([]);
  const plain = runPlain(source)[fn] as (...a: Arg[]) => number;
  for (const args of inputs) {
    const expected = plain(...args.map(copy));
    const [value, grads] = m.vgOf(...args.map(copy));
    expect(value).toBe(expected);
    const g: Arg[] = args.length === 1 ? [grads] : grads;
    args.forEach((a, i) => {
      const h = 1e-6;
      const fd = flat(a).map((_, k) => (plain(...args.map((b, j) => (j === i ? shifted(b, k, h) : copy(b)))) - plain(...args.map((b, j) => (j === i ? shifted(b, k, -h) : copy(b))))) / (2 * h));
      expectClose(flat(g[i]), fd, 1e-5);
    });
    // jvp along v = (1, 2, 3, …) in every argument: its tangent is ⟨gradient, v⟩.
    let n = 0;
    const v = args.map((a) => (typeof a === 'number' ? ++n : a instanceof Float64Array ? a.map(() => ++n) : a.map((r) => r.map(() => ++n))));
    const [primal, tangent] = m.jvpOf(args.map(copy), v);
    expect(primal).toBe(expected);
    const dot = g.reduce((s: number, gi, i) => s + flat(gi).reduce((t, x, k) => t + x * flat(v[i])[k], 0), 0);
    expectClose([tangent], [dot], 1e-9);
  }
}

/** The diagnostics a source gets, each from its code on. */
function refused(source: string): string[] {
  return compile(source, { throwOnError: false })
    .messages.filter((l) => l.includes('error TSAD'))
    .map((l) => l.replace(/^.*error /, ''));
}

const vec = (...xs: number[]) => Float64Array.from(xs);

describe('a view and its base are one array', () => {
  test('a write through the view is seen through the base, and one into the base through the view', () => {
    agrees(
      `/** @differentiable */
export function f(x: Float64Array): number {
  const b = x.slice();
  const w = b.subarray(1);
  w[0] = 5 * x[0];
  b[2] *= x[1];
  return b[1] + w[1] + w.length;
}`,
      'f',
      [[vec(0.5, -1, 2)], [vec(1.5, 2, -0.25, 4)]],
    );
  });

  test('negative and clamped positions, as JavaScript computes them', () => {
    agrees(
      `/** @differentiable */
export function f(x: Float64Array, s: number): number {
  const b = Float64Array.from(x, (v) => v * s);
  const mid = b.subarray(-3, -1);
  for (let i = 0; i < mid.length; i++) mid[i] += Math.sin(x[i]);
  const all = b.subarray(-10, 100);
  all[0] -= s * s;
  let total = 0;
  for (let i = 0; i < b.length; i++) total += b[i] * (i + 1);
  return total + mid.length * all.length;
}`,
      'f',
      [
        [vec(0.5, -1, 2, 3), 1.5],
        [vec(1, 2, 3), -0.5],
        [vec(2, 0.25, -1, 0.5, 1.25), 0.75],
      ],
    );
  });

  test('column views of a matrix written through in a loop (Householder-style elimination)', () => {
    agrees(
      `/** @differentiable */
export function f(a: Float64Array[]): number {
  const cols = a.map((r) => r.slice());
  for (let k = 0; k < cols.length - 1; k++) {
    const head = cols[k].subarray(k);
    for (let j = k + 1; j < cols.length; j++) {
      const c = cols[j].subarray(k);
      const f = c[0] / head[0];
      for (let i = 0; i < c.length; i++) c[i] -= f * head[i];
    }
  }
  let s = 0;
  for (let j = 0; j < cols.length; j++) s += cols[j][cols[j].length - 1] ** 2;
  return s;
}`,
      'f',
      [[[vec(2, 1, 0.5), vec(1, 3, -1), vec(0.5, 2, 4)]], [[vec(1.5, -0.5), vec(0.25, 2)]]],
    );
  });

  test('a view used whole reads its numbers as they are then: an argument, .slice, .reduce, a spread, for…of', () => {
    agrees(
      `/** @differentiable */
function sq(v: Float64Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return s;
}
/** @differentiable */
export function f(x: Float64Array): number {
  const b = x.slice();
  const w = b.subarray(1, 3);
  const before = sq(w) + Math.max(...w);
  const copy = w.slice();
  w[1] = x[0] * 3;
  let after = w.reduce((s, v) => s + v * v, 0);
  for (const v of w) after += Math.cos(v);
  return before + after + copy[1] + b[2];
}`,
      'f',
      [[vec(0.5, -1, 2, 1)], [vec(1.5, 2, -0.25)]],
    );
  });

  test('an index outside the view is a RangeError, never the base number next to it', () => {
    const { exports: m, result } = load(`import { valueAndGrad } from 'tsad';
/** @differentiable */
export function f(x: Float64Array, i: number): number {
  const b = x.slice();
  const w = b.subarray(1, 2);
  w[0] = 2 * x[0];
  return w[i];
}
export const vg = valueAndGrad(f);`);
    expect(result.messages).toEqual([]);
    expect(m.vg(vec(1, 2, 3), 0)[0]).toBe(2);
    // JavaScript reads undefined there; b[2] is the number next to the view.
    expect(m.f(vec(1, 2, 3), 1)).toBeUndefined();
    expect(() => m.vg(vec(1, 2, 3), 1)).toThrow(RangeError);
    expect(() => m.vg(vec(1, 2, 3), -1)).toThrow(/'w' \(b\.subarray\(1, 2\)\) has no element at this index/);
  });
});

describe('where a view cannot be one array with its base: TSAD1123 naming both', () => {
  const base = (body: string) => `/** @differentiable */ export function f(x: Float64Array, m: Float64Array[]): Float64Array | number { ${body} }`;
  test.each([
    ['returned', 'const b = x.slice(); const w = b.subarray(1); w[0] = 1; return w;', /'w' is a view of 'b'.*second name/],
    ['given a second name', 'const b = x.slice(); const w = b.subarray(1); const u = w; b[1] = 2; return u[0];', /'w' is a view of 'b'.*second name/],
    ['its base given another array', 'let b = x.slice(); const w = b.subarray(1); b = x.slice(); b[0] = 1; return w[0];', /'w' is a view of 'b'.*given another array/],
    ['its rows swapped', 'const r = m.map((q) => q.slice()); const w = r[0].subarray(1); [r[0], r[1]] = [r[1], r[0]]; w[0] = 1; return r[1][1];', /'w' is a view of 'r\[0\]'.*swaps rows/],
    ['filled through', 'const b = x.slice(); const w = b.subarray(1); w.fill(0); return b[1];', /'w' is a view of 'b'.*\.fill through the view/],
    ['looped over while written', 'const b = x.slice(); const w = b.subarray(1); let s = 0; for (const v of w) { s += v; b[2] = s; } return s;', /'w' is a view of 'b'.*loop over 'w' writes/],
  ])('a view %s', (_what, body, message) => {
    const msgs = refused(base(body));
    expect(msgs.length).toBeGreaterThan(0);
    expect(msgs[0]).toMatch(/^TSAD1123: /);
    expect(msgs[0]).toMatch(message);
  });

  test('a view whose array is chosen at run time, written through: TSAD1123 naming the view and what it views', () => {
    const [msg] = refused(base('const a = x.slice(); const b = x.slice(); const w = (x[0] > 0 ? a : b).subarray(1); w[0] = 1; return a[1] + b[1];'));
    expect(msg).toMatch(/^TSAD1123: 'w' is a view of \(x\[0\] > 0 \? a : b\)/);
  });
});
