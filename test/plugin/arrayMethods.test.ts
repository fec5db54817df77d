// Everyday array methods (issue 19, item 5), written as TypeScript developers write them:
// .some/.every/.findIndex/.indexOf/.includes, .filter, sorted and reversed copies, .concat and
// spread, Math.max(...a), .at, .subarray, .fill on a local, .forEach, .entries(), callbacks passed
// by name. The primal is the same source run as plain JavaScript (the marked function, which the
// plugin leaves as written), the gradient central differences, jvp ⟨grad, v⟩; sizes 0, 1 and
// larger, with ties.
import { compile, expectClose, load, partial } from './harness';

const { exports: m } = load(`import { valueAndGrad, jvp, sum } from 'tsad';

/** @differentiable */
export function softplus(x: number): number {
  return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
}
/** @differentiable */
export function ramp(x: number, i: number): number {
  return x * (i + 1);
}

/** @differentiable */
export function queries(x: number[], c: number): number {
  const any = x.some((v) => v > c);
  const all = x.every((v, i) => v > i - 10);
  const first = x.findIndex((v) => v > c);
  const top = x.indexOf(Math.max(...x));
  let s = 0;
  for (const v of x) s += v * v;
  return (any ? 2 : 1) * s + (all ? c : -c) + first * c + (top >= 0 ? x[top] * c : 0) + (x.includes(c) ? 1 : 0);
}

/** @differentiable */
export function searches(x: number[]): number {
  return x.indexOf(NaN) + 10 * x.indexOf(0) + 100 * (x.includes(NaN) ? 1 : 0) + 1000 * x.indexOf(-0, 2) + 10000 * x.indexOf(x[0], -2) + 100000 * x.indexOf(3, -100) + 1e6 * x.indexOf(3, 1.7) + 1e7 * x.lastIndexOf(3) + 1e8 * x.lastIndexOf(3, -2) + 1e9 * x.lastIndexOf(0, 1.5) + 1e10 * x.lastIndexOf(NaN);
}

/** @differentiable */
export function filtered(x: number[], c: number): number {
  const kept = x.filter((v, i) => v > c && i % 2 === 0);
  const truthy = x.filter((v) => v - 1);
  return kept.reduce((s, v) => s + v * v * c, 0) + kept.length + 0.5 * sum(truthy);
}

/** @differentiable */
export function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
}

/** @differentiable */
export function ranked(x: number[], w: number): number {
  // Ties by the integer part: a stable sort keeps them in their order.
  const byFloor = x.slice().sort((a, b) => Math.floor(a) - Math.floor(b));
  const down = x.map((v) => v * w).sort((a, b) => b - a);
  let s = 0;
  for (let i = 0; i < byFloor.length; i++) s += byFloor[i] * (i + 1) + down[i] * (i + 2) * (i + 2);
  return s;
}

/** @differentiable */
function descending(x: number[]): number[] {
  const s = x.map((v) => v * v);
  return s.sort((a, b) => b - a);
}

/** @differentiable */
export function topTwo(x: number[]): number {
  const s = descending(x);
  return s.length < 2 ? 0 : s[0] + 0.5 * s[1];
}

/** @differentiable */
export function typedSorted(x: Float64Array): number {
  const s = Float64Array.from(x).sort();
  let t = 0;
  for (let i = 0; i < s.length; i++) t += s[i] * (i + 1);
  return t + 1 / (s.length > 0 ? s[0] : 1);
}

/** @differentiable */
export function reordered(x: number[], c: number): number {
  const r = x.slice().reverse();
  const s = x.map((v) => v + c);
  s.sort((a, b) => b - a);
  s.reverse();
  let t = 0;
  for (let i = 0; i < r.length; i++) t += r[i] * (i + 1) + s[i] * s[i] * (i + 3);
  return t;
}

/** @differentiable */
function withGhosts(a: number[], sign: number): number[] {
  return [sign * a[0], ...a, sign * a.at(-1)!];
}

/** @differentiable */
export function joined(a: number[], b: number[], s: number): number {
  const g = withGhosts(a, s);
  const c = a.concat(b, [s], s * 2);
  const d: number[] = [];
  d.push(...b, s);
  d.push(...a);
  let t = 0;
  for (let i = 0; i < g.length; i++) t += g[i] * (i + 1);
  for (let i = 0; i < c.length; i++) t += c[i] * c[i] * (i + 2);
  for (let i = 0; i < d.length; i++) t += d[i] * (i + 0.5);
  return t + g.length + c.length;
}

/** @differentiable */
export function extremes(x: number[], y: number): number {
  return Math.max(...x) * 2 + Math.min(y, ...x, ...[y * 2, 3]) + Math.max(...x, y) * y;
}

/** @differentiable */
export function ends(x: number[], i: number): number {
  return x.at(-1)! * 2 + x.at(i)! + x.at(0)! * x.at(-1.5)!;
}

/** @differentiable */
export function windows(x: Float64Array, w: number): number {
  let loss = 0;
  for (let start = 0; start + w <= x.length; start += w) {
    const seg = x.subarray(start, start + w);
    let e = 0;
    for (let i = 0; i < seg.length; i++) e += seg[i] * seg[i] * (i + 1);
    loss += Math.sqrt(e + 1e-12);
  }
  return loss + x.subarray(-2).reduce((s, v) => s + v, 0);
}

/** @differentiable */
export function filled(x: number[], c: number): number {
  const b = x.slice();
  b.fill(c, 1, -1);
  let next = new Float64Array(x.length);
  let t = 0;
  for (let k = 0; k < 3; k++) {
    next.fill(c * k);
    for (let i = 0; i < next.length; i++) next[i] += x[i] * b[i];
    t += sum(next);
  }
  return t + sum(x.map((v) => v * c).fill(c * c, 2));
}

/** @differentiable */
export function eachOf(x: number[], w: number[]): number {
  let s = 0;
  let count = 0;
  x.forEach((v, i) => {
    const r = v * w[i];
    s += r * r;
    count++;
  });
  w.forEach((v) => (s += v * count));
  return s;
}

/** @differentiable */
export function byName(x: number[], c: number): number {
  const add = (a: number, b: number) => a + b * c;
  const p = x.map(softplus);
  const e = x.map(Math.exp);
  const r = x.map(ramp);
  return p.reduce(add, 0) + sum(e) + r.reduce(add, c);
}

/** @differentiable */
export function indexed(x: number[]): number {
  let s = 0;
  for (const [i, v] of x.entries()) s += (i + 1) * v * v;
  for (const [, v] of x.entries()) s += v;
  for (const i of x.keys()) s += i * x[i] * x[0];
  for (const v of x.values()) s += Math.sin(v);
  return s;
}

export const d = {
  queries: valueAndGrad(queries, { wrt: [0, 1] }),
  queriesJvp: (x: number[], c: number, dx: number[], dc: number) => jvp(queries, [x, c], [dx, dc]),
  searches: valueAndGrad(searches, { wrt: [0] }),
  filtered: valueAndGrad(filtered, { wrt: [0, 1] }),
  filteredJvp: (x: number[], c: number, dx: number[], dc: number) => jvp(filtered, [x, c], [dx, dc]),
  median: valueAndGrad(median, { wrt: [0] }),
  medianJvp: (x: number[], dx: number[]) => jvp(median, [x], [dx]),
  ranked: valueAndGrad(ranked, { wrt: [0, 1] }),
  typedSorted: valueAndGrad(typedSorted, { wrt: [0] }),
  topTwo: valueAndGrad(topTwo, { wrt: [0] }),
  reordered: valueAndGrad(reordered, { wrt: [0, 1] }),
  joined: valueAndGrad(joined, { wrt: [0, 1, 2] }),
  joinedJvp: (a: number[], b: number[], s: number, da: number[], db: number[], ds: number) => jvp(joined, [a, b, s], [da, db, ds]),
  extremes: valueAndGrad(extremes, { wrt: [0, 1] }),
  ends: valueAndGrad(ends, { wrt: [0] }),
  windows: valueAndGrad(windows, { wrt: [0] }),
  filled: valueAndGrad(filled, { wrt: [0, 1] }),
  eachOf: valueAndGrad(eachOf, { wrt: [0, 1] }),
  byName: valueAndGrad(byName, { wrt: [0, 1] }),
  byNameJvp: (x: number[], c: number, dx: number[], dc: number) => jvp(byName, [x, c], [dx, dc]),
  indexed: valueAndGrad(indexed, { wrt: [0] }),
};
`);
const d = m.d;

