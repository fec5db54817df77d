// The front end's checks of marked functions (issue 18): every transform reports a broken custom
// rule, destructured lets are reassignable, the JSDoc marker takes options, diagnostics name the
// real cause once and point at it, and every marked function is checked even if no transform uses it.
import { compile, load, expectClose } from './harness';
import { TRANSFORM_KINDS } from '../../transformer/plan/transforms';

/** The tsad diagnostics of a build, as "line:col CODE message" with the related call sites. */
function tsadMessages(source: string): string[] {
  return compile(source, { throwOnError: false }).messages.filter((m) => m.includes('TSAD'));
}

describe('a broken custom rule', () => {
  // A rule whose tangent is a tuple: TSAD1105 where the rule returns it.
  const header = `import { derivative, ${TRANSFORM_KINDS.join(', ')} } from 'tsad';
export function sq(x: number): number { return x * x; }
// @ts-ignore: a tangent of the wrong shape, which the plugin must report
derivative(sq, (x, dx) => [sq(x), [2 * x * dx, 0]]);
/** @differentiable */
export function g(x: number): number { return sq(x) + x; }
`;
  const use = (kind: string, fn: string) => (kind === 'jvp' ? `() => jvp(${fn}, [1.5], [1])` : kind === 'vjp' || kind === 'linearize' ? `() => ${kind}(${fn}, 1.5)` : `${kind}(${fn})`);
  // Each order matters: the first transform met lowers the function and its rule.
  const orders = [TRANSFORM_KINDS, [...TRANSFORM_KINDS].reverse()];

  test.each(orders.map((o) => [o.join(',')]))('is reported for every transform and every caller (%s)', (order) => {
    const kinds = order.split(',');
    const lines = kinds.flatMap((k, i) => [`export const s${i} = ${use(k, 'sq')};`, `export const c${i} = ${use(k, 'g')};`]);
    const source = header + lines.join('\n') + '\n';
    const r = compile(source, { throwOnError: false });
    const ours = r.messages.filter((m) => m.includes('TSAD'));
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatch(/:4:27 - error TSAD1105: /);
    expect(ours[0]).toContain('hint: ');
    // Every call site is listed as needing the broken rule.
    const needed = ours[0].split('\n').filter((l) => l.includes('needed by'));
    expect(needed).toHaveLength(2 * kinds.length);
    for (const k of kinds) {
      expect(ours[0]).toContain(`needed by ${k}(sq`);
      expect(ours[0]).toContain(`needed by ${k}(g`);
    }
    // And none of them was compiled from the body instead: each throws when used.
    const { exports: m } = load(source, { throwOnError: false });
    kinds.forEach((_k, i) => {
      for (const name of [`s${i}`, `c${i}`]) {
        expect(() => {
          const v = m[name];
          v(1.5, 1);
        }).toThrow(/was not compiled: the build reported TSAD1105/);
      }
    });
  });
});

describe('let bindings made by destructuring', () => {
  const source = `import { grad, valueAndGrad, hessian, jvp } from 'tsad';
/** @differentiable */
export function tuple(x: number): number { let [a, b] = [x, 2 * x]; a = a * b; b += a; return a + Math.sin(b); }
/** @differentiable */
export function object(x: number, y: number): number {
  let { u, v: w } = { u: x * y, v: x - y };
  for (let i = 0; i < 3; i++) { u = u * w + 1; w = Math.cos(u); }
  if (x > 0) u++; else w--;
  return u * w;
}
/** @differentiable */
export function nested(x: number): number { let [p, { q }] = [x, { q: x * x }] as [number, { q: number }]; q = q + p; p = q * p; return p; }
export const dTuple = grad(tuple);
export const hTuple = hessian(tuple);
export const dObject = grad(object, { wrt: [0, 1] });
export const jObject = (x: number, y: number) => jvp(object, [x, y], [1, -2]);
export const dNested = valueAndGrad(nested);
`;
  test('are reassignable, and their derivatives match central differences', () => {
    const { exports: m, result } = load(source);
    expect(result.diagnostics).toHaveLength(0);
    const h = 1e-6;
    const d1 = (f: (x: number) => number, x: number) => (f(x + h) - f(x - h)) / (2 * h);
    for (const x of [0.3, 1.7]) {
      // a = 2x², b = 2x + 2x², tuple = 2x² + sin(2x + 2x²)
      expect(m.tuple(x)).toBeCloseTo(2 * x * x + Math.sin(2 * x + 2 * x * x), 12);
      expectClose([m.dTuple(x)], [d1(m.tuple, x)], 1e-6);
      expectClose([m.hTuple(x)[0][0]], [d1(m.dTuple, x)], 1e-6);
      expect(m.nested(x)).toBeCloseTo((x * x + x) * x, 12);
      const [value, dn] = m.dNested(x);
      expect(value).toBe(m.nested(x));
      expectClose([dn], [3 * x * x + 2 * x], 1e-12);
    }
    for (const [x, y] of [
      [0.4, 0.9],
      [-0.7, 0.2],
    ]) {
      const fd = [(m.object(x + h, y) - m.object(x - h, y)) / (2 * h), (m.object(x, y + h) - m.object(x, y - h)) / (2 * h)];
      expectClose(m.dObject(x, y), fd, 1e-6);
      const [value, tangent] = m.jObject(x, y);
      expect(value).toBe(m.object(x, y));
      expectClose([tangent], [fd[0] - 2 * fd[1]], 1e-6);
    }
  });
});

