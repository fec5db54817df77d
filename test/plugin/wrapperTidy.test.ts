// The wrappers go through the same tidy as the derivatives (backend/ts/fold.ts): a local read
// once prints at its use, so a Hessian's columns are the calls in its return, in their order,
// and a gradient's result goes straight into tsad$fit. A literal that is only indexed keeps its
// name. The numbers stay those of central differences.
import { load, expectClose, partial } from './harness';

/** The text of the emitted function `name`, up to the next top-level function. */
function fn(text: string, name: string): string {
  const from = text.indexOf(`function ${name}(`);
  const next = text.indexOf('\nfunction ', from + 1);
  return text.slice(from, next < 0 ? undefined : next);
}

const loss = `
/** @differentiable */
export function loss(p: { a: number; b: number; c: number }, t: Float64Array): number {
  let total = 0;
  for (let i = 0; i < t.length; i++) total += Math.sin(p.a * t[i] + p.b) * p.c * p.c;
  return total;
}
`;
const t = new Float64Array([0.1, 0.4, 0.9]);
const p = { a: 1.3, b: -0.4, c: 0.7 };
const plain = (q: { a: number; b: number; c: number }) => {
  let total = 0;
  for (let i = 0; i < t.length; i++) total += Math.sin(q.a * t[i] + q.b) * q.c * q.c;
  return total;
};

