// Compiled transforms check their arguments once per call: a wrong count or kind throws a
// TypeError that names the transform, the function and the parameter (with the path of a field
// or element), before any derivative code runs. Correct calls still give the right numbers.
import { load, partial, directional, expectClose, leaves, expectTypeError } from './harness';

const source = `
import { differentiable, grad, valueAndGrad, jvp, vjp, linearize, jacobian, jacfwd, jacrev, hessian, hvp } from 'tsad';

/** @differentiable */
export function f(x: number, y: number): number {
  return x * Math.sin(y) + x * x;
}

export interface Params { amplitude: number; damping: number }

/** @differentiable */
export function residual(p: Params, t: number, target: number): number {
  const r = p.amplitude * Math.exp(-p.damping * t) - target;
  return r * r;
}

/** @differentiable */
export function reach(theta: [number, number], scale: number): number {
  return scale * (Math.cos(theta[0]) + Math.sin(theta[0] + theta[1]));
}

/** @differentiable */
export function gated(x: number, on: boolean, mode: string): number {
  return on && mode === 'square' ? x * x : 3 * x;
}

/** @differentiable */
export function polar(r: number, theta: number): { x: number; y: number } {
  return { x: r * Math.cos(theta), y: r * Math.sin(theta) };
}

export class Model {
  @differentiable
  static loss(w: number, b: number): number {
    return (w * 2 + b - 1) ** 2;
  }
}

export const gradF = grad(f);
export const gradF01 = grad(f, { wrt: [0, 1] });
export const gradResidual = grad(residual);
export const vgResidual = valueAndGrad(residual);
export const gradReach = grad(reach);
export const gradGated = grad(gated);
export const gradLoss = grad(Model.loss);
export const jvpF = (primals: any, tangents: any) => jvp(f, primals, tangents);
export const jvpResidual = (primals: any, tangents: any) => jvp(residual, primals, tangents);
export const jvpGated = (primals: any, tangents: any) => jvp(gated, primals, tangents);
export const vjpF = (x: any, y: any) => vjp(f, x, y);
export const vjpPolar = (r: any, theta: any) => vjp(polar, r, theta);
export const linearizeResidual = (p: any, t: any, target: any) => linearize(residual, p, t, target);
export const jacobianPolar = jacobian(polar);
export const jacfwdPolar = jacfwd(polar, { wrt: [0, 1] });
export const jacrevPolar = jacrev(polar);
export const hessianF = hessian(f, { wrt: [0, 1] });
export const hessianReach = hessian(reach);
export const hvpF = hvp(f);
export const hvpF01 = hvp(f, { wrt: [0, 1] });
export const hvpReach = hvp(reach);
`;

const { exports: m, result } = load(source);

const P = { amplitude: 1.3, damping: 0.4 };
const f = (x: number, y: number) => x * Math.sin(y) + x * x;
const residual = (p: typeof P, t: number, target: number) => (p.amplitude * Math.exp(-p.damping * t) - target) ** 2;
const reach = (theta: [number, number], scale: number) => scale * (Math.cos(theta[0]) + Math.sin(theta[0] + theta[1]));
const polar = (r: number, theta: number) => ({ x: r * Math.cos(theta), y: r * Math.sin(theta) });

test('the snippet compiles cleanly', () => {
  expect(result.typeErrors.map(String)).toEqual([]);
  expect(result.diagnostics).toEqual([]);
});

