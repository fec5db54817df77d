// The conditional construct, end to end at the IR level (examples/ir/cond.lina): syntax, the
// checker's rules for closed bodies, the interpreter's work, J, U, T and E against finite
// differences and each other, the dot-product test, the generic passes on bodies, and the
// emitted TypeScript against the interpreter.
import * as fs from 'fs';
import * as path from 'path';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import { annotateTypes, checkProgram, typeErrors } from '../../transformer/language/check';
import { evalFn, Value } from '../../transformer/language/interp';
import { Binder, Expr, FnDef, Lambda, Program, Stmt, Type } from '../../transformer/ir/syntax';
import { visitDef } from '../../transformer/ir/traverse';
import { emitAndLoad, asReturned } from './emitted';
import { findDef } from '../../transformer/ir/program';
import { hoistBlocks } from '../../transformer/opt/hoist';
import { simplifyProgram } from '../../transformer/opt/simplify';
import { inlineProgram } from '../../transformer/opt/inline';
import { eraseProgram } from '../../transformer/ad/erase';
import { CONSTRUCTS } from '../../transformer/constructs/registry';
import { TS_CONSTRUCTS } from '../../transformer/backend/ts/constructs';
import { gradOf, hvpOf, jvpOf, linearizeOf, transposeOf, valueAndGradOf, vjpOf } from '../gen/drivers';
import { main } from '../../transformer/plugin/cli';
import { rel, dot, basis, centralDifference } from './reference';

const source = fs.readFileSync(path.join(__dirname, '../../examples/ir/cond.lina'), 'utf8');
const program = () => parseProgram(source, 'cond.lina');

/** The construct expressions of a def, outermost first. */
function constructsIn(d: FnDef): Extract<Expr, { tag: 'construct' }>[] {
  const out: Extract<Expr, { tag: 'construct' }>[] = [];
  visitDef(d, {
    expr: (e) => {
      if (e.tag === 'construct') out.push(e);
    },
  });
  return out;
}

describe('syntax', () => {
  test('printing the parsed example and parsing it back is a fixed point, with and without types', () => {
    const p = program();
    const text = printProgram(p);
    expect(printProgram(parseProgram(text))).toBe(text);
    const typed = printProgram(annotateTypes(p), { types: true });
    expect(printProgram(parseProgram(typed), { types: true })).toBe(typed);
    expect(text).toContain('let z = cond(p, x, y) [|a: real, b: real ;| {');
    // A name reused in the sibling body is renamed apart by the parser.
    expect(text).toContain('}, |a_1: real, b_1: real ;| {');
  });

  test('the registry holds cond with every facet', () => {
    expect(Object.keys(CONSTRUCTS)).toContain('cond');
    for (const facet of ['arity', 'typeRule', 'impl', 'jvp', 'unzip', 'transpose'] as const) expect(typeof CONSTRUCTS.cond[facet]).toBe('function');
    expect(typeof TS_CONSTRUCTS.cond).toBe('function');
  });
});

