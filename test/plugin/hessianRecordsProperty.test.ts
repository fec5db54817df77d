// Hessians of random functions of a record, a tuple, a number and an array (size22d: a hessian's
// calls pass what they share, a record as the IR's tuple and the zero directions, bound once before
// them). Every block of hessian(f, { wrt: [0, 1, 2] }) must agree with central differences of the
// gradient (itself checked against central differences of f), and a call must leave its arguments
// unchanged. TSAD_HESS_RUNS raises the number of modules.
import { expectClose, load } from './harness';
import { seeded } from '../gen/seeded';

const MODULES = Number(process.env.TSAD_HESS_RUNS ?? 1);
const PER_MODULE = 6;
const SEED = Number(process.env.TSAD_HESS_SEED ?? 11);

function program(rnd: () => number, name: string): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const leaf = () => pick(['p.a', 'p.b', 'q[0]', 'q[1]', 'k', 'w[0]', '0.7']);
  const expr = (depth: number): string => {
    if (depth === 0 || rnd() < 0.25) return leaf();
    const a = expr(depth - 1);
    const b = expr(depth - 1);
    return pick([`(${a} + ${b})`, `(${a} * ${b})`, `Math.sin(${a})`, `Math.exp(0.3 * ${a})`, `Math.tanh(${a} * ${b})`, `(${a} / (1 + ${b} * ${b}))`, `(${a} - ${b})`]);
  };
  const loop = pick([
    `for (let i = 0; i < w.length; i++) t += Math.sin(w[i] * ${expr(1)}) * ${expr(1)};`,
    `for (let i = 0; i < w.length; i++) t = t * ${pick(['0.5', 'q[0]', 'Math.tanh(p.b)'])} + w[i] * ${expr(2)};`,
    '',
  ]);
  return `/** @differentiable */\nexport function ${name}(p: { a: number; b: number }, q: [number, number], k: number, w: Float64Array): number {\n  let t = ${expr(3)};\n  ${loop}\n  return t * ${expr(2)} + ${expr(3)};\n}\n`;
}

const E = 1e-5;
/** The gradient flattened: p.a, p.b, q0, q1, k. */
const flatGrad = (g: [{ a: number; b: number }, [number, number], number]) => [g[0].a, g[0].b, g[1][0], g[1][1], g[2]];
/** Arguments with leaf j (of the same order) moved by h. */
function moved(v: number[], j: number, h: number, w: Float64Array): [{ a: number; b: number }, [number, number], number, Float64Array] {
  const u = v.slice();
  u[j] += h;
  return [{ a: u[0], b: u[1] }, [u[2], u[3]], u[4], w];
}

test(`random hessians of a record, a tuple and a number: ${MODULES} × ${PER_MODULE} functions, each block = central differences of the gradient (property)`, () => {
  const rnd = seeded(SEED);
  for (let mod = 0; mod < MODULES; mod++) {
    const fns = Array.from({ length: PER_MODULE }, (_, k) => program(rnd, `f${k}`));
    const { exports: m } = load(
      `import { grad, hessian } from 'tsad';\n${fns.join('\n')}\nexport const g = { ${fns.map((_, k) => `f${k}: grad(f${k}, { wrt: [0, 1, 2] })`).join(', ')} };\nexport const h = { ${fns
        .map((_, k) => `f${k}: hessian(f${k}, { wrt: [0, 1, 2] })`)
        .join(', ')} };\n`,
    );
    fns.forEach((text, k) => {
      for (const n of [0, 1, 3]) {
        const v = [0.4 + 0.1 * k, -0.3, 0.25, 0.6 - 0.05 * n, 0.9];
        const w = Float64Array.from({ length: n }, (_, i) => Math.sin(i + k + mod) * 0.7);
        const at = moved(v, 0, 0, w);
        const f = (...a: any[]) => m[`f${k}`](...a) as number;
        const fx = f(...at);
        if (!Number.isFinite(fx) || Math.abs(fx) > 1e6) continue;
        try {
          const g = flatGrad(m.g[`f${k}`](...at));
          expectClose(
            g,
            v.map((_, j) => (f(...moved(v, j, E, w)) - f(...moved(v, j, -E, w))) / (2 * E)),
            1e-5,
          );
          const H = m.h[`f${k}`](...at);
          expect(at[0]).toEqual({ a: v[0], b: v[1] });
          expect(at[1]).toEqual([v[2], v[3]]);
          // H[a][b]: the block of wrt a by wrt b; a record's and a tuple's leaves in order.
          const rows: number[][] = [0, 1, 2, 3, 4].map((i) => {
            const [a, ai] = i < 2 ? [0, i] : i < 4 ? [1, i - 2] : [2, 0];
            return [0, 1, 2].flatMap((b) => {
              const block = H[a][b] as number[][];
              return block[ai];
            });
          });
          const fd = v.map((_, j) => {
            const up = flatGrad(m.g[`f${k}`](...moved(v, j, E, w)));
            const down = flatGrad(m.g[`f${k}`](...moved(v, j, -E, w)));
            return up.map((u, i) => (u - down[i]) / (2 * E));
          });
          // Column j of the Hessian is the derivative of the gradient along leaf j.
          for (let j = 0; j < 5; j++)
            expectClose(
              rows.map((r) => r[j]),
              fd[j],
              1e-4,
            );
        } catch (e) {
          throw new Error(`${(e as Error).message} at n = ${n}\n${text}`);
        }
      }
    });
  }
}, 600_000);
