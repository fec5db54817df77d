// An element read at one position under a test of the map's element (`v > 0 ? v * x[j] : v`):
// its check (constructs/array/checks.ts, within) runs in the kernel under the cond's guard
// (backend/wgsl/constructs/ops.ts), so it throws exactly where JavaScript reads past the end: some
// element passes the test. Before s15 the check was copied out of the map with the element unbound
// (an internal error on the CPU too).
import { gpuSuite } from './gpuSuite';

const source = `import { grad } from 'tsad';
import { gpu } from 'tsad/webgpu';
/** @differentiable */
export function scaledPositives(x: Float32Array, j: number): number {
  const y = x.map((v) => (v > 0 ? v * x[j] : v));
  return y.reduce((s, t) => s + t, 0);
}
export const onGpu = gpu(scaledPositives);
export const gradOnGpu = gpu(grad(scaledPositives));
export const gradOnCpu = grad(scaledPositives);
export { gpu };
`;

const suite = gpuSuite('test/webgpu/guardedRead.test.ts', source);

suite.run('a guarded read at one position: the value where JavaScript reads, a RangeError where it reads past the end, none where it reads nothing', async () => {
  const m = suite.exports();
  const some = Float32Array.from([1, -2, 3, -4]);
  const none = Float32Array.from([-1, -2, -3]);
  for (const j of [0, 1, 3]) expect(Math.abs((await m.onGpu(some, j)) - m.scaledPositives(some, j))).toBeLessThanOrEqual(1e-5);
  for (const j of [4, 7, -1, 1.5]) {
    expect(Number.isNaN(m.scaledPositives(some, j))).toBe(true);
    await expect(m.onGpu(some, j)).rejects.toThrow(/reads 'x\[j\]'/);
  }
  for (const j of [0, 7, -1]) expect(await m.onGpu(none, j)).toBeCloseTo(m.scaledPositives(none, j), 5);
  // The gradient: d/dx_i = x_j for x_i > 0 (1 otherwise), plus Σ_{x_i > 0} x_i at i = j.
  for (const j of [0, 2]) {
    const want = Array.from(some, (v, i) => (v > 0 ? some[j] : 1) + (i === j ? some.filter((u) => u > 0).reduce((a, b) => a + b, 0) : 0));
    const [cpu, gpu] = [m.gradOnCpu(some, j), await m.gradOnGpu(some, j)].map((g) => Array.from(g as ArrayLike<number>));
    cpu.forEach((v, i) => expect(Math.abs(v - want[i])).toBeLessThanOrEqual(1e-6));
    gpu.forEach((v, i) => expect(Math.abs(v - want[i])).toBeLessThanOrEqual(1e-5));
  }
  expect(() => m.gradOnCpu(some, 4)).toThrow(RangeError);
  await expect(m.gradOnGpu(some, 4)).rejects.toThrow(/reads 'x\[j\]'/);
});
