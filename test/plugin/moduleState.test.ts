// Module-level state read by a marked function: the derivative reads it when it runs, as the
// function itself does, never the value its initializer had. Only a `const` primitive is folded.
// Each case: the compiled primal equals the function run as plain JavaScript, and the gradient
// matches central finite differences of that function, also after the module state changed.
import { load, partial, expectClose } from './harness';
import { buildProgram } from './program';

const source = `import { grad, valueAndGrad, jvp, vjp, hvp } from 'tsad';

const RATE = 0.5;

export let scale = 2;
export function setScale(s: number): void { scale = s; }

export const LUT = new Float64Array(4);
for (let i = 0; i < LUT.length; i++) LUT[i] = (i + 1) * (i + 1);

export const coeffs = { a: 1, b: -0.5 };
export function tune(a: number, b: number): void { coeffs.a = a; coeffs.b = b; }

export const A: number[][] = [[1, 0], [0, 1]];
export const weights: number[] = [];
for (let i = 0; i < 3; i++) weights.push(i + 1);

/** @differentiable */
export function folded(x: number): number { return RATE * x * x; }

/** @differentiable */
export function scaled(x: number): number { return scale * Math.sin(x); }

/** @differentiable */
export function table(x: number): number {
  let s = 0;
  for (let i = 0; i < LUT.length; i++) s += LUT[i] * Math.pow(x, i);
  return s;
}

/** @differentiable */
export function poly(x: number): number { return coeffs.a * x * x + coeffs.b * x; }

/** @differentiable */
export function quad(v: number[]): number {
  let s = 0;
  for (let i = 0; i < A.length; i++) for (let j = 0; j < A[i].length; j++) s += v[i] * A[i][j] * v[j];
  return s;
}

/** @differentiable */
export function weighted(v: Float64Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += weights[i] * v[i] * v[i];
  return s;
}

const config = { gain: 3, offset: 1 };
export const { gain, offset } = config;

/** @differentiable */
export function affine(x: number): number { return gain * x * x + offset; }

/** A marked function reading state only through a callee. */
/** @differentiable */
export function outer(x: number): number { return table(x) + poly(x) * scaled(x); }

export const dFolded = grad(folded);
export const dScaled = grad(scaled);
export const dTable = grad(table);
export const vgPoly = valueAndGrad(poly);
export const dQuad = grad(quad);
export const dWeighted = grad(weighted);
export const dOuter = grad(outer);
export const dAffine = grad(affine);
export const jOuter = (x: number, dx: number) => jvp(outer, [x], [dx]);
export const pOuter = (x: number, ct: number) => vjp(outer, x)[1](ct);
export const hTable = (x: number, v: number) => hvp(table)(x, v);
`;

const { exports: m, result } = load(source);

function fd(f: (x: number) => number, x: number): number {
  return partial(f, [x], 0, 0)[0];
}

test('compiles without diagnostics', () => {
  expect(result.diagnostics.map((d) => d.messageText)).toEqual([]);
});

test('a module const number is folded', () => {
  expect(m.dFolded(3)).toBeCloseTo(3, 12);
});

test('a module let reassigned later: the derivative reads its current value', () => {
  expect(m.dScaled(0.3)).toBeCloseTo(2 * Math.cos(0.3), 12);
  m.setScale(5);
  expect(m.scaled(0.3)).toBeCloseTo(5 * Math.sin(0.3), 12);
  expect(m.dScaled(0.3)).toBeCloseTo(5 * Math.cos(0.3), 12);
  expectClose([m.dScaled(0.7)], [fd(m.scaled, 0.7)], 1e-6);
  m.setScale(2);
});

test('a module const Float64Array filled after its declaration', () => {
  for (const x of [0.3, -1.2]) expectClose([m.dTable(x)], [fd(m.table, x)], 1e-6);
  // 1 + 4x + 9x^2 + 16x^3 at 0.5
  expect(m.dTable(0.5)).toBeCloseTo(4 + 18 * 0.5 + 48 * 0.25, 12);
  m.LUT[3] = 0;
  expect(m.dTable(0.5)).toBeCloseTo(4 + 18 * 0.5, 12);
  expectClose([m.dTable(0.9)], [fd(m.table, 0.9)], 1e-6);
  m.LUT[3] = 16;
});

test('a module const object whose fields change', () => {
  const [v, g] = m.vgPoly(2);
  expect(v).toBe(m.poly(2));
  expect(g).toBeCloseTo(2 * 2 - 0.5, 12);
  m.tune(3, 4);
  const [v2, g2] = m.vgPoly(2);
  expect(v2).toBe(m.poly(2));
  expect(g2).toBeCloseTo(3 * 2 * 2 + 4, 12);
  m.tune(1, -0.5);
});

test('a module const number[][] matrix written later', () => {
  const v = [0.5, -2];
  expectClose(m.dQuad(v), [2 * v[0], 2 * v[1]], 1e-12);
  m.A[0][1] = 3;
  m.A[1][1] = 2;
  expectClose(
    m.dQuad(v),
    [0, 1].map((k) => partial(m.quad, [v], 0, k)[0]),
    1e-6,
  );
  m.A[0][1] = 0;
  m.A[1][1] = 1;
});

