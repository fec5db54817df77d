// Local functions inside a differentiable function (function declarations and const arrows):
// their calls are inlined (transformer/frontend/lower.ts `inlineCall`, docs/frontend.md "Local
// functions"). Derivatives are checked against central finite differences; the misuses that
// cannot be inlined are coded diagnostics.
import { compile, load, partial, expectClose } from './harness';

const { exports: m } = load(`import { grad, jvp, hessian } from 'tsad';
/** @differentiable */
export function arrows(x: number, y: number): number {
  const sq = (t: number) => t * t;
  const scaled = (t: number): number => y * Math.sin(t);
  return sq(x) + scaled(sq(y)) + sq(scaled(x));
}

/** @differentiable */
export function hoisted(x: number): number {
  return twice(x) + 1;
  function twice(t: number): number {
    const u = t * x;
    return u + u;
  }
}

/** @differentiable */
export function closure(x: number, n: number): number {
  let acc = 0;
  const bump = (t: number) => acc * 0.5 + Math.cos(t * x);
  for (let i = 0; i < n; i++) acc = bump(i);
  return acc;
}

/** @differentiable */
export function controlInside(x: number): number {
  const clamp = (t: number): number => {
    if (t > 1) return 1 + Math.log(t);
    if (t < -1) return -1;
    return t;
  };
  function root(a: number): number {
    let r = a > 1 ? a : 1;
    for (let k = 0; k < 100; k++) {
      if (Math.abs(r * r - a) < 1e-14) break;
      r = (r + a / r) / 2;
    }
    return r;
  }
  return clamp(x) * root(x * x + 1);
}

/** @differentiable */
export function tuples(p: [number, number]): number {
  const rot = (v: [number, number], th: number): [number, number] => [Math.cos(th) * v[0] - Math.sin(th) * v[1], Math.sin(th) * v[0] + Math.cos(th) * v[1]];
  const norm2 = ({ a, b }: { a: number; b: number }) => a * a + b * b;
  const q = rot(rot(p, 0.3), p[0]);
  return norm2({ a: q[0], b: q[1] }) + q[0];
}

/** @differentiable */
export function nested(x: number): number {
  const outer = (t: number) => {
    const inner = (s: number) => s * x + t;
    return inner(t) * inner(2 * t);
  };
  return outer(x) + outer(1);
}

/** @differentiable */
export function energy(p: [number, number], k: number): number {
  const sq = (t: number) => t * t;
  const spring = (d: number) => 0.5 * k * sq(d);
  return spring(p[0] - 1) + spring(p[1] + 1) + norm(p);
  function norm(v: [number, number]): number {
    return Math.sqrt(sq(v[0]) + sq(v[1]));
  }
}

export const dEnergy = grad(energy, { wrt: [0, 1] });
export const hClamped = hessian(clampedSquare);

/** @differentiable */
export function clampedSquare(p: [number, number]): number {
  const [x, y] = p;
  const clamp = (t: number): number => {
    if (t > 1) { if (t > 2) return 2; }
    else if (t < -1) return -1;
    return t;
  };
  return clamp(x * y) * clamp(x - y) + x * x * y;
}

export const dArrows = grad(arrows, { wrt: [0, 1] });
export const jArrows = (x: number, y: number) => jvp(arrows, [x, y], [1, 0.5]);
export const dHoisted = grad(hoisted);
export const dClosure = grad(closure, { wrt: [0] });
export const dControl = grad(controlInside);
export const jControl = (x: number) => jvp(controlInside, [x], [1]);
export const dTuples = grad(tuples);
export const dNested = grad(nested);
`);

test('const arrows, one calling another, reading a parameter of the function around them', () => {
  const at = [0.7, -1.2];
  expect(m.arrows(...at)).toBe(0.49 + -1.2 * Math.sin(1.44) + (-1.2 * Math.sin(0.7)) ** 2);
  expectClose(m.dArrows(...at), [partial(m.arrows, at, 0, 0)[0], partial(m.arrows, at, 1, 0)[0]]);
  const [value, tangent] = m.jArrows(...at);
  expect(value).toBe(m.arrows(...at));
  expectClose([tangent], [partial(m.arrows, at, 0, 0)[0] + 0.5 * partial(m.arrows, at, 1, 0)[0]]);
});

