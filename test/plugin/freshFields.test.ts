// Writing into an array taken out of a record a marked function returned new (issue 19,
// kalman_filter): `const prior = predict(t); const mean = prior.mean; mean[0] += k * y;`. In
// JavaScript mean and prior.mean are one array; the two meanings agree where prior.mean is not
// read again. Handing the array on at its last use, `track = { mean, cov }`, is allowed too.
// Values are compared with the same source run as plain JavaScript, gradients with central
// differences, jvp with ⟨grad, v⟩.
import { compile, load, partial, expectClose, runPlain } from './harness';

const functions = `
interface State {
  mean: number[];
  spread: number;
}

/** @differentiable */
function advance(s: State, a: number): State {
  return { mean: s.mean.map((m, i) => m + a * Math.sin(m + i)), spread: s.spread * (1 + a) };
}

/** @differentiable */
export function track(xs: number[], a: number, gain: number): number {
  let state: State = { mean: xs.slice(), spread: 1 };
  let loss = 0;
  for (let k = 0; k < 3; k++) {
    const prior = advance(state, a);
    const mean = prior.mean;
    for (let i = 0; i < mean.length; i++) mean[i] += gain * (xs[i] - mean[i]) * prior.spread;
    loss += mean.reduce((s, m) => s + m * m, 0) / prior.spread;
    state = { mean, spread: prior.spread * 0.5 };
  }
  return loss + state.spread;
}
`;

const source = `
import { valueAndGrad, jvp } from 'tsad';
${functions}
export const gTrack = valueAndGrad(track, { wrt: [0, 1, 2] });
export const jTrack = (xs: number[], a: number, g: number, dxs: number[], da: number, dg: number) => jvp(track, [xs, a, g], [dxs, da, dg]);
`;

const plainModule = (): Record<string, any> => runPlain(functions);

const rand = (k: number) => Math.sin(12.9898 * k + 1) * 1.3;

describe('an array taken out of a record returned new, then written', () => {
  const { exports: m, result } = load(source);
  const plain = plainModule();

  test('builds with no diagnostics', () => {
    expect(result.messages).toEqual([]);
  });

  test.each([0, 1, 4])('a filter step at size %i', (n) => {
    const xs = Array.from({ length: n }, (_, i) => rand(i));
    const [value, [gx, ga, gg]] = m.gTrack(xs, 0.3, 0.4) as [number, [number[], number, number]];
    expect(value).toBe(plain.track(xs, 0.3, 0.4));
    expectClose(
      gx,
      xs.map((_, k) => partial(plain.track, [xs, 0.3, 0.4], 0, k)[0]),
    );
    expectClose([ga, gg], [partial(plain.track, [xs, 0.3, 0.4], 1, 0)[0], partial(plain.track, [xs, 0.3, 0.4], 2, 0)[0]]);
    const dxs = xs.map((_, i) => rand(9 + i));
    const [primal, tangent] = m.jTrack(xs, 0.3, 0.4, dxs, 0.5, -0.2);
    expect(primal).toBe(value);
    expectClose([tangent], [gx.reduce((s, g, i) => s + g * dxs[i], 0) + 0.5 * ga - 0.2 * gg]);
  });
});

describe('where the record would show the write', () => {
  const diag = (body: string) =>
    compile(
      `
interface S { mean: number[]; w: number }
/** @differentiable */
function fresh(s: S): S { return { mean: s.mean.slice(), w: s.w }; }
/** @differentiable */
function keeps(s: S): S { return { mean: s.mean, w: s.w }; }
/** @differentiable */
export function f(xs: number[]): number {
  const s: S = { mean: xs.slice(), w: 2 };
${body}
}`,
      { throwOnError: false },
    ).messages.join('\n');

  test('prior.mean read after the write', () => {
    expect(diag('  const prior = fresh(s);\n  const mean = prior.mean;\n  mean[0] = 5;\n  return prior.mean[0];')).toMatch(/TSAD1122: 'mean' is written into, so it must start as a new array/);
  });

  test('the record used whole after the array was taken', () => {
    expect(diag('  const prior = fresh(s);\n  const mean = prior.mean;\n  mean[0] = 5;\n  return keeps(prior).mean[0];')).toMatch(/TSAD1122: 'mean' is written into/);
  });

  test('a callee whose field is its argument', () => {
    expect(diag('  const prior = keeps(s);\n  const mean = prior.mean;\n  mean[0] = 5;\n  return mean[0];')).toMatch(/TSAD1122: 'mean' is written into/);
  });

  test('taken again in each trip of a loop around the record', () => {
    expect(diag('  const prior = fresh(s);\n  let t = 0;\n  for (let k = 0; k < 2; k++) {\n    const mean = prior.mean;\n    mean[0] += 1;\n    t += mean[0];\n  }\n  return t;')).toMatch(
      /TSAD1122: 'mean' is written into/,
    );
  });

  test('an array handed to a record and read again', () => {
    expect(diag('  const mean = xs.slice();\n  mean[0] = 1;\n  const r = { mean, w: 1 };\n  mean[1] = 2;\n  return r.mean[1];')).toMatch(
      /TSAD1123: 'mean' is written into and also used here as a whole/,
    );
  });
});