type Arg = number | number[] | Float64Array;

const leavesOf = (a: Arg): number[] => (typeof a === 'number' ? [a] : [...a]);

/** Central differences of the plain function along leaf k of argument i. */
function fd(f: (...a: any[]) => number, args: Arg[], i: number, k: number): number {
  const at = args.map((a) => (a instanceof Float64Array ? [...a] : a));
  const back = (v: any[]) => v.map((a, j) => (args[j] instanceof Float64Array ? Float64Array.from(a as number[]) : a));
  return partial((...v: any[]) => f(...back(v)), at as any, i, k)[0];
}

/**
 * valueAndGrad agrees with plain JavaScript (the value exactly, NaN included) and with central
 * differences (each leaf of each differentiated argument); returns the gradient's leaves.
 */
function agrees(f: (...a: any[]) => number, vg: (...a: any[]) => [number, any], args: Arg[], wrt: number[] = args.map((_, i) => i)): number[] {
  const [v, g] = vg(...args);
  expect(v).toBe(f(...args));
  const grads: Arg[] = wrt.length === 1 && !Array.isArray(g) && !(g instanceof Float64Array) ? [g] : wrt.length === 1 ? [g] : g;
  const flat = grads.flatMap(leavesOf);
  if (!Number.isFinite(v)) return flat;
  const want = wrt.flatMap((i) => leavesOf(args[i]).map((_, k) => fd(f, args, i, k)));
  expectClose(flat, want, 1e-5);
  return flat;
}

