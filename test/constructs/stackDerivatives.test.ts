// Second order through loops at the IR level: J of the residual stacks (stack, push, at, size and
// the linear lpush, lat), E of the linear stack operations and of loops with linear invariants,
// so that hvp = E ∘ J ∘ grad runs through a counted loop and a while loop. Values against closed
// forms and central differences of the gradient, the drivers re-checking every pass, the emitted
// TypeScript against the interpreter, and the work of hvp against the work of f.
import * as fs from 'fs';
import * as path from 'path';
import { parseProgram } from '../../transformer/language/parse';
import { printProgram } from '../../transformer/ir/print';
import { annotateTypes, typeErrors } from '../../transformer/language/check';
import { evalFn, Value } from '../../transformer/language/interp';
import fc from 'fast-check';
import { Program } from '../../transformer/ir/syntax';
import { CONSTRUCTS } from '../../transformer/constructs/registry';
import { emitAndLoad, asReturned } from './emitted';
import { gradOf, hvpOf, jvpOf, transposeOf, vjpOf } from '../gen/drivers';
import { rel } from './reference';

const read = (file: string) => parseProgram(fs.readFileSync(path.join(__dirname, '../../examples/ir', file), 'utf8'), file);
const loops = () => read('loop.lina');
const whiles = () => read('while.lina');
/** while.lina with a scalar function of grow: p + s at the end of the growth. */
const growing = () =>
  parseProgram(
    `${fs.readFileSync(path.join(__dirname, '../../examples/ir/while.lina'), 'utf8')}
def total(u: real, limit: real, x: real ;) -> (real ;) {
  let (p, s) = grow(u, limit, x)
  add(p, s)
}
`,
    'growing.lina',
  );

/** Column j of the Hessian by central differences of the compiled gradient (the trip count held). */
function gradDifference(p: Program, grad: string, x: number[], j: number, h = 1e-5): number[] {
  const at = (s: number) =>
    evalFn(
      p,
      grad,
      x.map((v, k) => (k === j ? v + s * h : v)),
    ).nl as number[];
  const plus = at(1);
  const minus = at(-1);
  return plus.map((v, i) => (v - minus[i]) / (2 * h));
}

// A stack of constants read in a loop that carries x: c ← sin(c)·v_i with v_i = i + 1 pushed by a
// loop that has no tangent at all. J of the reading loop gets a symbolic zero for the stack: a
// zero(stack<real>) operand, read by lat as zeros (it is empty).
const constantStack = parseProgram(
  `
def z(x: real, n: real ;) -> (real ;) {
  let pad = 0
  let s0 = stack(pad) []
  let s = loop(n, s0) [|i: real, s: stack<real> ;| {
    let one = 1
    let y = add(i, one)
    push(s, y) []
  }]
  loop(n, s, x) [|i: real, s: stack<real>, c: real ;| {
    let v = at(s, i) []
    let sc = sin(c)
    mul(sc, v)
  }]
}
`,
  'z.lina',
);

