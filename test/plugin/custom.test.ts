// Custom derivatives: derivative(f, rule) replaces the JVP of f by the user's rule everywhere f
// is differentiated (also inside other functions); reverse mode comes from transposing the
// rule, second order from differentiating it. References are hand derivations.
import { compile, load } from './harness';

const { exports: m, result } = load(`import { derivative, grad, valueAndGrad, jvp, vjp, hessian } from 'tsad';

export function softplus(x: number): number { return Math.log1p(Math.exp(x)); }
derivative(softplus, (x, dx) => [softplus(x), dx / (1 + Math.exp(-x))]);

// Straight-through estimator: rounding, with the derivative of the identity.
export const roundSte = (x: number): number => Math.round(x);
derivative(roundSte, (x, dx) => [Math.round(x), dx]);

// A norm whose derivative at the origin is 0 instead of NaN.
export function norm(x: number, y: number): number { return Math.sqrt(x * x + y * y); }
derivative(norm, (x, y, dx, dy) => {
  const n = Math.sqrt(x * x + y * y);
  const scale = n === 0 ? 0 : 1 / n;
  return [n, (x * dx + y * dy) * scale];
});

/** @differentiable */
export function loss(w: number, b: number): number { return softplus(w * 2 + b) * b + roundSte(w) * w; }

export const dsoftplus = grad(softplus);
export const d2softplus = hessian(softplus);
export const dloss = grad(loss, { wrt: [0, 1] });
export const vgloss = valueAndGrad(loss);
export const dnorm = grad(norm, { wrt: [0, 1] });
export const tloss = (w: number, b: number) => jvp(loss, [w, b], [0.3, -0.8]);
export const ploss = (w: number, b: number) => vjp(loss, w, b)[1](1.5);
`);

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

test('compiles; the registrations are compiled away', () => {
  expect(result.diagnostics).toEqual([]);
  expect(result.outputText).not.toMatch(/derivative\)?\(/);
});

test('the rule is the derivative, and second order differentiates the rule', () => {
  for (const x of [-2, 0, 0.7, 3]) {
    expect(m.dsoftplus(x)).toBeCloseTo(sigmoid(x), 14);
    expect(m.d2softplus(x)[0][0]).toBeCloseTo(sigmoid(x) * (1 - sigmoid(x)), 14);
  }
});

test('inside another function: chain rule through the custom rules (including one that changes the derivative)', () => {
  const [w, b] = [0.8, -0.4];
  // loss = softplus(2w + b)·b + round(w)·w, with d round(w)/dw taken as 1 (straight-through).
  const z = 2 * w + b;
  const dw = 2 * sigmoid(z) * b + (Math.round(w) + w);
  const db = sigmoid(z) * b + Math.log1p(Math.exp(z));
  const [gw, gb] = m.dloss(w, b);
  expect(gw).toBeCloseTo(dw, 13);
  expect(gb).toBeCloseTo(db, 13);
  const [v, g] = m.vgloss(w, b);
  expect(v).toBeCloseTo(Math.log1p(Math.exp(z)) * b + Math.round(w) * w, 14);
  expect(g).toBeCloseTo(dw, 13);
  // Forward and reverse mode agree: <ȳ, J·ẋ> = <Jᵀ·ȳ, ẋ>.
  const [, tangent] = m.tloss(w, b);
  const [wBar, bBar] = m.ploss(w, b);
  expect(1.5 * tangent).toBeCloseTo(wBar * 0.3 + bBar * -0.8, 13);
});

test('a rule can repair a derivative at a singular point', () => {
  expect(m.dnorm(0, 0)).toEqual([0, 0]);
  const [gx, gy] = m.dnorm(3, -4);
  expect(gx).toBeCloseTo(3 / 5, 15);
  expect(gy).toBeCloseTo(-4 / 5, 15);
});