/** jvp's tangent is ⟨gradient, v⟩ and its primal the value. */
function jvpAgrees(jv: (...a: any[]) => [number, number], vg: (...a: any[]) => [number, any], args: Arg[], dirs: Arg[]): void {
  const [v, g] = vg(...args);
  const [p, t] = jv(...args, ...dirs);
  expect(p).toBe(v);
  const grads: Arg[] = args.length === 1 ? [g] : g;
  const want = grads.reduce((s: number, gi, i) => s + leavesOf(gi).reduce((u, x, k) => u + x * leavesOf(dirs[i])[k], 0), 0);
  expect(t).toBeCloseTo(want, 9);
}

describe('.some, .every, .findIndex, .indexOf, .lastIndexOf, .includes: constants', () => {
  test('values as JavaScript, gradients by central differences, sizes 0, 1 and larger', () => {
    for (const [x, c] of [
      [[], 0.5],
      [[0.3], 0.1],
      [[0.3], 2],
      [[0.2, 1.5, -0.7, 1.6, 0.9], 1],
      [[0.2, 1.5, -0.7, 1.6, 0.9], 3],
      [[-20, 1, 2], 1.3],
    ] as [number[], number][]) {
      agrees(m.queries, d.queries, [x, c]);
    }
    // A tie for the maximum (indexOf finds the first) and c among the elements (includes): the value.
    for (const [x, c] of [
      [[0.2, 1.5, -0.7, 1.5, 0.9], 1],
      [[0.2, 1.5, -0.7, 1.5, 0.9], 0.9],
    ] as [number[], number][])
      expect(d.queries(x, c)[0]).toBe(m.queries(x, c));
    jvpAgrees(d.queriesJvp, d.queries, [[0.2, 1.5, -0.7, 1.7, 0.9], 1], [[1, -2, 0.5, 1, 3], 0.7]);
  });

  test('indexOf is strict equality (NaN never found, -0 finds 0), includes is SameValueZero, fromIndex as JavaScript reads it', () => {
    // x = []: x.indexOf(x[0], -2) reads x[0] past the end (undefined): a RangeError since s14.
    expect(() => d.searches([])).toThrow(RangeError);
    for (const x of [[-0, NaN, 0, 3], [3, 0, NaN, -0, 3], [NaN], [0, 3, 3, 1]]) {
      const [v, g] = d.searches(x);
      expect(v).toBe(m.searches(x));
      expect([...g]).toEqual(x.map(() => 0));
    }
  });
});