describe('the linear stack operations', () => {
  test('the registry holds size, lpush and lat', () => {
    expect(Object.keys(CONSTRUCTS)).toEqual(expect.arrayContaining(['size', 'lpush', 'lat']));
  });

  test('a linear program with lpush and lat checks, prints, parses back and runs; missing elements read as zeros', () => {
    const src = `def f(k: real, i: real ; s: stack<real>, x: real) -> (; real) {
  let (; s1) = lpush(k ; s, x) []
  lat(i ; s1) [|| {
    zero(real)
  }]
}
`;
    const p = parseProgram(src, 'l.lina');
    expect(typeErrors(p)).toEqual([]);
    const text = printProgram(annotateTypes(p), { types: true });
    expect(printProgram(parseProgram(text), { types: true })).toBe(text);
    // x placed at position 2 of an empty (zero) stack: positions 0 and 1 are zeros.
    expect(evalFn(p, 'f', [2, 2], [[], 5]).lin).toEqual([5]);
    expect(evalFn(p, 'f', [2, 1], [[], 5]).lin).toEqual([0]);
    expect(evalFn(p, 'f', [2, 0], [[7, 8], 5]).lin).toEqual([7]);
    expect(evalFn(p, 'f', [2, 0], [[7, 8], 5]).work).toBe(0);
  });

  test.each([
    ['lpush of a value of another type', 'def f(k: real ; s: stack<real>, x: <real, real>) -> (; stack<real>) {\n  lpush(k ; s, x) []\n}', /lpush of a <real, real> onto a stack<real>/],
    [
      'lat whose body returns another type',
      'def f(i: real ; s: stack<real>) -> (; real) {\n  lat(i ; s) [|| {\n    zero(<real>)\n  }]\n}',
      /the body of lat gives the element read where the stack has none/,
    ],
    ['lat without a body', 'def f(i: real ; s: stack<real>) -> (; real) {\n  lat(i ; s) []\n}', /lat takes 1 body, got 0/],
    ['a linear stack of booleans', 'def f(; s: stack<bool>) -> (; stack<bool>) {\n  (; s)\n}', /linear variable s has type stack<bool>, which is not a vector space/],
  ])('rejects %s', (_, src, message) => {
    expect(typeErrors(parseProgram(src, 't.lina')).join('\n')).toMatch(message);
  });

  test('a linear stack is used exactly once', () => {
    const src = 'def f(i: real ; s: stack<real>) -> (; real, real) {\n  let (; a) = lat(i ; s) [|| {\n    zero(real)\n  }]\n  let (; b) = lat(i ; s) [|| {\n    zero(real)\n  }]\n  (; a, b)\n}';
    expect(typeErrors(parseProgram(src, 't.lina')).join('\n')).toMatch(/linear variable s is used 2 times/);
  });

  test('T of a linear stack operation is a clear error (reverse over reverse through a loop is not supported yet)', () => {
    const src = 'def f(i: real ; s: stack<real>) -> (; real) {\n  lat(i ; s) [|| {\n    zero(real)\n  }]\n}';
    expect(() => transposeOf(parseProgram(src), 'f')).toThrow(/T of lat: transposing a tangent stack .* is not supported yet/);
    const { program: g } = gradOf(loops(), 'sq');
    expect(() => vjpOf(g, 'sq.grad')).toThrow(/T of l(push|at): transposing a tangent stack .* is not supported yet/);
  });
});

