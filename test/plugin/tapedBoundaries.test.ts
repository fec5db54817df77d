// Taped code over ordinary JavaScript (issue 24; issue 18's "never silently wrong" for taped
// mode): where a taped copy's numbers meet code that would treat a node as an object (Number's
// tests, sort's comparator, a spread into Math.max, a search by value, truthiness, integer
// operators, Map keys, strings), the copy acts on values, and any other conversion throws a
// TypeError. The programs are written as TypeScript developers write them, and every derivative
// is checked against central differences of the same function run without tsad.
import { load, partial, expectClose, runPlain } from './harness';

const fd = (fn: (...a: any[]) => any, at: any[], i: number, k = 0) => partial(fn, at, i, k);
const gradientFd = (fn: (...a: any[]) => number, at: any[], n: number) => Array.from({ length: n }, (_, k) => fd(fn, at, 0, k)[0]);

describe("JavaScript's conversions and searches in taped code", () => {
  const { exports: m, result } = load(`import { grad, jvp } from 'tsad';
/** @differentiable */
export function finite(x: number, n: number): number {
  if (n === 0) return Number.isFinite(x) && !isNaN(x) && typeof x === 'number' ? x * x : 0;
  return finite(x, n - 1) + x;
}
/** @differentiable */
export function sorted(v: number[], n: number): number {
  if (n === 0) {
    const s = v.slice().sort((p, q) => p - q);
    return 2 * s[0] + s[1];
  }
  return sorted(v, n - 1);
}
/** @differentiable */
export function largest(v: number[], n: number): number {
  return n === 0 ? Math.max(...v) + Math.min(0.5, ...v) : largest(v, n - 1);
}
/** @differentiable */
export function found(v: number[], n: number): number {
  if (n === 0) {
    const i = v.indexOf(Math.min(v[0], v[1]));
    return v.includes(v[2]) ? 3 * v[i] + v[v.lastIndexOf(v[2])] : 0;
  }
  return found(v, n - 1);
}
/** @differentiable */
export function truthy(x: number, y: number, n: number): number {
  if (n === 0) return (x * 0 || y) * 2 + (x && y) + (y - 2 || 5) + 3 * (x * 0 && y);
  return truthy(x, y, n - 1);
}
/** @differentiable */
export function bits(v: number[], lo: number, hi: number): number {
  if (hi - lo <= 1) return v[lo] * v[lo];
  const mid = (lo + hi) >> 1;
  let h = mid | 0;
  h ^= 0;
  return bits(v, lo, h) + bits(v, mid, hi) * ~~1;
}
/** @differentiable */
export function counted(x: number, n: number): number {
  let s = 0;
  for (let k = n; k; k--) s += x * k;
  let j = 0;
  do {
    s += Math.sin(x + j);
    j++;
  } while (j < 2);
  console.log(\`counted \${x}\`, s);
  return n > 3 ? counted(x, n - 1) + s : s;
}
export const dFinite = grad(finite);
export const dSorted = grad(sorted);
export const dLargest = grad(largest);
export const dFound = grad(found);
export const dTruthy = grad(truthy, { wrt: [0, 1] });
export const dBits = grad(bits);
export const dCounted = grad(counted);
export const tTruthy = (x: number, y: number) => jvp(truthy, [x, y, 0], [1, 0.5, 0]);
`);

  test('Number.isFinite, isNaN and typeof test the value (they saw an object before)', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
    for (const x of [1.5, -0.3]) expectClose([m.dFinite(x, 2)], fd(m.finite, [x, 2], 0), 1e-6);
  });

  test("sort's comparator orders by value", () => {
    for (const v of [
      [3, 1, 2],
      [0.5, -2, 7, 1],
    ]) {
      expectClose(Array.from(m.dSorted(v, 1)), gradientFd(m.sorted, [v, 1], v.length));
    }
  });

  test('Math.max and Math.min over a spread: the taped primitive folded over the elements', () => {
    for (const v of [
      [1, 3, 2],
      [-4, -1, -2.5],
    ]) {
      expectClose(Array.from(m.dLargest(v, 1)), gradientFd(m.largest, [v, 1], v.length));
    }
  });

  test('indexOf, lastIndexOf and includes search by value', () => {
    for (const v of [
      [3, 1, 2],
      [0.5, 2, 0.5],
    ]) {
      expectClose(Array.from(m.dFound(v, 1)), gradientFd(m.found, [v, 1], v.length));
    }
  });

  test('|| and && test the value (a node is always truthy as an object)', () => {
    // x * 0 is a node whose value is 0 at every x: falsy, though an object is truthy.
    for (const [x, y] of [
      [1, 3],
      [2.5, -1],
    ]) {
      const [gx, gy] = m.dTruthy(x, y, 1);
      expectClose([gx, gy], [fd(m.truthy, [x, y, 1], 0)[0], fd(m.truthy, [x, y, 1], 1)[0]]);
      const [value, tangent] = m.tTruthy(x, y);
      expect(value).toBe(m.truthy(x, y, 0));
      expectClose([tangent], [fd(m.truthy, [x, y, 0], 0)[0] + 0.5 * fd(m.truthy, [x, y, 0], 1)[0]]);
    }
  });

  test('integer operators (>>, |, ^=, ~) act on values', () => {
    const v = [0.5, 1.5, -2, 3, 0.25];
    expectClose(Array.from(m.dBits(v, 0, v.length)), gradientFd(m.bits, [v, 0, v.length], v.length));
  });

  test("a for loop's and a do-while's condition test the value; console.log prints values", () => {
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expectClose([m.dCounted(0.7, 5)], fd(m.counted, [0.7, 5], 0));
      expect(log.mock.calls.some(([text, s]) => text === 'counted 0.7' && typeof s === 'number')).toBe(true);
    } finally {
      log.mockRestore();
    }
  });
});

