// Long programs (issue 7, item 5): a straight-line def of many lets, blocks nested deep and call
// chains thousands long go through the parser, checker, interpreter, printer and every driver
// without overflowing the stack, with numbers checked against plain JavaScript dual numbers. The
// straight line and the nested blocks run on a thread with a small stack (smallStack.ts), sized as
// a multiple of the deepest recursion that stack holds: the same overflow a recursing walk would
// meet at 100 000 lets on the main thread, at a tenth of the work. They are differentiated with
// `recheck: false`, as builds do: the other suites re-check every pass, and at this size it would
// only repeat their work.
import { parseProgram } from '../../transformer/language/parse';
import { checkProgram, signatureOf, signatureText } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { printProgram } from '../../transformer/ir/print';
import { printType } from '../../transformer/ir/printType';
import { jvpOf, gradOf } from '../../transformer/ad/drivers';
import { findDef } from '../../transformer/ir/program';
import { nestedConds, nestedLoops, callChain } from '../gen/long';
import type { LongRun } from './longOnSmallStack';
import { inSmallStack } from './smallStack';
import { conforms } from '../../transformer/ir/conforms';
import { NESTING_FOLLOWED, deepestNesting, followingNesting } from '../../transformer/ir/nesting';
import { tupleType, IrError, REAL, Type } from '../../transformer/ir/syntax';

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * (1 + Math.abs(b));

function endToEnd(r: LongRun): void {
  expect({ value: close(r.value, r.reference.value), jvp: close(r.jvp, r.reference.derivative), grad: close(r.grad, r.reference.derivative) }).toEqual({ value: true, jvp: true, grad: true });
  expect(r.reprintSame).toBe(true);
  expect(r.gradLonger).toBe(true);
  // The size is what makes the test: a walk recursing per statement or level overflows on it.
  expect(r.recursionOverflows).toBe(true);
}

// On the main thread a one-frame recursion goes about 11 000 deep: 100 000 lets were nine times
// that, 20 000 levels about twice. The small stack keeps those ratios.
test('a straight-line def nine times longer than the deepest recursion of its stack', async () => {
  const r = await inSmallStack<LongRun>('test/ir/longOnSmallStack.ts', { kind: 'straight', times: 9, x: 0.3 });
  expect(r.deepest).toBeGreaterThan(500);
  expect(r.size).toBeGreaterThanOrEqual(9 * r.deepest);
  endToEnd(r);
}, 300_000);

test('blocks nested twice as deep as the deepest recursion of their stack', async () => {
  const r = await inSmallStack<LongRun>('test/ir/longOnSmallStack.ts', { kind: 'nested', times: 2, x: 0.8 });
  expect(r.deepest).toBeGreaterThan(500);
  expect(r.size).toBe(2 * r.deepest);
  endToEnd(r);
}, 300_000);

test('calls 3 000 deep in the interpreter', () => {
  const g = callChain(3000);
  const p = parseProgram(g.text);
  const r = evalFn(p, g.fn, [0.4]);
  expect(close(r.nl[0] as number, g.reference(0.4).value)).toBe(true);
  // Each level: sin, mul, add; h0: sin.
  expect(r.work).toBe(3 * 2999 + 1);
});

test('a chain of 2 000 functions differentiates in linear time: tape types stay named in keys', () => {
  const g = callChain(2000);
  const p = parseProgram(g.text);
  const r = gradOf(p, g.fn);
  expect(close(evalFn(r.program, r.grad, [0.4]).nl[0] as number, g.reference(0.4).derivative)).toBe(true);
  // The checker's cache key of the top forward half names its tape instead of spelling out the
  // 2 000 nested tapes inside it; printed with names, the tape type is one short line too.
  const fwd = findDef(r.program, `${g.fn}.fwd`);
  expect(signatureText(signatureOf(fwd)).length).toBeLessThan(40);
  expect(printType(fwd.nlResults[1], true)).toBe(`${g.fn}.tape`);
  expect(printType(fwd.nlResults[1]).length).toBeGreaterThan(2000);
}, 120_000);