describe('grad and valueAndGrad', () => {
  test('correct calls give the hand-derived gradients', () => {
    expect(m.gradF(0.7, 1.1)).toBeCloseTo(Math.sin(1.1) + 2 * 0.7, 14);
    expectClose(m.gradF01(0.7, 1.1), [Math.sin(1.1) + 1.4, 0.7 * Math.cos(1.1)], 1e-14);
    expect(m.gradLoss(0.3, 0.2)).toBeCloseTo(2 * (0.6 + 0.2 - 1) * 2, 14);
    expect(m.gradGated(1.5, true, 'square')).toBeCloseTo(3, 14);
    expect(m.gradGated(1.5, false, 'square')).toBeCloseTo(3, 14);
    const [value, g] = m.vgResidual(P, 0.8, 0.2);
    expect(value).toBeCloseTo(residual(P, 0.8, 0.2), 14);
    expectClose(
      leaves(g),
      [0, 1].map((k) => partial(residual as any, [P, 0.8, 0.2], 0, k)[0]),
    );
    expectClose(
      leaves(m.gradReach([0.3, -0.5], 2)),
      [0, 1].map((k) => partial(reach as any, [[0.3, -0.5], 2], 0, k)[0]),
    );
  });

  test('a number parameter given another kind', () => {
    expectTypeError(() => m.gradF(1, 'y'), "grad(f): argument 2 'y' must be a number, got string");
    expectTypeError(() => m.gradF01(null, 2), "grad(f): argument 1 'x' must be a number, got null");
    expectTypeError(() => m.gradF01([1], 2), "grad(f): argument 1 'x' must be a number, got an array of length 1");
    expectTypeError(() => m.gradLoss(1, {}), "grad(Model.loss): argument 2 'b' must be a number, got object");
  });

  test('too few or too many arguments', () => {
    expectTypeError(() => m.gradF(1), 'grad(f): expects 2 arguments, got 1');
    expectTypeError(() => m.gradF01(1, 2, 3), 'grad(f): expects 2 arguments, got 3');
    expectTypeError(() => m.vgResidual(P, 1), 'valueAndGrad(residual): expects 3 arguments, got 2');
  });

  test('object parameters: the object, then each field by its path', () => {
    expectTypeError(() => m.gradResidual(1, 0, 0), "grad(residual): argument 1 'p' must be an object with number fields amplitude, damping, got number");
    expectTypeError(() => m.gradResidual(undefined, 0, 0), "grad(residual): argument 1 'p' must be an object with number fields amplitude, damping, got undefined");
    expectTypeError(() => m.vgResidual({ amplitude: 1 }, 0, 0), "valueAndGrad(residual): argument 1 'p.damping' must be a number, got undefined");
    expectTypeError(() => m.vgResidual({ amplitude: '1', damping: 0 }, 0, 0), "valueAndGrad(residual): argument 1 'p.amplitude' must be a number, got string");
    expectTypeError(() => m.vgResidual(P, 0, true), "valueAndGrad(residual): argument 3 'target' must be a number, got boolean");
  });

  test('tuple parameters: the array, then each element by its index', () => {
    expectTypeError(() => m.gradReach(0.3, 2), "grad(reach): argument 1 'theta' must be an array of 2 numbers, got number");
    expectTypeError(() => m.gradReach(null, 2), "grad(reach): argument 1 'theta' must be an array of 2 numbers, got null");
    expectTypeError(() => m.gradReach([0.3], 2), "grad(reach): argument 1 'theta[1]' must be a number, got undefined");
    expectTypeError(() => m.gradReach([0.3, '1'], 2), "grad(reach): argument 1 'theta[1]' must be a number, got string");
  });

  test('booleans and strings are checked as their kind', () => {
    expectTypeError(() => m.gradGated(1, 1, 'square'), "grad(gated): argument 2 'on' must be a boolean, got number");
    expectTypeError(() => m.gradGated(1, true, undefined), "grad(gated): argument 3 'mode' must be a string, got undefined");
  });
});