describe('one diagnostic for the real cause', () => {
  const fn = (params: string, body: string) => `import { grad } from 'tsad';\n/** @differentiable */\nfunction f(${params}) {\n  ${body}\n}\nexport const d = grad(f);`;
  const one = (source: string, at: string, code: number, message: RegExp) => {
    const ours = tsadMessages(source);
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatch(new RegExp(`:${at} - error TSAD${code}: `));
    expect(ours[0]).toMatch(message);
    expect(ours[0]).toContain('hint: ');
  };

  test('a rest element in a tuple destructuring, and the names it binds read later', () => {
    one(fn('x: [number, number, number]', 'const [a, b, ...rest] = x;\n  return a * b + rest[0];'), '4:16', 1102, /rest elements and defaults are not supported in destructuring/);
  });

  test('destructuring an array (not a tuple): the pattern, not each name read later', () => {
    one(fn('x: number[]', 'const [a, b, ...rest] = x;\n  return a * b + rest.length;'), '4:9', 1121, /destructuring number\[\] is not supported[\s\S]*xs\[0\]/);
  });

  test.each([
    ['const u = undefined;\n  return x;', '4:13', 'undefined'],
    ['return x === undefined ? 0 : x;', '4:16', 'undefined'],
    ['const u = null;\n  return x;', '4:13', 'null'],
    ['const u = void 0;\n  return x;', '4:13', 'void 0'],
  ])('%s: what is unsupported and what to do, not an unknown variable', (body, at, what) => {
    one(fn('x: number', body), at, 1102, new RegExp(`'${what}' is not supported in differentiable functions[\\s\\S]*give it a value of its type`));
  });
});

describe('recursion (TSAD1109)', () => {
  test.each([
    // direct: the call f(x / 2) inside f
    [`/** @differentiable({ taped: false }) */\nfunction f(x: number): number {\n  return x > 1 ? f(x / 2) : x;\n}\nexport const d = grad(f);`, '4:18', /'f' \(line 3\) calls itself directly/],
    // through g: reported where g calls f back, the call that closes the cycle
    [
      `/** @differentiable({ taped: false }) */\nfunction f(x: number): number {\n  return x > 1 ? g(x) : x;\n}\n/** @differentiable({ taped: false }) */\nfunction g(x: number): number {\n  return 2 * f(x / 4);\n}\nexport const d = grad(f);`,
      '8:14',
      /'f' \(line 3\) calls itself through 'g': f → g → f/,
    ],
    // through a transform of itself, which taped mode does not take either
    [`/** @differentiable */\nfunction f(x: number): number {\n  return x > 1 ? grad(f)(x / 2) : x;\n}\nexport const d = grad(f);`, '4:18', /'f' \(line 3\) calls itself directly/],
  ])('is reported at the recursive call (%#)', (body, at, message) => {
    const ours = tsadMessages(`import { grad } from 'tsad';\n${body}`);
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatch(new RegExp(`:${at} - error TSAD1109: `));
    expect(ours[0]).toMatch(message);
    expect(ours[0]).toContain('hint: differentiable functions may call each other but not recursively');
  });
});

