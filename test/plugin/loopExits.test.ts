// break, continue and return inside loops (transformer/frontend/lower.ts, "Leaving a loop
// early"; docs/frontend.md): the flags they set are carried like variables, so derivatives are
// those of the path taken. Each case is checked against the plain JavaScript the plugin emits
// for the primal (values) and central finite differences (grad and jvp).
import { compile, load, partial, expectClose } from './harness';

const { exports: m } = load(`import { grad, jvp, valueAndGrad } from 'tsad';
/** @differentiable */
export function piecewise(x: number): number {
  if (x < -1) return x * x;
  if (x < 0) {
    const y = Math.sin(x);
    if (y < -0.5) return 2 * y;
  }
  let z = x;
  if (x > 2) { z = z * 3; if (z > 9) return Math.exp(-z); }
  return Math.cos(z) + x;
}

/** @differentiable */
export function threshold(x: number, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) {
    s = s + x * i;
    if (s > 3) break;
    s = s * 1.1;
  }
  return s;
}

/** @differentiable */
export function skipping(x: number): number {
  let s = 0;
  for (let i = 0; i < 8; i++) {
    if (i % 3 === 1) continue;
    s = s + Math.sin(x * i);
  }
  return s;
}

/** @differentiable */
export function firstOver(x: number): number {
  for (let i = 1; i < 20; i++) {
    if (x * i > 3) return Math.sin(x * i);
  }
  return -x;
}

/** @differentiable */
export function newtonRoot(a: number): number {
  let x = a > 1 ? a : 1;
  while (true) {
    if (Math.abs(x * x - a) < 1e-12) break;
    x = (x + a / x) / 2;
  }
  return x;
}

/** @differentiable */
export function doUntil(x: number): number {
  let y = x;
  let k = 0;
  do {
    k++;
    if (k > 50) break;
    if (y < 0.5) continue;
    y = y * 0.7 + 0.1 * Math.sin(y);
  } while (y > 0.3);
  return y + k;
}

/** @differentiable */
export function nestedBreak(x: number): number {
  let s = 0;
  for (let i = 0; i < 4; i++) {
    let t = x;
    for (let j = 0; j < 10; j++) {
      t = t * (1 + 0.1 * i);
      if (t > 2) break;
    }
    s = s + t;
  }
  return s;
}

/** @differentiable */
export function returnFromInner(x: number): [number, number] {
  let acc = 0;
  for (let i = 0; i < 5; i++) {
    for (let j = 0; j < 5; j++) {
      acc = acc + x * (i + j);
      if (acc > 4) return [acc, i * x];
    }
  }
  return [acc, -x];
}

/** @differentiable */
export function carried(p: [number, number], q: { u: number; v: number }, n: number): number {
  let a = p;
  let b = q;
  let flag = false;
  let k = 0;
  while (k < n) {
    a = [a[1] * 0.9, a[0] + b.u];
    b = { u: b.v * 0.5, v: b.u + 0.1 * a[0] };
    k = k + 1;
    if (a[0] > 10) { flag = true; break; }
  }
  return (flag ? 1 : 2) * (a[0] + a[1] * b.u + b.v);
}

/** @differentiable */
export function generalFor(x: number): number {
  let i = 0;
  let s = 0;
  for (i = 0; i < 10; i += 2) {
    if (i === 4) continue;
    s = s + x * i;
    if (s > 5 * x) break;
  }
  return s + i * x;
}

/** @differentiable */
export function switchInLoop(x: number): number {
  let s = 0;
  for (let i = 0; i < 6; i++) {
    switch (i % 5) {
      case 0: s = s + x; break;
      case 1: if (s > 1) continue; s = s * x; break;
      case 4: s = s * 0.5; continue;
      default: if (s > 5) return s * s;
    }
    s = s + 0.25;
  }
  return s;
}

export const dPiecewise = grad(piecewise);
export const jPiecewise = (x: number) => jvp(piecewise, [x], [1]);
export const dThreshold = grad(threshold, { wrt: [0] });
export const jThreshold = (x: number, n: number) => jvp(threshold, [x, n], [1, 0]);
export const dSkipping = grad(skipping);
export const jSkipping = (x: number) => jvp(skipping, [x], [1]);
export const dFirstOver = valueAndGrad(firstOver);
export const jFirstOver = (x: number) => jvp(firstOver, [x], [1]);
export const dNewton = grad(newtonRoot);
export const jNewton = (a: number) => jvp(newtonRoot, [a], [1]);
export const dDo = grad(doUntil);
export const jDo = (x: number) => jvp(doUntil, [x], [1]);
export const dNested = grad(nestedBreak);
export const jNested = (x: number) => jvp(nestedBreak, [x], [1]);
export const jReturnInner = (x: number) => jvp(returnFromInner, [x], [1]);
export const dCarried = grad(carried, { wrt: [0, 1] });
export const dGeneral = grad(generalFor);
export const jGeneral = (x: number) => jvp(generalFor, [x], [1]);
export const dSwitch = grad(switchInLoop);
export const jSwitch = (x: number) => jvp(switchInLoop, [x], [1]);
`);

