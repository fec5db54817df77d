// Inlining and the fused value-and-gradient driver on random programs with calls: the inlined
// function type-checks, calls nothing, builds no tape tuple, and computes exactly what the
// unfused reverse pass computes (same operations, so the numbers agree to the last bit or so).
import fc from 'fast-check';
import { nonLinearProgram, choices, valuesFor, flat } from '../gen/programs';
import { evalFn } from '../../transformer/language/interp';
import { checkProgram } from '../../transformer/language/check';
import { gradOf, valueAndGradOf } from '../gen/drivers';
import { calleesOf } from '../../transformer/ir/program';
import { inlineProgram, bodySize } from '../../transformer/opt/inline';
import { parseProgram } from '../../transformer/language/parse';
import { printDef } from '../../transformer/ir/print';
import { Block, FnDef, Program } from '../../transformer/ir/syntax';

const last = (p: Program): FnDef => p.defs[p.defs.length - 1];
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * (1 + Math.abs(a) + Math.abs(b));

const arb = choices.chain((xs) => {
  const p = nonLinearProgram(xs, 4, 12);
  return fc.tuple(fc.constant(p), valuesFor(last(p).nlParams.map((b) => b.type!)));
});

function tupleUnpacks(b: Block): number {
  let n = 0;
  for (const s of b.stmts) if (s.tag === 'unpack') n++;
  return n;
}

test('value and gradient, inlined, equals the unfused reverse pass (property)', () => {
  fc.assert(
    fc.property(arb, ([p, x]) => {
      const f = last(p);
      const reference = evalFn(
        ...((): [Program, string] => {
          const g = gradOf(p, f.name);
          return [g.program, g.grad];
        })(),
        x,
      ).nl;
      const { program, valueAndGrad } = valueAndGradOf(p, f.name, { simplify: true });
      checkProgram(program);
      const vg = program.defs.find((d) => d.name === valueAndGrad)!;
      // Small callees are inlined; a callee called twice whose inlined body would pass the
      // budget (opt/inline.ts, InlinePolicy) stays a call of its own derived functions.
      for (const c of calleesOf(vg.body)) expect(program.defs.some((d) => d.name === c)).toBe(true);
      if (p.defs.every((d) => bodySize(d.body) <= 8)) expect([...calleesOf(vg.body)]).toEqual([]);
      const [value, ...grads] = evalFn(program, valueAndGrad, x).nl;
      expect(close(value as number, evalFn(p, f.name, x).nl[0] as number)).toBe(true);
      flat(grads).forEach((v, i) => expect(close(v, flat(reference)[i])).toBe(true));
    }),
    { numRuns: 200 },
  );
});

test('selected gradients only: the others are never computed', () => {
  const p = parseProgram(`
def f(x: real, y: real ;) -> (real ;) {
  let a = sin(x)
  let b = exp(y)
  let c = mul(a, b)
  (c ;)
}`);
  const { program, valueAndGrad } = valueAndGradOf(p, 'f', { simplify: true, wrt: [1] });
  const text = printDef(program.defs.find((d) => d.name === valueAndGrad)!);
  expect(text).not.toContain('cos(');
  const [v, dy] = evalFn(program, valueAndGrad, [0.3, 0.8]).nl as number[];
  expect(v).toBeCloseTo(Math.sin(0.3) * Math.exp(0.8), 15);
  expect(dy).toBeCloseTo(Math.sin(0.3) * Math.exp(0.8), 15);
});

test('the tape of nested calls disappears: no tuple is packed and unpacked', () => {
  const p = parseProgram(`
def g(a: real, b: real ;) -> (real ;) {
  let s = sin(a)
  let m = mul(s, b)
  (m ;)
}
def f(x: real, y: real ;) -> (real ;) {
  let u = g(x, y)
  let v = g(u, x)
  (v ;)
}`);
  const { program, valueAndGrad } = valueAndGradOf(p, 'f', { simplify: true });
  const vg = program.defs.find((d) => d.name === valueAndGrad)!;
  expect(tupleUnpacks(vg.body)).toBe(0);
  expect(printDef(vg)).not.toMatch(/<|tape/);
});

