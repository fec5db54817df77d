// A derivative throws the RangeError of a read past an array's end only where the function, run
// as plain JavaScript, reads past one (where JavaScript reads `undefined`), and then every
// transform throws where valueAndGrad does (tsad checks a read at a loop's own counter; another
// read past the end gives NaN, as in JavaScript): not only grad,
// valueAndGrad and vjp, but also hessian and hvp in the first parameter (which the function may
// never read, or read only linearly: nothing of its loops is left for those derivatives to
// compute), grad in that parameter alone, and jvp. The reference is independent of tsad: the
// plain function runs on arrays behind a Proxy that records every read at an index at or past
// the length. Random nests: loops counting up from 0 or 1 or down, over d, k or the outer counter,
// under an `if` on k or on the data, read x and w at r, c, c·d + r and d − 1 − r; the sizes drawn
// run past the ends about half of the time, and zero-trip loops (k = 0, d = 0 or negative) read
// nothing. Where nothing is read past an end, the transforms agree with one another (10 digits).
// Checks that survive dead-code removal (s13, checks22f: opt/checksAlone.ts moves a check that
// reads only a loop's invariants out of it under its trip guard) are what this watches.
// TSAD_REACH_RUNS raises the number of modules, TSAD_REACH_SEED changes the programs.
import { runPlain } from './harness';
import { checkAgainstPlain, transformsOf } from './pastEnd';
import { seeded } from '../gen/seeded';

const MODULES = Number(process.env.TSAD_REACH_RUNS ?? 1);
const PER_MODULE = 6;
const SEED = Number(process.env.TSAD_REACH_SEED ?? 13);

function program(rnd: () => number, name: string, offsets = false): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  // x may go unread (its derivatives are then zero) or be read only linearly.
  const useX = pick(['none', 'linear', 'any']);
  const reads = ['w[r]', 'w[c]', 'w[c * d + r]', 'Math.sin(w[r])', 'w[d - 1 - r]', '1'];
  if (useX === 'any') reads.push('x[r]', 'x[r] * x[r]', 'x[d - 1 - r]', 'x[c]');
  // s14: reads no loop bound checks (at offsets, at the outer counter, at a step, under an if).
  if (offsets) reads.push('w[r + 1]', 'w[r - 1]', 'w[2 * r]', 'w[c + r]', '(r > c ? w[r + c] : 1)', 'w[c - 1]');
  if (offsets && useX === 'any') reads.push('x[c + 1]', 'x[r + c]', 'x[2 * c + r]');
  const read = () => pick(reads);
  const linearX = useX === 'linear' ? ` + ${pick(['x[0]', 'x[r]', '2 * x[c]'])}` : '';
  const body = `s += ${read()} * ${read()} * ${pick(['c', '(c + 1)', '1', '0.5'])}${linearX};`;
  const inner = pick([
    ...(offsets ? [`{ let r = 0; while (r < d) { ${body} r++; } }`, `for (let r = 0; r < d; r++) if (r % 2 === 0) { ${body} }`] : []),
    `for (let r = 0; r < d; r++) ${body}`,
    `for (let r = 0; r <= d - 1; r++) { const t = ${read()}; s += t * ${read()}${linearX}; }`,
    `for (let r = 0; r < c; r++) ${body}`,
    `for (let r = d - 1; r >= 0; r--) ${body}`,
  ]);
  const outer = pick([
    `for (let c = 0; c < k; c++) ${inner}`,
    `for (let c = 1; c < k; c++) { ${inner} s *= 0.9; }`,
    `for (let c = k - 1; c >= 0; c--) ${inner}`,
    `{ const c = 1; if (k > 1) { ${inner} } }`,
    `{ const c = 0; if (w.length > 0 && w[0] > 0.2) { ${inner} } }`,
    `{ const c = 2; ${inner} }`,
  ]);
  const tail = useX === 'none' ? '' : pick(['', ' + x[0] * 0.25', ' * (x[0] + 1)']);
  return `/** @differentiable */\nexport function ${name}(x: Float64Array, w: Float64Array, d: number, k: number): number {\n  let s = 0;\n  ${outer}\n  return s${tail};\n}\n`;
}

const SIZES: [number, number, number, number][] = [
  [3, 9, 3, 3],
  [2, 9, 3, 1],
  [3, 2, 3, 2],
  [3, 9, 3, 4],
  [4, 4, 2, 2],
  [1, 9, 0, 3],
  [3, 2, 3, 0],
  [3, 2, -1, 2],
  [3, 3, 3, 5],
  [2, 1, 2, 1],
];

test(`every derivative throws where plain JavaScript reads past an array's end, and only there: ${MODULES} × ${PER_MODULE} functions (property)`, () => {
  const rnd = seeded(SEED);
  for (let mod = 0; mod < MODULES; mod++) {
    const fns = Array.from({ length: PER_MODULE }, (_, k) => program(rnd, `p${k}`));
    const text = fns.join('\n');
    const plain = runPlain(text);
    const t = transformsOf(
      text,
      fns.map((_, k) => `p${k}`),
    );
    fns.forEach((src, k) => {
      for (const [nx, nw, d, kk] of SIZES) {
        const x = Float64Array.from({ length: nx }, (_, i) => Math.sin(i + k + 1) * 0.8);
        const w = Float64Array.from({ length: nw }, (_, i) => Math.cos(i + mod) * 0.6);
        try {
          // A read before the start (w[c·d + r] with d < 0) is not what this property is about.
          checkAgainstPlain(t, plain[`p${k}`], `p${k}`, x, w, d, kk);
        } catch (e) {
          throw new Error(`${(e as Error).message}\n${src}`);
        }
      }
    });
  }
}, 900_000);

// s14 (checks23): the reads s13's P3 found unchecked, with the strict reference (pastEnd.ts):
// wherever plain JavaScript reads an element past an end, before the start or at a fraction,
// every transform throws a RangeError; elsewhere the numbers are JavaScript's, the gradient its
// central differences. On main at 8ae8229 grad returned finite numbers there.
test(`reads at offsets, outer counters, steps, under an if and in while loops: every transform throws exactly where plain JavaScript reads past an end: ${MODULES} × ${PER_MODULE} functions (property)`, () => {
  const rnd = seeded(SEED + 1000);
  for (let mod = 0; mod < MODULES; mod++) {
    const fns = Array.from({ length: PER_MODULE }, (_, k) => program(rnd, `p${k}`, true));
    const text = fns.join('\n');
    const plain = runPlain(text);
    const t = transformsOf(
      text,
      fns.map((_, k) => `p${k}`),
    );
    fns.forEach((src, k) => {
      for (const [nx, nw, d, kk] of SIZES) {
        const x = Float64Array.from({ length: nx }, (_, i) => Math.sin(i + k + 1) * 0.8);
        const w = Float64Array.from({ length: nw }, (_, i) => Math.cos(i + mod) * 0.6);
        try {
          checkAgainstPlain(t, plain[`p${k}`], `p${k}`, x, w, d, kk, true);
        } catch (e) {
          throw new Error(`${(e as Error).message}\n${src}`);
        }
      }
    });
  }
}, 900_000);
