// The worked examples of the notes (§7), end to end through J, U, T and E, with their numbers
// and work counts.
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import { printDef } from '../../transformer/ir/print';
import { jvpOf, linearizeOf, vjpOf, gradOf, hvpOf, transposeOf } from '../gen/drivers';
import { findDef } from '../../transformer/ir/program';
import * as fs from 'fs';
import * as path from 'path';

const example = (f: string) => fs.readFileSync(path.join(__dirname, '../../examples/ir', f), 'utf8');
const grad = (src: string, fn: string, x: number[], policy: 'save' | 'recompute' = 'save') => {
  const g = gradOf(parseProgram(src), fn, { policy });
  return evalFn(g.program, g.grad, x).nl as number[];
};

describe('notes §7.A: gradients from the prototype test suite', () => {
  test.each([
    ['add', 'def add(x: real, y: real ;) -> (real ;) { add(x, y) }', 'add', [2, 2], [1, 1]],
    ['a call', 'def add(x: real, y: real ;) -> (real ;) { add(x, y) }\ndef f(x: real, y: real ;) -> (real ;) { let z = add(x, y) in (z ;) }', 'f', [2, 2], [1, 1]],
    ['x + x needs a dup', 'def double(x: real ;) -> (real ;) { add(x, x) }', 'double', [4], [2]],
    ['square through tuples', 'def square(x: real ;) -> (real ;) { let y = <x, x> in let <x1, x2> = y in mul(x1, x2) }', 'square', [3], [6]],
    ['a literal has no tangent', 'def add_1(x: real ;) -> (real ;) { let one = 1 in add(x, one) }', 'add_1', [3], [1]],
    ['drops are respected', 'def f(x: real ;) -> (real ;) { let () = drop(mul(x, x)) in let one = 1 in add(x, one) }', 'f', [3], [1]],
  ])('%s', (_, src, fn, x, expected) => {
    expect(grad(src as string, fn as string, x as number[])).toEqual(expected);
  });

  test('matvec composed with specific: (77, 382) at (2, 3), primal 650', () => {
    const src = example('matvec.lina');
    expect(grad(src, 'specific', [2, 3])).toEqual([77, 382]);
    expect(grad(src, 'specific', [2, 3], 'recompute')).toEqual([77, 382]);
    const v = vjpOf(parseProgram(src), 'specific');
    const fwd = evalFn(v.program, v.fwd, [2, 3]);
    expect(fwd.nl[0]).toBe(650);
    expect(evalFn(v.program, v.bwd, [fwd.nl[1]], [1]).lin).toEqual([77, 382]);
    expect(findDef(v.program, v.bwd).nlResults).toEqual([]);
  });
});

test('§7.B: the JVP of sin² x + cos² x is 0', () => {
  const src = 'def f(x: real ;) -> (real ;) { let s = sin(x) in let c = cos(x) in let s2 = mul(s, s) in let c2 = mul(c, c) in add(s2, c2) }';
  const { program, jvp } = jvpOf(parseProgram(src), 'f');
  const r = evalFn(program, jvp, [2], [2]);
  expect(r.nl[0]).toBeCloseTo(1, 15);
  expect(Math.abs(r.lin[0] as number)).toBeLessThan(1e-15);
});

test("§7.C/E: sin unzipped, then transposed: cos 0.5, with the paper's work counts", () => {
  const p = parseProgram('def f(x: real ;) -> (real ;) { let y = sin(x) in (y ;) }');
  const { program, fwd, lin } = linearizeOf(p, 'f');
  const r = evalFn(program, fwd, [2]);
  expect(evalFn(program, lin, [r.nl[1]], [2]).lin).toEqual(evalFn(program, 'f.jvp', [2], [2]).lin);
  const v = vjpOf(p, 'f');
  const r2 = evalFn(v.program, v.fwd, [0.5]);
  const back = evalFn(v.program, v.bwd, [r2.nl[1]], [1]);
  expect(back.lin[0]).toBe(0.8775825618903728);
  expect(evalFn(p, 'f', [0.5]).work).toBe(1);
  expect(evalFn(v.program, 'f.jvp', [0.5], [1]).work).toBe(3);
  expect(r2.work + evalFn(v.program, 'f.lin', [r2.nl[1]], [1]).work).toBe(3);
  expect(back.work).toBe(1);
});

