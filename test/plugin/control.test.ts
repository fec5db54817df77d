// Control flow in differentiable functions: `if`/`else if`/`else` with assignments, early
// returns (also nested), `?:` with a costly side: all lowered to the IR's cond, whose branches
// run only when taken. Every derivative is compared with central finite differences at points
// inside each branch; the untaken-branch cases check that no NaN leaks from a branch not taken.
import fc from 'fast-check';
import { smoothExpression } from '../gen/source';
import * as fs from 'fs';
import * as path from 'path';
import { compile, load, leaves, partial, directional, expectClose, workDir, loadOutput } from './harness';
import { main } from '../../transformer/plugin/cli';

const { exports: m, result } = load(`import { grad, valueAndGrad, jvp, vjp, hessian, hvp, jacobian } from 'tsad';
/** @differentiable */
export function sq(u: number): number { return u * u; }

/** @differentiable */
export function piecewise(x: number, y: number): number {
  let z = x * y;
  if (x > 1) {
    z = Math.sin(x) * y;
  } else if (x < -1) {
    z = x * x + y;
  } else {
    const w = y + 1;
    z = w * x * z;
  }
  return z;
}

/** @differentiable */
export function nested(x: number, y: number): number {
  let a = x;
  let b = y;
  if (x > 0) {
    if (y > 0) {
      a = x * y;
    } else {
      b = Math.exp(y) * x;
      a = a + b;
    }
  } else {
    a = Math.cos(x) * y;
  }
  return a * b;
}

/** @differentiable */
export function early(x: number): number {
  if (x > 2) return Math.log(x);
  const u = x * x;
  if (u < 1) {
    return u * x;
  }
  return u + x;
}

/** @differentiable */
export function earlyNested(x: number, y: number): number {
  let s = x + y;
  if (x > 0) {
    if (y > 0) return s * x;
    s = s * y;
  } else {
    if (y < -1) {
      return Math.sin(s);
    } else if (y < 0) {
      return s * s * s;
    }
    s = s - x * y;
  }
  return s * s;
}

/** @differentiable */
export function noElse(x: number): number {
  let y = 2 * x;
  if (x < 0) y = -x * x;
  return y + x;
}

/** @differentiable */
export function structured(x: number, y: number): number {
  let t: [number, number] = [x, y];
  let o = { a: x, b: y };
  if (x > y) {
    t = [x * y, Math.sin(x)];
    o = { a: o.b, b: o.a * 2 };
  } else {
    t = [t[1], t[0] * t[0]];
  }
  return t[0] + 3 * t[1] + o.a * o.b;
}

/** @differentiable */
export function declaredLater(x: number): number {
  let y: number;
  if (x > 0) {
    y = Math.sqrt(x);
  } else {
    y = x * x;
  }
  return y * x;
}

/** @differentiable */
export function callsInBranch(x: number, y: number): number {
  let r = y;
  if (x > 0.5) {
    r = sq(x) * y;
  } else {
    r = sq(y) + x;
  }
  return r;
}

/** @differentiable */
export function piecewiseT(p: [number, number]): number {
  return piecewise(p[0], p[1]);
}

/** @differentiable */
export function logOrZero(x: number): number {
  return x > 0 ? Math.log(x) : 0;
}

/** @differentiable */
export function sinc(x: number): number {
  return x !== 0 ? Math.sin(x) / x : 1;
}

/** @differentiable */
export function sincIf(x: number): number {
  if (x === 0) return 1;
  return Math.sin(x) / x;
}

/** @differentiable */
export function sqrtIf(x: number): number {
  let y = 0;
  if (x > 0) y = Math.sqrt(x) * x;
  return y;
}

/** @differentiable */
export function cheapSelect(x: number): number {
  return x > 0 ? x * x : -x;
}

/** @differentiable */
export function tupleOut(x: number, y: number): [number, number] {
  if (x > y) return [x * y, Math.sin(x)];
  return [y, x * x];
}

/** @differentiable */
export function flagged(x: number, on: boolean, kind: string): number {
  let y = x;
  if (on && kind === 'sin') y = Math.sin(x);
  else if (!on) y = Math.exp(x);
  return y * 2;
}

/** @differentiable */
export function mode(x: number, y: number, kind: string): number {
  let s = x * y;
  switch (kind) {
    case 'sin':
      s = Math.sin(x) * y;
      break;
    case 'exp':
    case 'e':
      return Math.exp(x) + y * y;
    case 'none':
      break;
    default:
      s = s * s;
  }
  return s + x;
}

/** @differentiable */
export function modeReturns(x: number, kind: string): number {
  switch (kind) {
    case 'sq':
      return x * x;
    case 'log': {
      const t = Math.log(x);
      return 2 * t;
    }
    default:
      return 3 * x;
  }
}

/** @differentiable */
export function numbered(x: number, n: number, on: boolean): number {
  let y = x;
  switch (n) {
    case 1:
      y = 2 * x;
      break;
    case 2:
      switch (on) {
        case true:
          y = x * x;
          break;
      }
  }
  return y;
}

/** @differentiable */
export function bigLog(x: number): number {
  const big = x > 0 && Math.log(x) > 1;
  return big ? x * x : 3 * x;
}

/** @differentiable */
export function smallRoot(x: number): number {
  if (x <= 0 || Math.sqrt(x) < 2) return 2 * x;
  return x * x * x;
}

export const dMode = grad(mode, { wrt: [0, 1] });
export const dModeReturns = grad(modeReturns);
export const dNumbered = grad(numbered);
export const dBigLog = grad(bigLog);
export const dSmallRoot = grad(smallRoot);
export const dPiecewise = grad(piecewise, { wrt: [0, 1] });
export const vgPiecewise = valueAndGrad(piecewise, { wrt: [0, 1] });
export const jvpPiecewise = (x: number, y: number, dx: number, dy: number) => jvp(piecewise, [x, y], [dx, dy]);
export const vjpPiecewise = (x: number, y: number) => vjp(piecewise, x, y);
export const dNested = grad(nested, { wrt: [0, 1] });
export const dEarly = grad(early);
export const jvpEarly = (x: number) => jvp(early, [x], [1]);
export const dEarlyNested = grad(earlyNested, { wrt: [0, 1] });
export const dNoElse = grad(noElse);
export const dStructured = grad(structured, { wrt: [0, 1] });
export const dDeclaredLater = grad(declaredLater);
export const dCalls = grad(callsInBranch, { wrt: [0, 1] });
export const dLog = grad(logOrZero);
export const dSinc = grad(sinc);
export const dSincIf = grad(sincIf);
export const dSqrtIf = grad(sqrtIf);
export const hSqrtIf = hessian(sqrtIf);
export const hSinc = hessian(sinc);
export const hLog = hessian(logOrZero);
export const hPiecewise = hessian(piecewiseT);
export const hvpPiecewise = hvp(piecewiseT);
export const hvpEarly = hvp(early);
export const jTuple = jacobian(tupleOut);
export const vjpTuple = (x: number, y: number) => vjp(tupleOut, x, y);
export const dFlagged = grad(flagged);
export const dCheap = grad(cheapSelect);
`);