test('a module const array pushed into after its declaration', () => {
  const v = new Float64Array([1, 2, 3]);
  expectClose(Array.from(m.dWeighted(v)), [2, 8, 18], 1e-12);
  m.weights[2] = 10;
  expectClose(Array.from(m.dWeighted(v)), [2, 8, 60], 1e-12);
  m.weights[2] = 3;
});

test('names a module const destructures', () => {
  expect(m.dAffine(2)).toBeCloseTo(12, 12);
  expectClose([m.dAffine(0.5)], [fd(m.affine, 0.5)], 1e-6);
});

test('state read through a callee, by grad, jvp, vjp and hvp', () => {
  for (const x of [0.4, 1.1]) {
    const g = fd(m.outer, x);
    expectClose([m.dOuter(x)], [g], 1e-6);
    const [y, t] = m.jOuter(x, 2);
    expect(y).toBe(m.outer(x));
    expectClose([t], [2 * g], 1e-6);
    expectClose([m.pOuter(x, 3)[0]], [3 * g], 1e-6);
  }
  m.setScale(-1);
  m.tune(0.5, 2);
  m.LUT[0] = 7;
  expectClose([m.dOuter(0.4)], [fd(m.outer, 0.4)], 1e-6);
  expect(m.jOuter(0.4, 1)[0]).toBe(m.outer(0.4));
  // table'' = 2·9 + 6·16 x
  expect(m.hTable(0.5, 2)).toBeCloseTo(2 * (18 + 96 * 0.5), 10);
  m.setScale(2);
  m.tune(1, -0.5);
  m.LUT[0] = 1;
});

describe('state of another module', () => {
  const build = buildProgram({
    'table.ts': `export const LUT = new Float64Array(3);
export function fill(k: number): void { for (let i = 0; i < LUT.length; i++) LUT[i] = k * (i + 1); }
fill(1);
`,
    'model.ts': `import { grad } from 'tsad';
import { LUT } from './table';

/** @differentiable */
export function f(x: number): number { return LUT[0] + LUT[1] * x + LUT[2] * x * x; }

const hidden = [2, 3];
/** @differentiable */
export function g(x: number): number { return hidden[0] * x * x + hidden[1] * x; }
export function setHidden(a: number): void { hidden[0] = a; }

export const df = grad(f);
`,
    'main.ts': `import { grad } from 'tsad';
import { f, g } from './model';
export const df = grad(f);
export const dg = grad(g);
`,
  });

  test('builds without diagnostics', () => {
    expect(build.diagnostics.map((d) => d.messageText)).toEqual([]);
  });

  test('an imported array, read when the derivative runs, from the importing module and from a third one', () => {
    const table = build.require('table.ts');
    const model = build.require('model.ts');
    const main = build.require('main.ts');
    expect(model.df(2)).toBeCloseTo(2 + 2 * 3 * 2, 12);
    expect(main.df(2)).toBeCloseTo(2 + 2 * 3 * 2, 12);
    table.fill(2);
    expect(model.df(2)).toBeCloseTo(4 + 2 * 6 * 2, 12);
    expect(main.df(2)).toBeCloseTo(4 + 2 * 6 * 2, 12);
  });

  test("another module's unexported state", () => {
    const model = build.require('model.ts');
    const main = build.require('main.ts');
    expect(main.dg(1)).toBeCloseTo(2 * 2 + 3, 12);
    model.setHidden(5);
    expect(main.dg(1)).toBeCloseTo(2 * 5 + 3, 12);
  });
});

describe('what is not supported yet is a diagnostic, never the initializer', () => {
  const { compile } = require('./harness');
  test.each([
    [
      'a transform of the function inside a marked function',
      `export let k = 2;\n/** @differentiable */\nexport function f(x: number): number { return x * x * k; }\n/** @differentiable */\nexport function g(x: number): number { return grad(f)(x) * x; }\nexport const d = grad(g);`,
      /TSAD1106: grad of 'f', which reads 'k' when it runs/,
    ],
    [
      'a transform of a transform',
      `export let k = 2;\n/** @differentiable */\nexport function f(x: number): number { return x * x * k; }\nexport const d = grad(grad(f));`,
      /TSAD1106: grad of 'f', which reads 'k' when it runs/,
    ],
    [
      'a custom derivative',
      `export let k = 2;\n/** @differentiable */\nexport function f(x: number): number { return x * k; }\nderivative(f, (x: number, dx: number) => [f(x), k * dx]);\nexport const d = grad(f);`,
      /TSAD1111: a custom derivative of 'f', which reads 'k' when it runs/,
    ],
    [
      'a write into module state',
      `export const LUT = [1, 2];\n/** @differentiable */\nexport function f(x: number): number { LUT[0] = x; return x * LUT[1]; }\nexport const d = grad(f);`,
      /TSAD1122: 'LUT' is not a local array/,
    ],
  ])('%s', (_what, body, message) => {
    const r = compile(`import { grad, derivative } from 'tsad';\n${body}\n`, { throwOnError: false });
    expect(r.messages.join('\n')).toMatch(message);
  });
});