describe('J through the stacks', () => {
  test('J of f.fwd carries a tangent stack beside the residual stack (put, lpush at the counter)', () => {
    const { program: g } = gradOf(loops(), 'sq');
    const { program, jvp } = jvpOf(g, 'sq.fwd');
    const text = printProgram({ defs: [program.defs.find((d) => d.name === jvp)!] });
    // (J of the body runs twice: once presuming the new stack inactive, constructs/loop/inactive.ts; names shift.)
    // A counted loop puts iteration i's residual at i (constructs/stack/put.ts): its tangent goes to i too, no size asked.
    expect(text).toMatch(/let st_2 = put\(st_1, c, (\w+)\) \[\]\s+let \(; st_2_dot\w*\) = lpush\(\1 ; st_1_dot\w*, /);
  });

  test('a stack of constants has no tangent: the loop that fills it carries none, and nothing reads one (in the interpreter and the emitted code)', () => {
    // z(x, n) = c_n with c_0 = x, c_{i+1} = sin(c_i)·(i + 1).
    const z = (x: number, n: number) => {
      let c = x;
      for (let i = 0; i < n; i++) c = Math.sin(c) * (i + 1);
      return c;
    };
    const dz = (x: number, n: number) => {
      let c = x;
      let d = 1;
      for (let i = 0; i < n; i++) {
        d = Math.cos(c) * (i + 1) * d;
        c = Math.sin(c) * (i + 1);
      }
      return d;
    };
    const { program, jvp } = jvpOf(constantStack, 'z');
    // It had a materialised zero tangent stack read back by `lat` (as zeros) before a loop's
    // carried values that stay constant got no tangent (constructs/loop/inactive.ts).
    expect(printProgram(program)).not.toMatch(/lat\(|lpush\(/);
    expect(rel(evalFn(program, jvp, [0.8, 4], [1, 0]).lin[0] as number, dz(0.8, 4))).toBeLessThan(1e-12);
    expect(z(0.8, 4)).toBeCloseTo(evalFn(constantStack, 'z', [0.8, 4]).nl[0] as number, 12);
    // The emitted code reads the empty array's holes as zeros too.
    const { fns } = emitAndLoad(program);
    expect(fns.get(jvp)!(0.8, 4, 1, 0)).toEqual(asReturned(evalFn(program, jvp, [0.8, 4], [1, 0])));
  });
});

describe('hvp through a counted loop: repeated squaring (examples/ir/loop.lina, sq)', () => {
  // sq(x, n) = x^(2^n): at n = 3, x = 1.5: f = x⁸, f' = 8x⁷, f'' = 56x⁶.
  const x = 1.5;
  test('f, the gradient and H·v against the closed forms', () => {
    const p = loops();
    expect(evalFn(p, 'sq', [x, 3]).nl).toEqual([25.62890625]);
    const { program: g, grad } = gradOf(p, 'sq');
    expect(evalFn(g, grad, [x, 3]).nl).toEqual([136.6875, 0]);
    for (const simplify of [false, true]) {
      const h = hvpOf(p, 'sq', { simplify });
      expect(evalFn(h.program, h.hvp, [x, 3, 1, 0]).nl).toEqual([637.875, 0]);
      expect(evalFn(h.program, h.hvp, [x, 3, -2, 0]).nl).toEqual([-1275.75, 0]);
    }
  });

  test('H·v against central differences of the gradient, for several trip counts', () => {
    const p = loops();
    const { program: g, grad } = gradOf(p, 'sq');
    const h = hvpOf(p, 'sq', { simplify: true });
    for (const [x0, n] of [
      [1.1, 0],
      [0.9, 1],
      [1.05, 4],
      [-0.7, 2],
    ]) {
      const hv = evalFn(h.program, h.hvp, [x0, n, 1, 0]).nl as number[];
      const m = 2 ** n;
      expect(rel(hv[0], m * (m - 1) * x0 ** (m - 2))).toBeLessThan(1e-12);
      expect(rel(hv[0], gradDifference(g, grad, [x0, n], 0)[0])).toBeLessThan(1e-6);
    }
  });

  test('the other examples: pow (an invariant), sines (the counter), pair (two carried values)', () => {
    const p = loops();
    const hp = hvpOf(p, 'pow', { simplify: true });
    expect(rel((evalFn(hp.program, hp.hvp, [1.3, 5, 1, 0]).nl as number[])[0], 20 * 1.3 ** 3)).toBeLessThan(1e-12);
    const hs = hvpOf(p, 'sines', { simplify: true });
    // d²/dx² Σ_{i<n} sin(i·x) = −Σ i² sin(i·x)
    const n = 6;
    const ref = -Array.from({ length: n }, (_, i) => i * i * Math.sin(i * 0.4)).reduce((a, b) => a + b, 0);
    expect(rel((evalFn(hs.program, hs.hvp, [0.4, n, 1, 0]).nl as number[])[0], ref)).toBeLessThan(1e-12);
  });

  test('the emitted TypeScript of the hvp agrees with the interpreter', () => {
    for (const fn of ['sq', 'pow', 'sines']) {
      const h = hvpOf(loops(), fn, { simplify: true });
      const { fns } = emitAndLoad(h.program);
      for (const args of [
        [1.5, 3, 1, 0],
        [0.7, 5, -0.5, 0],
        [2, 0, 1, 0],
      ] as Value[][]) {
        expect(fns.get(h.hvp)!(...args)).toEqual(asReturned(evalFn(h.program, h.hvp, args)));
      }
    }
  });

  // W(f) = 2n; W(hvp) = 13n + 6 (J of the forward and of the erased backward loop, each iteration
  // primal and tangent; the reversed loop's ⌈n⌉ and its tangent): c = 6.5, stated as
  // W(hvp) ≤ 7·W(f) + 6.
  test('work: W(hvp) ≤ 7·W(f) + 6, linear in the trip count', () => {
    const p = loops();
    const h = hvpOf(p, 'sq', { simplify: true });
    const works = [1, 10, 100, 1000].map((n) => ({ f: evalFn(p, 'sq', [1, n]).work, hvp: evalFn(h.program, h.hvp, [1, n, 1, 0]).work }));
    for (const w of works) expect(w.hvp).toBeLessThanOrEqual(7 * w.f + 6);
    // Linear in n: the same work per iteration between 10 and 100 iterations as between 100 and 1000.
    expect((works[3].hvp - works[2].hvp) / 900).toBe((works[2].hvp - works[1].hvp) / 90);
  });
});

describe('hvp through a while loop: Newton square root (examples/ir/while.lina, sqrt)', () => {
  test('d²/da² √a = −1/(4 a^{3/2}), against the closed form and central differences of the gradient', () => {
    const p = whiles();
    const { program: g, grad } = gradOf(p, 'sqrt');
    for (const simplify of [false, true]) {
      const h = hvpOf(p, 'sqrt', { simplify });
      for (const a of [0.5, 2, 9, 100]) {
        const hv = (evalFn(h.program, h.hvp, [a, 1]).nl as number[])[0];
        expect(rel(hv, -1 / (4 * a ** 1.5))).toBeLessThan(1e-9);
        expect(rel(hv, gradDifference(g, grad, [a], 0, 1e-5 * a)[0])).toBeLessThan(1e-5);
      }
    }
  });

  test('grow (called): two carried values and two invariants, against central differences of the gradient', () => {
    const p = growing();
    const h = hvpOf(p, 'total', { simplify: true });
    const { program: g, grad } = gradOf(p, 'total');
    const at = [0.1, 5, 1.2];
    const fd = [0, 1, 2].map((j) => gradDifference(g, grad, at, j));
    for (let j = 0; j < 3; j++) {
      const v = [0, 1, 2].map((k) => (k === j ? 1 : 0));
      const hv = evalFn(h.program, h.hvp, [...at, ...v]).nl as number[];
      hv.forEach((x, i) => expect(Math.abs(x - fd[j][i])).toBeLessThan(1e-5 * Math.max(1, Math.abs(x))));
    }
  });

  test('the emitted TypeScript of the hvp agrees with the interpreter', () => {
    const h = hvpOf(whiles(), 'sqrt', { simplify: true });
    const { fns } = emitAndLoad(h.program);
    for (const a of [0.5, 1, 2, 9]) expect(fns.get(h.hvp)!(a, 1)).toEqual(asReturned(evalFn(h.program, h.hvp, [a, 1])));
    const hg = hvpOf(growing(), 'total', { simplify: true });
    const { fns: gf } = emitAndLoad(hg.program);
    const args = [0.1, 5, 1.2, 0.3, 0, -1];
    expect(gf.get(hg.hvp)!(...args)).toEqual(asReturned(evalFn(hg.program, hg.hvp, args)));
  });

  // k iterations: W(f) = 5(k + 1) + 3k = 8k + 5, W(hvp) = 43k + 11: W(hvp) ≤ 6·W(f).
  test('work: W(hvp) ≤ 6·W(f)', () => {
    const p = whiles();
    const h = hvpOf(p, 'sqrt', { simplify: true });
    for (const a of [1, 2, 100, 1e6]) {
      expect(evalFn(h.program, h.hvp, [a, 1]).work).toBeLessThanOrEqual(6 * evalFn(p, 'sqrt', [a]).work);
    }
  });
});

describe('hvp through loops over random bodies', () => {
  // The body maps (c, s) to (f(c), s + f(c)²) for a random chain f of unary operations, some
  // reading the invariant u; the function returns y + s after n iterations, of a counted loop or
  // of a while loop bound by its counter (so the trip count is locally constant).
  const OPS: ((x: string, y: string) => string)[] = [
    (x, y) => `let ${y} = sin(${x})`,
    (x, y) => `let ${y} = mul(${x}, u)`,
    (x, y) => `let ${y} = add(${x}, u)`,
    (x, y) => `let ${y}_s = mul(${x}, ${x})\n    let ${y}_h = 0.5\n    let ${y} = mul(${y}_s, ${y}_h)`,
    (x, y) => `let ${y} = cos(${x})`,
    (x, y) => `let ${y}_t = tanh(${x})\n    let ${y} = add(${y}_t, ${x})`,
  ];

  function program(ops: readonly number[], kind: 'loop' | 'while'): Program {
    const chain = ops.map((k, i) => OPS[k](i === 0 ? 'c' : `v${i - 1}`, `v${i}`)).join('\n    ');
    const last = `v${ops.length - 1}`;
    const dropU = ops.some((k) => k === 1 || k === 2) ? '' : 'drop(u)\n    ';
    const tail = `let sq = mul(${last}, ${last})\n    let s1 = add(s, sq)`;
    const text =
      kind === 'loop'
        ? `def f(u: real, x: real, n: real ;) -> (real ;) {
  let zero = 0
  let (y, s) = loop(n, u, x, zero) [|i: real, u: real, c: real, s: real ;| {
    drop(i)
    ${dropU}${chain}
    ${tail}
    (${last}, s1 ;)
  }]
  add(y, s)
}`
        : `def f(u: real, x: real, n: real ;) -> (real ;) {
  let zero = 0
  let zero_j = 0
  let (y, s, k) = while(u, n, x, zero, zero_j) [|u: real, n: real, c: real, s: real, j: real ;| {
    drop(u)
    drop(c)
    drop(s)
    lt(j, n)
  }, |u: real, n: real, c: real, s: real, j: real ;| {
    drop(n)
    ${dropU}${chain}
    ${tail}
    let one = 1
    let j1 = add(j, one)
    (${last}, s1, j1 ;)
  }]
  drop(k)
  add(y, s)
}`;
    return parseProgram(text, 'generated.lina');
  }

  const arb = fc.record({
    ops: fc.array(fc.integer({ min: 0, max: OPS.length - 1 }), { minLength: 1, maxLength: 4 }),
    kind: fc.constantFrom<'loop' | 'while'>('loop', 'while'),
    u: fc.double({ min: -1, max: 1, noNaN: true }),
    x: fc.double({ min: -1.5, max: 1.5, noNaN: true }),
    n: fc.integer({ min: 0, max: 5 }),
    v: fc.tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true })),
  });

  test('H·v against central differences of the gradient, and the emitted hvp against the interpreter', () => {
    fc.assert(
      fc.property(arb, ({ ops, kind, u, x, n, v }) => {
        const p = program(ops, kind);
        const h = hvpOf(p, 'f', { simplify: true });
        const { program: gp, grad } = gradOf(p, 'f');
        const args = [u, x, n, v[0], v[1], 0];
        const hv = evalFn(h.program, h.hvp, args).nl as number[];
        const eps = 1e-5;
        const g = (s: number) => evalFn(gp, grad, [u + s * eps * v[0], x + s * eps * v[1], n]).nl as number[];
        const plus = g(1);
        const minus = g(-1);
        for (let k = 0; k < 2; k++) {
          const fd = (plus[k] - minus[k]) / (2 * eps);
          // 1e-4: central differences of a gradient near 10⁶ (two exp ops) are off by 1e-5 of it
          // (seed -1714564358 failed at 1e-5 on main too); a wrong rule is off by far more.
          expect(Math.abs(hv[k] - fd)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(fd)));
        }
        expect(hv[2]).toBe(0);
        const { fns } = emitAndLoad(h.program);
        expect(fns.get(h.hvp)!(...args)).toEqual(asReturned(evalFn(h.program, h.hvp, args)));
      }),
      { numRuns: 25 },
    );
  });
});
