// A claim (the owned dense array a loop accumulates into, made once before the loop) prints as
// one runtime call: `r = n > 0 ? tsad$claim($own, a, w) : a`, or `tsad$fresh($own, w)` from the
// zero array (runtime/emitted.ts; backend/ts/constructs/array/emit.ts, claimedDense), instead of
// the inline ownership test, copy and hot slot. Checked on the helpers themselves (owned arrays
// updated in place, anything else copied), on the text (no inline test, no release count where
// only claims ask the set, no helper bound where nothing asks it) and on the values (central
// differences, loops that run zero times, a caller passing one array twice, results that alias
// neither the arguments nor each other, a second call leaving the first call's results alone).
import { load, partial, expectClose } from './harness';
import { tsad$claim, tsad$fresh } from '../../runtime/emitted';

/** The text of the emitted def whose name starts with `name$`. */
function def(text: string, name: string): string {
  const at = text.indexOf(`function ${name}$`);
  expect(at).toBeGreaterThanOrEqual(0);
  return text.slice(at, text.indexOf('\n}', at));
}

describe('the runtime helpers of owned arrays', () => {
  test('tsad$fresh: a zero array of the length, in the owned set', () => {
    const own = new Set<unknown>();
    const r = tsad$fresh(own, 3);
    expect([...r]).toEqual([0, 0, 0]);
    expect(own.has(r)).toBe(true);
  });

  test('tsad$claim: an owned array long enough is itself; a caller-held, released or short one is copied into an owned one', () => {
    const own = new Set<unknown>();
    const mine = tsad$fresh(own, 2);
    mine[1] = 5;
    expect(tsad$claim(own, mine, 2)).toBe(mine);
    expect(tsad$claim(own, mine, 0)).toBe(mine);
    // Too short: a longer owned copy, the old one untouched.
    const longer = tsad$claim(own, mine, 4);
    expect(longer).not.toBe(mine);
    expect([...longer]).toEqual([0, 5, 0, 0]);
    expect(own.has(longer)).toBe(true);
    // Not in the set (a caller's array, or one released because it has two holders): copied.
    const callers = new Float64Array([1, 2]);
    const copy = tsad$claim(own, callers, 1);
    expect(copy).not.toBe(callers);
    expect([...copy]).toEqual([1, 2]);
    copy[0] = 9;
    expect([...callers]).toEqual([1, 2]);
    own.delete(mine);
    expect(tsad$claim(own, mine, 2)).not.toBe(mine);
  });
});

const twoLoops = `import { grad } from 'tsad';
/** @differentiable */
export function two(w: Float64Array, v: Float64Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sin(w[i]) * w[i] * v[i];
  let t = 1;
  for (let i = 0; i < w.length; i++) t += w[(i * 3) % w.length] * v[i] * w[i];
  return s * t;
}
export const g = grad(two, { wrt: [0, 1] });
`;

const twoPlain = (w: ArrayLike<number>, v: ArrayLike<number>, n: number) => {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sin(w[i]) * w[i] * v[i];
  let t = 1;
  for (let i = 0; i < w.length; i++) t += w[(i * 3) % w.length] * v[i] * w[i];
  return s * t;
};

describe('claims print as one call of a runtime helper', () => {
  const { exports: m, result } = load(twoLoops);

  test('no inline ownership test, copy or hot slot; the release count goes where only claims ask the set', () => {
    const text = def(result.outputText, 'two');
    expect(text).toMatch(/ \? tsad\$claim\(\$own, \w+, w\.length\) : /);
    expect(text).toMatch(/tsad\$fresh\(\$own, /);
    expect(text).not.toMatch(/\$own\.has|\.set\(|\$hot|\$hg|\$gen/);
    expect(result.outputText).toMatch(/const \{[^}]*\btsad\$claim\b[^}]*\} = tsad\$rt\.tsad\$emitted/);
  });

  test.each([0, 2, 5])('central differences in w and v, n = %i (the first loop runs n times, the second over w)', (n) => {
    const w = new Float64Array([0.3, -1.2, 2.0, 0.7, 0.1]);
    const v = new Float64Array([1.5, 0.4, -0.8, 2.2, -0.3]);
    const [gw, gv] = m.g(w, v, n) as [Float64Array, Float64Array];
    const pad = (a: Float64Array) => [...a, 0, 0, 0, 0, 0].slice(0, 5);
    expectClose(
      pad(gw),
      [0, 1, 2, 3, 4].map((k) => partial((...x: number[]) => twoPlain(x, v, n), [...w], k, 0)[0]),
    );
    expectClose(
      pad(gv),
      [0, 1, 2, 3, 4].map((k) => partial((...x: number[]) => twoPlain(w, x, n), [...v], k, 0)[0]),
    );
    expect([...w]).toEqual([0.3, -1.2, 2.0, 0.7, 0.1]);
    expect([...v]).toEqual([1.5, 0.4, -0.8, 2.2, -0.3]);
  });

  test('one array passed twice: two results of their own, neither the argument, a second call leaves them alone', () => {
    const w = new Float64Array([0.3, -1.2, 2.0, 0.7]);
    const [gw, gv] = m.g(w, w, 3) as [Float64Array, Float64Array];
    expect(gw).not.toBe(gv);
    expect(gw).not.toBe(w);
    expect(gv).not.toBe(w);
    const ref = (which: 0 | 1) => [0, 1, 2, 3].map((k) => partial((...x: number[]) => (which === 0 ? twoPlain(x, w, 3) : twoPlain(w, x, 3)), [...w], k, 0)[0]);
    expectClose([...gw], ref(0));
    expectClose([...gv], ref(1));
    const before = [[...gw], [...gv]];
    gw[0] += 1;
    expect(gv[0]).toBe(before[1][0]);
    m.g(w, w, 4);
    expect([[...gw].map((x, k) => (k === 0 ? x - 1 : x)), [...gv]]).toEqual(before);
    expect([...w]).toEqual([0.3, -1.2, 2.0, 0.7]);
  });
});

describe('where nothing asks the owned set', () => {
  test('a claim from the zero array is a plain allocation and the module binds no helper for it', () => {
    const { exports: m, result } = load(`import { grad } from 'tsad';
/** @differentiable */
export function f(w: Float64Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sin(w[i]) * w[i];
  return s;
}
export const g = grad(f, { wrt: [0] });
`);
    expect(result.outputText).not.toMatch(/tsad\$fresh|tsad\$claim|\$own/);
    const w = new Float64Array([0.3, -1.2, 2.0]);
    for (const n of [0, 2, 3]) {
      const gw = m.g(w, n) as Float64Array;
      const ref = [0, 1, 2].map(
        (k) =>
          partial(
            (...x: number[]) => {
              let s = 0;
              for (let i = 0; i < n; i++) s += Math.sin(x[i]) * x[i];
              return s;
            },
            [...w],
            k,
            0,
          )[0],
      );
      expectClose([...gw, 0, 0, 0].slice(0, 3), ref);
    }
  });
});
