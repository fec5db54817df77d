// Every transform of one function must throw where the others do: a loop's trip count checked
// against an array's length (`for (r < d) … x[r]`, a RangeError past the end) is checked by grad,
// valueAndGrad and vjp alike, and where none throws their gradients agree. Random nests
// of loops over parameters d and k read x and w at r, c·d + r and shifted indices; the sizes
// drawn run past the arrays' ends about half of the time. (fuzz12-findings F3: gmm22c's passesOn
// let grad and hessian drop the check in a nested loop while valueAndGrad kept it.)
// With that rule this property failed at its default seed. TSAD_CHECKS_RUNS raises the number of modules.
// The second property takes the gradient in one of the two arrays (s13, checks22f).
import { load } from './harness';
import { seeded } from '../gen/seeded';

const MODULES = Number(process.env.TSAD_CHECKS_RUNS ?? 1);
const PER_MODULE = 6;
const SEED = Number(process.env.TSAD_CHECKS_SEED ?? 23);

function program(rnd: () => number, name: string): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const read = () => pick(['x[r]', 'w[r]', 'w[c * d + r]', 'x[r] * x[r]', 'Math.sin(w[r])', 'x[d - 1 - r]']);
  const body = `s += ${read()} * ${read()} * ${pick(['c', '(c + 1)', 'x[0]', '1'])};`;
  const inner = pick([`for (let r = 0; r < d; r++) ${body}`, `for (let r = 0; r < d; r++) { const t = ${read()}; s += t * ${read()}; }`]);
  const nest = pick([`for (let c = 0; c < k; c++) ${inner}`, `for (let c = 0; c < k; c++) { ${inner} s *= ${pick(['0.9', 'x[0]'])}; }`, inner]);
  return `/** @differentiable */\nexport function ${name}(x: Float64Array, w: Float64Array, d: number, k: number): number {\n  let s = 0;\n  ${nest}\n  return s;\n}\n`;
}

function outcome(f: () => unknown): string {
  try {
    return JSON.stringify(f(), (_, v) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array, (z) => +z.toPrecision(10)) : typeof v === 'number' ? +v.toPrecision(10) : v));
  } catch (e) {
    return `throws ${(e as Error).name}`;
  }
}

/** The modules of the property: grad and valueAndGrad with respect to `wrt`, and vjp. */
function agree(wrt: readonly number[], seed: number): void {
  const rnd = seeded(seed);
  for (let mod = 0; mod < MODULES; mod++) {
    const fns = Array.from({ length: PER_MODULE }, (_, k) => program(rnd, `p${k}`));
    const text = fns.join('\n');
    // One module per transform: a valueAndGrad would give grad its def (and its forward loop).
    const w = `[${wrt.join(', ')}]`;
    const g = load(`import { grad } from 'tsad';\n${text}\nexport const t = { ${fns.map((_, k) => `p${k}: grad(p${k}, { wrt: ${w} })`).join(', ')} };\n`).exports.t;
    const vg = load(`import { valueAndGrad } from 'tsad';\n${text}\nexport const t = { ${fns.map((_, k) => `p${k}: valueAndGrad(p${k}, { wrt: ${w} })`).join(', ')} };\n`).exports.t;
    const vj = load(
      `import { vjp } from 'tsad';\n${text}\nexport const t = { ${fns.map((_, k) => `p${k}: (x: Float64Array, w: Float64Array, d: number, k: number) => vjp(p${k}, x, w, d, k)[1](1)`).join(', ')} };\n`,
    ).exports.t;
    fns.forEach((src, k) => {
      for (const [nx, nw, d, kk] of [
        [3, 9, 3, 3],
        [2, 9, 3, 1],
        [3, 2, 3, 2],
        [3, 9, 3, 4],
        [4, 4, 2, 2],
        [1, 9, 0, 3],
      ]) {
        const x = Float64Array.from({ length: nx }, (_, i) => Math.sin(i + k + 1) * 0.8);
        const w = Float64Array.from({ length: nw }, (_, i) => Math.cos(i + mod) * 0.6);
        const a = outcome(() => g[`p${k}`](x, w, d, kk));
        const b = outcome(() => vg[`p${k}`](x, w, d, kk)[1]);
        const c = outcome(() => (wrt.length === 2 ? [vj[`p${k}`](x, w, d, kk)[0], vj[`p${k}`](x, w, d, kk)[1]] : vj[`p${k}`](x, w, d, kk)[wrt[0]]));
        try {
          expect({ grad: a, vjp: c }).toEqual({ grad: b, vjp: b });
        } catch (e) {
          throw new Error(`${(e as Error).message}\nat x.length ${nx}, w.length ${nw}, d ${d}, k ${kk}\n${src}`);
        }
      }
    });
  }
}

test(`grad, valueAndGrad and vjp throw alike on checked trip counts: ${MODULES} × ${PER_MODULE} functions (property)`, () => agree([0, 1], SEED), 600_000);

// In one parameter, a loop that reads only the other array is one nobody reads in grad: its check
// must stay (opt/checksAlone.ts; s13). Without that, grad in w of a nest reading x past its end
// returned numbers where valueAndGrad threw.
test(`grad in one parameter throws where valueAndGrad does: ${MODULES} × ${PER_MODULE} functions in w, then in x (property)`, () => {
  agree([1], SEED + 1);
  agree([0], SEED + 2);
}, 600_000);