/** grad and jvp of a one-argument function against central differences, at each point. */
function checkScalar(name: string, suffix: string, points: number[], reference?: (x: number) => number) {
  for (const x of points) {
    const fd = partial(m[name], [x], 0, 0)[0];
    const g = m[`d${suffix}`];
    const grad = g ? (Array.isArray(g(x)) ? g(x)[1] : g(x)) : undefined;
    const [value, tangent] = m[`j${suffix}`](x);
    expect(value).toBe(m[name](x));
    expectClose([tangent], [fd], 1e-6);
    if (grad !== undefined) expectClose([grad], [tangent], 1e-12);
    if (reference) expectClose([tangent], [reference(x)], 1e-9);
  }
}

test('a piecewise function with early returns: each branch, a point inside it', () => {
  // x < -1; -1 ≤ x < 0 with sin x < -0.5 (returns) and ≥ -0.5 (falls through); 0 ≤ x ≤ 2; x > 3 (returns exp); 2 < x ≤ 3.
  const points = [-2, -0.8, -0.3, 1.2, 3.5, 2.5];
  expect(points.map(m.piecewise)).toEqual([4, 2 * Math.sin(-0.8), Math.cos(-0.3) - 0.3, Math.cos(1.2) + 1.2, Math.exp(-10.5), Math.cos(7.5) + 2.5]);
  checkScalar('piecewise', 'Piecewise', points);
});

test('a for loop with break once a value exceeds a threshold', () => {
  for (const [x, n] of [
    [0.3, 10],
    [0.05, 10],
    [2, 10],
    [0.3, 0],
  ]) {
    const [value, tangent] = m.jThreshold(x, n);
    expect(value).toBe(m.threshold(x, n));
    const fd = partial(m.threshold, [x, n], 0, 0)[0];
    expectClose([tangent], [fd]);
    expectClose([m.dThreshold(x, n)], [fd]);
  }
  // Broken at i = 3 (s = 0.3·(1.1·(1.1·0.3 + 0.6)) + 0.9 … > 3 only later): compare with plain JavaScript.
  const js = (x: number, n: number) => {
    let s = 0;
    for (let i = 0; i < n; i++) {
      s = s + x * i;
      if (s > 3) break;
      s = s * 1.1;
    }
    return s;
  };
  for (const x of [0.3, 0.05, 2, 0.77]) expect(m.threshold(x, 10)).toBe(js(x, 10));
});

test('continue skips the rest of some iterations', () => {
  const ref = (x: number) => [0, 2, 3, 5, 6].reduce((s, i) => s + i * Math.cos(x * i), 0);
  expect(m.skipping(0.4)).toBeCloseTo(
    [0, 2, 3, 5, 6].reduce((s, i) => s + Math.sin(0.4 * i), 0),
    12,
  );
  checkScalar('skipping', 'Skipping', [0.4, -1.3], ref);
});

test('return inside a loop: the first i with x·i > 3 returns sin(x·i)', () => {
  for (const x of [0.7, 1.1, 3.5, 0.1]) {
    const i = Array.from({ length: 19 }, (_, k) => k + 1).find((k) => x * k > 3);
    expect(m.firstOver(x)).toBe(i === undefined ? -x : Math.sin(x * i));
    const [value, g] = m.dFirstOver(x);
    expect(value).toBe(m.firstOver(x));
    expectClose([g], [i === undefined ? -1 : i * Math.cos(x * i)], 1e-12);
  }
  checkScalar('firstOver', 'FirstOver', [0.7, 1.1, 3.5, 0.1]);
});

test("Newton's square root until |x·x − a| < 1e-12, ended by break: d/da = 1/(2√a)", () => {
  for (const a of [0.25, 2, 9, 30]) {
    expect(m.newtonRoot(a)).toBeCloseTo(Math.sqrt(a), 12);
    const [value, tangent] = m.jNewton(a);
    expect(value).toBe(m.newtonRoot(a));
    expectClose([tangent, m.dNewton(a)], [1 / (2 * Math.sqrt(a)), 1 / (2 * Math.sqrt(a))], 1e-8);
  }
});