describe('.filter: a compaction at constant indices', () => {
  test('values, gradients and jvp, with the index parameter and a number-valued (truthy) callback', () => {
    for (const [x, c] of [
      [[], 0.5],
      [[0.3], 0.1],
      [[2], 0.1],
      [[0.2, 1.5, -0.7, 1.5, 0.9, 1.2, 4], 0.5],
    ] as [number[], number][]) {
      agrees(m.filtered, d.filtered, [x, c]);
    }
    // v - 1 is 0 (falsy) at 1, NaN (falsy) at NaN: the value.
    for (const x of [
      [1, 1, 1],
      [NaN, 2, 1, 3],
    ])
      expect(d.filtered(x, 0)[0]).toBe(m.filtered(x, 0));
    jvpAgrees(d.filteredJvp, d.filtered, [[0.2, 1.5, -0.7, 1.7, 0.9], 0.5], [[1, -2, 0.5, 1, 3], 0.7]);
  });
});

describe('.sort of a copy, .reverse: a gather by the sorted indices', () => {
  test('the median of [...xs].sort((a, b) => a - b)', () => {
    for (const x of [[], [0.3], [0.3, -1], [3, 1, 2], [5, -1, 2.5, 0.25, 7, 3]]) agrees(m.median, d.median, [x], [0]);
    jvpAgrees(d.medianJvp, d.median, [[5, -1, 2.5, 0.25, 7, 3]], [[1, 2, 3, 4, 5, 6]]);
  });

  test("ties: a comparator that ties (Math.floor(a) - Math.floor(b)) keeps their order, as JavaScript's stable sort does", () => {
    for (const [x, w] of [
      [[], 1],
      [[0.5], 2],
      [[1.5, 1.2, 0.3, 1.9, 0.1, 2.5, 1.1], 0.7],
      [[2.2, 2.1, 2.5, 1.4], -1],
    ] as [number[], number][]) {
      agrees(m.ranked, d.ranked, [x, w]);
    }
    // Equal values: the gradient of each goes to the element that JavaScript's order puts there.
    const [, [g]] = d.ranked([1, 1, 1], 1);
    expect(g).toEqual([1 + 4, 2 + 9, 3 + 16]);
  });

  test('a typed array sorts numerically without a comparator (-0 before 0, NaN last)', () => {
    for (const x of [[], [2], [3, -1, 2, 10, 9, 1]]) agrees(m.typedSorted, d.typedSorted, [Float64Array.from(x)], [0]);
    // 1 / s[0] tells -0 from 0.
    for (const x of [
      [0, -0, 1, -1],
      [0, -0],
      [-0, 0],
      [NaN, 0, -0, 2],
      [2, NaN, 1],
    ])
      expect(d.typedSorted(Float64Array.from(x))[0]).toBe(m.typedSorted(Float64Array.from(x)));
  });

  test('return s.sort(f) of a local: nothing reads s afterwards', () => {
    for (const x of [[], [2], [0.5, 3, -1, 2, 2.5]]) agrees(m.topTwo, d.topTwo, [x], [0]);
  });

  test('.slice().reverse(), and .sort and .reverse as statements on a local copy', () => {
    for (const [x, c] of [
      [[], 1],
      [[2], 0.5],
      [[0.5, 3, -1, 2, 2.5], 0.25],
    ] as [number[], number][])
      agrees(m.reordered, d.reordered, [x, c]);
    expect(d.reordered([2, 1, 2, 2], 1)[0]).toBe(m.reordered([2, 1, 2, 2], 1));
  });
});

