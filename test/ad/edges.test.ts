// Linear A edge cases from issue 7 (item 10): rebinding, Linear A input to transposition, and
// the cost model (variadic reductions, mod, recompute, lselect under repeated transposition).
import { parseProgram } from '../../transformer/language/parse';
import { evalFn } from '../../transformer/language/interp';
import { printDef } from '../../transformer/ir/print';
import { Program, FnDef, binder, block, letS, prim, ret, REAL } from '../../transformer/ir/syntax';
import { annotateTypes } from '../../transformer/language/check';
import { jvpOf, gradOf, linearizeOf, transposeOf } from '../gen/drivers';
import { findDef } from '../../transformer/ir/program';

describe('rebinding a name', () => {
  test('jvp of let x = sin(x) at 1 is cos 1 (parsed: renamed on parse)', () => {
    const p = parseProgram('def f(x: real ;) -> (real ;) {\n  let x = sin(x)\n  (x ;)\n}');
    expect(printDef(p.defs[0])).toContain('let x_1 = sin(x)');
    const { program, jvp } = jvpOf(p, 'f');
    expect(evalFn(program, jvp, [1], [1]).lin[0]).toBeCloseTo(Math.cos(1), 15);
    const g = gradOf(p, 'f');
    expect(evalFn(g.program, g.grad, [1]).nl[0]).toBeCloseTo(Math.cos(1), 15);
  });

  test('the same program built without the parser: J renames apart itself', () => {
    // def f(x ;) { let x = sin(x) in let x = mul(x, x) in (x ;) }: f = sin²x, f' = 2 sin x cos x.
    const d: FnDef = {
      name: 'f',
      nlParams: [binder('x', REAL)],
      linParams: [],
      nlResults: [REAL],
      linResults: [],
      body: block([letS([binder('x')], [], prim('sin', ['x'])), letS([binder('x')], [], prim('mul', ['x', 'x']))], ret(['x'])),
    };
    const p: Program = annotateTypes({ defs: [d] });
    const { program, jvp } = jvpOf(p, 'f');
    expect(evalFn(program, jvp, [0.7], [1]).lin[0]).toBeCloseTo(2 * Math.sin(0.7) * Math.cos(0.7), 15);
  });

  test('let (x, y) = (y, x) swaps', () => {
    // f(x, y) = y · sin x after the swap reads x·sin(y) with the names exchanged.
    const p = parseProgram('def f(x: real, y: real ;) -> (real ;) {\n  let (x, y) = (y, x)\n  let s = sin(y)\n  let z = mul(x, s)\n  (z ;)\n}');
    const g = gradOf(p, 'f');
    const [a, b] = [0.4, 1.7];
    expect(evalFn(p, 'f', [a, b]).nl[0]).toBeCloseTo(b * Math.sin(a), 15);
    const grad = evalFn(g.program, g.grad, [a, b]).nl as number[];
    expect(grad[0]).toBeCloseTo(b * Math.cos(a), 14);
    expect(grad[1]).toBeCloseTo(Math.sin(a), 14);
  });

  test('a name reused in sibling blocks and an inner block shadowing a parameter', () => {
    const p = parseProgram('def f(x: real ;) -> (real ;) {\n  let a = { let t = sin(x) in let x = mul(t, x) in (x ;) }\n  let b = { let t = cos(x) in (t ;) }\n  let z = add(a, b)\n  (z ;)\n}');
    // f = sin x · x + cos x, f' = cos x · x + sin x − sin x = x cos x.
    const { program, jvp } = jvpOf(p, 'f');
    expect(evalFn(program, jvp, [0.9], [1]).lin[0]).toBeCloseTo(0.9 * Math.cos(0.9), 14);
  });
});

test('transposing a Linear A function that is not Linear B reports the checker message', () => {
  const p = parseProgram('def f(u: real ; x: real, y: real) -> (; real) {\n  let a = { drop(y) in sin(u) }\n  scale(a ; x)\n}', 'a.lina');
  expect(() => transposeOf(p, 'f', { recheck: false })).toThrow(/a\.lina:2:3: in f: \(Linear B\) the right-hand side of let a computes non-linear results but reads a linear variable/);
});

describe('cost model', () => {
  const variadic = (op: string, k: number) => {
    const params = Array.from({ length: k }, (_, i) => `a${i}: real`).join(', ');
    const args = Array.from({ length: k }, (_, i) => `a${i}`).join(', ');
    return parseProgram(`def f(${params} ;) -> (real ;) {\n  let y = ${op}(${args})\n  (y ;)\n}`);
  };
  test.each(['max', 'min', 'hypot'])('%s of k arguments costs k − 1, and W(grad)/W(f) does not grow with k', (op) => {
    const ratios = [2, 8, 64].map((k) => {
      const p = variadic(op, k);
      const x = Array.from({ length: k }, (_, i) => 0.5 + i * 0.25);
      const wf = evalFn(p, 'f', x).work;
      expect(wf).toBe(k - 1);
      const g = gradOf(p, 'f', { simplify: true });
      return evalFn(g.program, g.grad, x).work / wf;
    });
    // Per argument the gradient does a bounded number of steps: the ratio settles, never ×k.
    expect(ratios[2]).toBeLessThanOrEqual(2 * ratios[0]);
  });

  test("mod's JVP leaves no literal 1 in f.fwd: W(f.fwd) + W(f.lin) = W(f.jvp)", () => {
    const p = parseProgram('def f(a: real, b: real ;) -> (real ;) {\n  let y = mod(a, b)\n  (y ;)\n}');
    const { program, fwd, lin } = linearizeOf(p, 'f');
    expect(printDef(findDef(program, fwd))).not.toMatch(/drop/);
    const r = evalFn(program, fwd, [2.5, 0.7]);
    const l = evalFn(program, lin, [r.nl[1]], [1, 1]);
    expect(r.work + l.work).toBe(evalFn(program, 'f.jvp', [2.5, 0.7], [1, 1]).work);
    // ∂/∂a = 1, ∂/∂b = −trunc(a/b) = −3.
    expect(l.lin[0]).toBeCloseTo(1 - 3, 14);
  });

  test('with recompute, f.fwd does not compute the derivative coefficient (cos x for sin x)', () => {
    const p = parseProgram('def f(x: real ;) -> (real ;) {\n  let y = sin(x)\n  (y ;)\n}');
    const { program, fwd, lin } = linearizeOf(p, 'f', { policy: 'recompute' });
    expect(printDef(findDef(program, fwd))).not.toMatch(/cos|drop/);
    expect(evalFn(program, fwd, [0.3]).work).toBe(1);
    const r = evalFn(program, fwd, [0.3]);
    expect(evalFn(program, lin, [r.nl[1]], [1]).lin[0]).toBeCloseTo(Math.cos(0.3), 15);
  });

  test('lselect: work stays bounded under repeated transposition', () => {
    const p = parseProgram('def g(c: bool ; a: real, b: real) -> (; real) {\n  lselect(c ; a, b)\n}');
    let program = p;
    let name = 'g';
    const works: number[] = [];
    for (let k = 0; k < 5; k++) {
      const d = findDef(program, name);
      const lin = d.linParams.map((_, i) => i + 2);
      works.push(evalFn(program, name, [true], lin).work);
      const t = transposeOf(program, name);
      program = t.program;
      name = t.transposed;
    }
    expect(works).toEqual([1, 2, 3, 2, 3]);
  });
});
