// Transforms of transforms and transforms inside marked functions: each derivative is a def of
// its own, differentiated again like any function. Checked against closed forms and central
// finite differences of the compiled first derivatives.
import { compile, load, partial, expectClose } from './harness';

const { exports: m, result } = load(`import { grad, valueAndGrad, jvp, hvp, hessian, jacobian } from 'tsad';
/** @differentiable */
export function f(x: number): number { return x * x * x * Math.sin(x); }
export const d1 = grad(f);
export const d2 = grad(grad(f));
export const d3 = grad(grad(grad(f)));

/** @differentiable */
export function confusion(x: number): number {
  return x * grad((y: number) => x + y)(1);
}
export const dConfusion = grad(confusion);
`);

test('compiles', () => expect(result.diagnostics).toEqual([]));

test('grad(grad(f)) and grad(grad(grad(f))) of x³ sin x match the closed forms', () => {
  for (const x of [-1.3, 0.4, 2.2]) {
    const [s, c] = [Math.sin(x), Math.cos(x)];
    expect(m.d1(x)).toBeCloseTo(3 * x * x * s + x ** 3 * c, 12);
    expect(m.d2(x)).toBeCloseTo(6 * x * s + 6 * x * x * c - x ** 3 * s, 12);
    expect(m.d3(x)).toBeCloseTo(6 * s + 18 * x * c - 9 * x * x * s - x ** 3 * c, 11);
  }
});