test('do … while with break and continue', () => {
  checkScalar('doUntil', 'Do', [3, 0.45, 10]);
  expect(m.doUntil(0.45)).toBe(0.45 + 51);
});

test('nested loops with break in the inner one', () => {
  checkScalar('nestedBreak', 'Nested', [0.5, 1.3, 2.5]);
});

test('return from an inner loop, of a tuple', () => {
  for (const x of [0.3, 0.01, 2]) {
    const [value, tangent] = m.jReturnInner(x);
    expect(value).toEqual(m.returnFromInner(x));
    expectClose(tangent, partial(m.returnFromInner, [x], 0, 0));
  }
});

test('a while loop carrying a tuple, an object, a boolean and a counter, left by break', () => {
  for (const n of [3, 12, 40]) {
    const at = [[1.5, 0.8], { u: 0.6, v: -0.2 }, n];
    const [dp, dq] = m.dCarried(...at);
    expectClose(dp, [partial(m.carried, at, 0, 0)[0], partial(m.carried, at, 0, 1)[0]]);
    expectClose([dq.u, dq.v], [partial(m.carried, at, 1, 0)[0], partial(m.carried, at, 1, 1)[0]]);
  }
});

test('a general for loop (incrementor skipped after break, run after continue)', () => {
  const js = (x: number) => {
    let i = 0;
    let s = 0;
    for (i = 0; i < 10; i += 2) {
      if (i === 4) continue;
      s = s + x * i;
      if (s > 5 * x) break;
    }
    return s + i * x;
  };
  for (const x of [1, -1, 0.5]) expect(m.generalFor(x)).toBe(js(x));
  checkScalar('generalFor', 'General', [1, -1, 0.5]);
});

test('continue and return inside a switch inside a loop', () => {
  const js = (x: number) => {
    let s = 0;
    for (let i = 0; i < 6; i++) {
      switch (i % 5) {
        case 0:
          s = s + x;
          break;
        case 1:
          if (s > 1) continue;
          s = s * x;
          break;
        case 4:
          s = s * 0.5;
          continue;
        default:
          if (s > 5) return s * s;
      }
      s = s + 0.25;
    }
    return s;
  };
  for (const x of [0.5, 1.5, 4]) expect(m.switchInLoop(x)).toBe(js(x));
  checkScalar('switchInLoop', 'Switch', [0.5, 1.5, 4]);
});

test('emitted code stays linear in the number of early returns', () => {
  const source = (n: number) => {
    const lines = Array.from({ length: n }, (_, k) => `  if (x > ${k}) { y = y * 1.5; if (y > ${10 * (k + 1)}) return y + ${k}; }`);
    return `import { grad } from 'tsad';
/** @differentiable */
function f(x: number): number {
  let y = x;
${lines.join('\n')}
  return y;
}
export const d = grad(f);`;
  };
  const size = (n: number) => compile(source(n)).outputText.length;
  const [s4, s8, s16] = [size(4), size(8), size(16)];
  // Doubling the returns adds about the same amount each time (a copying lowering doubles it).
  expect(s16 - s8).toBeLessThan(2.5 * (s8 - s4));
  const { exports } = load(source(6));
  void exports;
});

test('labeled break is TSAD1101 with a hint', () => {
  const r = compile(
    `import { grad } from 'tsad';
/** @differentiable */
function f(x: number): number {
  let s = 0;
  outer: for (let i = 0; i < 3; i++) { for (let j = 0; j < 3; j++) { s = s + x; if (s > 2) break outer; } }
  return s;
}
export const d = grad(f);`,
    { throwOnError: false },
  );
  expect(r.messages.join('\n')).toMatch(/TSAD1101: labeled statements/);
});

