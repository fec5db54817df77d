// Counted loops that are sums (`s += term(i)`, no term reading a carried value) run on many GPU
// threads as a map over the iteration index and a hierarchical sum (backend/wgsl/sumLoop.ts,
// constructs/sumLoop.ts); every other loop still runs sequentially in one invocation. Each case
// checks which way the program went (its device steps) and its numbers against tsad's CPU path
// on the software adapter. Kernels compute in f32; tolerances are stated per test. Without an
// adapter the GPU tests are skipped, loudly (gpuSuite.ts).
import * as fs from 'fs';
import * as path from 'path';
import { load } from '../plugin/harness';
import { close, data, gpuSuite, maxAbs } from './gpuSuite';
import { parseProgram } from '../../transformer/language/parse';
import { sumLoopOf } from '../../transformer/backend/wgsl/sumLoop';
import type { Expr, FnDef } from '../../transformer/ir/syntax';
import type { GpuProgram } from '../../runtime/webgpu/plan';

const llsqSource = fs.readFileSync(path.resolve(__dirname, '../../bench/src/tsad/llsq.ts'), 'utf8');

const source = `
import { grad, valueAndGrad, sum } from 'tsad';
import { gpu } from 'tsad/webgpu';
${llsqSource}

/** Two sums in one loop, one written term + s. */
/** @differentiable */
export function twoSums(x: Float32Array, n: number): number {
  let s = 0;
  let c = 1;
  for (let i = 0; i < n; i++) {
    const v = x[i % x.length];
    s += v * v;
    c = Math.cos(i * 0.1) * v + c;
  }
  return s * c;
}

/** An inner loop whose trip count depends on i, and a cond in the body. */
/** @differentiable */
export function triangle(x: Float32Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) {
    let p = 0;
    for (let j = 0; j <= i % 5; j++) p += x[j % x.length] * (j + 1);
    s += i % 2 === 0 ? Math.sin(p) : p * 0.5;
  }
  return s;
}

/** A sum over x: its gradient with respect to a is a transposed loop that sums, reading the residuals the forward loop pushed. */
/** @differentiable */
export function wsum(a: number, x: Float32Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.sin(a * x[i]);
  return s;
}

/** Not a sum: the carried value is scaled every iteration. */
/** @differentiable */
export function decay(x: Float32Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s = s * 0.5 + x[i % x.length];
  return s;
}

/** Not a sum: the term reads the carried value. */
/** @differentiable */
export function feedback(x: Float32Array, n: number): number {
  let s = 1;
  for (let i = 0; i < n; i++) s += Math.sin(s) * x[i % x.length];
  return s;
}

/** A sum whose body needs a local array (the heap): one invocation runs it. */
/** @differentiable */
export function local(x: Float32Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) {
    const v = new Float64Array(2);
    v[0] = x[i % x.length];
    v[1] = v[0] * 2;
    s += v[0] * v[1];
  }
  return s;
}

/** A sum whose trip count is known only on the device (computed from array data). */
/** @differentiable */
export function deviceCount(x: Float32Array): number {
  const m = Math.floor(sum(x));
  let s = 0;
  for (let i = 0; i < m; i++) s += i * x[0];
  return s;
}

export const gpuLlsq = gpu(llsq);
export const gpuLlsqGrad = gpu(grad(llsq));
export const cpuLlsqGrad = grad(llsq);
export const gpuTwoSums = gpu(twoSums);
export const gpuTriangle = gpu(triangle);
export const gpuDecay = gpu(decay);
export const gpuFeedback = gpu(feedback);
export const gpuLocal = gpu(local);
export const gpuDeviceCount = gpu(deviceCount);
export const gpuWsumGrad = gpu(valueAndGrad(wsum, { wrt: [0] }));
export const cpuWsumGrad = valueAndGrad(wsum, { wrt: [0] });
export const gpuTwoSumsGrad = gpu(valueAndGrad(twoSums));
export const cpuTwoSumsGrad = valueAndGrad(twoSums);
export { gpu };
`;