describe('checker', () => {
  const wrap = (body: string, params = 'x: real, y: real ;', results = 'real ;') => `def f(${params}) -> (${results}) {\n${body}\n}`;
  const errorsOf = (src: string) => typeErrors(parseProgram(src, 't.lina'));

  test('the example type-checks, and the types of cond results are inferred', () => {
    expect(typeErrors(program())).toEqual([]);
    const f = findDef(annotateTypes(program()), 'h');
    const s = f.body.stmts[1] as Extract<Stmt, { tag: 'let' }>;
    expect(s.nl.map((b) => b.type?.tag)).toEqual(['real', 'real']);
  });

  test.each([
    ['a predicate that is not bool', wrap('  cond(x, y) [|b: real ;| {\n    (b ;)\n  }, |b: real ;| {\n    (b ;)\n  }]'), ['t.lina:2:3: in f: the predicate of cond must be bool, got real']],
    [
      'branches with different results',
      wrap('  let p = lt(x, y)\n  cond(p, x) [|a: real ;| {\n    (a ;)\n  }, |a: real ;| {\n    let q = gt(a, a)\n    (q ;)\n  }]'),
      ['t.lina:3:3: in f: the branches of cond return different types: (real) and (bool)'],
    ],
    [
      'a free variable in a body',
      wrap('  let p = lt(x, y)\n  cond(p, x) [|a: real ;| {\n    mul(a, y)\n  }, |a: real ;| {\n    (a ;)\n  }]'),
      ['t.lina:4:5: in f: a body of cond reads y, which is bound outside it; bodies are closed: pass y as an operand'],
    ],
    [
      'a linear parameter used twice in one branch',
      wrap('  cond(p ; a) [|; u: real| {\n    ladd(; u, u)\n  }, |; u: real| {\n    (; u)\n  }]', 'p: bool ; a: real', '; real'),
      ['t.lina:2:19: in f: linear variable u is used 2 times; insert dup to use it more than once'],
    ],
    [
      'a linear parameter unused in one branch',
      wrap('  cond(p ; a) [|; u: real| {\n    (; u)\n  }, |; u: real| {\n    zero(real)\n  }]', 'p: bool ; a: real', '; real'),
      ['t.lina:4:9: in f: linear variable u_1 is never used; consume it or discard it with drop(u_1)'],
    ],
    ['one body', wrap('  let p = lt(x, y)\n  cond(p, x) [|a: real ;| {\n    (a ;)\n  }]'), ['t.lina:3:3: in f: cond takes two bodies, then and else; got 1']],
    [
      'parameters that do not match the operands',
      wrap('  let p = lt(x, y)\n  cond(p, x) [|a: real, c: real ;| {\n    drop(c)\n    (a ;)\n  }, |a: real ;| {\n    (a ;)\n  }]'),
      ['t.lina:3:3: in f: a body of cond takes 2 non-linear and 0 linear parameter(s), but is given 1 and 0'],
    ],
    ['an unknown construct', wrap('  drop(y)\n  probe(x) []'), ['t.lina:3:3: in f: unknown construct probe']],
    [
      'a parameter annotated with another type than its operand',
      wrap('  let p = lt(x, y)\n  cond(p, x) [|a: bool ;| {\n    drop(a)\n    (x ;)\n  }, |a: real ;| {\n    (a ;)\n  }]'),
      ['t.lina:3:16: in f: a is annotated bool but bound to a value of type real', 't.lina:5:5: in f: a body of cond reads x, which is bound outside it; bodies are closed: pass x as an operand'],
    ],
  ])('rejects %s', (_, src, messages) => {
    expect(errorsOf(src)).toEqual(messages);
  });

  test('the same programs, corrected, are accepted', () => {
    expect(errorsOf(wrap('  let p = lt(x, y)\n  cond(p, x) [|a: real ;| {\n    (a ;)\n  }, |a: real ;| {\n    (a ;)\n  }]\n'))).toEqual([]);
    expect(errorsOf(wrap('  cond(p ; a) [|; u: real| {\n    let (; u1, u2) = dup(u)\n    ladd(; u1, u2)\n  }, |; u: real| {\n    (; u)\n  }]', 'p: bool ; a: real', '; real'))).toEqual([]);
  });

  test('a linear operand counts as one use of the variable, whichever body runs', () => {
    const src = wrap('  cond(p ; a, a) [|; u: real, v: real| {\n    ladd(; u, v)\n  }, |; u: real, v: real| {\n    ladd(; u, v)\n  }]', 'p: bool ; a: real', '; real');
    expect(errorsOf(src)).toEqual(['t.lina:1:17: in f: linear variable a is used 2 times; insert dup to use it more than once']);
  });
});

