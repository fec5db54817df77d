// Random programs that keep state in Int32Arrays next to Float64Arrays (issue 22's while-loop-
// with-state shape, minors22c's array kind). (1) Loops writing fresh Int32Arrays with =, += and
// compound operators at computed (repeated, constant, reversed) indices with real values (so
// ToInt32 truncates, and a repeated += truncates at every step), read as indices, in % 2 and in
// compares against reals, copied between kinds (new Float64Array(s), new Int32Array(f), s.slice(),
// s.map). (2) An explicit stack in a while loop: Int32Array positions and visit counts (stores of
// reals and of values past 2³¹ that wrap), Float64Array partial results, data-dependent pushes.
// Each program's value must be JavaScript's own, bit for bit (valueAndGrad's and jvp's), its
// gradient must agree with central differences at lengths 0 to 6, and jvp's tangent with the
// gradient. TSAD_INT32_RUNS raises the number of modules, TSAD_INT32_SEED picks another stream.
// On main before minors22c (1) fails at the default count, (2) at 8 modules (values: trunc where
// JavaScript wraps).
import { compile, loadOutput, runPlain } from './harness';
import { seeded } from '../gen/seeded';

const MODULES = Number(process.env.TSAD_INT32_RUNS ?? 2);
const PER_MODULE = 8;
const SEED = Number(process.env.TSAD_INT32_SEED ?? 5);

function program(rnd: () => number, name: string): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  // Indices in [0, n) wherever the loop body runs (n > 0 there).
  const index = (i: string) => pick([i, `n - 1 - ${i}`, `${i} >> 1`, `(${i} * 3) % n`, '0', 'n - 1', `${i} % 2 === 0 ? ${i} : 0`]);
  const lines: string[] = [];
  const ints: string[] = [];
  const reals: string[] = ['x'];
  const loops = 2 + Math.floor(rnd() * 3);
  for (let l = 0; l < loops; l++) {
    const kind = rnd();
    if (kind < 0.15 && ints.length > 0) {
      // A copy between kinds (or within one).
      const from = pick(ints);
      const copy = pick([`new Float64Array(${from})`, `${from}.slice()`, `${from}.map((v) => v * 0.5 + c)`, `new Int32Array(${pick(reals)})`]);
      const into = copy.startsWith('new Float64Array') ? 'f' : 's';
      const y = `${into}${l}`;
      lines.push(`  const ${y} = ${copy};`);
      (into === 'f' ? reals : ints).push(y);
      continue;
    }
    const intoInt = rnd() < 0.6;
    const reuse = (intoInt ? ints : reals.filter((r) => r !== 'x')).length > 0 && rnd() < 0.4;
    const y = reuse ? pick(intoInt ? ints : reals.filter((r) => r !== 'x')) : `${intoInt ? 's' : 'f'}${l}`;
    if (!reuse) {
      lines.push(`  const ${y} = new ${intoInt ? 'Int32Array' : 'Float64Array'}(n);`);
      (intoInt ? ints : reals).push(y);
    }
    const r = pick(reals.filter((a) => a !== y));
    const s = ints.filter((a) => a !== y).length > 0 ? pick(ints.filter((a) => a !== y)) : undefined;
    const values = [`x[i] * ${pick(['2.5', '-3.7', '7.3', '0.9'])}`, `${r}[${index('i')}] * c * 4`, `Math.exp(x[i]) * 3`, `c * x[${index('i')}] * 5 + i`];
    if (s)
      values.push(
        `${s}[${index('i')}] + x[i] * 1.5`,
        `x[Math.abs(${s}[i]) % n] * 6`,
        `${s}[i] % 2 === 0 ? x[i] * 2 : -x[i] * 3`,
        `${s}[i] / 2 + ${s}[${index('i')}] * x[i]`,
        `${s}[i] < x[i] * 3 ? ${s}[i] : x[i]`,
      );
    const value = pick(values);
    const op = pick(['=', '+=', '+=', '-=', '*=']);
    const head = rnd() < 0.5 ? 'for (let i = 0; i < n; i++)' : 'for (let i = n - 1; i >= 0; i--)';
    lines.push(`  ${head} ${y}[${index('i')}] ${op === '*=' && !intoInt ? '+=' : op} ${value};`);
  }
  const all = [...ints, ...reals.filter((a) => a !== 'x')];
  lines.push('  let t = 0;');
  for (const a of all) {
    const fin = pick([`${a}[k] * x[k]`, `Math.sin(${a}[k] * 0.1) * x[k] * x[k]`, `(${a}[k] % 2 === 0 ? x[k] : ${a}[k] * 0.01)`, `x[Math.abs(${a}[k] | 0) % n] * ${a}[k] * 0.1`]);
    lines.push(rnd() < 0.5 ? `  for (let k = 0; k < n; k++) t += ${fin};` : `  for (let k = n - 1; k >= 0; k--) t = t * 0.9 + ${fin};`);
  }
  return `/** @differentiable */\nexport function ${name}(x: Float64Array, c: number): number {\n  const n = x.length;\n${lines.join('\n')}\n  return t;\n}\n`;
}

