// JavaScript's arrays are shared objects, tsad's are values (docs/frontend.md, "Aliasing"):
// small programs where a second name for an array exists, each checked against the same source
// run as plain JavaScript (the primal) and central finite differences (the gradient).
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import fc from 'fast-check';
import { compile, load, expectClose, workDir } from './harness';

let plainCounter = 0;

/** The source as plain TypeScript compiles it: the doc markers are comments. */
function plainModule(source: string): Record<string, any> {
  const js = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true } }).outputText;
  const file = path.join(workDir(), `aliasing-plain-${plainCounter++}.js`);
  fs.writeFileSync(file, js);
  return require(file);
}

type Arg = number | number[] | number[][] | Float64Array;
const copy = (a: Arg): Arg => (typeof a === 'number' ? a : a instanceof Float64Array ? a.slice() : (a as any[]).map((r) => (Array.isArray(r) ? r.slice() : r)));
const flat = (a: Arg): number[] => (typeof a === 'number' ? [a] : Array.from(a as ArrayLike<any>).flatMap((r) => (typeof r === 'number' ? [r] : Array.from(r as ArrayLike<number>))));

/**
 * Compiles `source` with `valueAndGrad(fn)` over every argument: no diagnostics, the primal
 * equals plain JavaScript bit for bit, the gradient matches central differences of plain JS.
 */
function agrees(source: string, fn: string, args: Arg[]): void {
  const wrt = args.map((_, i) => i);
  const { exports: m, result } = load(`${source}\nimport { valueAndGrad as vgAliasing } from 'tsad';\nexport const vgOf = vgAliasing(${fn}, { wrt: [${wrt.join(', ')}] });\n`);
  expect(result.messages).toEqual([]);
  const plain = plainModule(source)[fn] as (...a: Arg[]) => number;
  const expected = plain(...args.map(copy));
  const [value, grads] = m.vgOf(...args.map(copy));
  expect(value).toBe(expected);
  const g = args.length === 1 ? [grads] : grads;
  args.forEach((_a, i) => expectClose(flat(g[i]), centralDifferences(plain, args, i), 1e-5));
}

/** ∂f/∂(each leaf of argument i) by central differences, on copies of the arguments. */
function centralDifferences(f: (...a: Arg[]) => number, args: Arg[], i: number): number[] {
  const h = 1e-6;
  return flat(args[i]).map((_, k) => {
    const at = (s: number): number => f(...args.map((a, j) => (j === i ? shift(a, k, s) : copy(a))));
    return (at(h) - at(-h)) / (2 * h);
  });
}

/** A copy of a with its leaf k moved by s. */
function shift(a: Arg, k: number, s: number): Arg {
  if (typeof a === 'number') return a + s;
  const c = copy(a);
  if (c instanceof Float64Array || typeof (c as number[])[0] === 'number') (c as number[])[k] += s;
  else {
    const cols = (c as number[][])[0].length;
    (c as number[][])[Math.floor(k / cols)][k % cols] += s;
  }
  return c;
}

/** The TSAD codes a source gets. */
function codes(source: string): string[] {
  return compile(source, { throwOnError: false }).messages.map((msg) => /TSAD\d+/.exec(msg)?.[0] ?? msg);
}

const GRADIENT_OF = `
/** @differentiable */
function gradientOf(p: Float64Array, x: number): Float64Array {
  const g = new Float64Array(p.length);
  for (let j = 0; j < p.length; j++) g[j] = 2 * p[j] * x + Math.sin(p[j]);
  return g;
}`;

/** A marked function that returns its argument on one path only: not fresh, and it keeps the argument. */
const MAYBE = `
/** @differentiable */
function maybe(p: Float64Array, w: number): Float64Array {
  return w > 0 ? p : new Float64Array(p.length);
}
`;