describe('rules that are not linear in the tangents are rejected at the offending expression', () => {
  const cases: [string, string, RegExp][] = [
    ['(x, dx) => [sq(x), dx * dx]', 'dx * dx', /not linear in its tangents/],
    ['(x, dx) => [sq(x), 2 * x * dx + 1]', '2 * x * dx + 1', /affine, not linear/],
    ['(x, dx) => [sq(x), Math.sin(dx)]', 'Math.sin(dx)', /not linear in its tangents/],
    ['(x, dx) => [sq(x) + dx, 2 * x * dx]', 'sq(x) + dx', /affine, not linear/],
    ['(x, dx) => [sq(x), 3]', '3', /a constant other than 0 is not/],
  ];
  test.each(cases)('%s', (rule, at, message) => {
    const src = `import { derivative, grad } from 'tsad';\nexport function sq(x: number): number { return x * x; }\nderivative(sq, ${rule});\nexport const d = grad(sq);\n`;
    const r = compile(src, { throwOnError: false });
    expect(r.messages.join('\n')).toMatch(/TSAD1110/);
    expect(r.messages.join('\n')).toMatch(message);
    const col = src.split('\n')[2].indexOf(at) + 1;
    expect(r.messages.find((x) => x.includes('TSAD1110'))).toContain(`:3:${col} - error TSAD1110`);
  });
});

describe('custom VJP rules: the pullback is the reverse rule, its transpose the forward rule', () => {
  const { exports: v, result: rv } = load(`import { derivative, grad, valueAndGrad, jvp, hessian } from 'tsad';
// A numerically stable pullback for log(e^a + e^b): softmax weights without overflow.
export function lse(a: number, b: number): number { return Math.log(Math.exp(a) + Math.exp(b)); }
derivative.vjp(lse, (a, b) => {
  const m = Math.max(a, b);
  const ea = Math.exp(a - m);
  const eb = Math.exp(b - m);
  const s = ea + eb;
  return [m + Math.log(s), (ct) => [ct * ea / s, ct * eb / s]];
});
// Gradient clipping as a rule: the pullback clamps what flows back; zero for the second input.
export function clipped(x: number, k: number): number { return x * k; }
derivative.vjp(clipped, (x, k) => [x * k, (ct) => [Math.max(-1, Math.min(1, k)) * ct, 0]]);
/** @differentiable */
export function loss(x: number, y: number): number { return lse(2 * x, y) * y + clipped(x, 3); }
export const dlse = grad(lse, { wrt: [0, 1] });
export const tlse = (a: number, b: number, da: number, db: number) => jvp(lse, [a, b], [da, db]);
export const hlse = hessian(lse, { wrt: [0, 1] });
export const dloss = valueAndGrad(loss, { wrt: [0, 1] });
`);
  const softmax = (a: number, b: number) => {
    const m = Math.max(a, b);
    const [ea, eb] = [Math.exp(a - m), Math.exp(b - m)];
    return [ea / (ea + eb), eb / (ea + eb)];
  };

  test('compiles', () => expect(rv.diagnostics).toEqual([]));

  test('reverse mode runs the pullback: stable where the plain derivative overflows', () => {
    const [ga, gb] = v.dlse(1000, 999);
    expect(ga).toBeCloseTo(softmax(1, 0)[0], 14);
    expect(gb).toBeCloseTo(softmax(1, 0)[1], 14);
  });

  test("forward mode is the transposed pullback, and the value is the function's", () => {
    const [value, tangent] = v.tlse(0.3, -0.2, 0.5, -1.5);
    const [sa, sb] = softmax(0.3, -0.2);
    expect(value).toBeCloseTo(Math.log(Math.exp(0.3) + Math.exp(-0.2)), 14);
    expect(tangent).toBeCloseTo(0.5 * sa - 1.5 * sb, 14);
  });

  test('second order differentiates the rule (Hessian of log-sum-exp)', () => {
    const [[haa, hab], [hba, hbb]] = v.hlse(0.3, -0.2);
    const [sa, sb] = softmax(0.3, -0.2);
    expect(haa[0][0]).toBeCloseTo(sa * sb, 12);
    expect(hbb[0][0]).toBeCloseTo(sa * sb, 12);
    expect(hab[0][0]).toBeCloseTo(-sa * sb, 12);
    expect(hba[0][0]).toBeCloseTo(-sa * sb, 12);
  });

  test('inside another function, with a zero cotangent for an input and a rule that changes the gradient', () => {
    const [x, y] = [0.4, 0.9];
    const [sa, sb] = softmax(2 * x, y);
    const [value, [gx, gy]] = v.dloss(x, y);
    expect(value).toBeCloseTo(Math.log(Math.exp(2 * x) + Math.exp(y)) * y + x * 3, 14);
    // d/dx: 2·sa·y + clip(3) = 2·sa·y + 1 (clipped, instead of 3); d/dy: sb·y + lse + 0.
    expect(gx).toBeCloseTo(2 * sa * y + 1, 13);
    expect(gy).toBeCloseTo(sb * y + Math.log(Math.exp(2 * x) + Math.exp(y)), 13);
  });
});

