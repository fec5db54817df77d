// Random loops that write fresh arrays at computed indices (repeated or distinct, forward or
// reversed, = or +=, reading what earlier loops wrote), the shapes s11's rules rewrite
// (opt/firstWrites.ts, opt/licm.ts after AD, loop/fuseFill.ts, loop/fuseAdd.ts). Each gradient
// against central differences at lengths 0 to 6. TSAD_INDEXED_RUNS raises the number of modules.
import { load, partial, expectClose } from './harness';
import { seeded } from '../gen/seeded';

const MODULES = Number(process.env.TSAD_INDEXED_RUNS ?? 2);
const PER_MODULE = 10;
const SEED = Number(process.env.TSAD_INDEXED_SEED ?? 3);

function program(rnd: () => number, name: string): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  // Indices in [0, n) wherever the loop body runs (n > 0 there).
  const index = (i: string) => pick([i, `n - 1 - ${i}`, `${i} >> 1`, `(${i} * 3) % n`, `(${i} + 2) % n`, '0', 'n - 1', `${i} % 2 === 0 ? ${i} : 0`, `${i} - ${i}`]);
  const lines: string[] = [];
  const arrays: string[] = [];
  const loops = 1 + Math.floor(rnd() * 3);
  for (let l = 0; l < loops; l++) {
    const reuse = arrays.length > 0 && rnd() < 0.5;
    const y = reuse ? pick(arrays) : `y${l}`;
    if (!reuse) {
      lines.push(`  const ${y} = new Float64Array(n);`);
      arrays.push(y);
    }
    const i = 'i';
    const src = pick(['x', ...arrays.filter((a) => a !== y)]);
    const value = pick([
      `x[${index(i)}] * x[${index(i)}]`,
      `Math.sin(${src}[${index(i)}]) * c`,
      `Math.exp(x[${index(i)}] * 0.3) + ${src}[${index(i)}]`,
      `${src}[${index(i)}] * x[${i}]`,
      `c * x[${i}]`,
    ]);
    const op = pick(['+=', '+=', '=']);
    const head = rnd() < 0.5 ? `for (let ${i} = 0; ${i} < n; ${i}++)` : `for (let ${i} = n - 1; ${i} >= 0; ${i}--)`;
    const nested = rnd() < 0.25;
    if (nested) lines.push(`  ${head} for (let j = 0; j < ${i}; j++) ${y}[${index('j')}] ${op} ${value.replace(/\[i\]/g, '[j]')} * x[${i}];`);
    else lines.push(`  ${head} ${y}[${index(i)}] ${op} ${value};`);
  }
  const fin = pick(['Math.sin(v)', 'v * v', 'v * x[k]', 'Math.tanh(v) * c']);
  lines.push('  let s = 0;');
  for (const a of arrays) {
    const rev = rnd() < 0.5;
    lines.push(rev ? `  for (let k = n - 1; k >= 0; k--) { const v = ${a}[k]; s += ${fin} * (k + 1); }` : `  for (let k = 0; k < n; k++) { const v = ${a}[k]; s = s * 0.9 + ${fin}; }`);
  }
  return `/** @differentiable */\nexport function ${name}(x: Float64Array, c: number): number {\n  const n = x.length;\n${lines.join('\n')}\n  return s;\n}\n`;
}

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 0.9;
const vec = (n: number, seed: number) => Float64Array.from({ length: n }, (_, i) => rand(seed + 7 * i));
const asF =
  (fn: (...a: any[]) => any) =>
  (...a: any[]) =>
    fn(...a.map((v) => (Array.isArray(v) ? Float64Array.from(v) : v)));

test(`random indexed writes into fresh arrays: ${MODULES} × ${PER_MODULE} gradients = central differences (property)`, () => {
  const rnd = seeded(SEED);
  let checked = 0;
  for (let mod = 0; mod < MODULES; mod++) {
    const fns = Array.from({ length: PER_MODULE }, (_, k) => program(rnd, `p${k}`));
    const source = `import { grad } from 'tsad';\n${fns.join('\n')}\nexport const f = { ${fns.map((_, k) => `p${k}`).join(', ')} };\nexport const g = { ${fns.map((_, k) => `p${k}: grad(p${k}, { wrt: [0, 1] })`).join(', ')} };\n`;
    const { exports: m } = load(source);
    fns.forEach((text, k) => {
      for (let n = 0; n <= 6; n++) {
        const x = vec(n, 17 * n + k + mod);
        const c = 0.6;
        const F = asF(m.f[`p${k}`]);
        const fx = F(Array.from(x), c);
        if (!Number.isFinite(fx) || Math.abs(fx) > 1e6) continue;
        const [gx, gc] = m.g[`p${k}`](x, c);
        try {
          expectClose([...Array.from(gx as Float64Array), gc], [...Array.from(x, (_, i) => partial(F, [Array.from(x), c], 0, i)[0]), partial(F, [Array.from(x), c], 1, 0)[0]], 1e-4);
        } catch (e) {
          throw new Error(`${(e as Error).message} at n = ${n}\n${text}`);
        }
        checked++;
      }
    });
  }
  expect(checked).toBeGreaterThan(MODULES * PER_MODULE * 5);
}, 600_000);
