// A gradient's record stacks live in a slab that the next call of the module's derivatives reuses
// (backend/ts/constructs/stackEmit.ts, issue 22, item 2): a while loop's tape, which grows as the
// loop runs, costs fresh zero-filled arrays on every call otherwise (a quarter of an explicit-stack
// tree walk's gradient). Each call takes a slab of its own from the module's pool and gives it back
// when it returns, so a gradient that runs inside another's evaluation (or its own) gets another
// one. Allocations are counted by wrapping Float64Array; numbers are checked against central
// differences of the same functions run as plain JavaScript.
import { expectClose, load, partial } from './harness';

const SOURCE = `
/** @differentiable */
export function walk(w: Float64Array, x: number): number {
  const n = w.length;
  const nodes = new Int32Array(64);
  const acc = new Float64Array(64);
  nodes[0] = 0;
  acc[0] = x * w[0];
  let top = 1;
  let total = 0;
  while (top > 0) {
    top--;
    const v = nodes[top];
    const a = acc[top];
    const l = 2 * v + 1;
    if (l >= n) {
      total += Math.sin(a);
    } else {
      nodes[top] = l;
      acc[top] = a * w[l];
      top++;
      if (l + 1 < n) {
        nodes[top] = l + 1;
        acc[top] = a + w[l + 1];
        top++;
      }
    }
  }
  return total;
}
/** @differentiable */
export function twoWrites(x: Float64Array, steps: number): number {
  const n = x.length;
  const s = new Float64Array(n);
  for (let i = 0; i < n; i++) s[i] = x[i];
  let k = 0;
  while (k < steps) {
    const i = k % n;
    const j = (3 * k + 1) % n;
    const a = s[i];
    const b = s[j];
    s[i] = a * Math.cos(b);
    s[j] = b + 0.5 * Math.sin(a);
    k++;
  }
  let t = 0;
  for (let i = 0; i < n; i++) t += s[i];
  return t;
}
`;

const { exports: m, result } = load(`import { grad } from 'tsad';\n${SOURCE}\nexport const gWalk = grad(walk, { wrt: [0, 1] });\nexport const gTwo = grad(twoWrites);\n`);
const tree = (n: number) => Float64Array.from({ length: n }, (_, k) => 1 + 0.01 * Math.cos(k));
const plain = (at: any[]) => at.map((v) => (v instanceof Float64Array ? Array.from(v) : v));
const fdAll = (f: (...a: any[]) => number, at: any[], i: number) => Array.from({ length: at[i].length }, (_, k) => partial(f, plain(at), i, k)[0]);
const fd = (f: (...a: any[]) => number, at: any[], i: number) => partial(f, plain(at), i, 0)[0];

/** The Float64Arrays `run` constructs, and their elements in all (the global wrapped meanwhile). */
function allocations(run: () => void): { count: number; elements: number } {
  const Original = globalThis.Float64Array;
  const seen = { count: 0, elements: 0 };
  globalThis.Float64Array = new Proxy(Original, {
    construct(target, args) {
      const made = Reflect.construct(target, args) as Float64Array;
      seen.count++;
      seen.elements += made.length;
      return made;
    },
  });
  try {
    run();
  } finally {
    globalThis.Float64Array = Original;
  }
  return seen;
}

test('compiles', () => expect(result.diagnostics).toEqual([]));

test("a while loop's tape is reused by the next call: a call after the first allocates nothing that grows with the trip count", () => {
  // The tree walk stores 8 numbers per node: 16,376 at n = 2,047, in 11 doublings before.
  const walkAt = (n: number) => {
    const w = tree(n);
    m.gWalk(w, 0.3);
    return allocations(() => m.gWalk(w, 0.3));
  };
  const [small, large] = [walkAt(63), walkAt(2047)];
  expect(large.count).toBe(small.count);
  expect(large.elements).toBeLessThan(2 * 2047 + 256);
  // Two writes per iteration, 6 numbers each: 60,000 at 10⁴ steps.
  const x = Float64Array.from({ length: 8 }, (_, k) => Math.sin(k));
  const twoAt = (steps: number) => {
    m.gTwo(x, steps);
    return allocations(() => m.gTwo(x, steps));
  };
  const [few, many] = [twoAt(10), twoAt(10_000)];
  expect(many.count).toBe(few.count);
  expect(many.elements).toBeLessThan(256);
});

