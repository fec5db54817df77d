// The linear type checker against the prototype's fixtures (notes §7.D) and the negative
// cases of §6.1; each rejection must name the variable and the rule.
import { parseProgram } from '../../transformer/language/parse';
import { typeErrors, checkProgram, annotateTypes } from '../../transformer/language/check';
import { printProgram } from '../../transformer/ir/print';

const errs = (src: string, linearB: string[] = []) => typeErrors(parseProgram(src), { linearB });

describe('accepts (notes §7.D)', () => {
  test.each([
    ['x + 0', 'def f(; x: real) -> (; real) { let (; z) = zero(real) in ladd(; x, z) }'],
    ['dup then +', 'def f(; x: real) -> (; real) { let (; x0, x1) = dup(x) in ladd(; x0, x1) }'],
    ['two dups', 'def f(; x: real) -> (; real) { let (; x0, x2) = dup(x) in let (; x1, x3) = dup(x2) in let (; s) = ladd(; x1, x3) in ladd(; x0, s) }'],
    ['x + y', 'def f(; x: real, y: real) -> (; real) { ladd(; x, y) }'],
    ['drop a tuple, return 0', 'def f(; x: real, y: real) -> (; real) { let (; t) = <; x, y> in drop(t) in zero(real) }'],
    ['non-linear scaling', 'def f(x: real ; y: real) -> (; real) { scale(x ; y) }'],
    ['implicit non-linear dup', 'def f(x: real ;) -> (real, real ;) { let y = x in (x, y ;) }'],
  ])('%s', (_, src) => expect(errs(src)).toEqual([]));
});

describe('rejects', () => {
  test.each([
    ['(x, x) without dup', 'def f(; x: real) -> (; real, real) { (; x, x) }', /linear variable x is used 2 times; insert dup/],
    ['unused non-linear x', 'def f(x: real ;) -> () { () }', /non-linear variable x is never used; discard it with drop\(x\)/],
    ['f(; x, x)', 'def g(; a: real, b: real) -> (; real) { ladd(; a, b) }\ndef f(; x: real) -> (; real) { g(; x, x) }', /x is passed twice to g; dup it first/],
    ['linear variable in sin', 'def f(; x: real) -> (; real) { let (; y) = sin(x) in y }', /linear variable x cannot be used in the non-linear primitive sin/],
    ['linear x linear', 'def f(; x: real, y: real) -> (; real) { scale(x ; y) }', /linear variable x cannot be used in a coefficient of the linear primitive scale/],
    ['unused linear variable', 'def f(; x: real, y: real) -> (; real) { (; x) }', /linear variable y is never used; consume it or discard it with drop\(y\)/],
    ['call of a later function', 'def f(x: real ;) -> (real ;) { g(x) }\ndef g(x: real ;) -> (real ;) { (x ;) }', /unknown function or primitive g/],
  ])('%s', (_, src, message) => {
    let found: string[];
    try {
      found = errs(src);
    } catch (e) {
      found = [(e as Error).message];
    }
    expect(found.join('\n')).toMatch(message);
  });

  test('Linear B: non-linear code may not read a linear variable, not even to drop it', () => {
    const src = 'def f(u: real ; x: real) -> (; real) { let a = { drop(x) in sin(u) } in scale(a ; x) }';
    expect(errs(src)).toEqual(expect.arrayContaining([expect.stringMatching(/linear variable x is used 2 times/)]));
    const ok = 'def f(u: real ; x: real) -> (; real) { let a = { drop(u) in sin(u) } in scale(a ; x) }';
    expect(errs(ok, ['f'])).toEqual([]);
    const bad = 'def f(u: real ; x: real, y: real) -> (; real) { let a = { drop(y) in sin(u) } in scale(a ; x) }';
    expect(errs(bad)).toEqual([]);
    expect(errs(bad, ['f']).join('\n')).toMatch(/\(Linear B\) the right-hand side of let a computes non-linear results but reads a linear variable/);
  });

  test('Linear B: no mixed results', () => {
    const src = 'def f(u: real ; x: real) -> (real ; real) { (u ; x) }';
    expect(errs(src)).toEqual([]);
    expect(errs(src, ['f']).join('\n')).toMatch(/\(Linear B\) the function returns both non-linear and linear results/);
    const let_ = 'def g(u: real ; x: real) -> (real ; real) { (u ; x) }\ndef f(u: real ; x: real) -> (; real) { let (a ; b) = g(u ; x) in drop(a) in b }';
    expect(errs(let_, ['f']).join('\n')).toMatch(/\(Linear B\) .*both non-linear and linear/);
  });

  test('reports every problem, with the function name', () => {
    const found = errs('def f(; x: real, y: real) -> (; real, real) { (; x, x) }');
    expect(found).toEqual(expect.arrayContaining([expect.stringMatching(/in f: linear variable x is used 2 times/), expect.stringMatching(/in f: linear variable y is never used/)]));
  });

  test('type errors: arity, tuple unpack, primitive arguments, results', () => {
    expect(errs('def f(x: real ;) -> (real ;) { atan2(x) }').join()).toMatch(/atan2 takes 2 argument/);
    expect(errs('def f(x: real ;) -> (real ;) { let <a, b> = x in add(a, b) }').join()).toMatch(/cannot unpack x of type real into 2 names/);
    expect(errs('def f(x: real ;) -> (real ;) { let c = lt(x, x) in sin(c) }').join()).toMatch(/sin expects real arguments/);
    expect(errs('def f(x: real ;) -> (bool ;) { sin(x) }').join()).toMatch(/non-linear value 1 has type real, expected bool/);
    expect(errs('def f(; x: <real, bool>) -> (; real) { drop(x) in zero(real) }').join()).toMatch(/not a vector space/);
    expect(() => checkProgram(parseProgram('def f(; x: real) -> (; real, real) { (; x, x) }'))).toThrow(/insert dup/);
  });
});

