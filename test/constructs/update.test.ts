// Writes into arrays (constructs/array/update.ts, opt/inplace.ts): update has value semantics, its
// tangent lupdate and cotangent ltake are a transpose pair, and the backend's in-place pass keeps
// every value while making a loop of writes cost O(1) per write. Checked with the interpreter's
// work counter, central differences, the dot-product test and the emitted TypeScript.
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import type { Program } from '../../transformer/ir/syntax';
import { defArity } from '../../transformer/language/arity';
import { markInPlace } from '../../transformer/opt/inplace';
import { printProgram } from '../../transformer/ir/print';
import { gradOf, jvpOf, transposeOf } from '../gen/drivers';
import { rel } from './reference';
import { emitAndLoad, asReturned } from './emitted';

const source = `
// Σ_i (x_i²)² through an array written element by element, then read back.
def squares(x: array<real> ;) -> (real ;) {
  let n = len(x) []
  let zero = 0
  let out = fill(n, zero) []
  let full = loop(n, x, out) [|i: real, u: array<real>, o: array<real> ;| {
    let v = index(u, i) []
    let s = mul(v, v)
    update(o, i, s) []
  }]
  let acc = 0
  loop(n, full, acc) [|j: real, w: array<real>, a: real ;| {
    let y = index(w, j) []
    let yy = mul(y, y)
    add(a, yy)
  }]
}

// p_i = p_{i-1}·x_i + x_i (p_{-1} = 1): each write reads the element written before it.
def prefix(x: array<real> ;) -> (real ;) {
  let n = len(x) []
  let zero = 0
  let p = fill(n, zero) []
  let one = 1
  let (q, last) = loop(n, x, p, one) [|i: real, u: array<real>, o: array<real>, prev: real ;| {
    let v = index(u, i) []
    let m = mul(prev, v)
    let s = add(m, v)
    let o2 = update(o, i, s) []
    (o2, s)
  }]
  drop(last)
  sum(q) []
}

// The prefix recurrence again, written by a while loop. The condition takes the first operands
// only (the bound and the counter): it reads no array, so dropping none costs nothing per trip.
def whilePrefix(x: array<real> ;) -> (real ;) {
  let n = len(x) []
  let zero = 0
  let p = fill(n, zero) []
  let one = 1
  let (k, y, q, last) = while(n, zero, x, p, one) [|m: real, i: real ;| {
    lt(i, m)
  }, |m: real, i: real, u: array<real>, o: array<real>, prev: real ;| {
    drop(m)
    let v = index(u, i) []
    let mp = mul(prev, v)
    let s = add(mp, v)
    let o2 = update(o, i, s) []
    let step = 1
    let i2 = add(i, step)
    (i2, u, o2, s)
  }]
  drop(k)
  drop(y)
  drop(last)
  sum(q) []
}
`;

const LINEAR = `
def lu(i: real, w: array<real> ; a: array<real>, v: real) -> (; array<real>) {
  lupdate(i, w ; a, v) []
}
def lt(i: real, w: array<real> ; c: array<real>) -> (; array<real>, real) {
  ltake(i, w ; c) []
}
`;

const marked = (p: Program): Program => ({ defs: p.defs.map((d) => markInPlace(d, defArity(new Map(p.defs.map((x) => [x.name, x]))))) });
const values = (n: number, seed: number): number[] => Array.from({ length: n }, (_, i) => 0.5 + 0.4 * Math.sin(seed + 1.7 * i));
const program = (): Program => parseProgram(source, 'update.lina');