test('a function declaration after the return (hoisted)', () => {
  expect(m.hoisted(3)).toBe(19);
  expectClose([m.dHoisted(3)], [12], 1e-12);
});

test('a closure reads the current value of a variable the loop assigns', () => {
  const js = (x: number, n: number) => {
    let acc = 0;
    const bump = (t: number) => acc * 0.5 + Math.cos(t * x);
    for (let i = 0; i < n; i++) acc = bump(i);
    return acc;
  };
  for (const x of [0.3, 1.7]) {
    expect(m.closure(x, 5)).toBe(js(x, 5));
    expectClose([m.dClosure(x, 5)], partial(m.closure, [x, 5], 0, 0));
  }
});

test('early returns and a loop with break inside local functions', () => {
  for (const x of [1.8, 0.4, -2]) {
    expectClose([m.dControl(x)], partial(m.controlInside, [x], 0, 0));
    const [value, tangent] = m.jControl(x);
    expect(value).toBe(m.controlInside(x));
    expectClose([tangent], [m.dControl(x)], 1e-12);
  }
  expect(m.controlInside(-2)).toBeCloseTo(-Math.sqrt(5), 12);
});

test('local arrows taking and returning tuples, one with a destructured object parameter', () => {
  const at = [[0.4, -0.9]];
  expectClose(m.dTuples(...at), [partial(m.tuples, at, 0, 0)[0], partial(m.tuples, at, 0, 1)[0]]);
});

test('a local function inside a local function', () => {
  expect(m.nested(2)).toBe((2 * 2 + 2) * (4 * 2 + 2) + (2 + 1) * (4 + 1));
  expectClose([m.dNested(2)], partial(m.nested, [2], 0, 0));
});

test('the example of docs/frontend.md (arrows calling arrows, a hoisted declaration)', () => {
  const at = [[0.3, -2], 4];
  const [dp, dk] = m.dEnergy(...at);
  const [x, y] = [0.3, -2];
  expect(m.energy(...at)).toBeCloseTo(2 * (0.7 ** 2 + 1) + Math.hypot(x, y), 12);
  expectClose([...dp, dk], [4 * (x - 1) + x / Math.hypot(x, y), 4 * (y + 1) + y / Math.hypot(x, y), 0.5 * (0.7 ** 2 + 1)], 1e-12);
});

test('hessian through a local function with early returns lowered by the result flag', () => {
  // Where both clamps are the identity, f = xy(x - y) + x²y = 2x²y - xy².
  expectClose(m.hClamped([0.4, 0.3]).flat(), [4 * 0.3, 4 * 0.4 - 2 * 0.3, 4 * 0.4 - 2 * 0.3, -2 * 0.4], 1e-9);
  // At (3, 0.5): xy = 1.5 passes, x - y = 2.5 is clamped to 2, so f = 2xy + x²y.
  expect(m.clampedSquare([3, 0.5])).toBe(1.5 * 2 + 4.5);
  expectClose(m.hClamped([3, 0.5]).flat(), [2 * 0.5, 2 + 2 * 3, 2 + 2 * 3, 0], 1e-9);
});

const diag = (body: string) =>
  compile(
    `import { grad } from 'tsad';
/** @differentiable */
function f(x: number): number {
${body}
}
export const d = grad(f);`,
    { throwOnError: false },
  ).messages.join('\n');

test('a local function that escapes is TSAD1117; recursion TSAD1109; assigning captured variables where the call may not run TSAD1108', () => {
  expect(diag('  const sq = (t: number) => t * t;\n  const g = [sq, x];\n  return x;')).toMatch(/TSAD1117: 'sq' is a local function used as a value/);
  // A recursive local function makes the function run taped (taped.test.ts), which the build notes.
  expect(diag('  function fact(n: number): number { return n < 1 ? 1 : n * fact(n - 1); }\n  return fact(x);')).toMatch(/note TSAD2001: 'f' runs taped: 'fact' calls itself/);
  // Assigning them is allowed where the call runs once, in order (callerUpdates.test.ts).
  expect(diag('  let y = x;\n  const step = (t: number) => { y = y * t; return y; };\n  return x > 0 ? step(2) : y;')).toMatch(/TSAD1108: the local function 'step' assigns 'y'/);
});
