// The WGSL table of scalar primitives (transformer/backend/wgsl/prims.ts) against each
// primitive's JavaScript `impl`: every entry names a primitive, and each real-valued one runs on
// the software adapter over its test domain (f32 inputs), within 1e-4 relative (the adapter's
// transcendentals are approximate; an absolute floor of 1e-4 near zero crossings). Entries on
// booleans (not, and, or, select, mask) are checked by the gradient tests, whose programs use them.
import { acquire, release } from '../../runtime/webgpu/device';
import { runProgram } from '../../runtime/webgpu/run';
import { WGSL_LIN_PRIMS, WGSL_PRIMS } from '../../transformer/backend/wgsl/prims';
import { lowerToGpu } from '../../transformer/backend/wgsl/lower';
import { PRIMS, LIN_PRIMS } from '../../transformer/prims/registry';
import { parseProgram } from '../../transformer/language/parse';
import { annotateTypes } from '../../transformer/language/check';

const ON_BOOLEANS = new Set(['not', 'and', 'or', 'select', 'mask', 'maskn']);
const POINTS = 97;

test('every entry of the WGSL tables names a primitive', () => {
  for (const name of Object.keys(WGSL_PRIMS)) expect(PRIMS[name]?.name).toBe(name);
  for (const name of Object.keys(WGSL_LIN_PRIMS)) expect(LIN_PRIMS[name]?.name).toBe(name);
});

test('the real-valued entries compute what the primitives compute, in f32', async () => {
  let device: Awaited<ReturnType<typeof acquire>>;
  try {
    device = await acquire();
  } catch (e) {
    console.warn(`\n\n*** SKIPPED the WGSL primitive test (test/webgpu/prims.test.ts): ${(e as Error).message} ***\n\n`);
    return;
  }
  try {
    expect(await failuresOf(device)).toEqual([]);
  } finally {
    await release();
  }
}, 60_000);

async function failuresOf(device: Awaited<ReturnType<typeof acquire>>): Promise<string[]> {
  const names = Object.keys(WGSL_PRIMS).filter((p) => !ON_BOOLEANS.has(p));
  const failures: string[] = [];
  // Twelve primitives a kernel: two inputs, twelve outputs and the scalars fit 16 storage buffers.
  for (let start = 0; start < names.length; start += 12) {
    const group = names.slice(start, start + 12);
    const inputs = [0, 1].map((k) =>
      Float32Array.from({ length: POINTS }, (_, i) => {
        // Each primitive samples its own domain: input k of row i is scaled per primitive below.
        return (i + 0.5) / POINTS + k * 0.37;
      }),
    );
    // One map per primitive keeps the domains apart: x_p = lo + t·(hi − lo) in the body.
    const bodies = group.map((p, j) => {
      const def = PRIMS[p];
      const arity = Math.max(def.arity.min, Math.min(def.arity.max, 2));
      const dom = (k: number) => def.test.domain[Math.min(k, def.test.domain.length - 1)] ?? [-3, 3];
      const args = Array.from({ length: arity }, (_, k) => {
        const [lo, hi] = dom(k);
        return [`let lo${k} = ${lo}`, `let w${k} = ${hi - lo}`, `let s${k} = mul(t${k % 2}, w${k})`, `let a${k} = add(lo${k}, s${k})`];
      });
      return { p, j, arity, args };
    });
    const text = `def f(x0: array<real>, x1: array<real> ;) -> (${group.map((p) => (PRIMS[p].test.predicate ? 'array<bool>' : 'array<real>')).join(', ')} ;) {
  let n = len(x0) []
  let (${group.map((_, j) => `y${j}`).join(', ')}) = map(n, x0, x1) [|t0: real, t1: real ;| {
${bodies.some((b) => b.arity >= 2) ? '' : '    drop(t1)'}
${bodies
  .map(
    ({ p, j, arity, args }) =>
      `    ${args
        .flat()
        .map((l) => l.replace(/(lo|w|s|a)(\d)/g, `$1${j}_$2`))
        .join('\n    ')}\n    let r${j} = ${p}(${Array.from({ length: arity }, (_, k) => `a${j}_${k}`).join(', ')})`,
  )
  .join('\n')}
    (${group.map((_, j) => `r${j}`).join(', ')} ;)
  }]
  (${group.map((_, j) => `y${j}`).join(', ')} ;)
}`;
    const program = annotateTypes(parseProgram(text));
    const gpuProgram = lowerToGpu(program.defs[0], { where: 'prims', paramNames: ['x0', 'x1'], likes: [], tuple: true });
    const out = (await runProgram(device, gpuProgram, inputs)) as Float32Array[];
    bodies.forEach(({ p, j, arity }) => {
      const def = PRIMS[p];
      for (let i = 0; i < POINTS; i++) {
        const args = Array.from({ length: arity }, (_, k) => {
          const [lo, hi] = def.test.domain[Math.min(k, def.test.domain.length - 1)] ?? [-3, 3];
          return Math.fround(lo + Math.fround(Math.fround(inputs[k % 2][i]) * (hi - lo)));
        });
        const ref = Number(def.impl(...args));
        const got = out[j][i];
        const ok = Object.is(got, ref) || Math.abs(got - ref) <= 1e-4 * Math.max(Math.abs(ref), 1);
        if (!ok) failures.push(`${p}(${args.join(', ')}): GPU ${got}, JavaScript ${ref}`);
      }
    });
  }
  return failures;
}