describe('interpreter', () => {
  const src = `def w(x: real, y: real ;) -> (real ;) {
  let p = lt(x, y)
  cond(p, x) [|a: real ;| {
    sin(a)
  }, |a: real ;| {
    let b = exp(a)
    let c = cos(b)
    mul(c, a)
  }]
}`;

  test('evaluates only the taken branch, and charges only its work', () => {
    const p = parseProgram(src);
    const low = evalFn(p, 'w', [1, 2]);
    expect(low.nl).toEqual([Math.sin(1)]);
    expect(low.work).toBe(1 + 1);
    const high = evalFn(p, 'w', [3, 2]);
    expect(high.nl).toEqual([Math.cos(Math.exp(3)) * 3]);
    expect(high.work).toBe(1 + 3);
  });

  test('the example at a point in each branch', () => {
    const p = program();
    expect(evalFn(p, 'f', [1, 2]).nl).toEqual([Math.sin(1) * 2]);
    expect(evalFn(p, 'f', [3, 2]).nl).toEqual([3 * 3 + 2]);
    expect(evalFn(p, 'k', [-2, -1, 1]).nl).toEqual([2]);
    expect(evalFn(p, 'k', [0.5, -1, 1]).nl).toEqual([0.25]);
    expect(evalFn(p, 'k', [3, -1, 1]).nl).toEqual([3]);
    expect(evalFn(p, 'l', [true, 3], [2, 5]).lin).toEqual([6, 5]);
    expect(evalFn(p, 'l', [false, 3], [2, 5]).lin).toEqual([7, 7]);
  });
});

/** Points on each side of every branch of f, h and k. */
const POINTS: [string, number[]][] = [
  ['f', [1, 2]],
  ['f', [0.3, -0.7]],
  ['f', [3, 2]],
  ['f', [-1.5, -1]],
  ['h', [2, 1]],
  ['h', [-0.5, -1.5]],
  ['h', [0.5, 1.5]],
  ['k', [-2, -1, 1]],
  ['k', [0.5, -1, 1]],
  ['k', [3, -1, 1]],
];

describe('derivatives against central differences', () => {
  test.each(POINTS)('jvpOf %s at %j: primal equals f, tangents equal finite differences', (fn, x) => {
    const { program: p, jvp } = jvpOf(program(), fn);
    const dir = x.map((_, i) => 0.5 + i);
    const r = evalFn(p, jvp, x, dir);
    expect(r.nl).toEqual(evalFn(p, fn, x).nl);
    const fd = centralDifference(p, fn, x, dir);
    (r.lin as number[]).forEach((t, i) => expect(rel(t, fd[i])).toBeLessThan(1e-7));
  });

  test.each(POINTS)('linearizeOf %s at %j: fwd gives the primal, lin the JVP', (fn, x) => {
    const { program: p, fwd, lin } = linearizeOf(program(), fn);
    const r = evalFn(p, fwd, x);
    const primal = evalFn(p, fn, x).nl;
    expect(r.nl.slice(0, primal.length)).toEqual(primal);
    const tape = r.nl[primal.length];
    for (let i = 0; i < x.length; i++) {
      const lin1 = evalFn(p, lin, [tape], basis(x.length, i)).lin as number[];
      const fd = centralDifference(p, fn, x, basis(x.length, i));
      lin1.forEach((t, j) => expect(rel(t, fd[j])).toBeLessThan(1e-7));
    }
  });

  test.each(POINTS)('vjpOf %s at %j: the backward pass gives each row of the Jacobian', (fn, x) => {
    const { program: p, fwd, bwd } = vjpOf(program(), fn);
    const r = evalFn(p, fwd, x);
    const m = evalFn(p, fn, x).nl.length;
    for (let j = 0; j < m; j++) {
      const row = evalFn(p, bwd, [r.nl[m]], basis(m, j)).lin as number[];
      x.forEach((_, i) => expect(rel(row[i], centralDifference(p, fn, x, basis(x.length, i))[j])).toBeLessThan(1e-7));
    }
  });

  test.each(POINTS.filter(([fn]) => fn !== 'h'))('gradOf %s at %j equals finite differences and the JVPs (mode agreement)', (fn, x) => {
    const g = gradOf(program(), fn, { simplify: true });
    const grad = evalFn(g.program, g.grad, x).nl as number[];
    const { program: jp, jvp } = jvpOf(program(), fn);
    x.forEach((_, i) => {
      expect(rel(grad[i], centralDifference(g.program, fn, x, basis(x.length, i))[0])).toBeLessThan(1e-7);
      expect(grad[i]).toBeCloseTo(evalFn(jp, jvp, x, basis(x.length, i)).lin[0] as number, 14);
    });
  });

  test('the documented gradients of f', () => {
    const g = gradOf(program(), 'f');
    expect(evalFn(g.program, g.grad, [1, 2]).nl).toEqual([2 * Math.cos(1), Math.sin(1)]);
    expect(evalFn(g.program, g.grad, [3, 2]).nl).toEqual([6, 1]);
  });

  test('second order: the Hessian-vector product of f in each branch', () => {
    const h = hvpOf(program(), 'f');
    const hv = (x: number[], v: number[]) => evalFn(h.program, h.hvp, [...x, ...v]).nl as number[];
    // then: f = sin(x)·y, H = [[-sin x·y, cos x], [cos x, 0]]; else: f = x² + y, H = [[2, 0], [0, 0]].
    hv([1, 2], [1, 0]).forEach((v, i) => expect(v).toBeCloseTo([-2 * Math.sin(1), Math.cos(1)][i], 14));
    hv([1, 2], [0, 1]).forEach((v, i) => expect(v).toBeCloseTo([Math.cos(1), 0][i], 14));
    expect(hv([3, 2], [1, 0])).toEqual([2, 0]);
  });
});