describe('.concat, spread and push(...a): appends into a new array', () => {
  test('[s * a[0], ...a, s * a.at(-1)], a.concat(b, [s], 2s), d.push(...b, s)', () => {
    // a = []: s * a[0] reads past the end, NaN in JavaScript: a RangeError since s14.
    expect(Number.isNaN(m.joined([], [], 1))).toBe(true);
    expect(() => d.joined([], [], 1)).toThrow(RangeError);
    for (const [a, b, s] of [
      [[0.5], [], 2],
      [[0.5, -1, 2], [3, 0.25], -1.5],
    ] as [number[], number[], number][]) {
      agrees(m.joined, d.joined, [a, b, s]);
    }
    jvpAgrees(d.joinedJvp, d.joined, [[0.5, -1, 2], [3, 0.25], -1.5], [[1, 2, 3], [-1, 1], 0.5]);
  });
});

describe('Math.max(...a), Math.min(...a): a reduce', () => {
  test('values as JavaScript (empty: -Infinity and Infinity), gradients off ties', () => {
    for (const [x, y] of [
      [[], 1],
      [[0.5], 2],
      [[0.5, -1, 2.5], 0.25],
      [[0.5, -1, 2.5], -3],
    ] as [number[], number][])
      agrees(m.extremes, d.extremes, [x, y]);
  });

  test('ties: the value as JavaScript, the gradient to the first of the equal elements; NaN and -0 as Math.max', () => {
    const [v, [g]] = d.extremes([1, 3, 3], 5);
    expect(v).toBe(m.extremes([1, 3, 3], 5));
    // max(...x) twice to x[1] (the first 3), min(5, ...x, 10, 3) to x[0]; max(...x, 5) is y.
    expect(g).toEqual([1, 2, 0]);
    for (const x of [
      [NaN, 1],
      [1, NaN],
      [-0, 0],
      [0, -0],
    ])
      expect(Object.is(d.extremes(x, -5)[0], m.extremes(x, -5))).toBe(true);
  });
});

describe('.at, .subarray, .fill on a local', () => {
  test('.at with negative and fractional indices (outside: undefined, NaN in arithmetic, as JavaScript)', () => {
    for (const [x, i] of [
      [[], 0],
      [[2], 0],
      [[2], -1],
      [[1, 2, 3], -2],
      [[1, 2, 3], 1.9],
      [[1, 2, 3], 5],
    ] as [number[], number][]) {
      agrees(m.ends, d.ends, [x, i], [0]);
    }
  });

  test('.subarray windows read-only', () => {
    for (const [x, w] of [
      [[], 2],
      [[1], 1],
      [[1, 2, 3, 4, 5], 2],
      [[0.5, -1, 2, 3], 4],
    ] as [number[], number][]) {
      agrees(m.windows, d.windows, [Float64Array.from(x), w], [0]);
    }
  });

  test('b.fill(c, 1, -1) on a copy, next.fill(v) in a loop, .fill on a new array', () => {
    for (const [x, c] of [
      [[], 1],
      [[2], 0.5],
      [[0.5, 3, -1, 2, 2], 0.25],
    ] as [number[], number][])
      agrees(m.filled, d.filled, [x, c]);
  });
});

describe('.forEach, .entries(), callbacks passed by name', () => {
  test(".forEach assigning the function's variables", () => {
    for (const [x, w] of [
      [[], []],
      [[2], [0.5]],
      [
        [0.5, 3, -1],
        [1, 2, 3],
      ],
    ] as [number[], number[]][])
      agrees(m.eachOf, d.eachOf, [x, w]);
  });

  test('.map(softplus), .map(Math.exp), .map(ramp) (JavaScript passes the index), .reduce(add, init) of a local function', () => {
    for (const [x, c] of [
      [[], 1],
      [[2], 0.5],
      [[0.5, 3, -1, 4, -4], 0.25],
    ] as [number[], number][])
      agrees(m.byName, d.byName, [x, c]);
    jvpAgrees(d.byNameJvp, d.byName, [[0.5, 3, -1], 0.25], [[1, 2, 3], 0.5]);
  });

  test('for (const [i, v] of x.entries()), x.keys(), x.values()', () => {
    for (const x of [[], [2], [0.5, 3, -1]]) agrees(m.indexed, d.indexed, [x], [0]);
  });
});

/** The build's TSAD codes and messages for one source. */
function refused(source: string): string[] {
  try {
    compile(source);
  } catch (e) {
    return (e as Error).message
      .split('\n')
      .filter((l) => l.includes('error TSAD'))
      .map((l) => l.replace(/^.*error /, ''));
  }
  return [];
}