test('without the plugin, registering a rule is a no-op (the module still loads)', () => {
  const runtime = require('../../runtime');
  expect(
    runtime.derivative(
      (x: number) => x,
      (x: number, dx: number) => [x, dx],
    ),
  ).toBeUndefined();
  expect(
    runtime.derivative.vjp(
      (x: number) => x,
      (x: number) => [x, (ct: number) => [ct]],
    ),
  ).toBeUndefined();
});

describe('random linear rules (property)', () => {
  const fc = require('fast-check');
  const value = fc.constantFrom('x', 'Math.sin(x)', 'Math.exp(x / 3)', '(x * x + 1)', '2.5');
  const tangent = fc.letrec((tie: any) => ({
    t: fc.oneof(
      { depthSize: 'small' },
      fc.constant('dx'),
      fc.tuple(value, tie('t')).map(([c, t]: string[]) => `${c} * (${t})`),
      fc.tuple(tie('t'), value).map(([t, c]: string[]) => `(${t}) / (1 + ${c} * ${c})`),
      fc.tuple(tie('t'), tie('t')).map(([a, b]: string[]) => `(${a}) + (${b})`),
      fc.tuple(tie('t'), tie('t')).map(([a, b]: string[]) => `(${a}) - (${b})`),
      tie('t').map((a: string) => `-(${a})`),
      fc.tuple(tie('t'), tie('t')).map(([a, b]: string[]) => `(x > 0.3 ? ${a} : ${b})`),
    ),
  })).t;

  test('jvp follows the rule, and grad is its transpose', () => {
    fc.assert(
      fc.property(tangent, fc.double({ min: -2, max: 2, noNaN: true }), (t: string, x: number) => {
        const { exports: r } = load(`import { derivative, grad, jvp } from 'tsad';
export function f(x: number): number { return Math.cos(x); }
derivative(f, (x, dx) => [Math.cos(x), ${t}]);
export const g = grad(f);
export const j = (x: number, dx: number) => jvp(f, [x], [dx]);
export const rule = (x: number, dx: number) => ${t};
`);
        const slope = r.rule(x, 1);
        expect(r.j(x, 0.75)[1]).toBeCloseTo(r.rule(x, 0.75), 12);
        expect(r.g(x)).toBeCloseTo(slope, 12);
      }),
      { numRuns: 25 },
    );
  });
});

test('a pullback that is not linear in its cotangent is rejected where it goes wrong', () => {
  const src = `import { derivative, grad } from 'tsad';\nexport function sq(x: number): number { return x * x; }\nderivative.vjp(sq, (x) => [sq(x), (ct) => [ct * ct * x]]);\nexport const d = grad(sq);\n`;
  const r = compile(src, { throwOnError: false });
  const msg = r.messages.find((m) => m.includes('TSAD1110'));
  expect(msg).toMatch(/:3:44 - error TSAD1110: the derivative of 'sq' is not linear in its cotangent/);
});