describe('1. the fresh result of a marked function may be written by the caller', () => {
  test('let g = gradientOf(p, x); g[j] = -g[j]', () => {
    agrees(
      `${GRADIENT_OF}
/** @differentiable */
export function descend(p: Float64Array, x: number): number {
  let g = gradientOf(p, x);
  for (let j = 0; j < g.length; j++) g[j] = -g[j];
  let s = 0;
  for (let j = 0; j < g.length; j++) s += g[j] * p[j];
  return s;
}`,
      'descend',
      [new Float64Array([0.3, -1.2, 0.7]), 0.9],
    );
  });

  test('through a chain of marked functions returning what they built (a const arrow too)', () => {
    agrees(
      `${GRADIENT_OF}
import { differentiable } from 'tsad';
const scaled = differentiable((p: Float64Array, x: number): Float64Array => {
  const g = gradientOf(p, x);
  return g;
});
/** @differentiable */
function pick(p: Float64Array, x: number): Float64Array {
  return x > 0 ? scaled(p, x) : new Float64Array(p.length);
}
/** @differentiable */
export function twice(p: Float64Array, x: number): number {
  const g = pick(p, x);
  g[0] = g[0] * g[1];
  return g[0] + p[0] * g[2];
}`,
      'twice',
      [new Float64Array([0.3, -1.2, 0.7]), 0.9],
    );
  });

  test('a function that returns its argument: its result is that argument (returns argument k)', () => {
    agrees(
      `
/** @differentiable */
function same(p: Float64Array): Float64Array {
  return p;
}
/** @differentiable */
export function f(x: Float64Array): number {
  const b = x.slice();
  const c = same(b);
  c[0] = c[1] * x[2];
  return b[0] * c[2] + b[1];
}`,
      'f',
      [new Float64Array([0.3, -1.2, 0.7])],
    );
  });

  test('a function that returns its argument on one path only is not fresh: writing into its result is refused', () => {
    expect(
      codes(`${MAYBE}/** @differentiable */
export function f(x: Float64Array, w: number): number {
  const b = x.slice();
  const c = maybe(b, w);
  c[0] = 5;
  return b[0];
}`),
    ).toEqual(['TSAD1122']);
  });
});

describe('1b. a fresh matrix from a marked function', () => {
  test('const L = lower(A); L[i][j] = …', () => {
    agrees(
      `
/** @differentiable */
function lower(A: number[][]): number[][] {
  const L = A.map((row) => row.slice());
  for (let i = 0; i < L.length; i++) for (let j = i + 1; j < L.length; j++) L[i][j] = 0;
  return L;
}
/** @differentiable */
export function f(A: number[][]): number {
  const L = lower(A);
  L[1][0] = L[1][0] * L[0][0];
  return L[1][0] + L[1][1] * A[0][1];
}`,
      'f',
      [
        [
          [1, 2],
          [3, -1],
        ],
      ],
    );
  });
});

describe('2. a written array passed to a marked function that keeps no reference to it', () => {
  test('RK4 stage buffers', () => {
    agrees(
      `
/** @differentiable */
function rhs(y: Float64Array, k: number): Float64Array {
  const out = new Float64Array(y.length);
  for (let i = 0; i < y.length; i++) out[i] = -k * y[(i + 1) % y.length] + 0.1 * y[i];
  return out;
}
/** @differentiable */
export function step(y0: Float64Array, k: number): number {
  const n = y0.length;
  const dt = 0.1;
  const y1 = new Float64Array(n);
  const k1 = rhs(y0, k);
  for (let i = 0; i < n; i++) y1[i] = y0[i] + 0.5 * dt * k1[i];
  const k2 = rhs(y1, k);
  for (let i = 0; i < n; i++) y1[i] = y0[i] + dt * k2[i];
  const k3 = rhs(y1, k);
  let s = 0;
  for (let i = 0; i < n; i++) s += (k1[i] + 2 * k2[i] + k3[i]) * y1[i];
  return s;
}`,
      'step',
      [new Float64Array([0.3, -1.2, 0.7]), 0.9],
    );
  });

  test('a marked function that returns its argument keeps it: a write into the array is seen through its result', () => {
    agrees(
      `
/** @differentiable */
function same(p: Float64Array): Float64Array {
  return p;
}
/** @differentiable */
export function f(x: Float64Array): number {
  const b = x.slice();
  const c = same(b);
  b[0] = 5 * x[1];
  return c[0] * x[0];
}`,
      'f',
      [new Float64Array([0.3, -1.2, 0.7])],
    );
  });

  test('one that may return its argument keeps it: passing a written array is refused', () => {
    expect(
      codes(`${MAYBE}/** @differentiable */
export function f(x: Float64Array, w: number): number {
  const b = x.slice();
  const c = maybe(b, w);
  b[0] = 5;
  return c[0];
}`),
    ).toEqual(['TSAD1123']);
  });
});

