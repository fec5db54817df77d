// Loops in differentiable functions: a counted `for` lowers to the IR's `loop`, every other
// `for`, `while` and `do … while` to `while` (transformer/frontend/lower.ts, docs/frontend.md
// "Loops"). Derivatives are compared with closed forms and central finite differences; the
// emitted code keeps each loop a loop. Second order through loops: secondOrderLoops.test.ts.
import * as fs from 'fs';
import * as path from 'path';
import { main } from '../../transformer/plugin/cli';
import { workDir } from './harness';
import { compile, load, leaves, partial, directional, expectClose } from './harness';

const { exports: m, result } = load(`import { grad, valueAndGrad, jvp, vjp, jacobian, linearize } from 'tsad';
/** @differentiable */
export function squarings(x: number): number {
  let y = x;
  for (let i = 0; i < 3; i++) {
    y = y * y;
  }
  return y;
}

/** @differentiable */
export function power(x: number, n: number): number {
  let p = 1;
  for (let i = 0; i < n; i++) p *= x;
  return p;
}

/** @differentiable */
export function newton(a: number): number {
  let x = a;
  while (Math.abs(x * x - a) > 1e-12 * a) {
    x = (x + a / x) / 2;
  }
  return x;
}

/** @differentiable */
export function rotate(v: [number, number], theta: number, n: number): [number, number] {
  let p = v;
  for (let k = 1; k <= n; k += 1) {
    const [a, b] = p;
    const c = Math.cos(theta / k), s = Math.sin(theta / k);
    p = [c * a - s * b, s * a + c * b];
  }
  return p;
}

/** @differentiable */
export function state(s: { pos: number; vel: number }, dt: number, steps: number): { pos: number; vel: number } {
  let cur = s;
  let t = 0;
  for (let i = 0; i < steps; i++) {
    const acc = -Math.sin(cur.pos);
    cur = { pos: cur.pos + dt * cur.vel, vel: cur.vel + dt * acc };
    t = t + dt;
  }
  return { pos: cur.pos + 0 * t, vel: cur.vel };
}

/** @differentiable */
export function sq(u: number): number { return u * u; }

/** @differentiable */
export function callsInLoop(x: number, y: number): number {
  let acc = 0;
  for (let i = 0; i < 4; i = i + 1) {
    acc = acc + sq(Math.sin(x * i + y));
  }
  return acc;
}

/** @differentiable */
export function branchy(x: number, n: number): number {
  let y = x;
  let flips = 0;
  for (let i = 0; i < n; ++i) {
    if (y > 1) {
      y = Math.log(y);
      flips = flips + 1;
    } else {
      y = y * y + 1;
    }
  }
  return y + flips;
}

/** @differentiable */
export function halving(x: number): number {
  let y = x;
  let steps = 0;
  let big = true;
  while (big) {
    y = y / 2;
    steps++;
    big = y > 1;
  }
  return y * steps;
}

/** @differentiable */
export function doLoop(x: number): number {
  let y = x;
  do {
    y = Math.sin(y) + 1.5 * y + 0.2;
  } while (y < 10);
  return y;
}

/** @differentiable */
export function generalFor(x: number, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i += 2) {
    s = s + Math.cos(i * x);
  }
  return s;
}

/** @differentiable */
export function nestedLoops(x: number, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) {
    let t = x;
    for (let j = 0; j <= i; j++) t = t * x + j;
    s += t;
  }
  return s;
}

/** @differentiable */
export function startAt(x: number, a: number, n: number): number {
  let s = 0;
  for (let i = a; i < n; i++) s = s + i * x * x;
  return s;
}

export const dSquarings = grad(squarings);
export const vgSquarings = valueAndGrad(squarings);
export const dPower = grad(power, { wrt: [0] });
export const dNewton = grad(newton);
export const jNewton = (a: number) => jvp(newton, [a], [1]);
export const jRotate = (v: [number, number], th: number, n: number, dv: [number, number], dth: number) => jvp(rotate, [v, th, n], [dv, dth, 0]);
export const vRotate = (v: [number, number], th: number, n: number) => vjp(rotate, v, th, n);
export const jacState = jacobian(state, { wrt: [0, 1] });
export const vState = (s: { pos: number; vel: number }, dt: number, n: number) => vjp(state, s, dt, n);
export const dCalls = grad(callsInLoop, { wrt: [0, 1] });
export const dBranchy = grad(branchy, { wrt: [0] });
export const dHalving = grad(halving);
export const jHalving = (x: number) => jvp(halving, [x], [1]);
export const dDo = valueAndGrad(doLoop);
export const dGeneral = grad(generalFor, { wrt: [0] });
export const dNested = grad(nestedLoops, { wrt: [0] });
export const linNested = (x: number, n: number) => linearize(nestedLoops, x, n);
export const dStart = grad(startAt, { wrt: [0] });
`);