type F = (...a: any[]) => any;

/** grad of f at `at` (wrt every argument listed) against central differences. */
function checkGrad(f: F, g: F, at: number[], wrt: number[]): void {
  const out = g(...at);
  const gs = wrt.length === 1 ? [out] : out;
  wrt.forEach((i, n) => expectClose([gs[n]], partial(f, at, i, 0)));
}

test('compiles without diagnostics', () => expect(result.diagnostics).toEqual([]));

test('if / else if / else: gradients in each branch', () => {
  for (const at of [
    [1.7, -0.6],
    [-1.8, 0.9],
    [0.4, 1.3],
    [-0.3, -2],
  ])
    checkGrad(m.piecewise, m.dPiecewise, at, [0, 1]);
});

test('valueAndGrad, jvp and vjp through an if', () => {
  for (const [x, y] of [
    [1.7, -0.6],
    [-1.8, 0.9],
    [0.4, 1.3],
  ]) {
    const [v, [gx, gy]] = m.vgPiecewise(x, y);
    expect(v).toBe(m.piecewise(x, y));
    expectClose([gx, gy], [partial(m.piecewise, [x, y], 0, 0)[0], partial(m.piecewise, [x, y], 1, 0)[0]]);
    const [tv, tdot] = m.jvpPiecewise(x, y, 0.3, -0.7);
    expect(tv).toBe(v);
    expectClose([tdot], directional(m.piecewise, [x, y], [0.3, -0.7]));
    const [pv, pullback] = m.vjpPiecewise(x, y);
    expect(pv).toBe(v);
    const [bx, by] = pullback(2);
    expectClose([bx, by], [2 * gx, 2 * gy], 1e-12);
  }
});