describe('jvp', () => {
  test('correct calls agree with central differences', () => {
    const [value, tangent] = m.jvpF([0.7, 1.1], [0.3, -0.2]);
    expect(value).toBeCloseTo(f(0.7, 1.1), 14);
    expectClose([tangent], directional(f as any, [0.7, 1.1], [0.3, -0.2]));
    const dir = [{ amplitude: 0.1, damping: -0.3 }, 0.2, 0.5];
    expectClose([m.jvpResidual([P, 0.8, 0.2], dir)[1]], directional(residual as any, [P, 0.8, 0.2], dir));
    // The tangent of a boolean or string parameter is undefined.
    expect(m.jvpGated([1.5, true, 'square'], [1, undefined, undefined])).toEqual([2.25, 3]);
  });

  test('primals and tangents must be arrays of one value per parameter', () => {
    expectTypeError(() => m.jvpF(0.7, [1, 0]), "jvp(f): argument 1 'primals' must be an array of 2 values, got number");
    expectTypeError(() => m.jvpF([0.7], [1, 0]), "jvp(f): argument 1 'primals' must be an array of 2 values, got an array of length 1");
    expectTypeError(() => m.jvpF([0.7, 1], undefined), "jvp(f): argument 2 'tangents' must be an array of 2 values, got undefined");
    expectTypeError(() => m.jvpF([0.7, 1], [1, 0, 0]), "jvp(f): argument 2 'tangents' must be an array of 2 values, got an array of length 3");
  });

  test('each primal and tangent is named by its parameter', () => {
    expectTypeError(() => m.jvpF([0.7, '1'], [1, 0]), "jvp(f): primals[1] 'y' must be a number, got string");
    expectTypeError(() => m.jvpF([0.7, 1], [1, null]), "jvp(f): tangents[1] 'y' must be a number, got null");
    expectTypeError(() => m.jvpResidual([{ amplitude: 1 }, 0, 0], [P, 0, 0]), "jvp(residual): primals[0] 'p.damping' must be a number, got undefined");
    expectTypeError(() => m.jvpResidual([P, 0, 0], [3, 0, 0]), "jvp(residual): tangents[0] 'p' must be an object with number fields amplitude, damping, got number");
    expectTypeError(() => m.jvpGated([1, 'yes', 'square'], [1, undefined, undefined]), "jvp(gated): primals[1] 'on' must be a boolean, got string");
  });
});

describe('vjp and its pullback', () => {
  test('correct calls agree with the hand derivation', () => {
    const [value, pullback] = m.vjpF(0.7, 1.1);
    expect(value).toBeCloseTo(f(0.7, 1.1), 14);
    expectClose(pullback(2), [2 * (Math.sin(1.1) + 1.4), 2 * 0.7 * Math.cos(1.1)], 1e-14);
    const [point, pb] = m.vjpPolar(2, 0.5);
    expect(point).toEqual(polar(2, 0.5));
    // ⟨ct, J⟩ for ct = (x: 1, y: 3): cos θ + 3 sin θ, and r (−sin θ + 3 cos θ).
    expectClose(pb({ x: 1, y: 3 }), [Math.cos(0.5) + 3 * Math.sin(0.5), 2 * (-Math.sin(0.5) + 3 * Math.cos(0.5))], 1e-14);
  });

  test('the primal arguments', () => {
    expectTypeError(() => m.vjpF('0.7', 1.1), "vjp(f): argument 1 'x' must be a number, got string");
  });

  test('the cotangent passed to the pullback', () => {
    const [, pullback] = m.vjpF(0.7, 1.1);
    expectTypeError(() => pullback('1'), "vjp(f)'s pullback: argument 1 'cotangent' must be a number, got string");
    expectTypeError(() => pullback(), "vjp(f)'s pullback: expects 1 argument, got 0");
    const [, pb] = m.vjpPolar(2, 0.5);
    expectTypeError(() => pb({ x: 1 }), "vjp(polar)'s pullback: argument 1 'cotangent.y' must be a number, got undefined");
    expectTypeError(() => pb([1, 3]), "vjp(polar)'s pullback: argument 1 'cotangent.x' must be a number, got undefined");
  });
});

