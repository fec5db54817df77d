// The text format: parse/print round trips, error positions.
import fc from 'fast-check';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram, numberText } from '../../transformer/ir/print';
import { nonLinearProgram, linearProgram, choices } from '../gen/programs';
import { jvpOf, vjpOf } from '../gen/drivers';
import * as fs from 'fs';
import * as path from 'path';

test('every example file parses and prints back to an identical program', () => {
  const dir = path.join(__dirname, '../../examples/ir');
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.lina'))) {
    const p = parseProgram(fs.readFileSync(path.join(dir, f), 'utf8'), f);
    expect(parseProgram(printProgram(p, { types: true }))).toEqual(p);
  }
});

test('round trip of generated programs and of every pass output (property)', () => {
  fc.assert(
    fc.property(choices, (xs) => {
      // Parsing renames a rebinding apart, so a generated program that shadows comes back with
      // new names once; from then on the round trip is exact.
      for (const p of [nonLinearProgram(xs), linearProgram(xs)]) {
        const q = parseProgram(printProgram(p, { types: true }));
        expect(parseProgram(printProgram(q, { types: true }))).toEqual(q);
      }
      const p = nonLinearProgram(xs);
      const f = p.defs[p.defs.length - 1].name;
      for (const q of [jvpOf(p, f).program, vjpOf(p, f, { policy: 'recompute' }).program]) {
        // Derived defs never rebind a name: they come back identical even when f shadows.
        const back = parseProgram(printProgram(q, { types: true }));
        q.defs.forEach((d, i) => {
          if (d.name !== f && !/^g\d+$/.test(d.name)) expect(back.defs[i]).toEqual(d);
        });
        expect(parseProgram(printProgram(back, { types: true }))).toEqual(back);
      }
    }),
    { numRuns: 200 },
  );
});

test('numbers print so that they parse back to the same double', () => {
  fc.assert(
    fc.property(fc.double(), (v) => {
      const p = parseProgram(`def f() -> (real ;) { let c = ${numberText(v)} in (c ;) }`);
      const s = p.defs[0].body.stmts[0];
      expect(s.tag === 'let' && s.rhs.tag === 'lit' && Object.is(s.rhs.value, v)).toBe(true);
    }),
    { numRuns: 300 },
  );
});

test('one-line programs with `in` and multi-line programs agree', () => {
  const a = parseProgram('def f(x: real ;) -> (real ;) { let a = sin(x) in let b = mul(a, x) in (b ;) }');
  const b = parseProgram('def f(x: real ;) -> (real ;) {\n  let a = sin(x)\n  let b = mul(a, x)\n  (b ;)\n}');
  expect(a).toEqual(b);
});

test('a name followed by ( on the next line is not a call', () => {
  const p = parseProgram('def f(x: real ;) -> (real ;) {\n  let a = x\n  (a ;)\n}');
  const s = p.defs[0].body.stmts[0];
  expect(s.tag === 'let' && s.rhs.tag).toBe('var');
});

test('construct expressions round-trip: op(v̄ ; v̇̄) [|p̄ ; q̄| { body }, ...]', () => {
  // No construct exists yet: the text is only parsed and printed, never checked or run.
  const text = `def f(x: real, n: real ; y: real) -> (real ; real) {
  let (a ; b) = loop(n ; y) [|i: real ; t: real| {
    let c = sin(i)
    let d = {
      let e = mul(c, x)
      (e ;)
    }
    let (; u) = scale(d ; t)
    (c ; u)
  }, |k: real ;| {
    drop(cond(k) [|| {
      (k ;)
    }, |j: real ;| {
      (j ;)
    }])
  }, |; s: real| {
    (; s)
  }]
  let z = probe(a) []
  (z ; b)
}
`;
  const p = parseProgram(text);
  expect(printProgram(p)).toBe(text);
  expect(printProgram(parseProgram(printProgram(p)))).toBe(text);
  const s = p.defs[0].body.stmts[0];
  expect(s.tag === 'let' && s.rhs.tag === 'construct' && s.rhs.bodies.map((l) => [l.nlParams.length, l.linParams.length])).toEqual([
    [1, 1],
    [1, 0],
    [0, 1],
  ]);
});

describe('errors carry file:line:col', () => {
  test.each([
    ['def f(x: real ;) -> (real ;) {\n  let a = sin(y)\n  (a ;)\n}', /^t\.lina:2:15: unbound variable y/],
    ['def f(x: real ;) -> (real ;) {\n  let a = frob(x)\n  (a ;)\n}', /^t\.lina:2:11: unknown function or primitive frob/],
    ['def f(x: real ;) -> (real ;) {\n  let a = sin(x\n}', /^t\.lina:3:1: expected ',', ';' or '\)'/],
    ['def f(x: real ;) -> (real ;) { let <; a, b> = x in (a ;) }', /^t\.lina:1:47: x is non-linear; unpack it with let <...> = x/],
    ['def f(x: quux ;) -> (real ;) { (x ;) }', /^t\.lina:1:10: unknown type quux/],
    ['def f(x: real ;) -> (real ;) { (x ;) } $', /^t\.lina:1:40: unexpected character '\$'/],
  ])('%s', (src, message) => {
    expect(() => parseProgram(src, 't.lina')).toThrow(message);
  });
});

test('strings: literals with escapes round-trip, compare, select, and carry no tangent', () => {
  const text = `def label(x: real, kind: str ;) -> (real ;) {
  let sin = "sin"
  let odd = "a \\"quoted\\" \\\\ name\\n"
  let is_sin = eq(kind, sin)
  let is_odd = eq(kind, odd)
  let s = sin(x)
  let c = cos(x)
  let y = select(is_sin, s, c)
  let z = select(is_odd, c, y)
  (z ;)
}
`;
  const p = parseProgram(text);
  expect(printProgram(p, { types: true })).toBe(text);
  expect(parseProgram(printProgram(p, { types: true }))).toEqual(p);
  const { program, grad } = require('../gen/drivers').gradOf(p, 'label');
  const { evalFn } = require('../../transformer/language/interp');
  expect(evalFn(program, grad, [0.3, 'sin']).nl[0]).toBeCloseTo(Math.cos(0.3), 14);
  expect(evalFn(program, grad, [0.3, 'cos']).nl[0]).toBeCloseTo(-Math.sin(0.3), 14);
  expect(() => parseProgram('def f(x: real ;) -> (real ;) {\n  let s = "open\n  (x ;)\n}')).toThrow(/unterminated string/);
});