const gradFd = (f: (...a: any[]) => any, at: any[], i = 0) => leaves(at[i]).map((_, k) => partial(f, at, i, k)[0]);

test('repeated squaring: x ↦ x⁸ in a for loop, value and derivative exact', () => {
  expect(m.squarings(1.5)).toBe(25.62890625);
  expect(m.dSquarings(1.5)).toBe(136.6875);
  expect(m.vgSquarings(1.5)).toEqual([25.62890625, 136.6875]);
  for (const x of [-1.2, 0.3, 2]) expectClose([m.dSquarings(x)], [8 * x ** 7], 1e-12);
});

test('a trip count from a parameter (a non-differentiable integer), zero iterations included', () => {
  for (const n of [0, 1, 2, 5]) {
    expect(m.power(1.3, n)).toBeCloseTo(1.3 ** n, 12);
    expectClose([m.dPower(1.3, n)], [n * 1.3 ** (n - 1)], 1e-12);
  }
  expect(m.dPower(1.3, -2)).toBe(0);
  // A non-integer bound runs ⌈n⌉ iterations, as the JavaScript loop does.
  expect(m.power(2, 2.5)).toBe(8);
});

test("Newton's square root in a while loop: d/da = 1/(2√a)", () => {
  for (const a of [0.25, 2, 9, 1e4]) {
    expect(m.newton(a)).toBeCloseTo(Math.sqrt(a), 10);
    expectClose([m.dNewton(a)], [1 / (2 * Math.sqrt(a))], 1e-9);
    const [value, tangent] = m.jNewton(a);
    expect(value).toBe(m.newton(a));
    expectClose([tangent], [1 / (2 * Math.sqrt(a))], 1e-9);
  }
});

test('a loop carrying a tuple, with <= and i += 1 (jvp and vjp against finite differences)', () => {
  const at = [[0.7, -0.2], 0.9, 3];
  const [value, tangent] = m.jRotate(at[0], at[1], at[2], [0.3, -1.1], 0.5);
  expectClose(leaves(value), leaves(m.rotate(...at)), 1e-12);
  expectClose(tangent, directional(m.rotate, at, [[0.3, -1.1], 0.5, 0]));
  const [v2, pullback] = m.vRotate(...at);
  expectClose(leaves(v2), leaves(m.rotate(...at)), 1e-12);
  const ct = [1.5, -0.5];
  const [dv, dth] = pullback(ct);
  const dot = (i: number, k: number) => partial(m.rotate, at, i, k).reduce((s, d, j) => s + d * ct[j], 0);
  expectClose(dv, [dot(0, 0), dot(0, 1)]);
  expectClose([dth], [dot(1, 0)]);
});

test('a loop carrying an object and a second value (jacobian and vjp)', () => {
  const at = [{ pos: 0.4, vel: -0.3 }, 0.1, 7];
  const [Js, Jdt] = m.jacState(...at);
  const cols = [0, 1].map((k) => partial(m.state, at, 0, k));
  expectClose(
    leaves(Js),
    leaves([
      [cols[0][0], cols[1][0]],
      [cols[0][1], cols[1][1]],
    ]),
  );
  expectClose(leaves(Jdt), partial(m.state, at, 1, 0));
  const [, pullback] = m.vState(...at);
  const [ds, ddt] = pullback({ pos: 1, vel: 2 });
  const dot = (i: number, k: number) => {
    const p = partial(m.state, at, i, k);
    return p[0] + 2 * p[1];
  };
  expectClose(leaves(ds), [dot(0, 0), dot(0, 1)]);
  expectClose([ddt], [dot(1, 0)]);
});

