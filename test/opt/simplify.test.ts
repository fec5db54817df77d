// The simplifier's algebraic folds (x·1, x/1, x−0, pow(x, 1), pow(x, 0), select/and/or with a
// literal, shared literals) must be exact for every input: NaN, infinities and signed zeros
// included. Random programs built from exactly those corner values are evaluated before and after
// simplification and compared with Object.is.
import fc from 'fast-check';
import { BOOL, Binder, Expr, REAL, binder, block, letS, lit, prim, ret } from '../../transformer/ir/syntax';
import { restoreLinearity } from '../../transformer/ir/linearity';
import { simplifyDef } from '../../transformer/opt/simplify';
import { annotateTypes, checkProgram } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { printDef } from '../../transformer/ir/print';
import { parseProgram } from '../../transformer/language/parse';

const REALS = [0, -0, 1, -1, 2, 0.5, NaN, Infinity, -Infinity];
const REAL_OPS = ['add', 'sub', 'mul', 'div', 'pow', 'sin', 'neg'] as const;
const BOOL_OPS = ['and', 'or', 'not', 'lt', 'eq'] as const;

type Step = { kind: number; a: number; b: number; c: number; v: number };

function build(steps: readonly Step[]) {
  const reals: string[] = ['x'];
  const bools: string[] = ['p'];
  const stmts: { b: Binder; rhs: Expr }[] = [];
  let n = 0;
  const pickR = (i: number) => reals[i % reals.length];
  const pickB = (i: number) => bools[i % bools.length];
  for (const s of steps) {
    const name = `t${n++}`;
    switch (s.kind % 6) {
      case 0:
        stmts.push({ b: binder(name, REAL), rhs: lit(REALS[s.v % REALS.length]) });
        reals.push(name);
        break;
      case 1:
        stmts.push({ b: binder(name, BOOL), rhs: lit(s.v % 2 === 0) });
        bools.push(name);
        break;
      case 2: {
        const op = REAL_OPS[s.v % REAL_OPS.length];
        const args = op === 'sin' || op === 'neg' ? [pickR(s.a)] : [pickR(s.a), pickR(s.b)];
        stmts.push({ b: binder(name, REAL), rhs: prim(op, args) });
        reals.push(name);
        break;
      }
      case 3: {
        const op = BOOL_OPS[s.v % BOOL_OPS.length];
        const args = op === 'not' ? [pickB(s.a)] : op === 'and' || op === 'or' ? [pickB(s.a), pickB(s.b)] : [pickR(s.a), pickR(s.b)];
        stmts.push({ b: binder(name, BOOL), rhs: prim(op, args) });
        bools.push(name);
        break;
      }
      default:
        stmts.push({ b: binder(name, REAL), rhs: prim('select', [pickB(s.c), pickR(s.a), pickR(s.b)]) });
        reals.push(name);
    }
  }
  // Every value is a result, so a wrong fold anywhere shows.
  const body = block(
    stmts.map((s) => letS([s.b], [], s.rhs)),
    ret([...reals, ...bools]),
  );
  return restoreLinearity({ name: 'f', nlParams: [binder('x', REAL), binder('p', BOOL)], linParams: [], nlResults: [...reals.map(() => REAL), ...bools.map(() => BOOL)], linResults: [], body });
}

const step = fc.record({ kind: fc.nat(), a: fc.nat(), b: fc.nat(), c: fc.nat(), v: fc.nat() });

test('folding is exact on NaN, infinities and signed zeros', () => {
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 14 }), fc.constantFrom(...REALS), fc.boolean(), (steps, x, p) => {
      const d = build(steps);
      const simple = annotateTypes({ defs: [simplifyDef(d)] });
      checkProgram(simple);
      const before = evalFn({ defs: [d] }, 'f', [x, p]).nl;
      const after = evalFn(simple, 'f', [x, p]).nl;
      before.forEach((v, i) => expect(Object.is(after[i], v)).toBe(true));
    }),
    { numRuns: 400 },
  );
});

test('identities fold away, literals are shared, nothing else changes', () => {
  const p = parseProgram(`
def f(x: real, c: bool ;) -> (real ;) {
  let one = 1
  let one_again = 1
  let t = true
  let a = mul(x, one)
  let b = div(a, one_again)
  let e = pow(b, one)
  let k = and(c, t)
  let s = select(t, e, x)
  let r = select(k, s, one_again)
  (r ;)
}`);
  expect(printDef(simplifyDef(p.defs[0]))).toBe(`def f(x: real, c: bool ;) -> (real ;) {
  let one = 1
  let r = select(c, x, one)
  (r ;)
}`);
});

test('a signed zero is not an identity for subtraction from zero', () => {
  const p = parseProgram(`
def f(x: real ;) -> (real ;) {
  let z = 0
  let a = sub(z, x)
  (a ;)
}`);
  expect(printDef(simplifyDef(p.defs[0]))).toContain('sub(z, x)');
});

test('results of a cond nobody reads are pruned from both bodies, with what only they needed', () => {
  const p = parseProgram(`
def g(x: real ;) -> (real ;) {
  let t = lt(x, x)
  let (a, b) = cond(t, x) [|u: real ;| {
    let s = sin(u)
    let c = cos(u)
    (s, c ;)
  }, |u: real ;| {
    let e = exp(u)
    let l = log(u)
    (e, l ;)
  }]
  drop(a)
  (b ;)
}`);
  const before = evalFn(p, 'g', [2]);
  const q = { defs: [simplifyDef(annotateTypes(p).defs[0])] };
  checkProgram(q);
  const after = evalFn(q, 'g', [2]);
  expect(after.nl).toEqual(before.nl);
  expect(after.nl[0]).toBe(Math.log(2));
  // lt, exp, log and dropping a; then lt and log: the unread exp (and its drop) is gone.
  expect(before.work).toBe(4);
  expect(after.work).toBe(2);
  expect(printDef(q.defs[0])).not.toContain('exp(');
});