describe('update: value semantics and derivatives', () => {
  test('update leaves its operand as it was (a copy), write changes it in place', () => {
    const p = parseProgram(`
def both(a: array<real> ;) -> (array<real>, array<real> ;) {
  let i = 1
  let v = 9
  let b = update(a, i, v) []
  (a, b)
}`);
    const r = evalFn(p, 'both', [[1, 2, 3]]);
    expect(r.nl).toEqual([
      [1, 2, 3],
      [1, 9, 3],
    ]);
    // a is read after the update: the pass must leave it a copy.
    expect(printProgram(marked(p))).toContain('update(a, i, v)');
    expect(() => evalFn(p, 'both', [[1]])).toThrow(/update: index 1 outside an array of 1/);
  });

  test.each(['squares', 'prefix'])('%s: the gradient against central differences and against JVPs, lengths 0, 1, 6', (fn) => {
    const g = gradOf(program(), fn, { simplify: true });
    const jv = jvpOf(program(), fn);
    for (const n of [0, 1, 6]) {
      const x = values(n, 1);
      const grad = evalFn(g.program, `${fn}.grad`, [x]).nl[0] as number[];
      for (let k = 0; k < n; k++) {
        const h = 1e-6;
        const at = (s: number) => evalFn(program(), fn, [x.map((v, j) => (j === k ? v + s * h : v))]).nl[0] as number;
        expect(rel(grad[k] ?? 0, (at(1) - at(-1)) / (2 * h))).toBeLessThan(1e-6);
        const dir = x.map((_, j) => (j === k ? 1 : 0));
        expect(rel(grad[k] ?? 0, evalFn(jv.program, jv.jvp, [x], [dir]).lin[0] as number)).toBeLessThan(1e-12);
      }
    }
  });

  test('squares: the gradient is 4·x³ exactly (a closed form)', () => {
    const g = gradOf(program(), 'squares', { simplify: true });
    const x = [1, -2, 0.5];
    expect(evalFn(g.program, 'squares.grad', [x]).nl[0]).toEqual(x.map((v) => 4 * v * v * v));
  });
});

describe('lupdate and ltake', () => {
  const inner = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * (b[i] ?? 0), 0);
  test.each([
    [0, [0.5, -1, 3, 2]],
    [2, [0.5, -1, 3, 2]],
    [3, [0.5]],
    [2, []],
  ] as [number, number[]][])('at %d of %j: the dot-product test both ways, and T∘T = id', (i, a) => {
    const w = [0, 0, 0, 0];
    const t = transposeOf(parseProgram(LINEAR), 'lu');
    const yb = [0.25, 2, -1, 4];
    const lx = evalFn(t.program, 'lu', [i, w], [a, 0.7]).lin[0] as number[];
    const [aBar, vBar] = evalFn(t.program, 'lu.T', [i, w], [yb]).lin as [number[], number];
    expect(rel(inner(lx, yb), inner(aBar, a) + 0.7 * vBar)).toBeLessThan(1e-12);
    // lupdate is ȧ with element i replaced: ⟨ȳ, ·⟩ drops ȧ_i and adds v̇·ȳ_i.
    expect(vBar).toBe(yb[i]);
    expect(aBar[i]).toBe(0);
    const tt = transposeOf(t.program, 'lu.T');
    expect(evalFn(tt.program, 'lu.T.T', [i, w], [a, 0.7]).lin[0]).toEqual(lx);
    const s = transposeOf(parseProgram(LINEAR), 'lt');
    const [ca, cv] = evalFn(s.program, 'lt', [i, w], [a]).lin as [number[], number];
    const back = evalFn(s.program, 'lt.T', [i, w], [yb, 1.5]).lin[0] as number[];
    expect(rel(inner(ca, yb) + cv * 1.5, inner(a, back))).toBeLessThan(1e-12);
  });

  test("a caller's cotangent is never changed: ltake copies what it does not own", () => {
    const s = transposeOf(parseProgram(LINEAR), 'lt');
    const c = [1, 2, 3];
    const [rest, taken] = evalFn(s.program, 'lt', [1, [0, 0, 0]], [c]).lin;
    expect(rest).toEqual([1, 0, 3]);
    expect(taken).toBe(2);
    expect(c).toEqual([1, 2, 3]);
  });
});