test('a reused tape never leaks into the next call: large, small, zero-trip and large again agree with finite differences', () => {
  for (const n of [255, 3, 1, 40, 255]) {
    const w = tree(n);
    const [gw, gx] = m.gWalk(w, 0.3);
    expectClose([...Array.from(gw as Float64Array), gx], [...fdAll(m.walk, [w, 0.3], 0), fd(m.walk, [w, 0.3], 1)], 1e-6);
  }
  for (const [n, steps] of [
    [9, 500],
    [9, 0],
    [2, 3],
    [9, 41],
    [5, 0],
  ]) {
    const x = Float64Array.from({ length: n }, (_, k) => 0.5 * Math.sin(k + steps));
    expectClose(Array.from(m.gTwo(x, steps) as Float64Array), fdAll(m.twoWrites, [x, steps], 0), 1e-6);
  }
});

test("a gradient that runs inside another's evaluation (and its own) gets a tape of its own", () => {
  // Math.sin runs in the tree walk's forward pass, while its tape is half written: a wrapped
  // sin that computes gradients (the walk's own, and the other function's) before it answers
  // reenters the module's derivatives, two deep.
  const w = tree(31);
  const x = Float64Array.from({ length: 6 }, (_, k) => Math.cos(k));
  const alone = m.gWalk(w, 0.3);
  const expected = [...Array.from(alone[0] as Float64Array), alone[1]];
  const inner = Array.from(m.gTwo(x, 30) as Float64Array);
  const sin = Math.sin;
  let depth = 0;
  const nested: [number, number[], number[]][] = [];
  Math.sin = (v: number) => {
    if (depth < 2) {
      depth++;
      const [gw, gx] = m.gWalk(tree(15 + 16 * depth), 0.2 * depth);
      nested.push([depth, [...Array.from(gw as Float64Array), gx], Array.from(m.gTwo(x, 30) as Float64Array)]);
      depth--;
    }
    return sin(v);
  };
  let got: number[];
  try {
    const [gw, gx] = m.gWalk(w, 0.3);
    got = [...Array.from(gw as Float64Array), gx];
  } finally {
    Math.sin = sin;
  }
  expect(got).toEqual(expected);
  expect(new Set(nested.map(([d]) => d))).toEqual(new Set([1, 2]));
  for (const [d, walked, two] of nested) {
    const [gw, gx] = m.gWalk(tree(15 + 16 * d), 0.2 * d);
    expect(walked).toEqual([...Array.from(gw as Float64Array), gx]);
    expect(two).toEqual(inner);
  }
  expectClose(expected, [...fdAll(m.walk, [w, 0.3], 0), fd(m.walk, [w, 0.3], 1)], 1e-6);
});