describe('unzipping', () => {
  test('the branches of f have different residuals: shared slots, p saved, the slots a branch does not use padded and dropped', () => {
    const { program: p, fwd, lin } = linearizeOf(program(), 'f');
    const fwdDef = findDef(p, fwd);
    const tape = fwdDef.nlResults[1] as Extract<Type, { tag: 'tuple' }>;
    // p, then the then-branch's residuals (b, sin a, cos a); the else-branch's (a) shares b's slot.
    expect(tape.elems.map((t) => t.tag)).toEqual(['bool', 'real', 'real', 'real']);
    const [nlCond] = constructsIn(fwdDef);
    expect(nlCond.lin).toEqual([]);
    const [linCond] = constructsIn(findDef(p, lin));
    expect(linCond.nl.length).toBe(4);
    expect(linCond.lin.length).toBe(2);
    // Each linear branch drops the slots it does not use.
    const drops = linCond.bodies.map((l) => l.body.stmts.filter((s) => s.tag === 'let' && s.rhs.tag === 'drop').length);
    expect(drops).toEqual([0, 2]);
    // The tape holds the predicate: the same tape replays the branch it was taken in.
    const tapeThen = evalFn(p, fwd, [1, 2]).nl[1] as Value[];
    const tapeElse = evalFn(p, fwd, [3, 2]).nl[1] as Value[];
    expect(tapeThen).toEqual([true, 2, Math.sin(1), Math.cos(1)]);
    expect(tapeElse).toEqual([false, 3, 0, 0]);
    expect(evalFn(p, lin, [tapeThen], [1, 0]).lin).toEqual([2 * Math.cos(1)]);
    expect(evalFn(p, lin, [tapeElse], [1, 0]).lin).toEqual([6]);
  });

  test('placeholders for residuals of every type: a tuple (a callee tape) and a boolean', () => {
    const { program: p, fwd } = linearizeOf(program(), 'h');
    const tape = findDef(p, fwd).nlResults[2] as Extract<Type, { tag: 'tuple' }>;
    const tags = tape.elems.map((t) => t.tag);
    // The predicate is the first residual that is not a number (the parameters a branch stores as
    // they are come before it: the cond's operands, cond/hoistLengths.ts).
    expect(tags.find((t) => t !== 'real')).toBe('bool');
    expect(tags).toContain('tuple');
    expect(tags.filter((t) => t === 'bool').length).toBeGreaterThanOrEqual(2);
    const elseTape = evalFn(p, fwd, [-0.5, 1]).nl[2] as Value[];
    const padded = tape.elems.map((t, i) => [t, elseTape[i]] as const).filter(([t]) => t.tag !== 'real');
    // In the else branch the then-branch's tuple and boolean slots hold placeholders.
    expect(padded.slice(1).map(([, v]) => v)).toEqual(expect.arrayContaining([false, [0]]));
  });

  test('W(fwd) + W(lin) = W(jvp) + the scalars of the slots the taken branch does not use (their drop)', () => {
    for (const [x, untaken] of [
      [[1, 2], 0],
      [[3, 2], 2],
    ] as const) {
      const { program: p, fwd, lin } = linearizeOf(program(), 'f');
      const r = evalFn(p, fwd, [...x]);
      const wLin = evalFn(p, lin, [r.nl[1]], [0.3, 0.7]).work;
      const wJvp = evalFn(p, 'f.jvp', [...x], [0.3, 0.7]).work;
      expect(r.work + wLin).toBe(wJvp + untaken);
    }
  });
});

