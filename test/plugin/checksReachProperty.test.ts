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
import { load, runPlain } from './harness';
import { seeded } from '../gen/seeded';

const MODULES = Number(process.env.TSAD_REACH_RUNS ?? 1);
const PER_MODULE = 6;
const SEED = Number(process.env.TSAD_REACH_SEED ?? 13);

function program(rnd: () => number, name: string): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  // x may go unread (its derivatives are then zero) or be read only linearly.
  const useX = pick(['none', 'linear', 'any']);
  const reads = ['w[r]', 'w[c]', 'w[c * d + r]', 'Math.sin(w[r])', 'w[d - 1 - r]', '1'];
  if (useX === 'any') reads.push('x[r]', 'x[r] * x[r]', 'x[d - 1 - r]', 'x[c]');
  const read = () => pick(reads);
  const linearX = useX === 'linear' ? ` + ${pick(['x[0]', 'x[r]', '2 * x[c]'])}` : '';
  const body = `s += ${read()} * ${read()} * ${pick(['c', '(c + 1)', '1', '0.5'])}${linearX};`;
  const inner = pick([
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

/** Plain JavaScript's value on arrays that record a read at or past their length. */
function plainReads(f: (...a: unknown[]) => number, x: Float64Array, w: Float64Array, d: number, k: number): { value: number; pastEnd: boolean; negative: boolean } {
  let pastEnd = false;
  let negative = false;
  const watch = (a: Float64Array) =>
    new Proxy(a, {
      get(t, p) {
        if (typeof p === 'string' && /^-?\d+$/.test(p)) {
          if (Number(p) >= t.length) pastEnd = true;
          if (Number(p) < 0) negative = true;
        }
        const v = Reflect.get(t, p, t);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
  const value = f(watch(x), watch(w), d, k);
  return { value, pastEnd, negative };
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

const round = (v: unknown): unknown =>
  ArrayBuffer.isView(v) ? Array.from(v as Float64Array, (z) => +(z + 0).toPrecision(10)) : Array.isArray(v) ? v.map(round) : typeof v === 'number' ? +(v + 0).toPrecision(10) : v;

function outcome(f: () => unknown): unknown {
  try {
    return round(f());
  } catch (e) {
    return `throws ${(e as Error).name}`;
  }
}

test(`every derivative throws where plain JavaScript reads past an array's end, and only there: ${MODULES} × ${PER_MODULE} functions (property)`, () => {
  const rnd = seeded(SEED);
  for (let mod = 0; mod < MODULES; mod++) {
    const fns = Array.from({ length: PER_MODULE }, (_, k) => program(rnd, `p${k}`));
    const text = fns.join('\n');
    const plain = runPlain(text);
    // One module per transform: two transforms of one function share defs (valueAndGrad's forward loop computes the value).
    const each = (imports: string, make: (f: string) => string) =>
      load(`import { ${imports} } from 'tsad';\n${text}\nexport const t = { ${fns.map((_, k) => `p${k}: ${make(`p${k}`)}`).join(', ')} };\n`).exports.t;
    const sig = '(x: Float64Array, w: Float64Array, d: number, k: number)';
    const vg = each('valueAndGrad', (f) => `valueAndGrad(${f}, { wrt: [0, 1] })`);
    const g = each('grad', (f) => `grad(${f}, { wrt: [0, 1] })`);
    const gx = each('grad', (f) => `grad(${f}, { wrt: [0] })`);
    const vj = each('vjp', (f) => `${sig} => vjp(${f}, x, w, d, k)[1](1)`);
    const jv = each('jvp', (f) => `${sig} => jvp(${f}, [x, w, d, k], [x.map((_, i) => 1 - i), w.map((_, i) => 0.5 + i), 0, 0])[1]`);
    const he = each('hessian', (f) => `hessian(${f}, { wrt: [0] })`);
    const hv = each('hvp', (f) => `${sig} => hvp(${f}, { wrt: [0] })(x, w, d, k, x.map((_, i) => 1 + i))`);
    fns.forEach((src, k) => {
      const p = `p${k}`;
      for (const [nx, nw, d, kk] of SIZES) {
        const x = Float64Array.from({ length: nx }, (_, i) => Math.sin(i + k + 1) * 0.8);
        const w = Float64Array.from({ length: nw }, (_, i) => Math.cos(i + mod) * 0.6);
        const ref = plainReads(plain[p], x, w, d, kk);
        // A read before the start (w[c·d + r] with d < 0) is not what this property is about.
        if (ref.negative) continue;
        const got = {
          valueAndGrad: outcome(() => vg[p](x, w, d, kk)),
          grad: outcome(() => g[p](x, w, d, kk)),
          gradX: outcome(() => gx[p](x, w, d, kk)),
          vjp: outcome(() => vj[p](x, w, d, kk).slice(0, 2)),
          jvp: outcome(() => jv[p](x, w, d, kk)),
          hessian: outcome(() => he[p](x, w, d, kk)),
          hvp: outcome(() => hv[p](x, w, d, kk)),
        };
        const where = `at x.length ${nx}, w.length ${nw}, d ${d}, k ${kk}\n${src}`;
        try {
          const thrown = Object.entries(got)
            .filter(([, v]) => v === 'throws RangeError')
            .map(([n]) => n);
          if (ref.pastEnd) {
            // tsad checks a read at a loop's own counter in its body (a RangeError); another read
            // past the end reads undefined, as JavaScript does, and the value is NaN. Either way,
            // every transform alike.
            if (got.valueAndGrad !== 'throws RangeError') expect((got.valueAndGrad as [number])[0]).toBeNaN();
            expect(thrown).toEqual(got.valueAndGrad === 'throws RangeError' ? Object.keys(got) : []);
            continue;
          }
          expect(thrown).toEqual([]);
          const [value, [xBar, wBar]] = got.valueAndGrad as [number, [number[], number[]]];
          expect(value).toBe(round(ref.value));
          expect({ grad: got.grad, vjp: got.vjp, gradX: got.gradX }).toEqual({ grad: [xBar, wBar], vjp: [xBar, wBar], gradX: xBar });
          const dir = [...Array.from(x, (_, i) => 1 - i), ...Array.from(w, (_, i) => 0.5 + i)];
          const jvpRef = [...xBar, ...wBar].reduce((acc, v, i) => acc + v * dir[i], 0);
          expect(Math.abs((got.jvp as number) - jvpRef)).toBeLessThanOrEqual(1e-8 * Math.max(1, Math.abs(jvpRef)));
          // H·v from the Hessian's rows, against hvp: the same derivative by two plans.
          const h = got.hessian as number[][];
          expect(Array.isArray(h)).toBe(true);
          const hvRef = h.map((row) => row.reduce((acc, v, j) => acc + v * (1 + j), 0));
          (got.hvp as number[]).forEach((v, i) => expect(Math.abs(v - hvRef[i])).toBeLessThanOrEqual(1e-8 * Math.max(1, Math.abs(hvRef[i]))));
        } catch (e) {
          throw new Error(`${(e as Error).message}\n${JSON.stringify(got)}\n${where}`);
        }
      }
    });
  }
}, 900_000);