describe('3. double buffering and swaps of whole arrays', () => {
  test('[a, b] = [b, a] of two written buffers', () => {
    agrees(
      `
/** @differentiable */
export function smooth(x: Float64Array, steps: number): number {
  let a = x.slice();
  let b = new Float64Array(x.length);
  for (let s = 0; s < 3; s++) {
    for (let i = 0; i < a.length; i++) b[i] = 0.5 * a[i] + 0.25 * (a[(i + 1) % a.length] + a[(i + a.length - 1) % a.length]) * a[i];
    [a, b] = [b, a];
  }
  return a[0] + 2 * a[1] + 3 * b[2];
}`,
      'smooth',
      [new Float64Array([0.3, -1.2, 0.7, 0.4]), 3],
    );
  });

  test('[prev, u, next] = [u, next, prev]', () => {
    agrees(
      `
/** @differentiable */
export function wave(u0: Float64Array, c: number): number {
  let u = u0.slice();
  let prev = u0.slice();
  let next = new Float64Array(u0.length);
  for (let s = 0; s < 4; s++) {
    for (let i = 1; i < u.length - 1; i++) next[i] = 2 * u[i] - prev[i] + c * (u[i - 1] - 2 * u[i] + u[i + 1]);
    [prev, u, next] = [u, next, prev];
  }
  let e = 0;
  for (let i = 0; i < u.length; i++) e += u[i] * u[i] + prev[i] * next[i];
  return e;
}`,
      'wave',
      [new Float64Array([0.3, -1.2, 0.7, 0.4, 0.1]), 0.3],
    );
  });

  test('u = next with next new in every trip (power iteration)', () => {
    agrees(
      `
/** @differentiable */
export function power(A: number[][]): number {
  const n = A.length;
  let v = new Array<number>(n).fill(1);
  for (let it = 0; it < 3; it++) {
    const w = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) w[i] += A[i][j] * v[j];
    let norm = 0;
    for (let i = 0; i < n; i++) norm += w[i] * w[i];
    for (let i = 0; i < n; i++) w[i] = w[i] / Math.sqrt(norm);
    v = w;
  }
  return v[0] + 2 * v[1];
}`,
      'power',
      [
        [
          [2, 0.5],
          [0.5, 1],
        ],
      ],
    );
  });

  test('x = xPrime, then xPrime written again is refused (x would see the write)', () => {
    expect(
      codes(`
/** @differentiable */
export function f(x0: Float64Array): number {
  let x = x0.slice();
  const xPrime = new Float64Array(x0.length);
  for (let s = 0; s < 3; s++) {
    for (let i = 0; i < x.length; i++) xPrime[i] = x[i] * 0.5;
    x = xPrime;
  }
  return x[0];
}`),
    ).toEqual(['TSAD1123']);
  });

  test('x = xPrime once, xPrime not used after', () => {
    agrees(
      `
/** @differentiable */
export function f(x0: Float64Array): number {
  let x = x0.slice();
  const xPrime = new Float64Array(x0.length);
  for (let i = 0; i < x.length; i++) xPrime[i] = x[i] * x[(i + 1) % x.length];
  x = xPrime;
  x[0] = x[0] * 3;
  return x[0] + x[1];
}`,
      'f',
      [new Float64Array([0.3, -1.2, 0.7])],
    );
  });
});