test('§7.F: x·y + sin x at (1, 2) gives (2.5403023058681398, 1); W(f) = 3, W(J f) = 9, W(f.bwd) = 4', () => {
  const src = example('prodsin.lina');
  expect(grad(src, 'f', [1, 2])).toEqual([2.5403023058681398, 1]);
  const v = vjpOf(parseProgram(src), 'f');
  const fw = evalFn(v.program, v.fwd, [1, 2]);
  expect(evalFn(v.program, 'f', [1, 2]).work).toBe(3);
  expect(evalFn(v.program, 'f.jvp', [1, 2], [1, 0]).work).toBe(9);
  expect(fw.work + evalFn(v.program, 'f.lin', [fw.nl[1]], [1, 0]).work).toBe(9);
  const bwd = evalFn(v.program, v.bwd, [fw.nl[1]], [1]);
  expect(bwd.work).toBe(4);
  // Thm 7.1 with n = 2, m = 1: 4 + 2 <= 5 + 1.
  expect(bwd.work + 2).toBeLessThanOrEqual(evalFn(v.program, 'f.lin', [fw.nl[1]], [1, 0]).work + 1);
});

test('§7.G: repeated squaring, saved or recomputed: same numbers, smaller tape, more work', () => {
  const src = example('squaring.lina');
  const expected = 8 * 1.1 ** 7;
  const save = vjpOf(parseProgram(src), 'f', { policy: 'save' });
  const recompute = vjpOf(parseProgram(src), 'f', { policy: 'recompute' });
  const tapeOf = (v: typeof save) => evalFn(v.program, v.fwd, [1.1]).nl[1] as number[];
  expect(tapeOf(save)).toHaveLength(3);
  expect(tapeOf(recompute)).toHaveLength(1);
  const run = (v: typeof save) => {
    const fw = evalFn(v.program, v.fwd, [1.1]);
    const bw = evalFn(v.program, v.bwd, [fw.nl[1]], [1]);
    return { value: fw.nl[0] as number, grad: bw.lin[0] as number, work: fw.work + bw.work };
  };
  const a = run(save);
  const b = run(recompute);
  expect(a.value).toBeCloseTo(2.14358881, 8);
  expect(a.grad).toBeCloseTo(expected, 6);
  expect(b.grad).toBe(a.grad);
  expect(b.work).toBeGreaterThan(a.work);
  expect(grad(src, 'f', [1.1], 'recompute')).toEqual(grad(src, 'f', [1.1]));
});

test('§7.H: exp(sin x)·x at 0.3', () => {
  const src = 'def f(x: real ;) -> (real ;) { let s = sin(x) in let e = exp(s) in mul(e, x) }';
  const p = parseProgram(src);
  expect(evalFn(p, 'f', [0.3]).nl[0]).toBeCloseTo(0.403147573119496, 14);
  expect(grad(src, 'f', [0.3])[0]).toBeCloseTo(1.7289668308351411, 14);
});