const { exports: edge } = load(`import { grad } from 'tsad';
/** @differentiable */
export function forever(x: number): number {
  let s = x;
  for (;;) { s = s * 1.3; if (s > 5) break; }
  return s;
}
/** @differentiable */
export function doRet(x: number): number {
  let s = x;
  do { s = s * 1.5; if (s > 4) return Math.sin(s); } while (s < 100);
  return s;
}
/** @differentiable */
export function helperLoop(x: number): number {
  const first = (t: number): number => { for (let i = 0; i < 10; i++) { if (t * i > 2) return t * i * t; } return 0; };
  let acc = 0;
  for (let j = 1; j < 4; j++) { acc = acc + first(x * j); if (acc > 20) return acc; }
  return acc * 2;
}
/** @differentiable */
export function strings(x: number, mode: string): number {
  let m = mode;
  let y = x;
  let z;
  for (let i = 0; i < 5; i++) {
    if (m === 'up') { y = y * 2; m = 'down'; continue; }
    y = y - 0.5;
    z = y;
    if (y < 0) { m = 'stop'; break; }
    m = 'up';
  }
  return m === 'stop' ? y : y + 1;
}
/** @differentiable */
export function retInIfArm(x: number): number {
  if (x > 0) { for (let i = 0; i < 5; i++) { if (x * i > 1) return x * i; } return 2 * x; }
  return 3 * x;
}
export const d1 = grad(forever);
export const d2 = grad(doRet);
export const d3 = grad(helperLoop);
export const d4 = grad(strings, { wrt: [0] });
export const d5 = grad(retInIfArm);
`);
test('for (;;) with break, do … while with return, returns inside a local function inside a loop, a string flag and a late let, a returning loop in an if arm', () => {
  for (const x of [0.3, 1.1, 4]) {
    expectClose([edge.d1(x)], partial(edge.forever, [x], 0, 0));
    expectClose([edge.d2(x)], partial(edge.doRet, [x], 0, 0));
    expectClose([edge.d3(x)], partial(edge.helperLoop, [x], 0, 0));
    for (const mode of ['up', 'no'])
      expectClose(
        [edge.d4(x, mode)],
        partial((u: number) => edge.strings(u, mode), [x], 0, 0),
      );
    expectClose([edge.d5(x)], partial(edge.retInIfArm, [x], 0, 0));
    expectClose([edge.d5(-x)], partial(edge.retInIfArm, [-x], 0, 0));
  }
});

describe('for…of over an array may break, continue and return', () => {
  const { exports: a } = load(`import { grad, jvp, valueAndGrad, hessian } from 'tsad';
/** @differentiable */
export function partialSum(w: number[], x: number): number {
  let s = 0;
  for (const v of w) {
    if (v < 0) continue;
    if (s > 4) break;
    s += v * v * x;
  }
  return s;
}

/** @differentiable */
export function firstLarge(w: Float64Array): number {
  for (const v of w) {
    if (v > 1) return Math.exp(v) * w[0];
  }
  return w[w.length - 1] * 2;
}

export const dPartial = grad(partialSum, { wrt: [0, 1] });
export const jPartial = (w: number[], x: number, dw: number[]) => jvp(partialSum, [w, x], [dw, 0]);
export const hPartial = hessian(partialSum, { wrt: [1] });
export const vgFirst = valueAndGrad(firstLarge);
`);
  // The same functions as plain JavaScript: the reference for values and the subject of finite differences.
  const partialSum = (w: number[], x: number) => {
    let s = 0;
    for (const v of w) {
      if (v < 0) continue;
      if (s > 4) break;
      s += v * v * x;
    }
    return s;
  };
  const firstLarge = (w: Float64Array) => {
    for (const v of w) if (v > 1) return Math.exp(v) * w[0];
    return w[w.length - 1] * 2;
  };

  test('continue and break: values equal JavaScript, gradients equal central differences', () => {
    for (const w of [[0.5, -1, 1.5, 2, 0.7, 3], [0.1, 0.2], [], [-1, -2], [3, 0.5]]) {
      const x = 1.3;
      expect(a.partialSum(w, x)).toBe(partialSum(w, x));
      const [gw, gx] = a.dPartial(w, x);
      expect(gw).toHaveLength(w.length);
      const fdW = w.map((_, k) => partial(partialSum as any, [w, x], 0, k)[0]);
      expectClose(gw, fdW, 1e-6);
      expectClose([gx], [partial(partialSum as any, [w, x], 1, 0)[0]], 1e-6);
      const dw = w.map((_, k) => 0.3 - 0.1 * k);
      const [value, tangent] = a.jPartial(w, x, dw);
      expect(value).toBe(partialSum(w, x));
      expectClose([tangent], [gw.reduce((t: number, g: number, k: number) => t + g * dw[k], 0)], 1e-12);
    }
    // Linear in x: the Hessian in x is zero.
    expect(a.hPartial([0.5, 1.5], 2)[0][0]).toBe(0);
  });

  test('return from inside: the derivative of the path taken', () => {
    for (const w of [[0.5, 2, 3], [0.5, 0.25], [1.5]]) {
      const f64 = Float64Array.from(w);
      const [value, g] = a.vgFirst(f64);
      expect(value).toBe(firstLarge(f64));
      const fd = w.map((_, k) => partial(((u: number[]) => firstLarge(Float64Array.from(u))) as any, [w], 0, k)[0]);
      expectClose(Array.from(g as Float64Array), fd, 1e-6);
    }
  });
});