test('20 000 sequential loops rebinding the same names parse in linear time (renaming was quadratic)', () => {
  const n = 20000;
  const lines = ['def f(a0: real ;) -> (real ;) {'];
  for (let k = 0; k < n; k++) lines.push(`let a${k + 1} = loop(a${k}, a${k}) [|i: real, c: real ;| {`, 'drop(i)', 'sin(c)', '}]');
  lines.push(`(a${n} ;)`, '}');
  // The quadratic search for a free suffix (i_1, i_2, … tried again for every loop) took minutes here.
  const p = parseProgram(lines.join('\n') + '\n');
  const last = p.defs[0].body.stmts[n - 1];
  expect(last.tag === 'let' && last.rhs.tag === 'construct' && last.rhs.bodies[0].nlParams.map((b) => b.name)).toEqual([`i_${n - 1}`, `c_${n - 1}`]);
  checkProgram(p);
}, 120_000);

describe.each([
  ['conditionals', nestedConds],
  ['loops', nestedLoops],
])('%s nested inside each other', (_, gen) => {
  test('5 000 deep: parsed, checked and printed (the checker keeps its own stack of open bodies)', () => {
    const g = gen(5000);
    const p = parseProgram(g.text);
    checkProgram(p);
    expect(deepestNesting(p)).toEqual({ fn: 'f', depth: 5000 });
    const text = printProgram(p);
    expect(printProgram(parseProgram(text))).toBe(text);
  }, 120_000);

  test('5 000 deep: the value and jvp against dual numbers (the interpreter and J keep their own stacks)', () => {
    const g = gen(5000);
    const p = parseProgram(g.text);
    const x = 0.8;
    const ref = g.reference(x);
    expect(close(evalFn(p, g.fn, [x]).nl[0] as number, ref.value)).toBe(true);
    const j = jvpOf(p, g.fn, { recheck: false });
    expect(deepestNesting(j.program).depth).toBe(5000);
    const r = evalFn(j.program, j.jvp, [x], [1]);
    expect(close(r.nl[0] as number, ref.value)).toBe(true);
    expect(close(r.lin[0] as number, ref.derivative)).toBe(true);
  }, 300_000);

  test(`${NESTING_FOLLOWED} deep (what every pass follows): the value, jvp and grad against dual numbers`, () => {
    const g = gen(NESTING_FOLLOWED);
    const p = parseProgram(g.text);
    const x = 0.8;
    const ref = g.reference(x);
    expect(close(evalFn(p, g.fn, [x]).nl[0] as number, ref.value)).toBe(true);
    const j = jvpOf(p, g.fn, { recheck: false });
    expect(close(evalFn(j.program, j.jvp, [x], [1]).lin[0] as number, ref.derivative)).toBe(true);
    const r = gradOf(p, g.fn, { recheck: false });
    expect(close(evalFn(r.program, r.grad, [x]).nl[0] as number, ref.derivative)).toBe(true);
  }, 300_000);

  test('deeper than a pass can follow: an IrError naming the depth, never a RangeError', () => {
    // Every pass tsad has follows 5 000 levels or more here; a walk that recursed per level (as
    // the emitter still does) would overflow, and says so.
    const p = parseProgram(gen(5000).text);
    const recurse = (n: number): number => (n === 0 ? 0 : 1 + recurse(n - 1)) + 0;
    const message = /ran out of stack: f nests construct bodies 5000 deep .*tsad follows 300 levels everywhere, 5000 in the interpreter and J/;
    expect(() => followingNesting('a recursive pass', p, () => recurse(1e7))).toThrow(message);
    expect(() => followingNesting('a recursive pass', p, () => recurse(1e7))).toThrow(IrError);
  }, 120_000);
});

test('a value of a tuple type nested 20 000 deep conforms without recursion (a tape re-checked as an argument)', () => {
  let t: Type = REAL;
  let v: unknown = 1;
  for (let i = 0; i < 20000; i++) {
    t = tupleType([REAL, t]);
    v = [i, v];
  }
  expect(conforms(v as never, t)).toBe(true);
  let w: unknown = true;
  for (let i = 0; i < 20000; i++) w = [i, w];
  expect(conforms(w as never, t)).toBe(false);
});