describe('transposition', () => {
  /** ⟨ȳ, L·ẋ⟩ = ⟨Lᵀ·ȳ, ẋ⟩ for a linear def L and its transpose. */
  function dotTest(p: Program, linFn: string, tFn: string, nl: Value[], n: number, m: number): void {
    for (let trial = 0; trial < 5; trial++) {
      const xd = Array.from({ length: n }, (_, i) => Math.sin(3 * trial + i + 1));
      const yb = Array.from({ length: m }, (_, j) => Math.cos(5 * trial + j + 2));
      const lx = evalFn(p, linFn, nl, xd).lin as number[];
      const ty = evalFn(p, tFn, nl, yb).lin as number[];
      expect(rel(dot(yb, lx), dot(ty, xd))).toBeLessThan(1e-12);
    }
  }

  test.each(POINTS)('the dot-product test on the .lin and .bwd of %s at %j', (fn, x) => {
    const { program: p, fwd, bwd } = vjpOf(program(), fn);
    const r = evalFn(p, fwd, x);
    const m = findDef(p, fn).nlResults.length;
    dotTest(p, `${fn}.lin`, bwd, [r.nl[m]], x.length, m);
  });

  test('a hand-written linear cond (in result position) transposes branchwise; T∘T agrees with it', () => {
    const t = transposeOf(program(), 'l');
    expect(t.transposed).toBe('l.T');
    for (const pred of [true, false]) dotTest(t.program, 'l', 'l.T', [pred, 1.5], 2, 2);
    expect(evalFn(t.program, 'l.T', [true, 3], [1, 10]).lin).toEqual([3, 10]);
    expect(evalFn(t.program, 'l.T', [false, 3], [1, 10]).lin).toEqual([11, 11]);
    const tt = transposeOf(t.program, 'l.T');
    for (const pred of [true, false]) {
      const a = evalFn(tt.program, 'l', [pred, 1.5], [0.25, -2]);
      const b = evalFn(tt.program, tt.transposed, [pred, 1.5], [0.25, -2]);
      expect(b.lin).toEqual(a.lin);
      expect(b.work).toBeLessThanOrEqual(a.work);
    }
  });

  test('zero cotangents need no cond: a result never used gives zero cotangents without transposing', () => {
    const src = `${source}
def m(p: bool, c: real ; a: real, b: real) -> (; real) {
  let (; w, v) = l(p, c ; a, b)
  drop(w)
  (; v)
}`;
    const t = transposeOf(parseProgram(src), 'm');
    for (const pred of [true, false]) {
      const nl = [pred, 2];
      expect(evalFn(t.program, 'm.T', nl, [1]).lin).toEqual(pred ? [0, 1] : [1, 1]);
    }
  });
});