/** The device programs of the module's gpu(...) calls, by `where`. */
function programsOf(outputText: string): Map<string, GpuProgram> {
  const out = new Map<string, GpuProgram>();
  for (const m of outputText.matchAll(/gpu\.compiled\(JSON\.parse\(("(?:[^"\\]|\\.)*")\)/g)) {
    const p = JSON.parse(JSON.parse(m[1])) as GpuProgram;
    out.set(p.where, p);
  }
  return out;
}

/** How the program's loop ran: as a reduction (the sum rule) or inside one invocation (a WGSL loop in a scalar kernel). */
function loopRan(p: GpuProgram | undefined): { reduce: boolean; sequential: boolean } {
  if (!p) throw new Error('no such program');
  const scalarLoops = p.steps.some((s) => s.op === 'scalar' && /\bfor \(/.test(p.kernels[s.kernel]));
  return { reduce: p.steps.some((s) => s.op === 'reduce'), sequential: scalarLoops };
}

const suite = gpuSuite('test/webgpu/sumLoops.test.ts', source);
const run = suite.run;
let m: Record<string, any>;
let programs: Map<string, GpuProgram>;
let cpu: Record<string, any>;
beforeAll(() => {
  m = suite.exports();
  programs = programsOf(load(source).result.outputText);
  // The CPU path of the same functions (tsad's plain output: the marked functions run as written).
  cpu = m;
});

describe('the rule on the IR', () => {
  const body = (text: string): FnDef => parseProgram(text).defs[0];
  const loopOf = (d: FnDef) => {
    const find = (stmts: FnDef['body']['stmts']): Extract<Expr, { tag: 'construct' }> => {
      for (const s of stmts) if (s.tag === 'let' && s.rhs.tag === 'construct' && s.rhs.op === 'loop') return s.rhs;
      throw new Error('no loop');
    };
    return find(d.body.stmts);
  };
  const shape = (text: string, invariants: number) => sumLoopOf(loopOf(body(text)).bodies[0], invariants);

  test('a carry + term where the term reads no carry is a sum; a pass-through carry stays', () => {
    const r = shape(
      `def f(x: real, n: real ;) -> (real ;) {
        let z = 0
        let (s, q) = loop(n, x, z, x) [|i: real, y: real, a: real, b: real ;| {
          let t = mul(i, y)
          let u = mul(t, b)
          let a2 = add(u, a)
          (a2, b ;)
        }]
        drop(q)
        (s ;)
      }`,
      1,
    );
    expect(typeof r).toBe('object');
    if (typeof r === 'object') expect(r.carries).toEqual([{ kind: 'sum', term: 'u' }, { kind: 'pass' }]);
  });

  test('a stack put at the loop index is a put; at another record, or read in the body, it is not', () => {
    const program = (update: string) => `def f(x: real, n: real ;) -> (real ;) {
        let z = 0
        let st = stack(z, n) []
        let (s, st2) = loop(n, x, z, st) [|i: real, y: real, a: real, h: stack<real> ;| {
          let t = mul(i, y)
          let a2 = add(a, t)
          ${update}
          (a2, h2 ;)
        }]
        drop(st2)
        (s ;)
      }`;
    const fits = shape(program('let h2 = put(h, t, i) []'), 1);
    expect(typeof fits).toBe('object');
    if (typeof fits === 'object')
      expect(fits.carries).toEqual([
        { kind: 'sum', term: 't' },
        { kind: 'put', value: 't' },
      ]);
    expect(typeof shape(program('let h2 = put(h, t, y) []'), 1)).toBe('string');
    expect(typeof shape(program('let k = size(h) []\n          let h2 = put(h, k, i) []'), 1)).toBe('string');
    expect(typeof shape(program('let h2 = put(h, a2, i) []'), 1)).toBe('string');
  });

  test('a carry read other than by its addition, an addition of two carries, a sum of a sum: not a sum', () => {
    const notSums = [
      // the term reads the carry
      `let s = loop(n, x, z) [|i: real, y: real, a: real ;| { let t = mul(a, y)
         let a2 = add(a, t)
         (a2 ;) }]`,
      // scaled
      `let s = loop(n, x, z) [|i: real, y: real, a: real ;| { let h = 0.5
         let a2 = mul(a, h)
         (a2 ;) }]`,
      // the second carry adds the first one's sum
      `let (s, s2) = loop(n, x, z, z) [|i: real, y: real, a: real, b: real ;| { let a2 = add(a, y)
         let b2 = add(b, a2)
         (a2, b2 ;) }]`,
      // two carries swapped
      `let (s, s2) = loop(n, x, z, z) [|i: real, y: real, a: real, b: real ;| { (b, a ;) }]`,
    ];
    for (const text of notSums) {
      const program = `def f(x: real, n: real ;) -> (real ;) {
        let z = 0
        ${text}
        (z ;)
      }`;
      expect(typeof shape(program, 1)).toBe('string');
    }
  });
});

describe('loops that are sums run as a map and a sum', () => {
  // llsq's value: n terms (r_i², each from 8 f32 steps), summed as a tree: 1e-5 relative.
  // n = 1 is left out: t = −1 + 0/0 is NaN there, and WGSL does not promise NaN from 0/0.
  // 70000 points: one invocation walking them passed llvmpipe's 65535-trip cap (the call rejected).
  run('GradBench llsq (as bench/src/tsad writes it): the outer loop is a sum; 0, 2, 3, 37, 1000, 5000 and 70000 trips', async () => {
    expect(loopRan(programs.get('gpu(llsq)'))).toEqual({ reduce: true, sequential: false });
    const x = data(8, 3, -0.5, 0.5);
    for (const n of [0, 2, 3, 37, 1000, 5000, 70_000]) {
      const want = cpu.llsq(x, n);
      const got = await m.gpuLlsq(x, n);
      expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(want)));
    }
  });

  // The gradient's forward loop pushes residuals onto stacks, so it is not a sum and runs in one
  // invocation: still the CPU gradient (1e-4 relative against 1e-3 of the largest entry, as in loops.test.ts).
  run('GradBench llsq gradient: unchanged, the CPU gradient', async () => {
    expect(loopRan(programs.get('gpu(grad(llsq))')).sequential).toBe(true);
    for (const [len, n] of [
      [0, 0],
      [3, 2],
      [8, 37],
    ]) {
      const x = data(len, 1 + n, -1, 1);
      const want = m.cpuLlsqGrad(x, n);
      close(await m.gpuLlsqGrad(x, n), want, 1e-4, 1e-3 * maxAbs(want), `grad llsq len=${len} n=${n}`);
    }
  });

  // Two sums of up to 3000 terms of size ≤ 4, then their product: 1e-5 relative to the largest of 1 and the value.
  run('two sums in one loop (term + s written either way), 0, 1, 2.5, −3, 129 and 3000 trips', async () => {
    expect(loopRan(programs.get('gpu(twoSums)'))).toEqual({ reduce: true, sequential: false });
    const x = data(100, 5);
    for (const n of [0, 1, 2.5, -3, 129, 3000]) {
      const want = cpu.twoSums(x, n);
      const got = await m.gpuTwoSums(x, n);
      expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(want)));
    }
  });

  // Up to 5-term inner sums, a cond per iteration, 1000 terms: 1e-5 relative.
  run('an inner loop and a cond per iteration, 0, 1, 7 and 1000 trips', async () => {
    expect(loopRan(programs.get('gpu(triangle)'))).toEqual({ reduce: true, sequential: false });
    const x = data(6, 9);
    for (const n of [0, 1, 7, 1000]) {
      const want = cpu.triangle(x, n);
      const got = await m.gpuTriangle(x, n);
      expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(want)));
    }
  });

  // The forward loop puts a residual at record i, the transposed loop reads them and sums the
  // scalar cotangent: both on many threads. Sums of up to 3000 terms ≤ 2 in size: 1e-5 relative to max(1, |value|).
  run('a gradient whose forward loop puts residuals at the index and whose transposed loop sums, 0, 1, 2 and 3000 elements', async () => {
    const program = programs.get('gpu(valueAndGrad(wsum, { wrt: [0] }))')!;
    expect(loopRan(program)).toEqual({ reduce: true, sequential: false });
    // The stack made, the forward loop's records and terms, scalar code keeping the transposed
    // loop's map out of that kernel (it reads other threads' records: joined, it would race),
    // the value's sum, the gradient's sum (the transposed loop's map in its first pass).
    expect(program.steps.map((s) => s.op)).toEqual(['scalar', 'map', 'scalar', 'reduce', 'reduce']);
    for (const n of [0, 1, 2, 3000]) {
      const x = data(n, 19 + n);
      for (const a of [0.3, -1.7]) {
        const [value, da] = await m.gpuWsumGrad(a, x);
        const [wantValue, wantDa] = m.cpuWsumGrad(a, x);
        expect(Math.abs(value - wantValue)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(wantValue)));
        expect(Math.abs(da - wantDa)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(wantDa)));
      }
    }
  });

  // The gradient of a sum loop: its loops carry residual stacks (sequential), the value and gradient still the CPU's (1e-4 relative).
  run('valueAndGrad of two sums: the CPU value and gradient', async () => {
    const x = data(20, 13);
    for (const n of [0, 1, 50]) {
      const [value, dx] = await m.gpuTwoSumsGrad(x, n);
      const [wantValue, wantDx] = m.cpuTwoSumsGrad(x, n);
      expect(Math.abs(value - wantValue)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(wantValue)));
      close(dx, wantDx, 1e-4, 1e-3 * Math.max(1, maxAbs(wantDx)), `grad twoSums n=${n}`);
    }
  });
});

describe('loops of other shapes still run in one invocation', () => {
  // One thread in the loop's order: 1e-5 relative (a few hundred f32 roundings of terms ≤ 2 in size).
  run('a scaled carry, a term reading the carry, a local array, a trip count from array data', async () => {
    for (const where of ['gpu(decay)', 'gpu(feedback)', 'gpu(local)', 'gpu(deviceCount)']) {
      expect([where, loopRan(programs.get(where))]).toEqual([where, { reduce: where === 'gpu(deviceCount)', sequential: true }]);
    }
    const x = data(10, 17, -1, 1);
    for (const n of [0, 1, 2, 300]) {
      for (const [gpuFn, cpuFn] of [
        [m.gpuDecay, cpu.decay],
        [m.gpuFeedback, cpu.feedback],
        [m.gpuLocal, cpu.local],
      ]) {
        const want = cpuFn(x, n);
        expect(Math.abs((await gpuFn(x, n)) - want)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(want)));
      }
    }
    for (const shift of [-3, 0, 2, 10]) {
      const y = Float32Array.from(x, (v, i) => (i === 0 ? v + shift : v));
      const want = cpu.deviceCount(y);
      expect(Math.abs((await m.gpuDeviceCount(y)) - want)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(want)));
    }
  });
});