describe('4. row swaps in a number[][] matrix', () => {
  test('const tmp = m[p]; m[p] = m[c]; m[c] = tmp', () => {
    agrees(
      `
/** @differentiable */
export function pivot(A: number[][]): number {
  const m = A.map((row) => row.slice());
  const n = m.length;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    if (p !== c) {
      const tmp = m[p];
      m[p] = m[c];
      m[c] = tmp;
    }
    for (let r = c + 1; r < n; r++) {
      const f = m[r][c] / m[c][c];
      for (let k = c; k < n; k++) m[r][k] -= f * m[c][k];
    }
  }
  let s = 0;
  for (let i = 0; i < n; i++) s += m[i][i] * (i + 1) + m[i][n - 1 - i];
  return s;
}`,
      'pivot',
      [
        [
          [1, 2, 0.5],
          [3, -1, 2],
          [0.2, 4, 1],
        ],
      ],
    );
  });

  test('[M[p], M[c]] = [M[c], M[p]]', () => {
    agrees(
      `
/** @differentiable */
export function swapRows(A: number[][]): number {
  const M = A.map((row) => row.map((x) => x * 2));
  [M[0], M[2]] = [M[2], M[0]];
  M[0][1] += M[2][1];
  return M[0][0] * M[0][1] + M[1][1] - M[2][0];
}`,
      'swapRows',
      [
        [
          [1, 2],
          [3, -1],
          [0.2, 4],
        ],
      ],
    );
  });
});

describe("5. two names for one array see each other's writes", () => {
  test('const c = b; b[0] = 1; return c[0]', () => {
    agrees(
      `
/** @differentiable */
export function f(x: Float64Array): number {
  const b = x.slice();
  const c = b;
  b[0] = x[1] * x[2];
  c[1] = c[0] + b[2];
  return c[0] * b[1] + c[2];
}`,
      'f',
      [new Float64Array([0.3, -1.2, 0.7])],
    );
  });
});

describe('retired refusals (TSAD1123 before): they build and mean what JavaScript means', () => {
  test('for (const v of b) over a written array, with no write inside the loop', () => {
    agrees(
      `
/** @differentiable */
export function f(x: Float64Array): number {
  const b = x.slice();
  b[0] = 3 * x[2];
  let s = 0;
  for (const v of b) s += v * v;
  return s;
}`,
      'f',
      [new Float64Array([0.3, -1.2, 0.7])],
    );
  });

  test('const H = G of a written matrix: H is G', () => {
    agrees(
      `
/** @differentiable */
export function f(A: number[][]): number {
  const G = A.map((r) => r.slice());
  const H = G;
  G[0][0] = 2 * A[1][1];
  H[1][0] += G[0][1];
  return H[0][0] * G[1][0] + H[1][1];
}`,
      'f',
      [
        [
          [1, 2],
          [3, -1],
        ],
      ],
    );
  });
});

describe('sharing decided by run-time data is a diagnostic naming both arrays and the write', () => {
  test('const c = w > 0 ? a : b; c[0] = …', () => {
    const r = compile(
      `
/** @differentiable */
export function f(x: Float64Array, w: number): number {
  const a = x.slice();
  const b = x.map((t) => t * 2);
  const c = w > 0 ? a : b;
  c[0] = 1;
  return a[0] + b[0];
}`,
      { throwOnError: false },
    );
    expect(r.messages).toHaveLength(1);
    expect(r.messages[0]).toMatch(/TSAD1123: 'c' is a or b depending on run-time data, so the write c\[0\] = 1 would change one of them in JavaScript/);
  });
});

// ---- generated programs (fast-check): random sequences of aliases, calls returning fresh or
// shared arrays, writes, swaps and reads; each builds and agrees with plain JavaScript, or (only
// where a conditional picks the array at run time) is refused with TSAD1123 ----

type Op =
  | { kind: 'alias' | 'fresh' | 'same'; src: number }
  | { kind: 'pick'; a: number; b: number }
  | { kind: 'write'; dst: number; i: number; src: number; j: number; compound: boolean }
  | { kind: 'swap' }
  | { kind: 'read'; src: number; i: number };

const index = fc.integer({ min: 0, max: 2 });
const ref = fc.nat(20);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('alias' as const, 'fresh' as const, 'same' as const), src: ref }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pick' as const), a: ref, b: ref }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('write' as const), dst: ref, i: index, src: ref, j: index, compound: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('swap' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('read' as const), src: ref, i: index }) },
);

const PRELUDE = `
/** @differentiable */
function fresh(p: Float64Array, w: number): Float64Array {
  const out = new Float64Array(p.length);
  for (let i = 0; i < p.length; i++) out[i] = Math.sin(p[i]) * w + p[(i + 1) % p.length];
  return out;
}
/** @differentiable */
function same(p: Float64Array): Float64Array {
  return p;
}`;