/** An explicit stack in a while loop (issue 22's shape): Int32Array positions, Float64Array partial results, data-dependent pushes, stores of reals into the stack. */
function stackProgram(rnd: () => number, name: string): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const acc1 = pick(['a * x[v]', 'a + Math.sin(x[v])', 'a * 0.5 + x[v] * x[v]', 'Math.tanh(a) + x[v] * c']);
  const acc2 = pick(['a + x[v]', 'a * c - x[v]', 'Math.exp(x[v] * 0.2) * a', 'a']);
  const next1 = pick(['v + 1', 'v + 1 + x[v] * 0.3', 'v + 1.9', '(v + 1) | 0']);
  const next2 = pick(['v + 2', 'v + 2.5 - x[v] * 0.2', 'v + 3']);
  const when = pick(['v % 2 === 0', 'x[v] > 0', 'st[Math.max(top - 1, 0)] < v', '(v * 3) % 4 === 1', 'seen[v] % 2 === 1']);
  const fin = pick(['a', 'a * a', 'Math.sin(a) * c', 'a * x[0]']);
  const mark = pick(['seen[v] = seen[v] + 1;', 'seen[v] += 1.5;', 'seen[v] = x[v] * 4;', 'seen[v] = x[v] * 3e9;', '']);
  return `/** @differentiable */
export function ${name}(x: Float64Array, c: number): number {
  const n = x.length;
  const st = new Int32Array(n + 2);
  const acc = new Float64Array(n + 2);
  const seen = new Int32Array(n + 1);
  let top = 1;
  acc[0] = c;
  let t = 0;
  let steps = 0;
  while (top > 0 && steps < 4 * n + 3) {
    steps++;
    top--;
    const v = st[top];
    const a = acc[top];
    if (v >= n || v < 0) {
      t += ${fin};
    } else {
      ${mark}
      st[top] = ${next1};
      acc[top] = ${acc1};
      top++;
      if (${when} && top < n + 1) {
        st[top] = ${next2};
        acc[top] = ${acc2};
        top++;
      }
    }
  }
  return t + steps * 0.001;
}
`;
}

/**
 * Whether g agrees with central differences of F at steps 1e-6 or 1e-7: the programs truncate reals
 * (ToInt32), so F jumps, and one step may cross a jump that the other does not.
 */
function agrees(F: (xs: number[], c: number) => number, x: number[], c: number, g: number[]): string {
  const at = (h: number) => [
    ...x.map(
      (_, i) =>
        (F(
          x.map((v, j) => (j === i ? v + h : v)),
          c,
        ) -
          F(
            x.map((v, j) => (j === i ? v - h : v)),
            c,
          )) /
        (2 * h),
    ),
    (F(x, c + h) - F(x, c - h)) / (2 * h),
  ];
  const close = (fd: number[]) => fd.every((e, i) => Math.abs(g[i] - e) <= 1e-4 * Math.max(1, Math.abs(e)));
  const coarse = at(1e-6);
  return close(coarse) || close(at(1e-7)) ? '' : `got ${JSON.stringify(g)}, central differences give ${JSON.stringify(coarse)}`;
}

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 0.9;
const vec = (n: number, seed: number) => Array.from({ length: n }, (_, i) => rand(seed + 7 * i));