test('nested if/else: gradients in each of the three paths', () => {
  for (const at of [
    [0.8, 0.6],
    [0.8, -0.6],
    [-0.5, 1.2],
  ])
    checkGrad(m.nested, m.dNested, at, [0, 1]);
});

test('early returns: the rest of the function is the else part', () => {
  for (const x of [2.5, 0.5, -0.7, 1.5, -1.5]) {
    checkGrad(m.early, m.dEarly, [x], [0]);
    const [v, dv] = m.jvpEarly(x);
    expect(v).toBe(m.early(x));
    expectClose([dv], partial(m.early, [x], 0, 0));
  }
});

test('early returns in nested ifs, and paths that fall through to the end', () => {
  for (const at of [
    [0.5, 0.7],
    [0.5, -0.7],
    [-0.5, -1.7],
    [-0.5, -0.4],
    [-0.5, 0.4],
  ])
    checkGrad(m.earlyNested, m.dEarlyNested, at, [0, 1]);
});

test('an if without else', () => {
  for (const x of [-0.8, 0.9]) checkGrad(m.noElse, m.dNoElse, [x], [0]);
});

test('branches assigning a tuple and an object variable', () => {
  for (const at of [
    [1.2, 0.3],
    [-0.4, 0.9],
  ])
    checkGrad(m.structured, m.dStructured, at, [0, 1]);
});

test('a let without initializer assigned in both branches', () => {
  for (const x of [0.7, -0.7]) checkGrad(m.declaredLater, m.dDeclaredLater, [x], [0]);
});

test('a marked function called in a branch', () => {
  for (const at of [
    [0.9, -0.4],
    [0.1, 0.8],
  ])
    checkGrad(m.callsInBranch, m.dCalls, at, [0, 1]);
});

test('boolean and string parameters in the condition', () => {
  expect(m.dFlagged(0.3, true, 'sin')).toBeCloseTo(2 * Math.cos(0.3), 12);
  expect(m.dFlagged(0.3, true, 'cos')).toBeCloseTo(2, 12);
  expect(m.dFlagged(0.3, false, 'sin')).toBeCloseTo(2 * Math.exp(0.3), 12);
});

test('the branch not taken is never evaluated: no NaN from its derivative', () => {
  expect(m.dLog(0)).toBe(0);
  expect(m.dLog(2)).toBeCloseTo(0.5, 12);
  expect(m.dSinc(0)).toBe(0);
  expect(m.dSincIf(0)).toBe(0);
  expect(m.dSinc(0.5)).toBeCloseTo((0.5 * Math.cos(0.5) - Math.sin(0.5)) / 0.25, 12);
  expect(m.dSqrtIf(0)).toBe(0);
  expect(m.dSqrtIf(-1)).toBe(0);
  expect(m.dSqrtIf(4)).toBeCloseTo(1.5 * 2, 12);
  // Second order too: the Hessian at the point where the untaken side is singular.
  expect(m.hSinc(0)).toEqual([[0]]);
  expect(m.hLog(0)).toEqual([[0]]);
  expect(m.hSqrtIf(0)).toEqual([[0]]);
  expect(m.hLog(2)[0][0]).toBeCloseTo(-0.25, 12);
  expect(m.hSqrtIf(4)[0][0]).toBeCloseTo(0.75 / 2, 12);
});

