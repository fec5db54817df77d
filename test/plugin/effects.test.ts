// Statements with effects that do not touch derivatives (issue 19 item 4): `throw` and
// `console.log` inside a marked function. The function and each of its derivatives throw the
// same error (class and message) on the same path; where the primal does not throw, derivatives
// are those of the path taken. A console call prints once per call of a derivative, in the
// primal sweep, with the primal values. Every value and every error is compared with running the same source as plain
// JavaScript (TypeScript's own transpiler, no tsad), gradients with central finite differences.
import * as ts from 'typescript';
import { compile, load, partial, expectClose } from './harness';

const functions = `
/** @differentiable */
export function cholLogDet(a: number[][]): number {
  const n = a.length;
  const l: number[][] = a.map((row) => row.map(() => 0));
  let s = 0;
  for (let j = 0; j < n; j++) {
    let d = a[j][j];
    for (let k = 0; k < j; k++) d -= l[j][k] * l[j][k];
    if (!(d > 0)) throw new Error('not positive definite');
    const ljj = Math.sqrt(d);
    l[j][j] = ljj;
    s += 2 * Math.log(ljj);
    for (let i = j + 1; i < n; i++) {
      let t = a[i][j];
      for (let k = 0; k < j; k++) t -= l[i][k] * l[j][k];
      l[i][j] = t / ljj;
    }
  }
  return s;
}

/** @differentiable */
export function safeLog(x: number, floor: number): number {
  if (x < floor) {
    const gap = floor - x;
    throw new RangeError(\`x = \${x} is below the floor \${floor} by \${gap}\`);
  }
  return Math.log(x) * x;
}

/** @differentiable */
export function firstAbove(xs: number[], level: number): number {
  for (let i = 0; i < xs.length; i++) {
    if (xs[i] > level) return xs[i] * xs[i] + i;
  }
  throw new Error('no element above ' + level);
}

/** @differentiable */
export function sign(x: number): number {
  if (x > 0) return Math.sin(x);
  else if (x < 0) return -x * x;
  else throw new TypeError('zero has no sign');
}

/** @differentiable */
export function steps(x: number, n: number): number {
  let y = x;
  for (let i = 0; i < n; i++) {
    y = y * 1.5 + Math.sin(y);
    if (y > 100) throw new Error(\`diverged at step \${i}\`);
  }
  return y * y;
}

/** @differentiable */
export function vecNorm(v: number[]): number[] {
  let s = 0;
  for (const x of v) s += x * x;
  if (s === 0) throw new Error('the zero vector has no direction');
  const r = Math.sqrt(s);
  return v.map((x) => x / r);
}

/** @differentiable */
export function checkedMean(xs: number[]): number {
  for (const x of xs) {
    if (!(x >= 0)) throw new RangeError(\`negative weight \${x}\`);
  }
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i] * xs[i];
  return s / xs.length;
}

/** @differentiable */
export function headSum(xs: number[], n: number): number {
  if (n > 3) throw new RangeError(\`at most 3 terms, got \${n}\`);
  let s = 0;
  for (let i = 0; i < n; i++) s += xs[i] * xs[i];
  return s;
}

/** @differentiable */
export function energy(q: number[], k: number): number {
  if (k <= 0) throw new Error('stiffness must be positive, got ' + k);
  let e = 0;
  for (let i = 0; i + 1 < q.length; i++) e += 0.5 * k * (q[i + 1] - q[i]) ** 2;
  return e;
}

/** @differentiable */
export function total(q: number[], k: number): number {
  return energy(q, k) + q[0] * q[0];
}

/** @differentiable */
export function activation(x: number, kind: number): number {
  switch (kind) {
    case 0:
      return Math.tanh(x);
    case 1:
      return Math.max(0, x);
    default:
      throw new Error(\`unknown activation \${kind}\`);
  }
}

/** @differentiable */
export function bisect(a: number, tol: number): number {
  let lo = 0;
  let hi = a + 1;
  let iterations = 0;
  while (hi - lo > tol) {
    iterations++;
    if (iterations > 200) throw new Error('bisection did not converge');
    const mid = 0.5 * (lo + hi);
    if (mid * mid > a) hi = mid;
    else lo = mid;
  }
  return lo * a;
}

/** @differentiable */
export function bisectUnchecked(a: number, tol: number): number {
  let lo = 0;
  let hi = a + 1;
  while (hi - lo > tol) {
    const mid = 0.5 * (lo + hi);
    if (mid * mid > a) hi = mid;
    else lo = mid;
  }
  return lo * a;
}

/** @differentiable */
export function rootSum(xs: number[]): number {
  const root = (v: number): number => {
    if (v < 0) throw new RangeError(\`cannot take the root of \${v}\`);
    return Math.sqrt(v);
  };
  return xs.map((x) => {
    if (x !== x) throw new TypeError('NaN in the input');
    return root(x) * x;
  }).reduce((a, b) => a + b, 0);
}

/** @differentiable */
export function descend(x: number, steps: number): number {
  let y = x;
  console.log('start', y);
  for (let i = 0; i < steps; i++) {
    const g = 2 * y + Math.cos(y);
    y = y - 0.1 * g;
    if (i % 2 === 0) console.log(\`step \${i}: y =\`, y, 'g =', g);
  }
  console.warn('done', y > 0);
  console.assert(y < 10, 'y too large', y);
  return y * y;
}

/** @differentiable */
export function mapped(xs: number[]): number {
  const ys = xs.map((x) => {
    console.log('element', x, \`squared \${x * x}\`);
    return Math.sin(x) * x;
  });
  let s = 0;
  for (const y of ys) s += y * y;
  return s;
}

/** @differentiable */
export function field(v: number[]): number[] {
  let s = 0;
  for (const x of v) s += x * x;
  console.log('norm2', s);
  return v.map((x) => x * s);
}
`;