describe('ordinary recursive programs that the compiled path refuses for other reasons too', () => {
  const { exports: m, result } = load(`import { grad, hessian } from 'tsad';
type Expr = { op: '+' | '*'; l: Expr; r: Expr } | { k: number };
/** An expression tree evaluator: the gradient is with respect to its constants. */
/** @differentiable */
export function evaluate(e: Expr): number {
  if ('k' in e) return e.k;
  const a = evaluate(e.l);
  const b = evaluate(e.r);
  return e.op === '+' ? a + b : a * b;
}
/** Mergesort (a fresh array per call). */
/** @differentiable */
export function mergeSort(a: number[]): number[] {
  if (a.length <= 1) return a.slice();
  const m = a.length >> 1;
  const l = mergeSort(a.slice(0, m)),
    r = mergeSort(a.slice(m));
  const out: number[] = [];
  let i = 0,
    j = 0;
  while (i < l.length || j < r.length) {
    if (j >= r.length || (i < l.length && l[i] <= r[j])) out.push(l[i++]);
    else out.push(r[j++]);
  }
  return out;
}
/** The mean without the smallest and the largest. */
/** @differentiable */
export function trimmedMean(a: number[]): number {
  const s = mergeSort(a);
  let t = 0;
  for (let i = 1; i < s.length - 1; i++) t += s[i];
  return t / (s.length - 2);
}
/** A memoised recurrence with a real weight. */
/** @differentiable */
export function recurrence(w: number, n: number, memo: Map<number, number> = new Map()): number {
  if (n < 2) return w * n + 1;
  const known = memo.get(n);
  if (known !== undefined) return known;
  const v = Math.sin(w) * recurrence(w, n - 1, memo) + w * recurrence(w, n - 2, memo) / n;
  memo.set(n, v);
  return v;
}
export const dEvaluate = grad(evaluate);
export const dTrimmed = grad(trimmedMean);
export const hTrimmed = hessian(trimmedMean);
export const dRecurrence = grad(recurrence);
`);

  test('they build, each with the note that it runs taped', () => {
    expect(result.messages.filter((s) => / - error /.test(s))).toEqual([]);
    expect(result.messages.filter((s) => /note TSAD2001/.test(s)).length).toBeGreaterThanOrEqual(3);
  });

  test('an expression tree over objects: the gradient has the tree’s shape, with respect to its constants', () => {
    const tree = { op: '+', l: { op: '*', l: { k: 1.5 }, r: { k: -2 } }, r: { op: '*', l: { k: 0.5 }, r: { op: '+', l: { k: 3 }, r: { k: 0.25 } } } };
    const g = m.dEvaluate(tree);
    expect(g.l.l.k).toBeCloseTo(-2, 12);
    expect(g.l.r.k).toBeCloseTo(1.5, 12);
    expect(g.r.l.k).toBeCloseTo(3.25, 12);
    expect(g.r.r.l.k).toBeCloseTo(0.5, 12);
    expect(g.r.r.r.k).toBeCloseTo(0.5, 12);
  });

  test('a trimmed mean through mergesort: gradient and Hessian (zero: piecewise linear)', () => {
    const a = [3.5, -1, 2, 8, 0.5, 4];
    const g = m.dTrimmed(a);
    expectClose(Array.from(g), gradientFd(m.trimmedMean, [a], a.length));
    expect(g).toEqual([0.25, 0, 0.25, 0, 0.25, 0.25]);
    expect(
      m
        .hTrimmed(a)
        .flat()
        .every((h: number) => h === 0),
    ).toBe(true);
  });

  test('a memoised recurrence (Map keyed by n) against central differences', () => {
    for (const [w, n] of [
      [0.3, 5],
      [1.2, 12],
    ]) {
      expectClose([m.dRecurrence(w, n)], [(m.recurrence(w + 1e-6, n) - m.recurrence(w - 1e-6, n)) / 2e-6], 1e-5);
    }
  });
});