test('the size budget keeps big callees as calls', () => {
  const p = parseProgram(`
def g(a: real ;) -> (real ;) {
  let s = sin(a)
  let c = cos(s)
  (c ;)
}
def f(x: real ;) -> (real ;) {
  let u = g(x)
  (u ;)
}`);
  expect(bodySize(p.defs[0].body)).toBe(2);
  const kept = inlineProgram(p, ['f'], { maxCalleeSize: 1, maxSingleUseSize: 1 });
  expect([...calleesOf(kept.defs[1].body)]).toEqual(['g']);
  // g has one call site: inlining it copies nothing, so the larger single-use limit applies.
  const moved = inlineProgram(p, ['f'], { maxCalleeSize: 1 });
  expect([...calleesOf(moved.defs[1].body)]).toEqual([]);
  const inlined = inlineProgram(p, ['f']);
  expect([...calleesOf(inlined.defs[1].body)]).toEqual([]);
  expect(evalFn(inlined, 'f', [0.4]).nl[0]).toBe(Math.cos(Math.sin(0.4)));
});

test('flattened signatures take and return scalar leaves with the same values (property)', () => {
  fc.assert(
    fc.property(arb, ([p, x]) => {
      const f = last(p);
      const tupled = valueAndGradOf(p, f.name, { simplify: true });
      const flatRun = valueAndGradOf(p, f.name, { simplify: true, flatSignature: true });
      checkProgram(flatRun.program);
      const def = flatRun.program.defs.find((d) => d.name === flatRun.valueAndGrad)!;
      expect(def.nlParams.every((b) => b.type!.tag !== 'tuple')).toBe(true);
      expect(def.nlResults.every((t) => t.tag !== 'tuple')).toBe(true);
      const expected = flat(evalFn(tupled.program, tupled.valueAndGrad, x).nl);
      const got = evalFn(flatRun.program, flatRun.valueAndGrad, flat(x)).nl as number[];
      expect(got.length).toBe(expected.length);
      got.forEach((v, i) => expect(close(v, expected[i])).toBe(true));
    }),
    { numRuns: 200 },
  );
});

test('cheap gradient principle: the fused value-and-gradient costs a constant factor of the function (work counter)', () => {
  let worst = 0;
  fc.assert(
    fc.property(arb, ([p, x]) => {
      const f = last(p);
      const { program, valueAndGrad } = valueAndGradOf(p, f.name, { simplify: true });
      const primal = evalFn(p, f.name, x).work;
      const fused = evalFn(program, valueAndGrad, x).work;
      worst = Math.max(worst, fused / Math.max(1, primal));
      // Each primitive costs at most a few primitives forward plus a few scalings backward.
      expect(fused).toBeLessThanOrEqual(6 * primal + 8);
    }),
    { numRuns: 200 },
  );
  expect(worst).toBeGreaterThan(1);
});

test('a callee called from several places is inlined by its size after its own inlining (call paths never multiply)', () => {
  // g_k calls g_{k-1} twice: 2^k paths. Each g_j is two statements, but inlined it is 2^(j+1).
  const defs = ['def g0(a: real ;) -> (real ;) {\n  let s = sin(a)\n  (s ;)\n}'];
  for (let j = 1; j <= 12; j++) defs.push(`def g${j}(a: real ;) -> (real ;) {\n  let u = g${j - 1}(a)\n  let v = g${j - 1}(u)\n  (v ;)\n}`);
  const p = parseProgram(defs.join('\n'));
  const q = inlineProgram(
    p,
    p.defs.map((d) => d.name),
    { maxCalleeSize: 16 },
  );
  // g12 calls g11 (large once inlined, two call sites) twice; small g_j are inlined into their callers.
  expect([...calleesOf(q.defs[12].body)]).toEqual(['g11']);
  expect(calleesOf(q.defs[3].body).size).toBe(0);
  for (const d of q.defs) expect(bodySize(d.body)).toBeLessThanOrEqual(2 * 16 + 2);
  let x = 0.3;
  for (let j = 0; j < 2 ** 12; j++) x = Math.sin(x);
  expect(evalFn(q, 'g12', [0.3]).nl[0]).toBeCloseTo(x, 12);
});

test('a def with nothing to inline or flatten comes back as it is (the same object, not a copy)', () => {
  // g runs a loop and is called twice: it stays a call (inlining would copy a loop); f has no
  // nested block, and its names are its own, so inlining it changes nothing.
  const p = parseProgram(`
def g(x: real ;) -> (real ;) {
  let n = 3
  let y = loop(n, x) [|i: real, c: real ;| {
    drop(i)
    let d = mul(c, c)
    (d ;)
  }]
  (y ;)
}
def f(x: real ;) -> (real ;) {
  let a = g(x)
  let b = g(a)
  let s = sin(b)
  (s ;)
}`);
  const q = inlineProgram(p, ['f']);
  expect(printDef(last(q))).toBe(printDef(last(p)));
  expect(last(q)).toBe(last(p));
  // x⁸ squared three times more: x⁶⁴, then sin.
  expect(evalFn(q, 'f', [1.01]).nl[0]).toBeCloseTo(Math.sin(1.01 ** 64), 12);
});
