// J keeps Linear A's usage discipline as it builds (issue 20 item 1): a tangent read by two rules
// gets its dups, a tangent or primal nothing reads its drop, when the block binding it is
// finished (ir/usageBuilder.ts), so no whole-def repair (restoreLinearity) runs after J. These
// tests take J's output as it comes: restoreLinearity returns a def unchanged (the same object)
// exactly when it needs nothing; the numbers are checked against hand derivations.
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { evalFn } from '../../transformer/language/interp';
import { jvpProgram } from '../../transformer/ad/jvp';
import { runPasses } from '../../transformer/ad/drivers';
import { restoreLinearity } from '../../transformer/ir/linearity';
import { findDef } from '../../transformer/ir/program';
import { jvpName } from '../../transformer/ir/names';
import { FnDef, InternalError, Program } from '../../transformer/ir/syntax';
import { printDef } from '../../transformer/ir/print';

/** J of `fn` as the pass builds it, typed, with nothing repaired afterwards. */
function jvpAsBuilt(source: string, fn = 'f'): { program: Program; def: FnDef } {
  const p = annotateTypes(parseProgram(source));
  const program = annotateTypes(jvpProgram(p, [fn]));
  return { program, def: findDef(program, jvpName(fn)) };
}

function expectUsageCorrect(program: Program, def: FnDef): void {
  expect(typeErrors(program)).toEqual([]);
  // Unchanged: every linear variable is read once and every variable is read.
  expect(restoreLinearity(def) === def ? '' : printDef(restoreLinearity(def))).toBe('');
}

test('a tangent two rules read gets its dup, a parameter nothing reads its drop', () => {
  // x·x reads ẋ twice; y is not read at all, nor is the tangent of the flag b.
  const { program, def } = jvpAsBuilt(`
def f(x: real, y: real, b: bool ;) -> (real ;) {
  drop(y)
  drop(b)
  let s = mul(x, x)
  let c = sin(s)
  (c ;)
}`);
  expectUsageCorrect(program, def);
  const x = 0.7;
  const r = evalFn(program, def.name, [x, 2, true], [1, 0, []]);
  expect(r.nl[0]).toBeCloseTo(Math.sin(x * x), 14);
  expect(r.lin[0]).toBeCloseTo(Math.cos(x * x) * 2 * x, 14);
});

test('a cond body and a loop body settle their own tangents; an outer tangent read in two places gets its dup', () => {
  const { program, def } = jvpAsBuilt(`
def f(x: real ;) -> (real ;) {
  let zero = 0
  let pos = gt(x, zero)
  let y = cond(pos, x) [|a: real ;| { let s = mul(a, a) in (s ;) }, |a: real ;| { drop(a) let c = 0 in (c ;) }]
  let n = 3
  let z = loop(n, x, y) [|i: real, u: real, c: real ;| {
    drop(i)
    let d = mul(c, u)
    (d ;)
  }]
  let w = add(z, x)
  (w ;)
}`);
  expectUsageCorrect(program, def);
  // w = x²·x³ + x = x⁵ + x for x > 0.
  const x = 1.3;
  const r = evalFn(program, def.name, [x], [1]);
  expect(r.nl[0]).toBeCloseTo(x ** 5 + x, 12);
  expect(r.lin[0]).toBeCloseTo(5 * x ** 4 + 1, 12);
});

test('a loop whose counter carries no tangent: the rule removes its tangent parameter and the drop J settled it with', () => {
  // k counts from a literal: it stays without a tangent (loop/inactive.ts), so the body J built
  // with a dropped k̇ loses that parameter; the drop must go with it.
  const { program, def } = jvpAsBuilt(`
def f(x: real ;) -> (real ;) {
  let n = 3
  let k0 = 0
  let (y, k) = loop(n, x, k0) [|i: real, c: real, j: real ;| {
    drop(i)
    let c2 = mul(c, c)
    let one = 1
    let j2 = add(j, one)
    (c2, j2 ;)
  }]
  let w = mul(y, k)
  (w ;)
}`);
  expectUsageCorrect(program, def);
  // y = x⁸, k = 3: w = 3x⁸.
  const x = 0.9;
  const r = evalFn(program, def.name, [x], [1]);
  expect(r.nl[0]).toBeCloseTo(3 * x ** 8, 12);
  expect(r.lin[0]).toBeCloseTo(24 * x ** 7, 12);
});

describe('the re-check of a pass that keeps usage', () => {
  // A pass whose builder forgot a drop: the def reads neither of its parameters' second.
  const sloppy = parseProgram(`
def g(x: real, y: real ;) -> (real ;) {
  let s = sin(x)
  (s ;)
}`);
  const addG = (keepsUsage: boolean) => [{ name: 'sloppy', run: (p: Program) => ({ ...p, defs: [...sloppy.defs] }), keepsUsage }];

  test('fails where restoreLinearity would still add a drop', () => {
    expect(() => runPasses({ defs: [] }, { recheck: true }, addG(true))).toThrow(InternalError);
    expect(() => runPasses({ defs: [] }, { recheck: true }, addG(true))).toThrow(/sloppy: g needs a dup or a drop/);
  });
});