test('hessian and hvp through a conditional (second order)', () => {
  const h = 1e-4;
  for (const [x, y] of [
    [1.7, -0.6],
    [-1.8, 0.9],
    [0.4, 1.3],
  ]) {
    const f = m.piecewise;
    const d2 = (i: number, j: number) => {
      const e = (di: number, dj: number) => f(x + (i === 0 ? di : 0) + (j === 0 ? dj : 0), y + (i === 1 ? di : 0) + (j === 1 ? dj : 0));
      return (e(h, h) - e(h, -h) - e(-h, h) + e(-h, -h)) / (4 * h * h);
    };
    const H = m.hPiecewise([x, y]);
    H.forEach((row: number[], i: number) => row.forEach((v, j) => expect(Math.abs(v - d2(i, j))).toBeLessThan(1e-5 * Math.max(1, Math.abs(v)))));
    const hv = m.hvpPiecewise([x, y], [0.5, -2]);
    [0, 1].forEach((i) => expect(hv[i]).toBeCloseTo(H[i][0] * 0.5 + H[i][1] * -2, 9));
  }
  for (const x of [2.5, 0.5, 1.5]) {
    const second = (m.early(x + h) - 2 * m.early(x) + m.early(x - h)) / (h * h);
    expect(Math.abs(m.hvpEarly(x, 1) - second)).toBeLessThan(1e-5 * Math.max(1, Math.abs(second)));
  }
});

test('a function returning a tuple from an early return: jacobian and vjp', () => {
  for (const [x, y] of [
    [1.2, 0.3],
    [-0.4, 0.9],
  ]) {
    const J = m.jTuple(x, y);
    const cols = [partial(m.tupleOut, [x, y], 0, 0), partial(m.tupleOut, [x, y], 1, 0)];
    J.forEach((row: number[], r: number) => expectClose(row, [cols[0][r]]));
    const [value, pullback] = m.vjpTuple(x, y);
    expect(leaves(value)).toEqual(leaves(m.tupleOut(x, y)));
    const [bx, by] = pullback([1, -2]);
    expectClose([bx, by], [cols[0][0] - 2 * cols[0][1], cols[1][0] - 2 * cols[1][1]]);
  }
});