describe('what taped code cannot take is loud, never silently wrong', () => {
  const { exports: m } = load(`import { grad } from 'tsad';
/** @differentiable */
export function formatted(x: number, n: number): number {
  if (n === 0) return Number(new Intl.NumberFormat('en-US').format(x)) * x;
  return formatted(x, n - 1);
}
/** @differentiable */
export function scaled(p: { s: number }, n: number): number {
  return n === 0 ? p.s * p.s : scaled(p, n - 1);
}
export const dFormatted = grad(formatted);
export const dScaled = grad(scaled);
export class Scale {
  constructor(readonly s: number) {}
}
`);

  test('a taped number converted by code tsad did not compile throws a TypeError saying so', () => {
    expect(() => m.dFormatted(2, 1)).toThrow(/tsad: a number of taped code \(value 2\) was converted by code that tsad did not compile/);
  });

  test('a class instance among the differentiated values is differentiated by its fields; a built-in one is a TypeError, not a zero gradient', () => {
    expect(m.dScaled({ s: 3 }, 2).s).toBe(6);
    expect(m.dScaled(new m.Scale(3), 2)).toEqual({ s: 6 });
    expect(() => m.dScaled(Object.assign(new Date(0), { s: 3 }), 2)).toThrow(/got an instance of Date among the differentiated values/);
  });
});

describe('taped numbers kept in module-level state between gradients', () => {
  // A module-level memo keeps the first gradient's tape nodes. To the second gradient they are
  // constants, as the memoised plain numbers are to the function: fib(w, 100) = memo(10) · w, so
  // its slope is the memoised value 26.125 (it was 0: the old node was read on the new tape).
  // The same source plain (the reference) and marked (tsad's build).
  const source = `const memo = new Map<number, number>();
export function fib(w: number, n: number): number {
  if (n === 100) return fib(w, 10) * w;
  if (n < 2) return w * n;
  const known = memo.get(n);
  if (known !== undefined) return known;
  const v = fib(w, n - 1) + 0.5 * fib(w, n - 2);
  memo.set(n, v);
  return v;
}`;
  const { exports: m } = load(`import { grad } from 'tsad';\n${source.replace('export function fib', '/** @differentiable */\nexport function fib')}\nexport const dFib = grad(fib);\n`);
  test('a second gradient through the memo is the memoised value', () => {
    // The reference: the same source as plain JavaScript, its memo filled by the same calls, and
    // central differences (fib is linear in w wherever it runs).
    const h = 1e-3;
    const slope = (f: (w: number) => number, w: number) => (f(w + h) - f(w - h)) / (2 * h);
    const fresh = () => runPlain(source).fib as (w: number, n: number) => number;
    expect(m.dFib(2, 10)).toBeCloseTo(
      slope((w) => fresh()(w, 10), 2),
      9,
    );
    const js = fresh();
    expect(js(2, 10)).toBeCloseTo(26.125, 9);
    // fib(w, 100) = memo(10) · w: its slope is the memoised number.
    expect(m.dFib(2, 100)).toBeCloseTo(
      slope((w) => js(w, 100), 2),
      9,
    );
    expect(m.dFib(2, 100)).toBeCloseTo(26.125, 9);
    // fib(w, 10) is now the memo's number, a constant.
    expect(slope((w) => js(w, 10), 3)).toBe(0);
    expect(m.dFib(3, 10)).toBe(0);
  });
});

describe('a result that is a node of an earlier gradient', () => {
  // h returns the memo's number itself after work of its own: the running tape has more nodes
  // than the old node's ID, so seeding that ID would land on one of its own nodes.
  const source = `const memo = new Map<number, number>();
export function h(w: number, n: number): number {
  let s = w;
  for (let i = 0; i < Math.floor(w * 100); i++) s = Math.sin(s) + w;
  if (n === 0) return s;
  const known = memo.get(n);
  if (known !== undefined) return known;
  const v = h(w, n - 1) * 0.5 + s;
  memo.set(n, v);
  return v;
}`;
  const { exports: m } = load(`import { grad } from 'tsad';\n${source.replace('export function h', '/** @differentiable */\nexport function h')}\nexport const dH = grad(h);\n`);
  test('is a constant: gradient 0, as the plain function has slope 0 there', () => {
    const js = runPlain(source).h as (w: number, n: number) => number;
    js(0.01, 1);
    m.dH(0.01, 1);
    const h = 1e-4;
    expect((js(0.5 + h, 1) - js(0.5 - h, 1)) / (2 * h)).toBe(0);
    expect(m.dH(0.5, 1)).toBe(0);
  });
});