test('annotateTypes fills every binder and round-trips through the printer', () => {
  const p = annotateTypes(parseProgram('def f(x: real, t: <real, real> ;) -> (real ;) { let <a, b> = t in let c = mul(a, x) in let d = <c, b> in let <e, g> = d in let h = add(e, g) in (h ;) }'));
  const text = printProgram(p, { types: true });
  expect(text).toContain('let c: real = mul(a, x)');
  expect(text).toContain('let d: <real, real> = <c, b>');
  expect(parseProgram(text)).toEqual(p);
});

test('strings compare only with strings and are never linear', () => {
  const { typeErrors } = require('../../transformer/language/check');
  const { parseProgram } = require('../../transformer/language/parse');
  expect(typeErrors(parseProgram('def f(s: str, x: real ;) -> (bool ;) {\n  let b = eq(s, x)\n  (b ;)\n}')).join('\n')).toMatch(/eq compares two reals, booleans or strings, got str and real/);
  expect(typeErrors(parseProgram('def f(a: bool, b: bool ;) -> (bool ;) {\n  let c = lt(a, b)\n  (c ;)\n}')).join('\n')).toMatch(/lt compares two reals or two strings/);
  expect(typeErrors(parseProgram('def f(; s: str) -> (; str) {\n  (; s)\n}')).join('\n')).toMatch(/linear variable s has type str, which is not a vector space/);
});

describe('type and linearity errors carry file:line:col', () => {
  const at = (src: string) => typeErrors(parseProgram(src, 'p.lina')).join('\n');
  test.each([
    ['a binder used twice: at the binder', 'def f(; x: real) -> (; real) {\n  let (; y) = lneg(; x)\n  let (; z) = ladd(; y, y)\n  (; z)\n}', /^p\.lina:2:10: in f: linear variable y is used 2 times/],
    ['an unused parameter: at the parameter', 'def f(x: real, u: real ;) -> (real ;) {\n  (x ;)\n}', /^p\.lina:1:16: in f: non-linear variable u is never used/],
    ['a primitive type error: at the statement', 'def f(x: real ;) -> (real ;) {\n  let c = lt(x, x)\n  let s = sin(c)\n  (s ;)\n}', /^p\.lina:3:11: in f: sin expects real arguments/],
    ['inside a nested block', 'def f(x: real ;) -> (real ;) {\n  let a = {\n    let b = atan2(x)\n    (b ;)\n  }\n  (a ;)\n}', /^p\.lina:3:13: in f: atan2 takes 2 argument/],
    ['Linear B, at the let', 'def f(u: real ; x: real, y: real) -> (; real) {\n  let a = { drop(y) in sin(u) }\n  scale(a ; x)\n}', /^p\.lina:2:3: in f: \(Linear B\)/],
  ])('%s', (_, src, message) => {
    const text = _ === 'Linear B, at the let' ? typeErrors(parseProgram(src as string, 'p.lina'), { linearB: ['f'] }).join('\n') : at(src as string);
    expect(text).toMatch(message as RegExp);
  });

  test('checkProgram throws them with the position', () => {
    expect(() => checkProgram(parseProgram('def f(; x: real) -> (; real, real) {\n  (; x, x)\n}', 'q.lina'))).toThrow(/^q\.lina:1:9: in f: linear variable x is used 2 times/);
  });
});