describe('the generic passes on bodies', () => {
  /** Every binder of the def has its own name. */
  const unique = (d: FnDef) => {
    const seen: string[] = [];
    visitDef(d, { bind: (b: Binder) => seen.push(b.name) });
    return new Set(seen).size === seen.length;
  };

  test('hoist renames apart inside bodies and flattens blocks there, leaving the bodies in place', () => {
    // Built without the parser: both bodies bind `a` and `s`, and a body holds a nested block.
    const lam = (body: string): Lambda => ({ nlParams: [{ name: 'a', type: { tag: 'real' } }], linParams: [], body: parseProgram(`def t(a: real ;) -> (real ;) { ${body} }`).defs[0].body });
    const then = lam('let s = sin(a) in (s ;)');
    const els = lam('let s = { let c = cos(a) in (c ;) } in (s ;)');
    const d: FnDef = {
      name: 'g',
      nlParams: [
        { name: 'p', type: { tag: 'bool' } },
        { name: 'a', type: { tag: 'real' } },
      ],
      linParams: [],
      nlResults: [{ tag: 'real' }],
      linResults: [],
      body: { stmts: [{ tag: 'let', nl: [{ name: 's' }], lin: [], rhs: { tag: 'construct', op: 'cond', nl: ['p', 'a'], lin: [], bodies: [then, els] } }], result: { tag: 'ret', nl: ['s'], lin: [] } },
    };
    expect(unique(d)).toBe(false);
    const h = hoistBlocks(d);
    expect(unique(h)).toBe(true);
    checkProgram({ defs: [h] });
    const [c] = constructsIn(h);
    expect(c.bodies[1].body.stmts.map((s) => s.tag === 'let' && s.rhs.tag)).toEqual(['prim', 'ret']);
    for (const p of [true, false]) expect(evalFn({ defs: [h] }, 'g', [p, 0.5]).nl).toEqual(evalFn({ defs: [d] }, 'g', [p, 0.5]).nl);
  });

  test('simplify works inside bodies and moves nothing across their boundary', () => {
    const src = `def g(x: real, y: real ;) -> (real ;) {
  let two = 2
  let s = sin(x)
  let p = lt(s, two)
  cond(p, x, y) [|a: real, b: real ;| {
    let two_b = 2
    let t = sin(a)
    let u = sin(a)
    let w = mul(t, u)
    let z = mul(w, two_b)
    drop(b)
    (z ;)
  }, |a: real, b: real ;| {
    let dead = cos(a)
    drop(dead)
    let c = mul(a, b)
    (c ;)
  }]
}`;
    const p = annotateTypes(parseProgram(src));
    const q = simplifyProgram(p);
    checkProgram(q);
    const [c] = constructsIn(q.defs[0]);
    const text = printProgram(q);
    // Common subexpressions inside a body are shared; dead code inside a body goes.
    expect(text.match(/sin\(a\)/g)).toHaveLength(1);
    expect(text).not.toContain('cos(a)');
    // The body keeps its own literal: the one outside it is not visible there.
    expect(c.bodies[0].body.stmts.some((s) => s.tag === 'let' && s.rhs.tag === 'lit' && s.rhs.value === 2)).toBe(true);
    for (const x of [
      [0.5, 2],
      [2, 3],
    ]) {
      expect(evalFn(q, 'g', x).nl).toEqual(evalFn(p, 'g', x).nl);
      expect(evalFn(q, 'g', x).work).toBeLessThanOrEqual(evalFn(p, 'g', x).work);
    }
  });

  test('inline inlines calls inside bodies, renaming apart', () => {
    const p = annotateTypes(program());
    const q = annotateTypes(inlineProgram(p, ['h']));
    const h = findDef(q, 'h');
    expect(printProgram({ defs: [h] })).not.toContain('sq(');
    expect(unique(h)).toBe(true);
    for (const x of [
      [2, 1],
      [0.5, 1.5],
    ])
      expect(evalFn(q, 'h', x).nl).toEqual(evalFn(p, 'h', x).nl);
  });

  test('erase keeps results and work of a linear cond (Lemma 4.4)', () => {
    const p = annotateTypes(program());
    const q = annotateTypes(eraseProgram(p, ['l']));
    const [c] = constructsIn(findDef(q, 'l.E'));
    expect(c.lin).toEqual([]);
    expect(c.bodies.every((b) => b.linParams.length === 0)).toBe(true);
    for (const pred of [true, false]) {
      const a = evalFn(p, 'l', [pred, 3], [2, 5]);
      const e = evalFn(q, 'l.E', [pred, 3, 2, 5]);
      expect(e.nl).toEqual(a.lin);
      expect(e.work).toBe(a.work);
    }
  });

  test('restoreLinearity treats each body as its own scope: a tangent used twice in a body is dupped there', () => {
    const { program: p, jvp } = jvpOf(program(), 'f');
    const [c] = constructsIn(findDef(p, jvp));
    const els = c.bodies[1];
    const first = els.body.stmts[0];
    // else: a·a uses a's tangent twice; the dup is the body's first statement, on its own parameter.
    expect(first.tag === 'let' && first.rhs.tag === 'dup' && first.rhs.name).toBe(els.linParams[0].name);
    expect(c.bodies[0].body.stmts.some((s) => s.tag === 'let' && s.rhs.tag === 'dup')).toBe(false);
  });

  test('a cond of constants has zero tangents: J keeps it as it is', () => {
    const src = `def c(x: real, q: bool ;) -> (real ;) {
  let one = 1
  let two = 2
  let k = cond(q, one, two) [|a: real, b: real ;| { drop(b) in (a ;) }, |a: real, b: real ;| { drop(a) in (b ;) }]
  mul(k, x)
}`;
    const { program: p, jvp } = jvpOf(parseProgram(src), 'c');
    const [cc] = constructsIn(findDef(p, jvp));
    expect(cc.lin).toEqual([]);
    expect(evalFn(p, jvp, [3, true], [1, []]).lin).toEqual([1]);
    expect(evalFn(p, jvp, [3, false], [1, []]).lin).toEqual([2]);
    const g = gradOf(parseProgram(src), 'c');
    expect(evalFn(g.program, g.grad, [3, false]).nl).toEqual([2, []]);
  });

  test('a boolean operand reaches the bodies, with the unit type as its tangent', () => {
    const src = `def b(x: real, q: bool, r: bool ;) -> (real ;) {
  cond(q, x, r) [|a: real, s: bool ;| {
    let y = sin(a)
    let z = neg(y)
    select(s, y, z)
  }, |a: real, s: bool ;| {
    drop(s)
    mul(a, a)
  }]
}`;
    for (const [q, r, want] of [
      [true, true, Math.cos(0.5)],
      [true, false, -Math.cos(0.5)],
      [false, true, 1],
    ] as const) {
      const g = gradOf(parseProgram(src), 'b');
      expect(evalFn(g.program, g.grad, [0.5, q, r]).nl).toEqual([want, [], []]);
    }
  });
});