describe('options of the JSDoc marker', () => {
  const loopBody = `{
  let y = x;
  for (let i = 0; i < n; i++) y = Math.sin(y) + 0.5 * y;
  return y;
}`;
  const loops = (text: string) => (text.match(/\bfor \(/g) ?? []).length;
  const sources = {
    plain: `/** @differentiable */\nexport function f(x: number, n: number): number ${loopBody}`,
    jsdoc: `/** @differentiable({ checkpoint: { every: 4 } }) */\nexport function f(x: number, n: number): number ${loopBody}`,
    multiline: `/**\n * The loss.\n * @differentiable({\n *   checkpoint: { every: 4 },\n * })\n */\nexport function f(x: number, n: number): number ${loopBody}`,
    const: `/** @differentiable({ checkpoint: { every: 4 } }) the same, as a const */\nexport const f = (x: number, n: number): number => ${loopBody};`,
    wrapper: `export const f = differentiable((x: number, n: number): number => ${loopBody}, { checkpoint: { every: 4 } });`,
  };
  const built = Object.fromEntries(Object.entries(sources).map(([k, src]) => [k, load(`import { grad, differentiable } from 'tsad';\n${src}\nexport const d = grad(f);\n`)]));

  test('checkpoint is honoured as in the differentiable(fn, options) form: segments are loops of their own, same gradient', () => {
    for (const k of Object.keys(sources)) expect(built[k].result.diagnostics).toHaveLength(0);
    expect(loops(built.wrapper.result.outputText)).toBeGreaterThan(loops(built.plain.result.outputText));
    for (const k of ['jsdoc', 'multiline', 'const']) {
      expect(loops(built[k].result.outputText)).toBe(loops(built.wrapper.result.outputText));
      for (const [x, n] of [
        [0.7, 10],
        [1.3, 37],
      ]) {
        const h = 1e-6;
        const m = built[k].exports;
        expectClose([m.d(x, n)], [built.plain.exports.d(x, n)], 1e-13);
        expectClose([m.d(x, n)], [(m.f(x + h, n) - m.f(x - h, n)) / (2 * h)], 1e-6);
      }
    }
  });

  test('wrt is honoured', () => {
    const { exports: m, result } = load(`import { grad } from 'tsad';
/** @differentiable({ wrt: ['y'] }) */
export function f(x: number, y: number): number { return x * x * Math.sin(y); }
export const d = grad(f);
export const both = grad(f, { wrt: [0, 1] });
`);
    expect(result.diagnostics).toHaveLength(0);
    expectClose([m.d(2, 0.5)], [4 * Math.cos(0.5)], 1e-12);
    expectClose(m.both(2, 0.5), [4 * Math.sin(0.5), 4 * Math.cos(0.5)], 1e-12);
  });

  test.each([
    [`/** @differentiable({ checkpoint: 'binomial' }) */`, '2:35', 1008, /checkpoint 'binomial' is not a policy/],
    [`/**\n * @differentiable({\n *   checkpoint: { every: 0 } })\n */`, '4:27', 1008, /checkpoint every must be a positive whole number/],
    [`/** @differentiable({ chekpoint: 'sqrt' }) */`, '2:23', 1003, /unknown option 'chekpoint' of @differentiable/],
    [`/** @differentiable({ wrt: 0 }) */`, '2:28', 1003, /wrt must be an array literal/],
    [`/** @differentiable({ checkpoint: 'sqrt' } */`, '3:1', 1003, /must be one object literal in parentheses/],
  ])('a bad option is reported where it is written: %s', (marker, at, code, message) => {
    const ours = tsadMessages(`import { grad } from 'tsad';\n${marker}\nfunction f(x: number): number { return x * x; }\nexport const d = grad(f);`);
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatch(new RegExp(`:${at} - error TSAD${code}: `));
    expect(ours[0]).toMatch(message);
    expect(ours[0]).toContain('hint: ');
  });
});

describe('every marked function is checked, used by a transform or not', () => {
  test('unused marked functions, methods, getters and wrapped arrows report their problems', () => {
    const ours = tsadMessages(`import { differentiable, derivative } from 'tsad';
/** @differentiable */
export function spin(x: number) {
  let y = x;
  for (;;) { y = y * 2; }
  return y;
}
export class C {
  constructor(readonly k: number) {}
  /** @differentiable */
  get v(): number { return 1; }
  @differentiable
  get w(): number { return 2; }
  @differentiable
  static noisy(x: number) { return x * Math.random(); }
}
export const wrapped = differentiable((x: number) => x.toFixed(2).length * x);
/** @differentiable */
export const arrow = (x: number) => { const u = undefined; return x; };
export function ruled(x: number): number { return x > 0 ? x : -x; }
// @ts-ignore: a rule of the wrong shape
derivative(ruled, (x, dx) => [ruled(x), [dx]]);
/** @differentiable */
export function fine(x: number) { return x * x; }
export const plain = [1, 2].map((x) => x * 2);
`);
    const where = ours.map((m) => m.split('\n')[0].replace(/^.*?:(\d+:\d+) - error (TSAD\d+):.*$/, '$1 $2'));
    expect(where).toEqual(['5:3 TSAD1101', '11:3 TSAD1112', '12:3 TSAD1112', '15:40 TSAD1103', '17:54 TSAD1113', '19:49 TSAD1102', '22:30 TSAD1105']);
    for (const m of ours) expect(m).toContain('hint: ');
    // No transform needed them: no "needed by" line.
    for (const m of ours) expect(m).not.toContain('needed by');
  });

  test('a comment that mentions @differentiable in prose marks nothing', () => {
    const r = compile(`import { grad } from 'tsad';
// Unlike a @differentiable function, this one may call anything.
export function io(x: number) { return x * Math.random(); }
/** Reads the clock; see the @differentiable functions below. */
export function clock(x: number) { return x + Date.now(); }
/** @differentiable */
export function f(x: number) { return x * x; }
export const d = grad(f);
`);
    expect(r.diagnostics).toHaveLength(0);
  });

  test('a problem in a function that a transform also needs is still one diagnostic, with the call site', () => {
    const ours = tsadMessages(`import { grad } from 'tsad';
/** @differentiable */
export function h(x: number) { return x * Math.random(); }
/** @differentiable */
export function f(x: number) { return h(x) + 1; }
export const d = grad(f);
`);
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatch(/:3:43 - error TSAD1103: /);
    expect(ours[0].split('\n').filter((l) => l.includes('needed by'))).toEqual([expect.stringMatching(/:6:18: needed by grad\(f\) here$/)]);
  });
});