test('a loop calling another marked function, the counter read in the body', () => {
  const at = [0.4, -0.8];
  expectClose(m.dCalls(...at), [gradFd(m.callsInLoop, at, 0)[0], gradFd(m.callsInLoop, at, 1)[0]]);
});

test('an if inside a loop', () => {
  for (const x of [0.5, 1.7, 3.1]) expectClose([m.dBranchy(x, 5)], gradFd(m.branchy, [x, 5]));
});

test('a while loop on a boolean flag and a counter, carried with the value', () => {
  expect(m.halving(10)).toBe((10 / 16) * 4);
  expect(m.dHalving(10)).toBe(4 / 16);
  expect(m.jHalving(10)).toEqual([2.5, 0.25]);
  expect(m.halving(0.5)).toBe(0.25);
  expect(m.dHalving(0.5)).toBe(0.5);
});

test('do … while runs its body at least once', () => {
  for (const x of [0.3, 2, 20]) {
    const [value, g] = m.dDo(x);
    expect(value).toBe(m.doLoop(x));
    expectClose([g], gradFd(m.doLoop, [x]));
  }
  expect(m.doLoop(20)).toBe(Math.sin(20) + 1.5 * 20 + 0.2);
});

test('a for loop stepping by 2 (a while loop), nested loops, a start other than 0', () => {
  expectClose([m.dGeneral(0.7, 7)], gradFd(m.generalFor, [0.7, 7]));
  expectClose([m.dNested(1.1, 4)], gradFd(m.nestedLoops, [1.1, 4]));
  const [value, f] = m.linNested(1.1, 4);
  expect(value).toBe(m.nestedLoops(1.1, 4));
  expectClose([f(2, 0)], [2 * gradFd(m.nestedLoops, [1.1, 4])[0]]);
  expect(m.startAt(2, 3, 6)).toBe((3 + 4 + 5) * 4);
  expectClose([m.dStart(2, 3, 6)], [(3 + 4 + 5) * 4]);
  expectClose([m.dStart(2, 6, 3)], [0]);
});

test('loops stay loops: the emitted code has for and while, and its size does not grow with the trip count', () => {
  const code = result.outputText;
  expect(code).toMatch(/for \(let k\w* = 0; k\w* < /);
  expect(code).toMatch(/while \(true\)/);
  const emitted = (n: number) =>
    compile(`import { grad } from 'tsad';
/** @differentiable */
function f(x: number): number { let y = x; for (let i = 0; i < ${n}; i++) { y = Math.sin(y) * x; } return y; }
export const d = grad(f);`).outputText.replace(/case\d+/g, 'case');
  const small = emitted(3);
  expect(emitted(1000).replace(/1000/g, '3')).toBe(small);
  expect(small).toMatch(/for \(let k\w* = 0; k\w* < 3; k\w*\+\+\)/);
});

test('tsad inspect shows the loops in Linear A and in the derived stages (stacks forward, the reversed loop backward)', () => {
  const file = path.join(workDir(), 'inspected-loops.ts');
  fs.writeFileSync(
    file,
    `/** @differentiable */\nexport function f(x: number, n: number): number {\n  let y = x;\n  for (let i = 0; i < n; i++) y = Math.sin(y) * x;\n  let z = y;\n  while (z > 1) z = z / 2;\n  return z;\n}\n`,
  );
  const run = (stage: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = main(['inspect', file, '--fn', 'f', '--stage', stage], { out: (t) => out.push(t), err: (t) => err.push(t) });
    expect({ code, err: err.join('\n') }).toEqual({ code: 0, err: '' });
    return out.join('\n');
  };
  const ir = run('linear-a');
  expect(ir).toMatch(/= loop\(n, /);
  expect(ir).toMatch(/= while\(/);
  const lin = run('linearize');
  // A counted loop puts record i in iteration i (constructs/stack/put.ts); a while loop pushes.
  expect(lin).toMatch(/(push|put)\(/);
  expect(lin).toMatch(/at\(/);
  expect(run('grad')).toMatch(/stack<real>/);
  expect(run('emit')).toMatch(/for \(let \w+ = 0; \w+ < n; \w+\+\+\)/);
});