test('the emitted code makes no closures: the arrow became a def that its caller passes x to', () => {
  // Messages quote the source (`grad((y: number) => x + y)`): only code counts.
  const code = result.outputText.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  expect(code).not.toMatch(/=>|function\s*\(/);
  expect(result.outputText).toMatch(/return x \* lambda_\d+_grad_1\(x, 1\);/);
});

test('no perturbation confusion: d/dx [x · (d/dy (x + y))|y=1] = 1', () => {
  expect(m.confusion(0.7)).toBeCloseTo(0.7, 14);
  for (const x of [-2, 0.5, 3]) expect(m.dConfusion(x)).toBe(1);
});

const { exports: n, result: second } = load(`import { grad, valueAndGrad, jvp, hvp, hessian, jacobian } from 'tsad';
/** @differentiable */
export function g(x: number, y: number): number { return Math.sin(x * y) + x * x * Math.exp(y); }
export const hvpJvp = (x: number, y: number, vx: number, vy: number) => jvp(grad(g, { wrt: [0, 1] }), [x, y], [vx, vy]);
export const jacOfGrad = jacobian(grad(g, { wrt: [0, 1] }));
export const H = hessian(g, { wrt: [0, 1] });

/** @differentiable */
export function cube(x: number): number { return x * x * x * x; }
export const third = hessian(grad(cube));

/** @differentiable */
export function inner(a: number, b: number): number { return a * a * b + Math.cos(a); }
/** @differentiable */
export function outer(a: number, b: number): number {
  const [v, da] = valueAndGrad(inner)(a, b);
  return grad(inner)(a * b, b) * da + v + hvp(inner)(a, b, 1) * jvp(inner, [a, b], [0, 1])[1];
}
export const dOuter = grad(outer, { wrt: [0, 1] });
export const dInner = grad(inner);

/** @differentiable */
export function branchy(x: number): number {
  if (x > 0) return x * x * x;
  return Math.sin(x);
}
/** @differentiable */
export function loops(x: number, n: number): number {
  let s = 0;
  for (let i = 0; i < 3; i++) s = s + x * i;
  return s * x;
}
export const dBranchy = grad(grad(branchy));
/** @differentiable */
export function usesLoop(x: number): number { return grad(loops)(x, 3) * x; }
export const usesLoopValue = (x: number) => usesLoop(x);
`);

test('second module compiles', () => expect(second.diagnostics).toEqual([]));

function gHessian(x: number, y: number): number[][] {
  const [s, c, e] = [Math.sin(x * y), Math.cos(x * y), Math.exp(y)];
  return [
    [-y * y * s + 2 * e, c - x * y * s + 2 * x * e],
    [c - x * y * s + 2 * x * e, -x * x * s + x * x * e],
  ];
}

test('jvp(grad(g)) is the Hessian times the direction; jacobian(grad(g)) is its first column', () => {
  const [x, y, vx, vy] = [0.6, -0.8, 1.5, -0.25];
  const ref = gHessian(x, y);
  const [value, tangent] = n.hvpJvp(x, y, vx, vy);
  expectClose(value, [y * Math.cos(x * y) + 2 * x * Math.exp(y), x * Math.cos(x * y) + x * x * Math.exp(y)], 1e-12);
  expectClose(tangent, [ref[0][0] * vx + ref[0][1] * vy, ref[1][0] * vx + ref[1][1] * vy], 1e-12);
  // jacobian differentiates with respect to x (the first parameter): the Hessian's first column.
  expectClose(n.jacOfGrad(x, y).flat(), [ref[0][0], ref[1][0]], 1e-12);
  expectClose(n.H(x, y).flat(), ref.flat(), 1e-12);
});

test('hessian(grad(f)) is the third derivative', () => {
  expect(n.third(1.3)).toEqual([[expect.closeTo(24 * 1.3, 12)]]);
});

test('grad of a function that calls grad, valueAndGrad, hvp and jvp of another matches finite differences', () => {
  for (const at of [
    [0.7, 1.2],
    [-0.4, 0.3],
  ]) {
    const ours = n.dOuter(...at);
    expectClose(
      ours,
      [0, 1].map((i) => partial(n.outer, at, i, 0)[0]),
      1e-6,
    );
  }
  // The inner derivatives as the outer function uses them, against the compiled first derivative.
  const [a, b] = [0.7, 1.2];
  const da = 2 * a * b - Math.sin(a);
  const v = a * a * b + Math.cos(a);
  const expected = n.dInner(a * b, b) * da + v + (2 * b - Math.cos(a)) * a * a;
  expect(n.outer(a, b)).toBeCloseTo(expected, 12);
});

test('nested transforms through a branch and through a loop differentiated once', () => {
  for (const x of [-0.9, 0.8]) {
    expect(n.dBranchy(x)).toBeCloseTo(x > 0 ? 6 * x : -Math.sin(x), 12);
    // usesLoop(x) = x · d/dx(3x²) = 6x², so its derivative is 12x.
    expect(n.usesLoopValue(x)).toBeCloseTo(6 * x * x, 12);
  }
});

const { exports: a, result: arrows } = load(`import { grad, valueAndGrad, jvp, vjp } from 'tsad';
/** @differentiable */
export function twoCaptures(x: number, w: number): number {
  const s = x * w;
  return grad((y: number, z: number) => s * y * z + x * Math.sin(z), { wrt: ['z'] })(x, 2) + w;
}
export const dTwo = grad(twoCaptures, { wrt: [0, 1] });

/** @differentiable */
export function curvature(x: number): number {
  // d²/dy² (x·y³)|y=x = 6x², and its value-and-gradient form through valueAndGrad of an arrow.
  const [v, g] = valueAndGrad((y: number) => x * y * y * y)(x);
  return grad(grad((y: number) => x * y * y * y))(x) + v + g;
}
export const dCurvature = grad(curvature);

// An ordinary function (not marked) may use the same forms: they run as compiled code.
export function plain(x: number): number {
  return grad((y: number) => x * y * y)(3);
}

/** @differentiable */
export function gated(x: number, fast: boolean, mode: string): number {
  return fast ? x * x : mode === 'cube' ? x * x * x : Math.sin(x);
}
/** @differentiable */
export function usesMode(x: number): number {
  const [v, dv] = jvp(gated, [x, false, 'cube'], [1, undefined, undefined]);
  return v * dv + grad(gated)(x, true, 'sin');
}
export const dUsesMode = grad(usesMode);
export const modeTangent = (x: number) => jvp(gated, [x, false, 'sine'], [2, undefined, undefined]);
export const modePullback = (x: number) => vjp(gated, x, true, 'sine')[1](1);
`);

test('third module compiles', () => expect(arrows.diagnostics).toEqual([]));

test('arrows capturing several variables, with wrt by name, differentiated again', () => {
  // twoCaptures = s·x + x·cos(2) + w with s = x·w, i.e. x²w + x cos 2 + w.
  for (const [x, w] of [
    [0.3, 1.7],
    [-1.2, 0.4],
  ]) {
    expect(a.twoCaptures(x, w)).toBeCloseTo(x * x * w + x * Math.cos(2) + w, 12);
    expectClose(a.dTwo(x, w), [2 * x * w + Math.cos(2), x * x + 1], 1e-12);
    expectClose(
      a.dTwo(x, w),
      [0, 1].map((i) => partial(a.twoCaptures, [x, w], i, 0)[0]),
      1e-6,
    );
  }
});

test('grad(grad(arrow)) and valueAndGrad(arrow) inside a marked function', () => {
  for (const x of [0.5, -1.5]) {
    // 6x² + x⁴ + 3x³
    expect(a.curvature(x)).toBeCloseTo(6 * x * x + x ** 4 + 3 * x ** 3, 12);
    expect(a.dCurvature(x)).toBeCloseTo(12 * x + 4 * x ** 3 + 9 * x * x, 11);
  }
  expect(a.plain(0.5)).toBeCloseTo(3, 14);
});

test('constant parameters take undefined as their tangent and give undefined as their cotangent', () => {
  // usesMode = x³ · 3x² + 2x.
  for (const x of [0.4, 1.1]) {
    expect(a.usesMode(x)).toBeCloseTo(3 * x ** 5 + 2 * x, 12);
    expect(a.dUsesMode(x)).toBeCloseTo(15 * x ** 4 + 2, 11);
  }
  expect(a.modeTangent(0.3)).toEqual([Math.sin(0.3), 2 * Math.cos(0.3)]);
  expect(a.modePullback(0.3)).toEqual([0.6, undefined, undefined]);
});

const { exports: s, result: structured } = load(`import { grad, hvp, jvp, derivative } from 'tsad';
export function softplus(x: number): number { return Math.log(1 + Math.exp(x)); }
derivative(softplus, (x: number, dx: number) => [softplus(x), dx / (1 + Math.exp(-x))]);
export const sp2 = grad(grad(softplus));

/** @differentiable */
export function h(p: [number, number], q: { a: number; b: number }): number { return p[0] * p[1] * q.a + Math.sin(q.b * p[0]); }
export const dh = grad(h);
/** @differentiable */
export function useH(x: number, y: number): number {
  const g = grad(h, { wrt: [0, 1] })([x, y], { a: y, b: x });
  const t = jvp(h, [[x, y], { a: 1, b: y }], [[1, 0], { a: 0, b: 1 }]);
  const hv = hvp(h)([x, y], { a: y, b: x }, [1, 1]);
  return g[0][0] * g[1].b + t[1] + hv[0] * hv[1] + dh([x, x], { a: y, b: y })[1];
}
export const dUseH = grad(useH, { wrt: [0, 1] });
`);

test('fourth module compiles', () => expect(structured.diagnostics).toEqual([]));

test('the second derivative of a function with a custom JVP rule differentiates the rule', () => {
  for (const x of [-1, 0.5, 2]) {
    const sig = 1 / (1 + Math.exp(-x));
    expect(s.sp2(x)).toBeCloseTo(sig * (1 - sig), 12);
  }
});

test('nested transforms of tuple and object parameters (grad with several wrt, jvp, hvp, a module const)', () => {
  for (const at of [
    [0.3, 0.7],
    [-0.5, 1.1],
  ]) {
    expectClose(
      s.dUseH(...at),
      [0, 1].map((i) => partial(s.useH, at, i, 0)[0]),
      1e-6,
    );
  }
});

test('forward over a derivative through loops: jvp(grad(f)) and hvp inside a marked function, with a for and a while loop', () => {
  const { exports: e, result: r } = load(`import { grad, jvp, hvp } from 'tsad';
/** @differentiable */
export function sq(x: number, n: number): number {
  let y = x;
  for (let i = 0; i < n; i++) y = y * y;
  return y;
}
/** @differentiable */
export function root(a: number): number {
  let x = a;
  while (Math.abs(x * x - a) > 1e-13 * a) x = (x + a / x) / 2;
  return x;
}
export const sqCurvature = (x: number, v: number) => jvp(grad(sq), [x, 3], [v, 0]);
export const rootCurvature = (a: number) => jvp(grad(root), [a], [1]);
/** @differentiable */
export function curvatureOf(a: number): number { return hvp(root)(a, 1) * a; }
export const curvatureTangent = (a: number) => jvp(curvatureOf, [a], [1]);
`);
  expect(r.diagnostics).toEqual([]);
  // sq(x, 3) = x⁸: f' = 8x⁷, f'' = 56x⁶.
  const [g, hv] = e.sqCurvature(1.5, 2);
  expect(g).toBeCloseTo(8 * 1.5 ** 7, 9);
  expect(hv).toBeCloseTo(2 * 56 * 1.5 ** 6, 8);
  // √a: f'' = −1/(4 a^{3/2}).
  for (const a of [2, 9, 0.3]) {
    const [d, dd] = e.rootCurvature(a);
    expect(d).toBeCloseTo(0.5 / Math.sqrt(a), 10);
    expect(dd).toBeCloseTo(-0.25 / a ** 1.5, 8);
    expect(e.curvatureOf(a)).toBeCloseTo((-0.25 / a ** 1.5) * a, 8);
    // d/da (a·f''(a)) = f'' + a·f''' with f''' = 3/(8 a^{5/2}): forward mode through the hvp's loops.
    expect(e.curvatureTangent(a)[1]).toBeCloseTo(-0.25 / a ** 1.5 + (a * 3) / (8 * a ** 2.5), 6);
  }
});

test('gradients of a derivative that runs a loop go by forward mode: grad(grad(f)), grad³, hessian(grad(f)), grad of a function calling grad', () => {
  const { exports: e, result: r } = load(`import { grad, jacobian, hessian, valueAndGrad } from 'tsad';
/** @differentiable */
export function sq(x: number): number {
  let y = x;
  for (let i = 0; i < 3; i++) y = y * y;
  return y;
}
/** @differentiable */
export function root(a: number): number {
  let x = a;
  while (Math.abs(x * x - a) > 1e-13 * a) x = (x + a / x) / 2;
  return x;
}
/** @differentiable */
export function slope(a: number, b: number): number { return grad(root)(a) * b + grad(sq)(b); }
export const d2 = grad(grad(sq));
export const d3 = grad(grad(grad(sq)));
export const vg2 = valueAndGrad(grad(root));
export const h3 = hessian(grad(sq));
export const jSlope = jacobian(grad(slope, { wrt: [0, 1] }));
export const dSlope = grad(slope, { wrt: [0, 1] });
`);
  expect(r.diagnostics).toEqual([]);
  // sq = x⁸.
  for (const x of [0.7, 1.3]) {
    expect(e.d2(x)).toBeCloseTo(56 * x ** 6, 9);
    expect(e.d3(x)).toBeCloseTo(336 * x ** 5, 8);
    expect(e.h3(x)[0][0]).toBeCloseTo(336 * x ** 5, 7);
  }
  const [d, dd] = e.vg2(2);
  expect(d).toBeCloseTo(0.5 / Math.sqrt(2), 10);
  expect(dd).toBeCloseTo(-0.25 / 2 ** 1.5, 9);
  // slope = b/(2√a) + 8b⁷: its gradient, and the Hessian's first column as the Jacobian of that
  // gradient with respect to a.
  const [a, b] = [2, 0.9];
  expectClose(e.dSlope(a, b), [(-0.25 * b) / a ** 1.5, 0.5 / Math.sqrt(a) + 56 * b ** 6], 1e-8);
  expectClose(e.jSlope(a, b).flat(), [(3 * b) / (8 * a ** 2.5), -0.25 / a ** 1.5], 1e-6);
});

test('a function with an array parameter calling a derivative that runs a loop: valueAndGrad by forward mode (the array a constant, its direction zeros), or TSAD1007 with respect to the array (was an IrError crash)', () => {
  const src = (wrt: string) => `import { grad, valueAndGrad } from 'tsad';
/** @differentiable */
export function loopy(u: number): number {
  let s = u;
  for (let i = 0; i < 3; i++) s = Math.sin(s) + u;
  return s;
}
/** @differentiable */
export function f(x: number, a: number[], b: Float64Array): number {
  return grad(loopy)(x) * (a.length > 0 ? a[0] : 1) + b.length;
}
export const vg = valueAndGrad(f${wrt});
`;
  const { exports: e, result: r } = load(src(''));
  expect(r.diagnostics).toEqual([]);
  const [value, dx] = e.vg(0.4, [2, 3], new Float64Array(1));
  expect(value).toBe(e.f(0.4, [2, 3], new Float64Array(1)));
  expect(dx).toBeCloseTo(partial(e.f, [0.4, [2, 3], [0]], 0, 0)[0], 7);
  const refused = compile(src(', { wrt: [0, 1] }'), { throwOnError: false });
  expect(refused.diagnostics.map((d) => d.code)).toEqual([901007]);
  expect(refused.messages.join('\n')).toMatch(/'a', which holds number\[\]|the array parameter 'a'/);
});

test('an arrow written in place captures variables bound by destructuring (was TSAD1106 "not a parameter or local variable")', () => {
  const { exports: e, result: r } = load(`import { grad, valueAndGrad } from 'tsad';
/** @differentiable */
export function f(x: number): number {
  const [p, q] = [x * x, 2];
  return grad((t: number) => t * t * p * q)(x);
}
/** @differentiable */
export function g(x: number): number {
  const { u: p } = { u: x * x };
  return grad((t: number) => Math.sin(t) * p)(x);
}
export const vf = valueAndGrad(f);
export const vg = valueAndGrad(g);
`);
  expect(r.diagnostics).toEqual([]);
  // f = 2x·x²·2 = 4x³, g = cos(x)·x².
  const x = 0.8;
  expect(e.f(x)).toBeCloseTo(4 * x ** 3, 14);
  expect(e.vf(x)).toEqual([e.f(x), expect.closeTo(12 * x * x, 12)]);
  expect(e.g(x)).toBeCloseTo(Math.cos(x) * x * x, 14);
  expect(e.vg(x)).toEqual([e.g(x), expect.closeTo(-Math.sin(x) * x * x + 2 * x * Math.cos(x), 12)]);
});

test('an arrow written in place inside a local function captures the variables of every function around it (was TSAD1106 for a parameter of the outer one)', () => {
  const { exports: e, result: r } = load(`import { grad, valueAndGrad } from 'tsad';
/** @differentiable */
export function f(x: number, y: number): number {
  function local(s: number): number {
    return grad((t: number) => t * t * y * s)(x);
  }
  return local(3);
}
export const vf = valueAndGrad(f, { wrt: [0, 1] });
`);
  expect(r.diagnostics).toEqual([]);
  // f = 2x·y·3 = 6xy.
  const [x, y] = [0.8, -1.3];
  expect(e.f(x, y)).toBeCloseTo(6 * x * y, 14);
  const [v, [gx, gy]] = e.vf(x, y);
  expect(v).toBe(e.f(x, y));
  expect(gx).toBeCloseTo(6 * y, 12);
  expect(gy).toBeCloseTo(6 * x, 12);
});

test('vjp of a derivative that runs a loop is TSAD1007, with a hint', () => {
  const r = compile(
    `import { grad, vjp } from 'tsad';
/** @differentiable */
export function sq(x: number): number {
  let y = x;
  for (let i = 0; i < 3; i++) y = y * y;
  return y;
}
export const p = (x: number) => vjp(grad(sq), x);
`,
    { throwOnError: false },
  );
  expect(r.diagnostics.map((d) => d.code)).toEqual([901007]);
});