function check(fns: string[], mod: number): number {
  const text = fns.join('\n');
  const vg = fns.map((_, k) => `p${k}: valueAndGrad(p${k}, { wrt: [0, 1] })`).join(', ');
  const jv = fns.map((_, k) => `p${k}: (x: Float64Array, c: number, dx: Float64Array, dc: number) => jvp(p${k}, [x, c], [dx, dc])`).join(', ');
  const result = compile(`import { valueAndGrad, jvp } from 'tsad';\n${text}\nexport const vg = { ${vg} };\nexport const jv = { ${jv} };\n`);
  const m = loadOutput(result);
  const plain = runPlain(text);
  let checked = 0;
  fns.forEach((src, k) => {
    for (let n = 0; n <= 6; n++) {
      const x = vec(n, 17 * n + k + mod);
      const c = 0.61;
      const F = (xs: number[], cc: number) => plain[`p${k}`](Float64Array.from(xs), cc);
      const fx = F(x, c);
      try {
        // A NaN from a read past x's end (x[0] at n = 0, x[v] past n) is a RangeError since s14 (readChecks.ts).
        if (Number.isNaN(fx)) {
          let threw: unknown;
          try {
            m.vg[`p${k}`](Float64Array.from(x), c);
          } catch (e) {
            threw = e;
          }
          if (threw !== undefined) {
            expect(threw).toBeInstanceOf(RangeError);
            continue;
          }
        }
        const [value, [gx, gc]] = m.vg[`p${k}`](Float64Array.from(x), c);
        expect(value).toBe(fx);
        if (!Number.isFinite(fx) || Math.abs(fx) > 1e6) continue;
        const problem = agrees(F, x, c, [...Array.from(gx as Float64Array), gc]);
        if (problem) throw new Error(problem);
        // Forward mode: the tangent along (dx, dc) is the gradient's dot product with it.
        const dx = Float64Array.from(x, (_, i) => Math.cos(i + 0.4));
        const [primal, tangent] = m.jv[`p${k}`](Float64Array.from(x), c, dx, -0.3);
        expect(primal).toBe(fx);
        const dot = Array.from(gx as Float64Array).reduce((a, gi, i) => a + gi * dx[i], 0) - 0.3 * gc;
        if (!(Math.abs(tangent - dot) <= 1e-8 * Math.max(1, Math.abs(dot)))) throw new Error(`jvp tangent ${tangent}, gradient · direction ${dot}`);
      } catch (e) {
        throw new Error(`${(e as Error).message} at n = ${n}, x = ${JSON.stringify(x)}\n${src}`);
      }
      checked++;
    }
  });
  return checked;
}

test(`random explicit stacks in while loops (Int32Array positions and counts, Float64Array partial results): ${MODULES} × ${PER_MODULE} programs (property)`, () => {
  const rnd = seeded(SEED + 1000);
  let checked = 0;
  for (let mod = 0; mod < MODULES; mod++)
    checked += check(
      Array.from({ length: PER_MODULE }, (_, k) => stackProgram(rnd, `p${k}`)),
      mod,
    );
  expect(checked).toBeGreaterThan(MODULES * PER_MODULE * 5);
}, 600_000);

test(`random Int32Array state: ${MODULES} × ${PER_MODULE} programs, JavaScript's values and central differences (property)`, () => {
  const rnd = seeded(SEED);
  let checked = 0;
  for (let mod = 0; mod < MODULES; mod++)
    checked += check(
      Array.from({ length: PER_MODULE }, (_, k) => program(rnd, `p${k}`)),
      mod,
    );
  expect(checked).toBeGreaterThan(MODULES * PER_MODULE * 5);
}, 600_000);