const derivatives = `
import { grad, valueAndGrad, jvp, vjp, linearize, hessian, hvp, jacobian, jacrev, jacfwd, differentiable } from 'tsad';
export const gChol = grad(cholLogDet);
export const vgChol = valueAndGrad(cholLogDet);
export const hChol = hvp(cholLogDet);
export const gSafe = grad(safeLog);
export const vgSafe = valueAndGrad(safeLog);
export const jvpSafe = (x: number, f: number, dx: number) => jvp(safeLog, [x, f], [dx, 0]);
export const vjpSafe = (x: number, f: number) => vjp(safeLog, x, f);
export const linSafe = (x: number, f: number) => linearize(safeLog, x, f);
export const hSafe = hessian(safeLog);
export const hvpSafe = hvp(safeLog);
export const gFirst = grad(firstAbove);
export const hvpFirst = hvp(firstAbove);
export const gSign = grad(sign);
export const gSteps = grad(steps);
export const vgSteps = valueAndGrad(steps);
export const jNorm = jacobian(vecNorm);
export const jvpNorm = (v: number[], dv: number[]) => jvp(vecNorm, [v], [dv]);
export const stepsCk = differentiable((x: number, n: number): number => {
  let y = x;
  for (let i = 0; i < n; i++) {
    y = y * 1.5 + Math.sin(y);
    if (y > 100) throw new Error(\`diverged at step \${i}\`);
  }
  return y * y;
}, { checkpoint: { every: 2 } });
export const gStepsCk = grad(stepsCk);
export const gMean = grad(checkedMean);
export const gRootSum = grad(rootSum);
export const gMapped = grad(mapped);
export const gDescend = grad(descend);
export const vgDescend = valueAndGrad(descend);
export const jvpDescend = (x: number, n: number) => jvp(descend, [x, n], [1, 0]);
export const vjpDescend = (x: number, n: number) => vjp(descend, x, n);
export const linDescend = (x: number, n: number) => linearize(descend, x, n);
export const hvpDescend = hvp(descend);
export const hDescend = hessian(descend);
export const descendCk = differentiable((x: number, steps: number): number => {
  let y = x;
  for (let i = 0; i < steps; i++) {
    const g = 2 * y + Math.cos(y);
    y = y - 0.1 * g;
    console.log('step', i, y);
  }
  return y * y;
}, { checkpoint: { every: 2 } });
export const gDescendCk = grad(descendCk);
export const jField = jacobian(field);
export const jrevField = jacrev(field);
export const jfwdField = jacfwd(field);
export const jvpField = (v: number[], dv: number[]) => jvp(field, [v], [dv]);
export const jvpMean = (xs: number[], dx: number[]) => jvp(checkedMean, [xs], [dx]);
export const gTotal = grad(total);
export const gHead = grad(headSum);
export const vgTotal = valueAndGrad(total, { wrt: [0, 1] });
export const gAct = grad(activation);
export const gBisect = grad(bisect);
export const gBisectUnchecked = grad(bisectUnchecked);
`;