describe('in place (opt/inplace.ts)', () => {
  const work = (p: Program, fn: string, n: number) => evalFn(p, fn, [values(n, 2)]).work;

  test('a loop of writes costs O(1) per write once marked, O(n) per write as copies (the pass matters)', () => {
    for (const fn of ['squares', 'prefix', 'whilePrefix']) {
      const copies = [64, 512].map((n) => work(program(), fn, n) / n);
      expect(copies[1] / copies[0]).toBeGreaterThan(6);
      const inPlace = [64, 512, 4096].map((n) => work(marked(program()), fn, n) / n);
      expect(Math.max(...inPlace) / Math.min(...inPlace)).toBeLessThan(1.1);
    }
  });

  test.each(['squares', 'prefix', 'whilePrefix'])('%s: W(grad)/W(f) stays bounded from n = 64 to 4096, with the same values as without the pass', (fn) => {
    const g = gradOf(program(), fn, { simplify: true }).program;
    const m = marked(g);
    expect(printProgram(m)).toContain('write(');
    const ratios = [64, 512, 4096].map((n) => work(m, `${fn}.grad`, n) / work(marked(program()), fn, n));
    for (const r of ratios) expect(r).toBeLessThan(10);
    expect(Math.max(...ratios) / Math.min(...ratios)).toBeLessThan(1.2);
    const x = values(7, 3);
    expect(evalFn(m, `${fn}.grad`, [x]).nl).toEqual(evalFn(g, `${fn}.grad`, [x]).nl);
  });

  test('a version still needed after the write stays a copy; a loop whose carried array is shared gets one clone', () => {
    const p = parseProgram(`
def keep(x: array<real> ;) -> (real ;) {
  let n = len(x) []
  let zero = 0
  let one = 1
  let y = update(x, zero, one) []
  let z = loop(n, y) [|i: real, o: array<real> ;| {
    let two = 2
    update(o, i, two) []
  }]
  let a = sum(y) []
  let b = sum(z) []
  add(a, b)
}`);
    const m = marked(p);
    const text = printProgram(m);
    // x is the caller's: copied; y is read after the loop: the loop gets a clone, its body writes.
    expect(text).toContain('update(x, zero, one)');
    expect(text).toMatch(/clone\(y\)/);
    expect(text).toContain('write(o, i, two)');
    const x = [5, 6, 7];
    expect(evalFn(m, 'keep', [x]).nl).toEqual(evalFn(p, 'keep', [x]).nl);
    expect(evalFn(m, 'keep', [x]).nl[0]).toBe(1 + 6 + 7 + 6);
    expect(x).toEqual([5, 6, 7]);
  });

  test('the emitted TypeScript agrees with the interpreter (functions and gradients) and leaves inputs alone', () => {
    let p = program();
    for (const fn of ['squares', 'prefix']) p = gradOf(p, fn, { simplify: true }).program;
    const { code, fns } = emitAndLoad(p);
    expect(code).not.toMatch(/o\.slice\(\)/);
    for (const fn of ['squares', 'prefix', 'squares.grad', 'prefix.grad']) {
      for (const n of [0, 1, 5]) {
        const x = values(n, 4);
        const input = Float64Array.from(x);
        const got = fns.get(fn)!(input);
        const want = asReturned(evalFn(p, fn, [x]));
        const plain = (v: unknown): unknown => (v instanceof Float64Array ? [...v] : Array.isArray(v) ? v.map(plain) : v);
        const a = plain(got) as number | number[];
        const b = plain(want) as number | number[];
        if (typeof b === 'number') expect(rel(a as number, b)).toBeLessThan(1e-12);
        else (b as number[]).forEach((v, k) => expect(rel((a as number[])[k] ?? 0, v)).toBeLessThan(1e-12));
        expect([...input]).toEqual(x);
      }
    }
  });
});
