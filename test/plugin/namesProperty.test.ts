// Random programs (indexedWritesProperty's loops writing fresh arrays) whose variables and
// parameters take names the emitter makes itself: stems with counters (x_1, i_2), tangents and
// cotangents (x_dot, y_bar), tuple elements (p_0), the wrappers' and the shared check's names
// (where, count, f_args, zero, hv_x_0), the stacks' and helpers' names (stack, sin, add_bar).
// The short names (size22c, backend/ts/shortNames.ts) and the shared argument check (size22d)
// must keep every one of them apart: each gradient is checked against central differences, and
// each valueAndGrad's value against the function. TSAD_NAMES_RUNS raises the number of modules.
import { expectClose, load, partial } from './harness';
import { seeded } from '../gen/seeded';

const MODULES = Number(process.env.TSAD_NAMES_RUNS ?? 2);
const PER_MODULE = 8;
const SEED = Number(process.env.TSAD_NAMES_SEED ?? 7);

const POOL = [
  'x_1',
  'x_dot',
  'y_bar',
  'p_0',
  'p_1',
  'hv_x_0',
  'zero',
  'where',
  'count',
  'sin',
  'stack',
  'stack_1',
  'add_bar',
  'mul',
  'i_1',
  'k_1',
  'n_1',
  't_2',
  'x_bar',
  'value',
  'out',
  'at',
  'Math_1',
  'slab',
  'x_1_1_dot_8',
  'copied',
  'stored',
  'v_now',
  'count_1',
];

function program(rnd: () => number, name: string): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  // Every role gets its own name from the pool.
  const pool = [...POOL];
  const take = () => pool.splice(Math.floor(rnd() * pool.length), 1)[0];
  const [X, C, N, I, J, K, S, V] = [take(), take(), take(), take(), take(), take(), take(), take()];
  const index = (i: string) => pick([i, `${N} - 1 - ${i}`, `${i} >> 1`, `(${i} * 3) % ${N}`, '0', `${i} % 2 === 0 ? ${i} : 0`]);
  const lines: string[] = [];
  const arrays: string[] = [];
  const loops = 1 + Math.floor(rnd() * 3);
  for (let l = 0; l < loops; l++) {
    const reuse = arrays.length > 0 && rnd() < 0.4;
    const y = reuse ? pick(arrays) : take();
    if (!reuse) {
      lines.push(`  const ${y} = new Float64Array(${N});`);
      arrays.push(y);
    }
    const src = pick([X, ...arrays.filter((a) => a !== y)]);
    const value = pick([
      `${X}[${index(I)}] * ${X}[${index(I)}]`,
      `Math.sin(${src}[${index(I)}]) * ${C}`,
      `Math.exp(${X}[${index(I)}] * 0.3) + ${src}[${index(I)}]`,
      `${src}[${index(I)}] * ${X}[${I}]`,
      `${C} * ${X}[${I}]`,
    ]);
    const op = pick(['+=', '=']);
    const head = rnd() < 0.5 ? `for (let ${I} = 0; ${I} < ${N}; ${I}++)` : `for (let ${I} = ${N} - 1; ${I} >= 0; ${I}--)`;
    if (rnd() < 0.25) lines.push(`  ${head} for (let ${J} = 0; ${J} < ${I}; ${J}++) ${y}[${index(J)}] ${op} ${value.split(`[${I}]`).join(`[${J}]`)} * ${X}[${I}];`);
    else lines.push(`  ${head} ${y}[${index(I)}] ${op} ${value};`);
  }
  const fin = pick([`Math.sin(${V})`, `${V} * ${V}`, `${V} * ${X}[${K}]`, `Math.tanh(${V}) * ${C}`]);
  lines.push(`  let ${S} = 0;`);
  for (const a of arrays) {
    lines.push(
      rnd() < 0.5
        ? `  for (let ${K} = ${N} - 1; ${K} >= 0; ${K}--) { const ${V} = ${a}[${K}]; ${S} += ${fin} * (${K} + 1); }`
        : `  for (let ${K} = 0; ${K} < ${N}; ${K}++) { const ${V} = ${a}[${K}]; ${S} = ${S} * 0.9 + ${fin}; }`,
    );
  }
  return `/** @differentiable */\nexport function ${name}(${X}: Float64Array, ${C}: number): number {\n  const ${N} = ${X}.length;\n${lines.join('\n')}\n  return ${S};\n}\n`;
}

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 0.9;
const vec = (n: number, seed: number) => Float64Array.from({ length: n }, (_, i) => rand(seed + 7 * i));

test(`random programs named like the emitter's own names: ${MODULES} × ${PER_MODULE} gradients = central differences (property)`, () => {
  const rnd = seeded(SEED);
  let checked = 0;
  for (let mod = 0; mod < MODULES; mod++) {
    const fns = Array.from({ length: PER_MODULE }, (_, k) => program(rnd, `p${k}`));
    const source = `import { grad, valueAndGrad } from 'tsad';\n${fns.join('\n')}\nexport const f = { ${fns.map((_, k) => `p${k}`).join(', ')} };\nexport const g = { ${fns
      .map((_, k) => `p${k}: grad(p${k}, { wrt: [0, 1] })`)
      .join(', ')} };\nexport const vg = { ${fns.map((_, k) => `p${k}: valueAndGrad(p${k}, { wrt: [0, 1] })`).join(', ')} };\n`;
    const { exports: m } = load(source);
    fns.forEach((text, k) => {
      for (let n = 0; n <= 5; n++) {
        const x = vec(n, 17 * n + k + mod);
        const c = 0.6;
        const F = (xs: number[], cc: number) => m.f[`p${k}`](Float64Array.from(xs), cc);
        const fx = F(Array.from(x), c);
        if (!Number.isFinite(fx) || Math.abs(fx) > 1e6) continue;
        try {
          const [gx, gc] = m.g[`p${k}`](x, c);
          const [value, [vx, vc]] = m.vg[`p${k}`](x, c);
          expect(value).toBe(fx);
          const fd = [...Array.from(x, (_, i) => partial(F as never, [Array.from(x), c], 0, i)[0]), partial(F as never, [Array.from(x), c], 1, 0)[0]];
          expectClose([...Array.from(gx as Float64Array), gc], fd, 1e-4);
          expectClose([...Array.from(vx as Float64Array), vc], fd, 1e-4);
        } catch (e) {
          throw new Error(`${(e as Error).message} at n = ${n}\n${text}`);
        }
        checked++;
      }
    });
  }
  expect(checked).toBeGreaterThan(MODULES * PER_MODULE * 4);
}, 600_000);