test('§7.I: leaf transposes satisfy the adjoint identity', () => {
  const src = [
    'def fan(; x: real) -> (; real, real) { dup(x) }',
    'def sum(; a: real, b: real) -> (; real) { ladd(; a, b) }',
    'def sc(u: real ; x: real) -> (; real) { scale(u ; x) }',
    'def z(; x: real) -> (; real) { drop(x) in zero(real) }',
    'def tup(; a: real, b: real) -> (; <real, real>) { <; a, b> }',
    'def neg(; a: real) -> (; real) { lneg(; a) }',
  ].join('\n');
  const p = parseProgram(src);
  const dot = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * b[i], 0);
  const flatten = (v: unknown): number[] => (Array.isArray(v) ? v.flatMap(flatten) : [v as number]);
  const cases: [string, number[], number[], number[]][] = [
    ['fan', [], [1.5], [2, -3]],
    ['sum', [], [1.5, -0.5], [2]],
    ['sc', [0.7], [1.5], [2]],
    ['z', [], [1.5], [2]],
    ['neg', [], [1.5], [2]],
  ];
  for (const [fn, u, x, y] of cases) {
    const t = transposeOf(p, fn);
    const fx = flatten(evalFn(t.program, fn, u, x).lin);
    const ty = flatten(evalFn(t.program, t.transposed, u, y).lin);
    expect(dot(fx, y)).toBeCloseTo(dot(x, ty), 14);
  }
  const t = transposeOf(p, 'tup');
  expect(evalFn(t.program, t.transposed, [], [[2, 3]]).lin).toEqual([2, 3]);
});

test('linearTranspose works on any well-typed linear function, not only AD output', () => {
  const p = parseProgram(`def rot(c: real, s: real ; v: <real, real>) -> (; <real, real>) {
    let <; x, y> = v
    let (; x1, x2) = dup(x)
    let (; y1, y2) = dup(y)
    let (; a) = scale(c ; x1)
    let (; b) = scale(s ; y1)
    let (; nb) = lneg(; b)
    let (; r1) = ladd(; a, nb)
    let (; d) = scale(s ; x2)
    let (; e) = scale(c ; y2)
    let (; r2) = ladd(; d, e)
    <; r1, r2>
  }`);
  const t = transposeOf(p, 'rot');
  // The transpose of a rotation is the inverse rotation.
  const c = Math.cos(0.3);
  const s = Math.sin(0.3);
  const r = evalFn(t.program, t.transposed, [c, s], [[c * 1 - s * 2, s * 1 + c * 2]]).lin[0] as number[];
  expect(r[0]).toBeCloseTo(1, 14);
  expect(r[1]).toBeCloseTo(2, 14);
  expect(printDef(findDef(t.program, 'rot.T'))).toMatch(/def rot\.T\(c: real, s: real ; /);
});

test('Hessian-vector products by forward-over-reverse', () => {
  // f(x, y) = x²y + sin(x)·y³: H = [[2y − sin x·y³, 2x + 3cos x·y²], [2x + 3cos x·y², 6 sin x·y]]
  const src = 'def f(x: real, y: real ;) -> (real ;) { let x2 = mul(x, x) in let a = mul(x2, y) in let s = sin(x) in let y2 = mul(y, y) in let y3 = mul(y2, y) in let b = mul(s, y3) in add(a, b) }';
  const { program, hvp } = hvpOf(parseProgram(src), 'f');
  const [x, y] = [0.7, 1.3];
  const H = [
    [2 * y - Math.sin(x) * y ** 3, 2 * x + 3 * Math.cos(x) * y ** 2],
    [2 * x + 3 * Math.cos(x) * y ** 2, 6 * Math.sin(x) * y],
  ];
  const v = [0.4, -1.1];
  const r = evalFn(program, hvp, [x, y, ...v]).nl as number[];
  expect(r[0]).toBeCloseTo(H[0][0] * v[0] + H[0][1] * v[1], 12);
  expect(r[1]).toBeCloseTo(H[1][0] * v[0] + H[1][1] * v[1], 12);
});

test('driver errors are clear', () => {
  const p = parseProgram('def f(x: real ;) -> (real, real ;) { (x, x ;) }');
  expect(() => gradOf(p, 'f')).toThrow(/grad needs a function with one real result; f returns \(real, real\)/);
  expect(() => gradOf(p, 'nope')).toThrow(/no function named nope/);
  expect(() => transposeOf(p, 'f')).toThrow(/cannot transpose f: it has non-linear results/);
});