test("the generated code keeps branches readable as if/else (a select's gradient too)", () => {
  expect(m.dCheap(2)).toBe(4);
  expect(m.dCheap(-2)).toBe(-1);
  const code = result.outputText;
  // A grad beside a valueAndGrad of the same function calls its def (f$vg).
  const body = (name: string) => {
    const start = code.search(new RegExp(`function ${name}\\$(grad|vg)\\(`));
    return code.slice(start, code.indexOf('\n}\n', start));
  };
  expect(body('piecewise')).toContain('if (');
  expect(body('early')).toContain('if (');
  expect(body('logOrZero')).toContain('if (');
  // The primal keeps its select; the backward pass branches on the select's own test, so the side
  // not taken has no backward code at all (ad/guards.ts: no 0·∞ from its partials).
  // (The test is used once, so the printer writes it in the if: backend/ts/fold.ts.)
  expect(body('cheapSelect')).toMatch(/if \(x > 0\) \{/);
});

test('variables declared in a branch stay local to it', () => {
  const src = `import { grad } from 'tsad';
/** @differentiable */
export function f(x: number): number {
  let y = x;
  if (x > 0) {
    const w = x * 3;
    y = w;
  } else {
    const w = x * 5;
    y = w + 1;
  }
  const w = 7;
  return y * w;
}
export const d = grad(f);
`;
  const { exports } = load(src);
  expect(exports.d(1)).toBe(21);
  expect(exports.d(-1)).toBe(35);
});

test('switch on a string mode: gradients of each case, the default, and a return inside a case', () => {
  for (const kind of ['sin', 'exp', 'e', 'none', 'other']) {
    for (const [x, y] of [
      [0.4, 1.3],
      [-0.7, 0.5],
    ]) {
      const f = (a: number, b: number) => m.mode(a, b, kind);
      checkGrad(f, (a: number, b: number) => m.dMode(a, b, kind), [x, y], [0, 1]);
    }
  }
  expect(m.dMode(0.4, 1.3, 'exp')).toEqual(m.dMode(0.4, 1.3, 'e'));
  for (const kind of ['sq', 'log', 'lin'])
    checkGrad(
      (x: number) => m.modeReturns(x, kind),
      (x: number) => m.dModeReturns(x, kind),
      [1.7],
      [0],
    );
  expect(m.dModeReturns(1.7, 'log')).toBeCloseTo(2 / 1.7, 12);
  // A number and a boolean as the subject, a nested switch, no default.
  expect(m.dNumbered(0.5, 1, true)).toBe(2);
  expect(m.dNumbered(0.5, 2, true)).toBe(1);
  expect(m.dNumbered(0.5, 2, false)).toBe(1);
  expect(m.dNumbered(0.5, 3, true)).toBe(1);
  const code = result.outputText;
  const body = code.slice(code.indexOf('function mode$grad'), code.indexOf('\n}\n', code.indexOf('function mode$grad')));
  expect(body).toContain('if (');
});

test('&& and || with a call on the right short-circuit: the right side runs only when needed', () => {
  for (const x of [0, -1]) {
    expect(m.bigLog(x)).toBe(3 * x);
    expect(m.dBigLog(x)).toBe(3);
    expect(m.dSmallRoot(x)).toBe(2);
  }
  for (const x of [0.5, 2, 5]) checkGrad(m.bigLog, m.dBigLog, [x], [0]);
  for (const x of [0.5, 3, 5]) checkGrad(m.smallRoot, m.dSmallRoot, [x], [0]);
  const code = result.outputText;
  const body = code.slice(code.indexOf('function bigLog$grad'), code.indexOf('\n}\n', code.indexOf('function bigLog$grad')));
  // The log is computed inside the branch on x > 0 only.
  expect(body.indexOf('if (')).toBeGreaterThan(-1);
  expect(body.indexOf('Math.log')).toBeGreaterThan(body.indexOf('if ('));
});

test('switch: fall-through from a non-empty case and an early break are TSAD1101', () => {
  const head = `import { grad } from 'tsad';\n/** @differentiable */\nfunction f(x: number, k: string) { let y = x; `;
  const tail = ` return y; }\nexport const d = grad(f);`;
  const through = compile(`${head}switch (k) { case 'a': y = 2 * x; case 'b': y = y * x; break; }${tail}`, { throwOnError: false });
  expect(through.messages.join('\n')).toMatch(/TSAD1101: fall-through from a non-empty case is not supported/);
  const early = compile(`${head}switch (k) { case 'a': if (x > 0) break; y = 2 * x; break; }${tail}`, { throwOnError: false });
  expect(early.messages.join('\n')).toMatch(/TSAD1101: break is supported only as the last statement of a case/);
});

test('a number as a condition is TSAD1116', () => {
  const number = compile(`import { grad } from 'tsad';\n/** @differentiable */\nfunction f(x: number) { let y = 1; if (x) { y = 2; } return y * x; }\nexport const d = grad(f);`, {
    throwOnError: false,
  });
  expect(number.messages.join('\n')).toMatch(/TSAD1116: the condition is a number, not a boolean/);
});

test('a problem in statements lowered on two paths is reported once', () => {
  const r = compile(
    `import { grad } from 'tsad';\n/** @differentiable */\nfunction f(x: number, y: number) {\n  let s = x;\n  if (x > 0) {\n    if (y > 0) return s;\n    s = y;\n  }\n  return s * Math.random();\n}\nexport const d = grad(f);`,
    { throwOnError: false },
  );
  expect(r.messages.filter((msg) => msg.includes('TSAD1103'))).toHaveLength(1);
});

test('a path that reaches the end without a return is TSAD1107', () => {
  const r = compile(
    `import { grad } from 'tsad';\n/** @differentiable */\n// @ts-ignore: not all paths return\nfunction f(x: number): number { if (x > 0) { return x; } }\nexport const d = grad(f as any);`,
    { throwOnError: false },
  );
  expect(r.messages.join('\n')).toMatch(/TSAD1107/);
});

test('the example of docs/frontend.md (huber)', () => {
  const { exports: e } = load(`import { grad } from 'tsad';
/** @differentiable */
export function huber(r: number, d: number): number {
  let loss = 0.5 * r * r;
  if (r > d) {
    loss = d * (r - 0.5 * d);
  } else if (r < -d) {
    loss = -d * (r + 0.5 * d);
  }
  return loss;
}
export const d = grad(huber, { wrt: [0, 1] });
`);
  for (const at of [
    [2, 1],
    [-2, 1],
    [0.5, 1],
  ])
    checkGrad(e.huber, e.d, at, [0, 1]);
});

test('tsad inspect shows the cond in Linear A and in the derived stages', () => {
  const file = path.join(workDir(), 'inspected.ts');
  fs.writeFileSync(file, `/** @differentiable */\nexport function f(x: number, y: number): number {\n  if (x > 0) return Math.log(x) * y;\n  let z = y;\n  if (y < 0) z = -y * x;\n  return z;\n}\n`);
  const run = (stage: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = main(['inspect', file, '--fn', 'f', '--stage', stage], { out: (t) => out.push(t), err: (t) => err.push(t) });
    expect({ code, err: err.join('\n') }).toEqual({ code: 0, err: '' });
    return out.join('\n');
  };
  expect(run('linear-a')).toMatch(/let result = cond\(gt, x, y\) \[\|x_\d+, y_\d+ ;\| \{/);
  for (const stage of ['jvp', 'linearize', 'transpose', 'grad']) expect(run(stage)).toContain('= cond(');
  // The test is read once (no branch reads it as an operand): printed in the if.
  expect(run('emit')).toContain('if (x > 0) {');
});

// ---- random piecewise functions (property) ----

const smooth = (vars: readonly string[]) => smoothExpression(vars, [(e) => e.map((a) => `Math.log1p((${a}) * (${a}))`)]);

const comparison = fc.tuple(smooth(['x', 'y']), fc.constantFrom('<', '>', '<=', '>='), smooth(['x', 'y'])).map(([a, op, b]) => `${a} ${op} ${b}`);

/** A statement assigning a or b, or an if (maybe with else, maybe returning) of such statements. */
const statement: fc.Arbitrary<string> = fc.letrec<{ s: string }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.tuple(fc.constantFrom('a', 'b'), smooth(['x', 'y', 'a', 'b'])).map(([v, e]) => `${v} = ${e};`),
    fc
      .tuple(comparison, fc.array(tie('s'), { minLength: 1, maxLength: 2 }), fc.option(fc.array(tie('s'), { minLength: 1, maxLength: 2 })), fc.option(smooth(['x', 'a', 'b'])))
      .map(([c, yes, no, early]) => `if (${c}) {\n${yes.join('\n')}${early !== null ? `\nreturn ${early};` : ''}\n}${no ? ` else {\n${no.join('\n')}\n}` : ''}`),
  ),
})).s;