describe('wrappers tidied like derivatives', () => {
  test("a Hessian's columns are the calls in its return, in order; the Hessian is the gradient's central differences", () => {
    const { exports: m, result } = load(`import { grad, hessian } from 'tsad';\n${loss}\nexport const g = grad(loss);\nexport const h = hessian(loss);\n`);
    const h = fn(result.outputText, 'loss_hessian');
    expect(h).not.toMatch(/const hv_/);
    const calls = [...h.matchAll(/loss\$hvp_0\(p_1, t, \[(\d, \d, \d)\]/g)].map((x) => x[1]);
    expect(calls).toEqual(['1, 0, 0', '0, 1, 0', '0, 0, 1']);
    expect(h).toMatch(/^\s*return \[loss\$hvp_0\(/m);
    const H = m.h(p, t);
    const keys = ['a', 'b', 'c'] as const;
    const fdOfGrad = keys.flatMap((r) => [0, 1, 2].map((k) => partial((a: number, b: number, c: number) => m.g({ a, b, c }, t)[r], [p.a, p.b, p.c], k, 0)[0]));
    expectClose(H.flat(), fdOfGrad, 1e-5);
    // and the gradient itself
    const g = m.g(p, t);
    expectClose(
      keys.map((k) => g[k]),
      [0, 1, 2].map((k) => partial((a: number, b: number, c: number) => plain({ a, b, c }), [p.a, p.b, p.c], k, 0)[0]),
    );
  });

  test('an array gradient goes straight into tsad$fit', () => {
    const { exports: m, result } = load(
      `import { grad } from 'tsad';\n/** @differentiable */\nexport function sq(x: Float64Array): number {\n  let s = 0;\n  for (let i = 0; i < x.length; i++) s += x[i] * x[i] * x[i];\n  return s;\n}\nexport const g = grad(sq);\n`,
    );
    const w = fn(result.outputText, 'sq_grad');
    expect(w).toMatch(/^\s*return tsad\$fit\(sq\$grad\(x\), x, Float64Array\);$/m);
    const x = new Float64Array([0.5, -1.2, 2]);
    expectClose(
      Array.from(m.g(x)),
      [0, 1, 2].map((k) => partial((a: number, b: number, c: number) => a * a * a + b * b * b + c * c * c, [...x], k, 0)[0]),
    );
  });

  test('an off-diagonal block keeps its columns under their name (no literal indexed in place); blocks against central differences', () => {
    const { exports: m, result } = load(
      `import { grad, hessian } from 'tsad';\n/** @differentiable */\nexport function f(x: number, y: number): number {\n  return Math.sin(x) * y * y + x * x * y;\n}\nexport const g = grad(f, { wrt: [0, 1] });\nexport const h = hessian(f, { wrt: [0, 1] });\n`,
    );
    const h = fn(result.outputText, 'f_hessian_0_1');
    expect(h).toMatch(/const columns_0_1 = \[\[/);
    expect(h).toMatch(/\[\[columns_0_1\[0\]\[0\]\]\]/);
    expect(h).not.toMatch(/\]\]\[0\]/);
    const [x, y] = [0.8, -1.1];
    const H = m.h(x, y) as number[][][][];
    const fd = (i: number, k: number) => partial((a: number, b: number) => m.g(a, b)[i], [x, y], k, 0)[0];
    expectClose(H.flat(3), [fd(0, 0), fd(0, 1), fd(1, 0), fd(1, 1)], 1e-5);
  });
});

// grad beside a valueAndGrad of the same parameters runs the valueAndGrad wrapper's body under its
// own name (PlanExpr runAs): one copy of the check, the call and the repacking, and every message
// still names the transform that was called.
const pastEnd = `
/** @differentiable */
export function fit(p: { a: number; b: number }, t: Float64Array, x: Float64Array): number {
  let total = 0;
  for (let i = 0; i < t.length; i++) {
    const r = p.a * Math.exp(-p.b * t[i]) - x[i];
    total += r * r;
  }
  return total;
}
`;
const plainFit = (q: { a: number; b: number }, tt: Float64Array, xx: Float64Array) => {
  let total = 0;
  for (let i = 0; i < tt.length; i++) {
    const r = q.a * Math.exp(-q.b * tt[i]) - xx[i];
    total += r * r;
  }
  return total;
};

describe("grad runs valueAndGrad's body under its own name", () => {
  const tt = new Float64Array([0, 0.5, 1]);
  const xx = new Float64Array([1, 0.6, 0.4]);
  const q = { a: 1.2, b: 0.7 };
  const fdFit = [0, 1].map((k) => partial((a: number, b: number) => plainFit({ a, b }, tt, xx), [q.a, q.b], k, 0)[0]);

  for (const order of ['valueAndGrad first', 'grad first']) {
    test(`${order}: one body, its checks and errors named by the wrapper called; gradients against central differences`, () => {
      const calls = order === 'grad first' ? 'export const g = grad(fit);\nexport const vg = valueAndGrad(fit);\n' : 'export const vg = valueAndGrad(fit);\nexport const g = grad(fit);\n';
      const { exports: m, result } = load(`import { grad, valueAndGrad } from 'tsad';\n${pastEnd}\n${calls}`);
      const text = result.outputText;
      expect(text.match(/fit\$vg_0\(p\.a, p\.b, t, x\)/g)).toHaveLength(1);
      expect(fn(text, 'fit_grad')).toMatch(/^\s*return fit_valueAndGrad\$as\("grad\(fit\)", arguments\.length, p, t, x\)\[1\];$/m);
      expect(fn(text, 'fit_grad')).not.toMatch(/try|catch/);
      expect(fn(text, 'fit_valueAndGrad$as')).toMatch(/throw tsad\$inTransform\(e, where\);/);
      // Arguments and lengths: each message names the transform called.
      expect(() => m.g(q, tt)).toThrow('grad(fit): expects 3 arguments, got 2');
      expect(() => m.vg(q, tt)).toThrow('valueAndGrad(fit): expects 3 arguments, got 2');
      expect(() => m.g({ a: 1, b: 'x' }, tt, xx)).toThrow("grad(fit): argument 1 'p.b' must be a number, got string");
      const short = new Float64Array(2);
      expect(() => m.g(q, tt, short)).toThrow("grad(fit): in fit: the loop for (… i < t.length …) reads 'x[i]' past its end (3 > 2)");
      expect(() => m.vg(q, tt, short)).toThrow("valueAndGrad(fit): in fit: the loop for (… i < t.length …) reads 'x[i]' past its end (3 > 2)");
      const g = m.g(q, tt, xx);
      const [value, gv] = m.vg(q, tt, xx);
      expect(g).toEqual(gv);
      expect(value).toBeCloseTo(plainFit(q, tt, xx), 12);
      expectClose([g.a, g.b], fdFit);
    });
  }

  test('a function reading module state keeps a wrapper of its own per transform', () => {
    const { exports: m, result } = load(
      `import { grad, valueAndGrad } from 'tsad';\nlet scale = 2;\nexport function setScale(s: number) { scale = s; }\n/** @differentiable */\nexport function f(x: number): number { return scale * x * x; }\nexport const g = grad(f);\nexport const vg = valueAndGrad(f);\n`,
    );
    expect(result.outputText).not.toMatch(/\$as\(/);
    expect(m.g(3)).toBe(12);
    m.setScale(5);
    expect(m.vg(3)).toEqual([45, 30]);
  });
});