/** The program's source, and whether a conditional picks an array (sharing known only at run time). */
function render(ops: readonly Op[]): { source: string; picks: boolean } {
  const consts = ['b0'];
  const all = (): string[] => [...consts, 'u0', 'u1'];
  const lines = ['let s = 0;', 'const b0 = x.slice();', 'let u0 = x.map((t) => t * w);', 'let u1 = new Float64Array(3);'];
  let picks = false;
  ops.forEach((o, k) => {
    const name = `c${k}`;
    const pickFrom = (r: number): string => consts[r % consts.length];
    const any = (r: number): string => all()[r % all().length];
    if (o.kind === 'alias') lines.push(`const ${name} = ${pickFrom(o.src)};`);
    if (o.kind === 'fresh') lines.push(`const ${name} = fresh(${any(o.src)}, w);`);
    if (o.kind === 'same') lines.push(`const ${name} = same(${pickFrom(o.src)});`);
    if (o.kind === 'pick') {
      picks = true;
      lines.push(`const ${name} = w > 0 ? ${pickFrom(o.a)} : ${pickFrom(o.b)};`);
    }
    if (o.kind === 'alias' || o.kind === 'fresh' || o.kind === 'same' || o.kind === 'pick') consts.push(name);
    if (o.kind === 'write') lines.push(`${any(o.dst)}[${o.i}] ${o.compound ? '+=' : '='} Math.sin(${any(o.src)}[${o.j}]) * w${o.compound ? '' : ` + ${any(o.dst)}[${o.i}]`};`);
    if (o.kind === 'swap') lines.push('[u0, u1] = [u1, u0];');
    if (o.kind === 'read') lines.push(`s += ${any(o.src)}[${o.i}] * ${all()[(o.src + 1) % all().length]}[${(o.i + 1) % 3}];`);
  });
  lines.push(
    `return s + ${all()
      .map((n, k) => `${n}[${k % 3}]`)
      .join(' + ')};`,
  );
  const source = `${PRELUDE}
/** @differentiable */
export function prog(x: Float64Array, w: number): number {
  ${lines.join('\n  ')}
}`;
  return { source, picks };
}

test('generated aliasing programs build and agree with plain JavaScript and finite differences (property)', () => {
  const programs = fc.sample(fc.array(op, { minLength: 2, maxLength: 9 }), { numRuns: 40, seed: 19 });
  let plainPrograms = 0;
  let accepted = 0;
  let refusedPicks = 0;
  for (const ops of programs) {
    const { source, picks } = render(ops);
    const got = codes(source);
    if (!picks) plainPrograms++;
    if (got.length > 0) {
      // Refusals are coded diagnostics about the write, never a crash.
      expect([source, got.every((c) => c === 'TSAD1123' || c === 'TSAD1122')]).toEqual([source, true]);
      if (picks) refusedPicks++;
      continue;
    }
    if (!picks) accepted++;
    try {
      // Both signs of w: a conditional's either branch.
      agrees(source, 'prog', programs.indexOf(ops) % 2 === 0 ? [new Float64Array([0.3, -1.2, 0.7]), 0.8] : [new Float64Array([-0.5, 0.4, 1.1]), -0.6]);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${source}`);
    }
  }
  if (process.env.ALIAS_STATS) console.log({ plainPrograms, accepted, refusedPicks, total: programs.length });
  expect(accepted / plainPrograms).toBeGreaterThanOrEqual(0.95);
  // The generator does produce run-time sharing, and some of it is refused.
  expect(refusedPicks).toBeGreaterThan(0);
});

describe('a name in an object shorthand is a use of the variable', () => {
  test('v = w, then a write through v, with w returned in { w }: refused (w would see the write)', () => {
    expect(
      codes(`
/** @differentiable */
export function f(x: Float64Array): number {
  let v = x.slice();
  const w = x.map((t) => t * 2);
  w[1] = 4;
  v = w;
  v[0] = 1;
  const o = { w };
  return o.w[0] + v[1];
}`),
    ).toEqual(['TSAD1123']);
  });
});