const fnBody = fc.tuple(fc.array(statement, { minLength: 1, maxLength: 3 }), smooth(['a', 'b', 'x'])).map(([ss, r]) => `  let a = x;\n  let b = y;\n${ss.join('\n')}\n  return ${r};`);

test('compiled grad and jvp of random piecewise functions agree with finite differences (property)', () => {
  const h = 1e-6;
  fc.assert(
    fc.property(fnBody, fc.double({ min: -2, max: 2, noNaN: true }), fc.double({ min: -2, max: 2, noNaN: true }), (body, x, y) => {
      const src = `import { grad, jvp } from 'tsad';\n/** @differentiable */\nexport function f(x: number, y: number): number {\n${body}\n}\nexport const g = grad(f, { wrt: [0, 1] });\nexport const t = (x: number, y: number) => jvp(f, [x, y], [0.3, -0.7]);\n`;
      const checked = compile(src, { throwOnError: false });
      if (checked.diagnostics.length > 0) throw new Error(`${checked.messages.join('\n')}\n${src}`);
      const e = loadOutput(checked);
      const f = e.f as (x: number, y: number) => number;
      const fx = f(x, y);
      const shifted = [f(x + h, y), f(x - h, y), f(x, y + h), f(x, y - h)];
      const [gx, gy] = e.g(x, y);
      const [tv, tdot] = e.t(x, y);
      expect(tv).toBe(fx);
      // Away from a branch boundary (where f may have a jump or a kink): one-sided differences agree.
      const oneSided = (up: number, down: number) => Math.abs((up - fx) / h - (fx - down) / h) < 1e-3 * Math.max(1, Math.abs((up - down) / (2 * h)));
      // and the point is not itself on a boundary that its neighbours are off (`0 < y * y` at y = 1e-162).
      const sameGrad = [
        [x + h, y],
        [x - h, y],
        [x, y + h],
        [x, y - h],
      ].every(([u, v]) => {
        const [ux, uy] = e.g(u, v);
        return Math.abs(ux - gx) < 1e-3 * Math.max(1, Math.abs(gx)) && Math.abs(uy - gy) < 1e-3 * Math.max(1, Math.abs(gy));
      });
      fc.pre(Number.isFinite(fx) && Math.abs(fx) < 1e4 && oneSided(shifted[0], shifted[1]) && oneSided(shifted[2], shifted[3]) && sameGrad);
      const dx = (shifted[0] - shifted[1]) / (2 * h);
      const dy = (shifted[2] - shifted[3]) / (2 * h);
      const near = (a: number, b: number) => Math.abs(a - b) <= 1e-4 * Math.max(1, Math.abs(b));
      if (!near(gx, dx) || !near(gy, dy)) throw new Error(`grad (${gx}, ${gy}) vs differences (${dx}, ${dy}) at (${x}, ${y})\n${body}`);
      if (!near(tdot, 0.3 * dx - 0.7 * dy)) throw new Error(`jvp ${tdot} vs differences ${0.3 * dx - 0.7 * dy}\n${body}`);
    }),
    {
      numRuns: 40,
      examples: [
        [
          '  let a = x;\n  let b = y;\nif ((x - Math.sin(Math.sin(0.5))) < x) {\nif (Math.log1p((Math.sin((x + x))) * (Math.sin((x + x)))) < Math.sin(Math.log1p((y) * (y)))) {\nif (0.5 < 0.5) {\na = x;\n}\nreturn x;\n}\nreturn (x + x);\n}\n  return 0.5;',
          0,
          1.5717277847026288e-162,
        ],
        ['  let a = x;\n  let b = y;\nif (x < y) {\nif ((x + x) < x) {\na = 0.5;\n} else {\nif (x < 0.5) {\na = x;\nreturn (0.5 * x);\n}\n}\n}\n  return b;', 0, 0],
      ],
    },
  );
});

test('jvp through a branch that reads a constant where its partial is infinite: the constant has no tangent in the branch (was NaN: sqrt′(0) times a materialised zero)', () => {
  const { exports: e } = load(`import { jvp, valueAndGrad } from 'tsad';
/** @differentiable */
export function f(x: number, y: number): number {
  let v = 2;
  v += y;
  v = 0.5;
  return x > 2 ? Math.cos(x) : x + Math.cbrt(2 + (v >= 0.5 ? Math.sqrt(v - 0.5) : 0));
}
export const t = (x: number, y: number, dx: number, dy: number) => jvp(f, [x, y], [dx, dy]);
export const vg = valueAndGrad(f, { wrt: [0, 1] });
`);
  expect(e.vg(0.3, -0.2)).toEqual([e.f(0.3, -0.2), [1, 0]]);
  expect(e.t(0.3, -0.2, 0.5, 2)).toEqual([e.f(0.3, -0.2), 0.5]);
});