describe('emitted TypeScript agrees with the interpreter', () => {
  test('every def of f, h, k and l and their derived functions, in every branch', () => {
    let p = program();
    for (const fn of ['f', 'h', 'k']) p = vjpOf(p, fn).program;
    for (const fn of ['f', 'k']) p = gradOf(p, fn).program;
    p = transposeOf(p, 'l').program;
    const { code, fns } = emitAndLoad(p);
    expect(code).toMatch(/if \(p\) \{/);
    const calls: [string, Value[], Value[]][] = [];
    for (const [fn, x] of POINTS) {
      const d = findDef(p, fn);
      const m = d.nlResults.length;
      const dir = x.map((_, i) => i + 0.5);
      calls.push([fn, x, []], [`${fn}.jvp`, x, dir], [`${fn}.fwd`, x, []]);
      const tape = evalFn(p, `${fn}.fwd`, x).nl[m];
      calls.push([`${fn}.lin`, [tape], dir], [`${fn}.bwd`, [tape], Array.from({ length: m }, (_, j) => j + 1)]);
      if (fn !== 'h') calls.push([`${fn}.grad`, x, []]);
    }
    for (const pred of [true, false]) calls.push(['l', [pred, 3], [2, 5]], ['l.T', [pred, 3], [2, 5]]);
    for (const [name, nl, lin] of calls) {
      const want = asReturned(evalFn(p, name, nl, lin));
      expect([name, fns.get(name)!(...nl, ...lin)]).toEqual([name, want]);
    }
  });

  test("a cond in a def's result position returns its results", () => {
    const { fns, code } = emitAndLoad(annotateTypes(program()));
    expect(code).toMatch(/let result\b/);
    expect(fns.get('k')!(0.5, -1, 1)).toBe(0.25);
    expect(fns.get('l')!(false, 3, 2, 5)).toEqual([7, 7]);
  });

  test('a one-element tuple is packed and unpacked as an array (a callee tape of one slot, in a branch)', () => {
    // Found by the random-branch property: g's tape holds only its callee's tape, `<h.tape>`; the
    // emitted unpack bound the whole array instead of its element, and the tangent came out NaN
    // (h's tape needs two slots: JavaScript reads a one-slot array nested in arrays as a number).
    const src = `def h(u: real, v: real ;) -> (real ;) {
  let w = atan(v)
  let z = atan(u)
  add(z, w)
}
def g(x: real ;) -> (real ;) {
  let y = add(x, x)
  h(x, y)
}
def c(t: real, q: real ;) -> (real ;) {
  let zero = 0
  let pr = lt(t, zero)
  cond(pr, q) [|a: real ;| { g(a) }, |a: real ;| {
    let s = sin(a)
    g(s)
  }]
}`;
    const { program: p } = vjpOf(parseProgram(src), 'c', { simplify: true });
    const gTape = findDef(p, 'g.fwd').nlResults[1];
    expect(gTape.tag === 'tuple' && gTape.elems.length).toBe(1);
    const { fns } = emitAndLoad(p);
    for (const t of [-1, 1]) {
      const tape = evalFn(p, 'c.fwd', [t, 0.3]).nl[1];
      for (const [name, nl, lin] of [
        ['c.jvp', [t, 0.3], [0, 1]],
        ['c.fwd', [t, 0.3], []],
        ['c.lin', [tape], [0, 1]],
        ['c.bwd', [tape], [1]],
      ] as [string, Value[], Value[]][]) {
        expect([name, fns.get(name)!(...nl, ...lin)]).toEqual([name, asReturned(evalFn(p, name, nl, lin))]);
      }
    }
  });
});

test('names stay unique per def through every pass (bodies included)', () => {
  let p = program();
  p = vjpOf(p, 'h', { simplify: true }).program;
  for (const fn of ['f', 'k']) p = valueAndGradOf(p, fn, { simplify: true }).program;
  p = hvpOf(p, 'f').program;
  for (const d of p.defs) {
    const seen: string[] = [];
    visitDef(d, { bind: (b) => seen.push(b.name) });
    expect([d.name, new Set(seen).size]).toEqual([d.name, seen.length]);
  }
});

describe('the command line', () => {
  const tsad = (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  const file = path.join(__dirname, '../../examples/ir/cond.lina');

  test('tsad ir grad prints the documented gradients of f in each branch', () => {
    expect(tsad('ir', 'grad', file, '--fn', 'f', '--at', '1,2')).toEqual({ code: 0, out: 'grad f(1, 2) = (1.0806046117362795, 0.8414709848078965)', err: '' });
    expect(tsad('ir', 'grad', file, '--fn', 'f', '--at', '3,2')).toEqual({ code: 0, out: 'grad f(3, 2) = (6, 1)', err: '' });
  });

  test('the printed halves and transposes are programs the checker accepts', () => {
    for (const argv of [
      ['linearize', file, '--fn', 'h'],
      ['linearize', file, '--fn', 'k', '--recompute', '--simplify'],
      ['transpose', file, '--fn', 'l'],
      ['grad', file, '--fn', 'k'],
    ]) {
      const r = tsad('ir', ...argv);
      expect(r.code).toBe(0);
      expect(r.out).toContain('cond(');
      expect(typeErrors(parseProgram(r.out))).toEqual([]);
    }
  });
});