describe('linearize and its linear function', () => {
  test('correct calls agree with central differences', () => {
    const [value, fLin] = m.linearizeResidual(P, 0.8, 0.2);
    expect(value).toBeCloseTo(residual(P, 0.8, 0.2), 14);
    const dir = [{ amplitude: 0.1, damping: -0.3 }, 0.2, 0.5];
    expectClose([fLin(...dir)], directional(residual as any, [P, 0.8, 0.2], dir));
  });

  test('the primal arguments and the tangents of the returned function', () => {
    // The call form passes every argument of the call site: a missing one arrives as undefined.
    expectTypeError(() => m.linearizeResidual(P, 0.8), "linearize(residual): argument 3 'target' must be a number, got undefined");
    const [, fLin] = m.linearizeResidual(P, 0.8, 0.2);
    expectTypeError(() => fLin({ amplitude: 0.1, damping: 'x' }, 0, 0), "linearize(residual)'s linear function: argument 1 'p.damping' must be a number, got string");
    expectTypeError(() => fLin(P, 0), "linearize(residual)'s linear function: expects 3 arguments, got 2");
  });
});

describe('jacobian, jacfwd, jacrev', () => {
  test('correct calls agree with central differences', () => {
    const cols = [0, 1].map((i) => partial(polar as any, [2, 0.5], i, 0));
    const J = cols[0].map((_, r) => cols.map((c) => c[r]));
    expectClose(
      m.jacobianPolar(2, 0.5).flat(),
      J.map((row) => row[0]),
    );
    expectClose(
      m.jacrevPolar(2, 0.5).flat(),
      J.map((row) => row[0]),
    );
    const [Jr, Jt] = m.jacfwdPolar(2, 0.5);
    expectClose([...Jr.flat(), ...Jt.flat()], [...J.map((row) => row[0]), ...J.map((row) => row[1])]);
  });

  test('arguments are checked for every mode', () => {
    expectTypeError(() => m.jacobianPolar(2), 'jacobian(polar): expects 2 arguments, got 1');
    expectTypeError(() => m.jacfwdPolar(2, '0.5'), "jacfwd(polar): argument 2 'theta' must be a number, got string");
    expectTypeError(() => m.jacrevPolar(undefined, 0.5), "jacrev(polar): argument 1 'r' must be a number, got undefined");
  });
});

describe('hessian and hvp', () => {
  test('correct calls give the hand-derived second derivatives', () => {
    // f = x sin y + x²: f_xx = 2, f_xy = cos y, f_yy = −x sin y.
    const [x, y] = [0.7, 1.1];
    const [[hxx, hxy], [hyx, hyy]] = m.hessianF(x, y);
    expectClose([...hxx, ...hxy, ...hyx, ...hyy], [2, Math.cos(y), Math.cos(y), -x * Math.sin(y)], 1e-14);
    expect(m.hvpF(x, y, 3)).toBeCloseTo(6, 14);
    expectClose(m.hvpF01(x, y, [1, 2]), [2 + 2 * Math.cos(y), Math.cos(y) - 2 * x * Math.sin(y)], 1e-14);
    // reach(θ, s) = s (cos θ0 + sin(θ0 + θ1)).
    const [t0, t1] = [0.3, -0.5];
    const s = Math.sin(t0 + t1);
    const H = [
      [2 * (-Math.cos(t0) - s), -2 * s],
      [-2 * s, -2 * s],
    ];
    expectClose(m.hessianReach([t0, t1], 2).flat(), H.flat(), 1e-14);
    expectClose(m.hvpReach([t0, t1], 2, [1, -1]), [H[0][0] - H[0][1], H[1][0] - H[1][1]], 1e-14);
  });

  test('the primal arguments', () => {
    expectTypeError(() => m.hessianF(1), 'hessian(f): expects 2 arguments, got 1');
    expectTypeError(() => m.hessianReach([0.3, 'a'], 2), "hessian(reach): argument 1 'theta[1]' must be a number, got string");
  });

  test('the direction v has the shape of the gradient', () => {
    expectTypeError(() => m.hvpF(0.7, 1.1), 'hvp(f): expects 3 arguments, got 2');
    expectTypeError(() => m.hvpF(0.7, 1.1, '1'), "hvp(f): argument 3 'v' must be a number, got string");
    expectTypeError(() => m.hvpF01(0.7, 1.1, 1), "hvp(f): argument 3 'v' must be an array of 2 numbers, got number");
    expectTypeError(() => m.hvpReach([0.3, -0.5], 2, [1]), "hvp(reach): argument 3 'v[1]' must be a number, got undefined");
  });
});

