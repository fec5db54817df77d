// The tsad primals of the GradBench evals (bench/src/tsad) run here as plain JavaScript: each must
// equal the hand-written one of bench/src/hand, which the runner checks against `manual`; their
// derivatives are tsad's (bench/src/gradbench/tsad.ts), checked by the runner
// (test/bench/gradbench.test.ts).
import { lse as handLse } from '../../bench/src/hand/lse';
import { llsq as handLlsq } from '../../bench/src/hand/llsq';
import { gmmObjective as handGmm } from '../../bench/src/hand/gmm';
import { kmeansCost as handKmeans } from '../../bench/src/hand/kmeans';
import { lstmObjective as handLstm } from '../../bench/src/hand/lstm';
import { lse } from '../../bench/src/tsad/lse';
import { llsq } from '../../bench/src/tsad/llsq';
import { gmmObjective, logMultiGamma } from '../../bench/src/tsad/gmm';
import { kmeansCost } from '../../bench/src/tsad/kmeans';
import { lstmObjective } from '../../bench/src/tsad/lstm';

let seed = 99;
const random = () => {
  // A small LCG is enough: the inputs only need to be irregular, not statistically good.
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 4294967296;
};
const randomArray = (n: number, lo = -1, hi = 1) => Float64Array.from({ length: n }, () => lo + (hi - lo) * random());
const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(1, Math.abs(b));

describe('the tsad primals compute the hand-written ones', () => {
  it('lse', () => {
    const x = randomArray(50, -5, 5);
    expect(rel(lse(x), handLse(x))).toBeLessThan(1e-14);
  });
  it('llsq', () => {
    const x = randomArray(6);
    expect(rel(llsq(x, 17), handLlsq(x, 17))).toBeLessThan(1e-14);
  });
  it('kmeans', () => {
    const points = randomArray(30 * 4);
    const centroids = randomArray(5 * 4);
    expect(rel(kmeansCost(centroids, points, 4), handKmeans(points, centroids, 4))).toBeLessThan(1e-14);
  });
  it('gmm', () => {
    const d = 4,
      k = 3,
      n = 7,
      m = 2,
      gamma = 0.6;
    const lsz = (d * (d - 1)) / 2;
    const x = randomArray(n * d, -2, 2);
    const p = { alpha: randomArray(k), mu: randomArray(k * d), q: randomArray(k * d, -0.5, 0.5), l: randomArray(k * lsz, -0.5, 0.5) };
    const draft = gmmObjective(p, x, d, k, n, m, gamma, logMultiGamma((d + m + 1) / 2, d));
    expect(rel(draft, handGmm({ d, k, n, x, m, gamma }, p))).toBeLessThan(1e-12);
  });
  it('lstm', () => {
    const l = 2,
      b = 4,
      len = 6;
    const mainParams = randomArray(l * 8 * b);
    const extraParams = randomArray(3 * b);
    const state = randomArray(l * 2 * b);
    const sequence = Float64Array.from({ length: len * b }, () => (random() < 0.5 ? 0 : 1));
    const stateBefore = Array.from(state);
    const draft = lstmObjective(mainParams, extraParams, state, sequence, l, b);
    expect(rel(draft, handLstm({ l, b, len, mainParams, extraParams, state, sequence }))).toBeLessThan(1e-14);
    // The draft copies the state rather than writing into its argument.
    expect(Array.from(state)).toEqual(stateBefore);
  });
});