test('a derivative that hands its tape out (the forward half of vjp) keeps a slab of its own; a whole gradient takes one from the pool', () => {
  const { exports: v, result: r } = load(
    `import { grad, vjp } from 'tsad';\n${SOURCE}\nexport const g = grad(walk, { wrt: [0, 1] });\nexport const pull = (w: Float64Array, x: number) => vjp(walk, w, x);\n`,
  );
  expect(r.diagnostics).toEqual([]);
  const body = (name: string) => {
    const start = r.outputText.indexOf(`function ${name}(`);
    return r.outputText.slice(start, r.outputText.indexOf('\n}', start));
  };
  expect(body('walk$fwd')).toMatch(/const \$slab = \{ chunk: new Float64Array\(0\), top: 0 \}/);
  expect(body('walk$grad')).toMatch(/const \$slab = tsad\$take\(\)/);
  expect(body('walk$grad')).toMatch(/return tsad\$give\(\$slab, /);
  // The tapes vjp handed out stay intact while gradients run in between.
  const w = tree(63);
  const [, back1] = v.pull(w, 0.3);
  const [, back2] = v.pull(tree(127), 0.1);
  v.g(tree(255), 0.7);
  const [gw, gx] = back1(1);
  expectClose([...Array.from(gw as Float64Array), gx], [...fdAll(m.walk, [w, 0.3], 0), fd(m.walk, [w, 0.3], 1)], 1e-6);
  const [hw] = back2(2);
  expectClose(
    Array.from(hw as Float64Array),
    fdAll(m.walk, [tree(127), 0.1], 0).map((d) => 2 * d),
    1e-6,
  );
});

test('a counted tape between half and all of what the pool keeps (2.56 M numbers) is allocated once, not on every call', () => {
  // The tape is presized to its full length after the first outer iteration: growing a pooled
  // chunk by doubling made one the pool drops (over 4 M numbers), so every other call allocated
  // and zeroed it again.
  const { exports: c, result: r } = load(`import { grad } from 'tsad';
/** @differentiable */
export function rows(x: Float64Array, w: Float64Array, n: number): number {
  let s = 0;
  for (let t = 0; t < n; t++) {
    for (let i = 0; i < w.length; i++) s += Math.sin(w[i] * x[t]);
  }
  return s;
}
export const g = grad(rows, { wrt: [0, 1] });
`);
  expect(r.diagnostics).toEqual([]);
  const x = Float64Array.from({ length: 5000 }, (_, k) => Math.cos(k));
  const w = Float64Array.from({ length: 512 }, (_, k) => 0.01 * Math.sin(k));
  const first = c.g(x, w, 5000);
  c.g(x, w, 5000);
  c.g(x, w, 5000);
  let again: Float64Array[] = [];
  const made = allocations(() => {
    again = c.g(x, w, 5000);
  });
  // The gradient's own results (x̄, w̄) and the calls' small stacks; the tape is 2,560,000 numbers.
  expect(made.elements).toBeLessThan(5000 + 512 + 100_000);
  expect(again.map((a) => Array.from(a))).toEqual(first.map((a: Float64Array) => Array.from(a)));
  // Small enough to check against central differences: the same function at n = 3, w of 4.
  const xs = Float64Array.from({ length: 3 }, (_, k) => Math.cos(k));
  const ws = Float64Array.from({ length: 4 }, (_, k) => Math.sin(k));
  const plain = (a: Float64Array, b: Float64Array) => {
    let s = 0;
    for (let t = 0; t < 3; t++) for (let i = 0; i < b.length; i++) s += Math.sin(b[i] * a[t]);
    return s;
  };
  const [gx, gw] = c.g(xs, ws, 3);
  expectClose(Array.from(gx as Float64Array), fdAll(plain, [xs, ws], 0), 1e-6);
  expectClose(Array.from(gw as Float64Array), fdAll(plain, [xs, ws], 1), 1e-6);
});

test('residual stacks reserved one per value (5 × 600,000 numbers, between half and all of what the pool keeps) are allocated once, not on every other call', () => {
  // Each stack is cut from the slab as the loop starts; the fifth did not fit the chunk the
  // pool kept and doubled it past the pool's limit, so the chunk was dropped again.
  const { exports: c, result: r } = load(`import { grad } from 'tsad';
/** @differentiable */
export function chainRule(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const a = Math.sin(x[i]);
    const b = Math.exp(a * x[i]);
    s += Math.log(1 + b * b) * Math.tanh(a);
  }
  return s;
}
export const g = grad(chainRule);
`);
  expect(r.diagnostics).toEqual([]);
  expect(r.outputText.match(/tsad\$reserve\(\$slab, n\)/g)).toHaveLength(5);
  const x = Float64Array.from({ length: 600_000 }, (_, k) => 0.5 * Math.cos(k));
  const first = c.g(x) as Float64Array;
  c.g(x);
  c.g(x);
  let again = new Float64Array(0);
  const made = allocations(() => {
    again = c.g(x);
  });
  // The gradient itself (600,000 numbers); the tape is 3,000,000.
  expect(made.elements).toBeLessThan(600_000 + 1000);
  expect(again).toEqual(first);
  const xs = Float64Array.from({ length: 4 }, (_, k) => 0.5 * Math.cos(k));
  expectClose(Array.from(c.g(xs) as Float64Array), fdAll(c.chainRule, [xs], 0), 1e-6);
});