test('hvp of a function with a parameter named v: the direction takes another name (the emitted wrapper had two parameters named v, a SyntaxError)', () => {
  const { exports: e } = load(`import { hvp } from 'tsad';
/** @differentiable */
export function h(u: number, v: number): number { return u * u * v; }
export const hv = hvp(h);
export const hv01 = hvp(h, { wrt: [0, 1] });
`);
  // h = u²v: H = [[2v, 2u], [2u, 0]].
  expect(e.hv(1.5, 2, 3)).toBeCloseTo(12, 14);
  expectClose(e.hv01(1.5, 2, [1, -1]), [4 - 3, 3], 1e-14);
  expectTypeError(() => e.hv(1.5, 2, '1'), "hvp(h): argument 3 'v_1' must be a number, got string");
});

test('the happy path is straight-line tests: no literal, call or allocation before the throw', () => {
  // Inline in a wrapper, or in the module's function of a check that several wrappers make (f_args).
  const checks = result.outputText.split('\n').filter((l) => /^\s*if \((arguments\.length|count) !== /.test(l));
  const operand = String.raw`[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*|\[\d+\])*`;
  const test = String.raw`(?:(?:arguments\.length|count) !== \d+|typeof ${operand} !== "(?:number|boolean|string)"|${operand} == null|${operand}\.length !== \d+)`;
  const condition = new RegExp(String.raw`^\s*if \(${test}(?: \|\| ${test})*\)$`);
  for (const line of checks) expect(line).toMatch(condition);
  // A shared check is one function, its body the check alone; a wrapper passes it its name, the
  // count and its parameters (no allocation: V8 inlines the call).
  const shared = [...result.outputText.matchAll(/^function ([\w$]+_args(?:_\d+)?)\(where, count(?:, [\w$]+)*\) \{\n\s*if \(count !== [^\n]*\n\s*throw tsad\$argumentError\(where, [^\n]*\n\}$/gm)].map(
    (x) => x[1],
  );
  expect(shared).toEqual(expect.arrayContaining(['f_args', 'residual_args', 'reach_args']));
  const calls = result.outputText.split('\n').filter((l) => /^\s*[\w$]+_args(?:_\d+)?\(/.test(l));
  // (A body a grad runs under its own name, f_valueAndGrad$as, passes on the name and count it takes.)
  for (const line of calls) expect(line).toMatch(/^\s*[\w$]+_args(?:_\d+)?\(("[^"]*", arguments\.length|where, count)(?:, [\w$]+)*\);$/);
  const runAs = result.outputText.split('\n').filter((l) => /^\s*return [\w$]+\$as\("[^"]*", arguments\.length(?:, [\w$]+)*\)(\[1\])?;$/.test(l));
  // One check per wrapper, plus the pullback and the linear function: inline, a call, or run by a shared body.
  expect(checks.length - shared.length + calls.length + runAs.length).toBeGreaterThanOrEqual(23);
  // The messages are built by the runtime (runtime/emitted.ts), bound once per module; no copy is emitted.
  expect(result.outputText.match(/^const \{[^}]*\btsad\$argumentError\b[^}]*\} = tsad\$rt\.tsad\$emitted;$/gm)).toHaveLength(1);
  expect(result.outputText).not.toMatch(/^function tsad\$argument/m);
});