describe('what is refused, and how it is said', () => {
  test('.sort() of number[] without a comparator sorts as strings in JavaScript: TSAD1121 with the comparator to write', () => {
    const [msg] = refused(`/** @differentiable */ export function f(x: number[]): number { const s = x.slice().sort(); return s[0]; }`);
    expect(msg).toMatch(/^TSAD1121: .*sorts numbers as strings.*\(a, b\) => a - b/);
  });

  test('sorting a parameter in place: TSAD1122 with the copy to make; the value of s.sort() used: TSAD1123', () => {
    expect(refused(`/** @differentiable */ export function f(x: number[]): number { x.sort((a, b) => a - b); return x[0]; }`)[0]).toMatch(/^TSAD1122: 'x' is a parameter.*x\.slice\(\)/);
    expect(refused(`/** @differentiable */ export function f(x: number[]): number { const s = x.slice(); const t = s.sort((a, b) => a - b); return t[0] + s[1]; }`)[0]).toMatch(
      /^TSAD1123: s\.sort\(…\) changes 's' and returns 's' itself/,
    );
  });

  test('.forEach is not a method that changes its array; a return in its callback is TSAD1121', () => {
    const [msg] = refused(`/** @differentiable */ export function f(x: number[]): number { let s = 0; x.forEach((v) => { if (v < 0) return; s += v; }); return s; }`);
    expect(msg).toMatch(/^TSAD1121: a return in the callback of \.forEach/);
  });

  test('a spread argument of a call: TSAD1121 naming where spread works, never a TypeScript kind name', () => {
    const msgs = refused(`/** @differentiable */ function g(a: number, b: number): number { return a * b; }
/** @differentiable */ export function f(x: [number, number]): number { return g(...x); }`);
    expect(msgs.join('\n')).not.toMatch(/SpreadElement/);
    expect(msgs[0]).toMatch(/^TSAD1121: a spread \(\.\.\.a\) is supported in array literals/);
  });

  test('a callback of .some that logs: TSAD1121 (JavaScript stops at the first match)', () => {
    const [msg] = refused(`/** @differentiable */ export function f(x: number[]): number { return x.some((v) => { console.log(v); return v > 0; }) ? 1 : 0; }`);
    expect(msg).toMatch(/^TSAD1121: the callback of \.some throws or logs/);
  });

  test('.concat of a typed array (JavaScript adds it as one element) and a comparator that logs: TSAD1121', () => {
    expect(refused(`/** @differentiable */ export function f(x: number[], y: Float64Array): number { return x.concat(y).length; }`)[0]).toMatch(/^TSAD1121: \.concat does not spread a Float64Array/);
    expect(refused(`/** @differentiable */ export function f(x: number[]): number { return x.slice().sort((a, b) => { console.log(a); return a - b; })[0]; }`)[0]).toMatch(
      /^TSAD1121: the comparator of \.sort throws or logs/,
    );
  });

  test('a window of an array that is written is a view in JavaScript: TSAD1123 where it is no const view (views.test.ts)', () => {
    const [msg] = refused(`/** @differentiable */ export function f(x: Float64Array): number { const b = x.slice(); b[1] = 5; let w = b.subarray(1); w = b.subarray(2); return w[0]; }`);
    expect(msg).toMatch(/^TSAD1123: 'b' is written into, and b\.subarray\(…\) is a view/);
  });
});

describe('for…of over an array the function writes, when the loop does not write it', () => {
  const { exports: w } = load(`import { valueAndGrad } from 'tsad';
/** @differentiable */
export function paths(x: number[]): number {
  const z = new Array<number>(x.length);
  for (let i = 0; i < x.length; i++) z[i] = x[i] * x[i] + (i > 0 ? z[i - 1] : 0);
  let s = 0;
  for (const v of z) s += Math.sin(v);
  return s;
}
export const d = valueAndGrad(paths, { wrt: [0] });
`);
  test('values and gradients', () => {
    for (const x of [[], [0.5], [0.5, -1, 0.25]]) agrees(w.paths, w.d, [x], [0]);
  });
});