const { exports: m, result } = load(functions + derivatives);
const plain = (() => {
  const js = ts.transpileModule(functions, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const exports: Record<string, any> = {};
  new Function('exports', js)(exports);
  return exports;
})();

/** What a call does: its value, or the class and message of what it threw. */
function outcome(f: () => unknown): { value?: unknown; threw?: string } {
  try {
    return { value: f() };
  } catch (e) {
    return { threw: `${(e as Error).constructor.name}: ${(e as Error).message}` };
  }
}

function expectThrowsAsPlain(reference: () => unknown, ...derived: (() => unknown)[]): void {
  const expected = outcome(reference);
  expect(expected.threw).toBeDefined();
  expect(outcome(reference)).toEqual(expected);
  for (const d of derived) expect(outcome(d)).toEqual(expected);
}

test('builds without diagnostics', () => {
  expect(result.diagnostics).toEqual([]);
});

describe('a Cholesky factorisation that throws when the matrix is not positive definite', () => {
  const spd = [
    [4, 1, 0.5],
    [1, 3, 0.2],
    [0.5, 0.2, 2],
  ];
  const indefinite = [
    [1, 2, 0],
    [2, 1, 0],
    [0, 0, 1],
  ];
  test('on a positive definite matrix: the value and the gradient', () => {
    expect(m.cholLogDet(spd)).toBe(plain.cholLogDet(spd));
    const g = m.gChol(spd) as number[][];
    const fd = spd.flatMap((_, i) => spd.map((_, j) => partial(plain.cholLogDet, [spd], 0, i * 3 + j)[0]));
    expectClose(g.flat(), fd, 1e-5);
    const [v, g2] = m.vgChol(spd);
    expect(v).toBe(plain.cholLogDet(spd));
    expectClose((g2 as number[][]).flat(), g.flat(), 1e-12);
  });
  test('on an indefinite matrix: the function and its derivatives throw the same Error', () => {
    expectThrowsAsPlain(
      () => plain.cholLogDet(indefinite),
      () => m.cholLogDet(indefinite),
      () => m.gChol(indefinite),
      () => m.vgChol(indefinite),
      () => m.hChol(indefinite, spd),
    );
  });
});

describe('a RangeError with a template-literal message after other code in the branch', () => {
  test('below the floor: every transform throws the same RangeError with the same numbers', () => {
    expectThrowsAsPlain(
      () => plain.safeLog(0.1, 0.25),
      () => m.safeLog(0.1, 0.25),
      () => m.gSafe(0.1, 0.25),
      () => m.vgSafe(0.1, 0.25),
      () => m.jvpSafe(0.1, 0.25, 1),
      () => m.vjpSafe(0.1, 0.25),
      () => m.linSafe(0.1, 0.25),
      () => m.hSafe(0.1, 0.25),
      () => m.hvpSafe(0.1, 0.25, 1),
    );
    expect(outcome(() => m.gSafe(0.1, 0.25)).threw).toBe('RangeError: x = 0.1 is below the floor 0.25 by 0.15');
  });
  test('above the floor: values and derivatives as without the throw', () => {
    const x = 1.7;
    expect(m.safeLog(x, 0.25)).toBe(plain.safeLog(x, 0.25));
    const fd = partial(plain.safeLog, [x, 0.25], 0, 0)[0];
    expectClose([m.gSafe(x, 0.25)], [fd], 1e-6);
    expectClose([m.jvpSafe(x, 0.25, 1)[1]], [fd], 1e-6);
    const [v, pullback] = m.vjpSafe(x, 0.25);
    expect(v).toBe(plain.safeLog(x, 0.25));
    expectClose([pullback(1)[0]], [fd], 1e-6);
    const [v2, lin] = m.linSafe(x, 0.25);
    expect(v2).toBe(v);
    expectClose([lin(1, 0)], [fd], 1e-6);
    expectClose([m.hSafe(x, 0.25)[0][0]], [1 / x], 1e-9);
    expectClose([m.hvpSafe(x, 0.25, 2)], [2 / x], 1e-9);
  });
});

describe('a throw after a loop that returns from inside', () => {
  test('found: value and gradient; not found: the same Error from the function and its derivatives', () => {
    const xs = [0.5, 2.5, 3];
    expect(m.firstAbove(xs, 1)).toBe(plain.firstAbove(xs, 1));
    expectClose(
      m.gFirst(xs, 1),
      xs.map((_, k) => partial(plain.firstAbove, [xs, 1], 0, k)[0]),
      1e-6,
    );
    expectThrowsAsPlain(
      () => plain.firstAbove(xs, 5),
      () => m.firstAbove(xs, 5),
      () => m.gFirst(xs, 5),
      () => m.hvpFirst(xs, 5, [1, 1, 1]),
    );
    expectThrowsAsPlain(
      () => plain.firstAbove([], 0),
      () => m.gFirst([], 0),
    );
  });
});

describe('a throw as the last else of an if chain', () => {
  test('each path', () => {
    for (const x of [0.7, -1.3]) {
      expect(m.sign(x)).toBe(plain.sign(x));
      expectClose([m.gSign(x)], partial(plain.sign, [x], 0, 0), 1e-6);
    }
    expectThrowsAsPlain(
      () => plain.sign(0),
      () => m.sign(0),
      () => m.gSign(0),
    );
  });
});

describe('a throw inside a loop', () => {
  test('diverging: the message names the step, also under checkpointing', () => {
    expectThrowsAsPlain(
      () => plain.steps(60, 10),
      () => m.steps(60, 10),
      () => m.gSteps(60, 10),
      () => m.vgSteps(60, 10),
      () => m.stepsCk(60, 10),
      () => m.gStepsCk(60, 10),
    );
  });
  test('converging: values and gradients, also under checkpointing', () => {
    for (const n of [0, 1, 7]) {
      expect(m.steps(0.4, n)).toBe(plain.steps(0.4, n));
      const fd = partial(plain.steps, [0.4, n], 0, 0)[0];
      expectClose([m.gSteps(0.4, n)], [fd], 1e-6);
      expectClose([m.gStepsCk(0.4, n)], [fd], 1e-6);
    }
  });
});

describe('a throw in a function returning an array', () => {
  test('jacobian and jvp throw on the zero vector, are right elsewhere', () => {
    expectThrowsAsPlain(
      () => plain.vecNorm([0, 0]),
      () => m.vecNorm([0, 0]),
      () => m.jNorm([0, 0]),
      () => m.jvpNorm([0, 0], [1, 0]),
    );
    const v = [0.3, -1.2, 2];
    expect(m.vecNorm(v)).toEqual(plain.vecNorm(v));
    const J = m.jNorm(v) as number[][];
    const fdCols = v.map((_, k) => partial(plain.vecNorm, [v], 0, k));
    expectClose(
      J.flat(),
      v.flatMap((_, i) => fdCols.map((c) => c[i])),
      1e-6,
    );
  });
});

describe('a loop that only checks (it assigns nothing)', () => {
  test('a RangeError from a function whose derivative also checks lengths keeps its own message', () => {
    expectThrowsAsPlain(
      () => plain.checkedMean([1, -2, 3]),
      () => m.checkedMean([1, -2, 3]),
      () => m.gMean([1, -2, 3]),
      () => m.jvpMean([1, -2, 3], [1, 1, 1]),
    );
    expectThrowsAsPlain(
      () => plain.headSum([1, 2, 3, 4, 5], 4),
      () => m.gHead([1, 2, 3, 4, 5], 4),
    );
    expect(outcome(() => m.gHead([1, 2], 3)).threw).toMatch(/^RangeError: grad\(headSum\): in headSum: /);
    const xs = [1, 2, 0.5];
    expect(m.checkedMean(xs)).toBe(plain.checkedMean(xs));
    expectClose(
      m.gMean(xs),
      xs.map((_, k) => partial(plain.checkedMean, [xs], 0, k)[0]),
      1e-6,
    );
  });
});

describe('a throw in a local function and in a .map callback', () => {
  test('each error as plain JavaScript throws it; the gradient where nothing throws', () => {
    expectThrowsAsPlain(
      () => plain.rootSum([1, -4, 2]),
      () => m.rootSum([1, -4, 2]),
      () => m.gRootSum([1, -4, 2]),
    );
    expectThrowsAsPlain(
      () => plain.rootSum([1, NaN]),
      () => m.gRootSum([1, NaN]),
    );
    const xs = [1, 4, 2.5];
    expect(m.rootSum(xs)).toBe(plain.rootSum(xs));
    expectClose(
      m.gRootSum(xs),
      xs.map((_, k) => partial(plain.rootSum, [xs], 0, k)[0]),
      1e-6,
    );
  });
});

describe('a throw in a called marked function, a switch default, a while loop', () => {
  test("the caller's derivatives throw what the callee throws", () => {
    const q = [0.1, 0.4, -0.2];
    expectThrowsAsPlain(
      () => plain.total(q, -1),
      () => m.total(q, -1),
      () => m.gTotal(q, -1),
      () => m.vgTotal(q, -1),
    );
    expectClose(
      m.gTotal(q, 2),
      q.map((_, k) => partial(plain.total, [q, 2], 0, k)[0]),
      1e-6,
    );
    const [v, [gq, gk]] = m.vgTotal(q, 2);
    expect(v).toBe(plain.total(q, 2));
    expectClose([...gq, gk], [...q.map((_, k) => partial(plain.total, [q, 2], 0, k)[0]), partial(plain.total, [q, 2], 1, 0)[0]], 1e-6);
  });
  test('switch', () => {
    expectThrowsAsPlain(
      () => plain.activation(0.3, 7),
      () => m.activation(0.3, 7),
      () => m.gAct(0.3, 7),
    );
    for (const kind of [0, 1]) expectClose([m.gAct(0.3, kind)], partial(plain.activation, [0.3, kind], 0, 0), 1e-6);
  });
  test('while', () => {
    expectThrowsAsPlain(
      () => plain.bisect(2, 0),
      () => m.bisect(2, 0),
      () => m.gBisect(2, 0),
    );
    expect(m.bisect(2, 1e-9)).toBe(plain.bisect(2, 1e-9));
    expect(m.gBisect(2, 1e-9)).toBe(m.gBisectUnchecked(2, 1e-9));
  });
});

/** What `f` printed through console.log, warn, error and assert (each line: method and arguments). */
function printed(f: () => unknown): unknown[][] {
  const lines: unknown[][] = [];
  const saved = { log: console.log, warn: console.warn, error: console.error, assert: console.assert };
  console.log = (...a: unknown[]) => void lines.push(['log', ...a]);
  console.warn = (...a: unknown[]) => void lines.push(['warn', ...a]);
  console.error = (...a: unknown[]) => void lines.push(['error', ...a]);
  console.assert = (...a: unknown[]) => void lines.push(['assert', ...a]);
  try {
    f();
  } finally {
    Object.assign(console, saved);
  }
  return lines;
}

describe('console.log left in while debugging', () => {
  const plainLines = (x: number, n: number) => printed(() => plain.descend(x, n));
  test('each transform prints once, in the primal sweep, with the primal values', () => {
    for (const n of [0, 1, 5]) {
      const expected = plainLines(0.8, n);
      expect(expected.length).toBe(n === 0 ? 3 : 3 + Math.ceil(n / 2));
      expect(printed(() => m.descend(0.8, n))).toEqual(expected);
      expect(printed(() => m.gDescend(0.8, n))).toEqual(expected);
      expect(printed(() => m.vgDescend(0.8, n))).toEqual(expected);
      expect(printed(() => m.jvpDescend(0.8, n))).toEqual(expected);
      expect(printed(() => m.hvpDescend(0.8, n, 1))).toEqual(expected);
      expect(printed(() => m.hDescend(0.8, n))).toEqual(expected);
      // vjp and linearize print when they run the function; the pullback and the linear map print nothing.
      let pullback: (ct: number) => unknown = () => undefined;
      expect(printed(() => (pullback = m.vjpDescend(0.8, n)[1]))).toEqual(expected);
      expect(printed(() => pullback(1))).toEqual([]);
      let lin: (dx: number, dn: number) => unknown = () => undefined;
      expect(printed(() => (lin = m.linDescend(0.8, n)[1]))).toEqual(expected);
      expect(printed(() => lin(1, 0))).toEqual([]);
    }
  });
  test('derivatives are unchanged by the logging', () => {
    const fd = partial(plain.descend, [0.8, 5], 0, 0)[0];
    printed(() => {
      expectClose([m.gDescend(0.8, 5)], [fd], 1e-6);
      expect(m.vgDescend(0.8, 5)[0]).toBe(plain.descend(0.8, 5));
    });
  });
  test('a checkpointed loop prints each step once: the recomputation of a segment prints nothing', () => {
    const expected = printed(() => m.descendCk(0.8, 7));
    expect(expected.length).toBe(7);
    expect(printed(() => m.gDescendCk(0.8, 7))).toEqual(expected);
  });
  test('jacobian prints once per sweep it runs; jvp once', () => {
    const v = [0.5, -1, 2];
    const expected = printed(() => plain.field(v));
    expect(printed(() => m.jvpField(v, [1, 0, 0]))).toEqual(expected);
    // By rows (reverse mode): one primal sweep, then one backward sweep per output: printed once.
    expect(printed(() => m.jrevField(v))).toEqual(expected);
    // By columns (forward mode): one JVP per input, each runs the function: printed once per
    // sweep (the value's and each column's), always with the same primal values.
    const lines = printed(() => m.jfwdField(v));
    expect(lines).toEqual(Array.from({ length: 1 + v.length }, () => expected[0]));
    expect(printed(() => m.jField(v)).length).toBeGreaterThanOrEqual(1);
  });
  test('a console.log in a .map callback prints once per element', () => {
    const xs = [0.5, -1.25, 2];
    const expected = printed(() => plain.mapped(xs));
    expect(expected.length).toBe(3);
    expect(printed(() => m.gMapped(xs))).toEqual(expected);
    printed(() =>
      expectClose(
        m.gMapped(xs),
        xs.map((_, k) => partial(plain.mapped, [xs], 0, k)[0]),
        1e-6,
      ),
    );
  });
  test('arrays are not logged', () => {
    const text = compile(
      `import { grad } from 'tsad';
/** @differentiable */
export function f(x: number[]): number {
  console.log(x);
  return x[0];
}
export const g = grad(f);
`,
      { throwOnError: false },
    ).messages.join('\n');
    expect(text).toMatch(/TSAD1101: console.log of .* is not supported in differentiable functions/);
  });
});

describe('what is still refused', () => {
  test('throwing something that is not a new built-in Error', () => {
    const text = compile(
      `import { grad } from 'tsad';
/** @differentiable */
export function f(x: number): number {
  if (x < 0) throw 'negative';
  return x;
}
export const g = grad(f);
`,
      { throwOnError: false },
    ).messages.join('\n');
    expect(text).toMatch(/TSAD1101/);
    expect(text).not.toMatch(/ThrowStatement/);
  });
});
