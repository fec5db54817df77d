// The interpreter and its work counter (notes §2.5).
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';

const run = (src: string, fn: string, nl: unknown[], lin: unknown[] = []) => evalFn(parseProgram(src), fn, nl as never, lin as never);

test('values and calls', () => {
  const src = 'def add(x: real, y: real ;) -> (real ;) { add(x, y) }\ndef f(x: real, y: real ;) -> (real, <real, real> ;) { let z = add(x, y) in let t = <z, x> in (z, t ;) }';
  expect(run(src, 'f', [2, 3])).toEqual({ nl: [5, [5, 2]], lin: [], work: 1 });
});

test('work: primitives 1, linear primitives 1 per scalar, drop 1 per scalar plus its work, the rest free', () => {
  expect(run('def f(x: real ;) -> (real ;) { let y = sin(x) in let z = cos(y) in (z ;) }', 'f', [1]).work).toBe(2);
  expect(run('def f(; v: <real, <real, real>>) -> (; <real, <real, real>>) { lneg(; v) }', 'f', [], [[1, [2, 3]]])).toEqual({ nl: [], lin: [[-1, [-2, -3]]], work: 3 });
  expect(run('def f(u: real ; v: <real, real>) -> (; <real, real>) { scale(u ; v) }', 'f', [2], [[1, 3]])).toEqual({ nl: [], lin: [[2, 6]], work: 2 });
  expect(run('def f(x: real ;) -> (real ;) { let () = drop({ let t = <x, x> in let s = sin(x) in (t, s ;) }) in (x ;) }', 'f', [1]).work).toBe(1 + 3);
  expect(run('def f(; x: real) -> (; real, real) { let (; a, b) = dup(x) in let (; z) = zero(real) in let (; c) = ladd(; b, z) in (; a, c) }', 'f', [], [4]).work).toBe(1);
});

test('arguments are validated against the signature', () => {
  const src = 'def f(x: real, t: <real, real> ;) -> (real ;) { let <a, b> = t in let c = add(a, b) in add(c, x) }';
  expect(() => run(src, 'f', [1])).toThrow(/f takes 2 non-linear argument\(s\), got 1/);
  expect(() => run(src, 'f', [1, [1]])).toThrow(/argument t of f must be <real, real>/);
  expect(() => run(src, 'g', [1])).toThrow(/no function named g/);
});
