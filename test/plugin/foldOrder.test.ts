// The printer nests single-use temporaries into their use (backend/ts/fold.ts). A read of an
// array element must never be moved past a write to that array (the emitted code updates arrays
// in place), nor a value past a reassignment of a variable it reads. Programs that read, then
// write, then use the read value; checked against the same source run as plain JavaScript
// (values) and central differences (gradients), and on the emitted text.
import { load, runPlain } from './harness';

const functions = `/** @differentiable */
export function readThenWrite(x: Float64Array, w: number): number {
  const a = x.slice();
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    const before = a[i];
    a[i] = a[i] * w + 1;
    s += before * a[i];
  }
  return s;
}
/** @differentiable */
export function swapNeighbours(x: Float64Array, w: number): number {
  const a = x.slice();
  for (let i = 1; i < a.length; i++) {
    const left = a[i - 1];
    const right = a[i];
    a[i - 1] = right * w;
    a[i] = left + right;
  }
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * (i + 1);
  return s;
}
/** @differentiable */
export function carried(x: Float64Array, w: number): number {
  // u is read into old before u is reassigned; old is used after.
  let u = w;
  let v = 1;
  for (let i = 0; i < x.length; i++) {
    const old = u;
    u = u * x[i] + v;
    v = old - v * 0.5;
  }
  return u * v;
}
/** @differentiable */
export function exponent(x: number, y: number): number {
  const n = -x;
  return n ** 2 + y * (x * y) - (x - y);
}
`;
const source = `import { grad, valueAndGrad, jvp } from 'tsad';
${functions}
export const gReadThenWrite = grad(readThenWrite, { wrt: [0, 1] });
export const vgSwap = valueAndGrad(swapNeighbours, { wrt: [0, 1] });
export const gCarried = grad(carried, { wrt: [0, 1] });
export const gExponent = grad(exponent, { wrt: [0, 1] });
export const jReadThenWrite = (x: Float64Array, w: number, t: Float64Array, tw: number) => jvp(readThenWrite, [x, w], [t, tw]);
`;

const { exports: m, result } = load(source);
const plain = runPlain(functions);

const H = 1e-6;
function fd(f: (x: Float64Array, w: number) => number, x: Float64Array, w: number): number[] {
  const dx = Array.from(x, (_, k) => {
    const p = x.slice();
    const q = x.slice();
    p[k] += H;
    q[k] -= H;
    return (f(p, w) - f(q, w)) / (2 * H);
  });
  return [...dx, (f(x, w + H) - f(x, w - H)) / (2 * H)];
}
function close(actual: ArrayLike<number>, expected: ArrayLike<number>, tol = 1e-6): void {
  expect(actual.length).toBe(expected.length);
  for (let k = 0; k < expected.length; k++) expect(Math.abs(actual[k] - expected[k])).toBeLessThan(tol * Math.max(1, Math.abs(expected[k])));
}
const x = Float64Array.from([0.7, -0.4, 1.3, 0.2, -1.1]);
const w = 0.9;

test.each(['readThenWrite', 'swapNeighbours', 'carried'])('%s: the primal equals plain JavaScript, the gradient central differences', (name) => {
  const grads: Record<string, (x: Float64Array, w: number) => [Float64Array, number]> = {
    readThenWrite: m.gReadThenWrite,
    swapNeighbours: (a, b) => m.vgSwap(a, b)[1],
    carried: m.gCarried,
  };
  // The marked function itself runs as written; the derivative recomputes it in the emitted code.
  if (name === 'swapNeighbours') expect(m.vgSwap(x, w)[0]).toBe(plain.swapNeighbours(x, w));
  const [gx, gw] = grads[name](x, w);
  close([...gx, gw], fd(plain[name], x, w));
});

test('a jvp through a read before a write of the same element: value and tangent', () => {
  const t = Float64Array.from([0.3, 0.1, -0.2, 0.5, 0.4]);
  const [y, yDot] = m.jReadThenWrite(x, w, t, 0.7);
  expect(y).toBe(plain.readThenWrite(x, w));
  const dir = (e: number) =>
    plain.readThenWrite(
      x.map((v: number, k: number) => v + e * t[k]),
      w + e * 0.7,
    );
  expect(Math.abs(yDot - (dir(H) - dir(-H)) / (2 * H))).toBeLessThan(1e-6);
});

test('a negated base of ** and a product on the right keep their parentheses', () => {
  const [gx, gy] = m.gExponent(1.5, -0.25);
  close([gx, gy], [2 * 1.5 + -0.25 * -0.25 - 1, 2 * 1.5 * -0.25 + 1]);
  // `a * (b * c)` rounds differently from `a * b * c`: the nesting is printed as the IR has it.
  expect(result.outputText).not.toMatch(/[^(]-x \*\* 2/);
});

test('the emitted derivative nests single uses instead of one const per operation', () => {
  const text = result.outputText;
  const fn = (name: string) => text.slice(text.indexOf(`function ${name}(`), text.indexOf('\n}\n', text.indexOf(`function ${name}(`)));
  // x * y is used twice and keeps its name; every other operation is printed where it is used.
  expect(fn('exponent$grad').match(/const /g) ?? []).toHaveLength(1);
  // The read of a[i] before its write stays a named const, used where the source uses it.
  expect(fn('readThenWrite$grad')).toMatch(/const before\w* = /);
});
