// Seeded generators as TypeScript developers write them (issue 19, monte_carlo_option): integer
// operators (<< >> >>> & | ^ ~, Math.imul, Math.clz32: whole numbers, zero derivative) and a
// local function that assigns a variable of the function around it (`state = …`), inlined with
// its assignment where the call runs once, in order. Values are compared with the same source
// run as plain JavaScript (bit for bit), gradients with central differences.
import { compile, load, partial, expectClose, runPlain } from './harness';

const functions = `
/** @differentiable */
export function noisyMean(mu: number, sigma: number, n: number, seed: number): number {
  let state = seed >>> 0;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 4294967296;
  };
  let s = 0;
  for (let k = 0; k < n; k++) {
    const z = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    s += mu + sigma * z;
  }
  return n > 0 ? s / n : 0;
}

/** @differentiable */
export function hashed(x: number, k: number): number {
  let h = (k * 2654435761) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0x5bd1e995) | 0;
  h ^= h << 7;
  const bucket = (h & 7) + ((~h >> 29) & 1) + Math.clz32(k + 1);
  return x * bucket + (x | 0);
}

/** @differentiable */
export function walk(x0: number, v: number, n: number): number {
  let x = x0;
  let t = 0;
  function step(h: number) {
    t += h;
    x = x + h * Math.sin(v * x + t);
    return x;
  }
  for (let i = 0; i < n; i++) step(0.1);
  const last = step(0.05) + t;
  return x * last;
}
`;

const source = `
import { valueAndGrad } from 'tsad';
${functions}
export const gMean = valueAndGrad(noisyMean, { wrt: [0, 1] });
export const gHashed = valueAndGrad(hashed, { wrt: [0] });
export const gWalk = valueAndGrad(walk, { wrt: [0, 1] });
`;

const plainModule = (): Record<string, any> => runPlain(functions);

describe('seeded generators: integer operators and a local function assigning the state', () => {
  const { exports: m, result } = load(source);
  const plain = plainModule();

  test('builds with no diagnostics', () => {
    expect(result.messages).toEqual([]);
  });

  test.each([
    [0, 7],
    [1, 12345],
    [5, 4294967295],
    [20, -3],
  ])('a seeded normal sample of %i draws (seed %i)', (n, seed) => {
    const [value, [gmu, gsigma]] = m.gMean(0.3, 1.7, n, seed);
    expect(value).toBe(plain.noisyMean(0.3, 1.7, n, seed));
    expectClose([gmu, gsigma], [partial(plain.noisyMean, [0.3, 1.7, n, seed], 0, 0)[0], partial(plain.noisyMean, [0.3, 1.7, n, seed], 1, 0)[0]]);
  });

  test.each([0, 1, 2.5, 1e9, -7])('<< >> >>> & | ^ ~, imul and clz32 compute what JavaScript computes (k = %f)', (k) => {
    for (const x of [-2.75, 0.5, 3.25]) {
      const [value, g] = m.gHashed(x, k);
      expect(value).toBe(plain.hashed(x, k));
      expectClose([g], partial(plain.hashed, [x, k], 0, 0));
    }
  });

  test.each([0, 1, 4])('a local function called as a statement, and as a value, assigning two variables (%i steps)', (n) => {
    const [value, [gx, gv]] = m.gWalk(0.4, 1.3, n);
    expect(value).toBe(plain.walk(0.4, 1.3, n));
    expectClose([gx, gv], [partial(plain.walk, [0.4, 1.3, n], 0, 0)[0], partial(plain.walk, [0.4, 1.3, n], 1, 0)[0]]);
  });
});

describe('where the assignment would not run as JavaScript runs it', () => {
  const refused = (body: string) => compile(`/** @differentiable */\nexport function f(x: number, xs: number[]): number {\n  let s = 0;\n${body}\n}`, { throwOnError: false }).messages.join('\n');

  test('a call on the right of &&', () => {
    expect(refused(`  const bump = () => { s += 1; return s; };\n  const ok = x > 0 && bump() > 0;\n  return ok ? s : x;`)).toMatch(
      /TSAD1108: the local function 'bump' assigns 's', a variable of the function around it, so a call must run once, in order/,
    );
  });

  test('a call in a side of ?:', () => {
    expect(refused(`  const bump = () => { s += x; return s; };\n  return x > 0 ? bump() : s;`)).toMatch(/TSAD1108: the local function 'bump' assigns 's'/);
  });

  test('passed by name to .map', () => {
    expect(refused(`  const bump = (v: number) => { s += v; return s; };\n  const ys = xs.map(bump);\n  return ys.length + s;`)).toMatch(/TSAD1108: the local function 'bump' assigns 's'/);
  });

  test('an early return', () => {
    expect(refused(`  const bump = () => { if (x > 0) { s += 1; return 1; } s -= 1; return 0; };\n  const r = bump();\n  return r + s;`)).toMatch(
      /TSAD1108: the local function 'bump' assigns 's', a variable of the function around it, and returns before its end/,
    );
  });

  test('a statement that writes into the array the function writes', () => {
    expect(refused(`  const ys = xs.slice();\n  const bump = () => { ys[0] = x; return 1; };\n  ys[1] = bump();\n  return ys[0] + ys[1];`)).toMatch(
      /TSAD1108: the local function 'bump' assigns 'ys', which the statement around the call writes too/,
    );
  });
});

// Silently wrong before (found in s6): a .map callback assigning a variable of the function
// around it compiled with no diagnostic, each element seeing the variable's value before the map
// (plain JavaScript 34, tsad 10 for f([1, 2, 3, 4]) below).
describe("a callback of .map, .reduce, Array.from that assigns the caller's variables", () => {
  const diag = (body: string) => compile(`/** @differentiable */\nexport function f(xs: number[]): number {\n  let k = 0;\n${body}\n}`, { throwOnError: false }).messages.join('\n');

  test.each([
    ['.map, +=', '  const ys = xs.map((x) => { k += 1; return k * x; });\n  return ys.reduce((a, b) => a + b, 0) + k;'],
    ['.map, k++ as a value', '  const ys = xs.map((x) => { return k++ * x; });\n  return ys.reduce((a, b) => a + b, 0) + k;'],
    ['.reduce', '  return xs.reduce((a, x) => { k = k + x; return a + k; }, 0) + k;'],
    ['Array.from', '  const ys = Array.from({ length: xs.length }, (_, i) => { k += xs[i]; return k; });\n  return ys.length + k;'],
  ])('%s is TSAD1108', (_, body) => {
    expect(diag(body)).toMatch(/TSAD1108: the callback assigns 'k', a variable of the function around it/);
  });

  test('.forEach may assign them (its body runs as a loop)', () => {
    expect(diag('  xs.forEach((x) => { k += x; });\n  return k;')).toBe('');
  });
});
