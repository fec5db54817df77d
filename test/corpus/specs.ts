// How the corpus harness calls each program: the marked function, the arguments differentiated
// (every differentiable one), seeded inputs for a size, the sizes tried (0, 1 and larger where
// the program takes arrays), and the errors a size may throw as plain JavaScript does.
import { Rng, Value } from './numeric';

export interface Spec {
  /** The file under programs/, without `.ts`. */
  readonly program: string;
  /** The marked function as the module exports it: `loss` or `Model.loss`. */
  readonly fn: string;
  readonly wrt: readonly number[];
  readonly inputs: (r: Rng, size: number) => Value[];
  readonly sizes: readonly number[];
  /** Messages (`Error: …`) the plain program throws at some inputs; the derivative must too. */
  readonly throws?: readonly string[];
  /** The primal compared to `rel` instead of bit for bit, and why. */
  readonly rounding?: { readonly rel: number; readonly why: string };
}

const list: Spec[] = [];
const spec = (s: Spec) => list.push(s);

const shifted = (r: Rng, n: number, shift: number) => r.mat(n, n).map((row, i) => row.map((a, j) => a + (i === j ? shift : 0)));

spec({ program: 'lu_solve', fn: 'solutionEnergy', wrt: [0, 1], sizes: [0, 1, 4], inputs: (r, n) => [shifted(r, n, 0.5), r.vec(n)] });
spec({ program: 'householder_qr', fn: 'logAbsDet', wrt: [0], sizes: [0, 1, 4], inputs: (r, n) => [shifted(r, n, 1)] });
spec({ program: 'conjugate_gradient', fn: 'cgEnergy', wrt: [0, 1], sizes: [0, 1, 4], inputs: (r, n) => [r.spd(n), r.vec(n), n] });
spec({
  program: 'rkf45',
  fn: 'preyAt',
  wrt: [0, 1],
  sizes: [0, 1, 2],
  inputs: (r, size) => [Float64Array.from([1.1, 0.4, 0.1, 0.4].map((x) => x + 0.05 * r.uniform())), Float64Array.from([10 + r.uniform(), 5 + r.uniform()]), 0.5 * size, 1e-6],
});
spec({ program: 'rk4_oscillator', fn: 'finalDisplacement', wrt: [0, 1, 2], sizes: [0, 1, 3], inputs: (r, n) => [r.f64(2 * n), 2 + r.uniform(), 0.3 + 0.1 * r.uniform(), 6] });

const boid = (r: Rng) => ({ pos: [r.uniform(-2, 2), r.uniform(-2, 2)] as [number, number], vel: [r.uniform(), r.uniform()] as [number, number] });
spec({ program: 'boids', fn: 'flockSpread', wrt: [0, 1], sizes: [0, 1, 5], inputs: (r, n) => [Array.from({ length: n }, () => boid(r)), 1.5 + 0.1 * r.uniform(), 3] });
spec({
  program: 'mass_spring',
  fn: 'chainEnd',
  wrt: [0, 1, 2],
  sizes: [0, 1, 4],
  throws: ['Error: empty chain'],
  inputs: (r, n) => [Array.from({ length: n }, (_, i) => ({ x: -(i + 1) + 0.1 * r.uniform(), v: 0.1 * r.uniform() })), 50 + r.uniform(), 1 + 0.1 * r.uniform(), 20],
});
const gate = (r: Rng, hidden: number, features: number) => ({ W: r.mat(hidden, features, -0.5, 0.5), U: r.mat(hidden, hidden, -0.5, 0.5), b: r.vec(hidden, -0.1, 0.1) });
spec({
  program: 'gru',
  fn: 'gruLoss',
  wrt: [0, 1, 2],
  sizes: [0, 1, 3],
  inputs: (r, n) => [[gate(r, 3, 2), gate(r, 3, 2), gate(r, 3, 2)], r.tensor(n, n + 1, 2), r.vec(n)],
});
spec({
  program: 'conv_pool',
  fn: 'convLoss',
  wrt: [0, 1, 2, 3],
  sizes: [0, 1, 2],
  inputs: (r, n) => [r.tensor(2, 2, 2, -0.5, 0.5), 0.1 * r.uniform(), Array.from({ length: n }, () => r.tensor(2, n + 3, n + 3)), r.vec(n)],
});
spec({
  program: 'gp_lml',
  fn: 'negLogMarginal',
  wrt: [0, 1, 2],
  sizes: [0, 1, 5],
  inputs: (r, n) => [[0.1 * r.uniform(), 0.1 * r.uniform(), -1 + 0.1 * r.uniform()], Array.from({ length: n }, () => [r.uniform(-2, 2), r.uniform(-2, 2)]), r.vec(n)],
});
spec({ program: 'total_variation', fn: 'tvEnergy', wrt: [0, 1, 2], sizes: [0, 1, 4], inputs: (r, n) => [r.tensor(3, n, n + 1), r.tensor(3, n, n + 1), 0.5 + 0.1 * r.uniform()] });

const unit3 = (r: Rng) => {
  const v = [r.uniform(), r.uniform(), 0.5 + r.uniform(0, 1)];
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
spec({
  program: 'ray_sphere',
  fn: 'shade',
  wrt: [0, 1, 2, 3],
  sizes: [0, 1, 4],
  inputs: (r, n) => [
    Array.from({ length: n }, (_, i) => ({ center: [r.uniform(-0.3, 0.3), r.uniform(-0.3, 0.3), 4 + 2 * i] as [number, number, number], radius: 1 + 0.2 * r.uniform(), albedo: r.uniform(0.2, 0.9) })),
    [0.1 * r.uniform(), 0.1 * r.uniform(), 0],
    [0.05 * r.uniform(), 0.05 * r.uniform(), 1],
    unit3(r).map((x) => -x),
  ],
});
spec({
  program: 'skinning',
  fn: 'skinningLoss',
  wrt: [0, 1, 2, 3],
  sizes: [0, 1, 4],
  inputs: (r, n) => [
    [0, 1, 2].map(() => ({ angle: 0.3 * r.uniform(), translation: [r.uniform(), r.uniform()] as [number, number] })),
    Array.from({ length: n }, () => [r.uniform(-2, 2), r.uniform(-2, 2)]),
    r.mat(n, 3, 0.1, 1),
    Array.from({ length: n }, () => [r.uniform(-2, 2), r.uniform(-2, 2)]),
  ],
});
const logStochastic = (r: Rng, rows: number, cols: number) =>
  r.mat(rows, cols, 0, 1).map((row) => {
    const total = row.reduce((a, b) => a + b, 0);
    return row.map((x) => Math.log(x / total));
  });
spec({
  program: 'hmm_forward',
  fn: 'logLikelihood',
  wrt: [0, 1, 2],
  sizes: [0, 1, 6],
  inputs: (r, n) => [logStochastic(r, 1, 3)[0], logStochastic(r, 3, 3), logStochastic(r, 3, 4), Int32Array.from({ length: n }, () => r.int(4))],
});
spec({
  program: 'monte_carlo_option',
  fn: 'callPrice',
  wrt: [0, 1, 2, 3, 4],
  sizes: [0, 1, 50],
  inputs: (r, n) => [100 + r.uniform(), 100 + r.uniform(), 0.03 + 0.01 * r.uniform(), 0.2 + 0.05 * r.uniform(), 1 + 0.1 * r.uniform(), n, 12345 + r.int(1000)],
});
spec({
  program: 'median_mad',
  fn: 'madLoss',
  wrt: [0, 1, 2],
  sizes: [0, 1, 6, 7],
  throws: ['Error: median of an empty array'],
  inputs: (r, n) => [[r.uniform(), 1 + r.uniform()], r.vec(n, -3, 3), r.vec(n, -3, 3)],
});
spec({ program: 'wave_equation', fn: 'waveEnergy', wrt: [0, 1], sizes: [0, 1, 8], inputs: (r, n) => [r.f64(n), 0.8 + 0.1 * r.uniform(), 5] });
spec({
  program: 'shallow_water',
  fn: 'surfaceRoughness',
  wrt: [0, 1],
  sizes: [0, 1, 6],
  inputs: (r, n) => [r.vec(n, 1, 1.5), r.vec(n, -0.1, 0.1), 4],
});

spec({
  program: 'mlp',
  fn: 'mse',
  wrt: [0, 1, 2],
  sizes: [0, 1, 4],
  inputs: (r, n) => [
    [
      { W: r.mat(4, 3, -0.7, 0.7), b: r.vec(4, -0.1, 0.1) },
      { W: r.mat(1, 4, -0.7, 0.7), b: r.vec(1, -0.1, 0.1) },
    ],
    r.mat(n, 3),
    r.vec(n),
  ],
});
spec({ program: 'cholesky_nll', fn: 'gaussianNll', wrt: [0, 1, 2], sizes: [0, 1, 4], inputs: (r, n) => [r.spd(n), r.vec(n), r.vec(n)] });
const polygon = (r: Rng, n: number) =>
  Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * i) / n + 0.2 * r.uniform();
    const rad = 1 + 0.2 * r.uniform();
    return [rad * Math.cos(a), rad * Math.sin(a)];
  });
spec({
  program: 'polygon_shape',
  fn: 'shapeEnergy',
  wrt: [0, 1, 2],
  sizes: [0, 1, 3, 6],
  throws: ['Error: a polygon needs three vertices'],
  inputs: (r, n) => {
    const v = polygon(r, n);
    // The second seed walks the polygon clockwise, the branch that reverses a copy.
    return [r.uniform() > 0 ? v : v.reverse(), 2 + r.uniform(), 0.5];
  },
});
spec({
  program: 'trimmed_mean',
  fn: 'trimmedLoss',
  wrt: [0, 1, 2],
  sizes: [0, 1, 9],
  inputs: (r, n) => [r.vec(n, -5, 5).map((x, i) => (i === 2 ? -500 : x)), r.uniform(), 0.2],
});
spec({
  program: 'cubic_spline',
  fn: 'splineFit',
  wrt: [0, 1, 2, 3],
  sizes: [0, 1, 2, 5],
  throws: ['Error: a spline needs two knots'],
  inputs: (r, n) => {
    const xs = Array.from({ length: n }, (_, i) => i + 0.3 * r.uniform());
    const qx = Array.from({ length: 2 * n }, () => r.uniform(0, Math.max(n - 1, 0)));
    return [r.vec(n), xs, qx, r.vec(2 * n)];
  },
});
spec({ program: 'blur_batch', fn: 'blurLoss', wrt: [0, 1, 2], sizes: [0, 1, 3], inputs: (r, n) => [r.tensor(n, n + 1, n + 2), r.tensor(n, n + 1, n + 2), 0.25 + 0.05 * r.uniform()] });
spec({ program: 'gauss_jordan', fn: 'inverseNorm', wrt: [0], sizes: [0, 1, 4], inputs: (r, n) => [shifted(r, n, 0.5)] });

spec({
  program: 'softmax_classifier',
  fn: 'crossEntropy',
  wrt: [0, 1, 2, 4],
  sizes: [0, 1, 5],
  inputs: (r, n) => [r.mat(3, 2), r.vec(3), r.mat(n, 2, -2, 2), Int32Array.from({ length: n }, () => r.int(3)), 0.01],
});
spec({ program: 'heat_implicit', fn: 'heatAfter', wrt: [0, 1, 2], sizes: [0, 1, 6], inputs: (r, n) => [r.f64(n), r.f64(n), 0.5 + 0.1 * r.uniform(), 3] });
spec({ program: 'filtfilt', fn: 'smoothingLoss', wrt: [0, 1], sizes: [0, 1, 9], inputs: (r, n) => [r.f64(n), 0.3 + 0.1 * r.uniform(), 3] });
spec({
  program: 'bezier_length',
  fn: 'curveCost',
  wrt: [0],
  sizes: [0, 1, 2, 4],
  throws: ['Error: a curve needs two control points'],
  inputs: (r, n) => [Array.from({ length: n }, (_, i) => [i + 0.3 * r.uniform(), r.uniform()]), 8],
});
spec({
  program: 'batch_norm',
  fn: 'batchNormLoss',
  wrt: [0, 1, 2],
  sizes: [0, 1, 3],
  throws: ['Error: empty batch'],
  inputs: (r, n) => [r.tensor(n, 2, 3), r.vec(2, 0.5, 1.5), r.vec(2, -0.2, 0.2)],
});
spec({
  program: 'portfolio',
  fn: 'portfolioObjective',
  wrt: [0, 1, 2, 3],
  sizes: [1, 4],
  inputs: (r, n) => [r.vec(n, 0.1, 1), r.mat(6, n, -0.05, 0.1), 2 + r.uniform(), r.vec(n, 0, 1 / Math.max(n, 1))],
});
spec({ program: 'power_iteration', fn: 'dominantEigenvalue', wrt: [0], sizes: [0, 1, 4], inputs: (r, n) => [r.spd(n), 6] });
spec({ program: 'polynomial_fit', fn: 'polyLoss', wrt: [0, 1, 2, 3], sizes: [0, 1, 6], inputs: (r, n) => [r.f64(3), r.f64(n), r.f64(n), 0.01 + 0.001 * r.uniform()] });
spec({
  program: 'logistic_regression',
  fn: 'logisticLoss',
  wrt: [0, 1, 2, 3],
  sizes: [0, 1, 6],
  inputs: (r, n) => [r.f64(3), r.uniform(), r.mat(n, 3, -2, 2), Float64Array.from({ length: n }, () => r.int(2))],
});

spec({
  program: 'kalman_filter',
  fn: 'innovationNll',
  wrt: [0, 1, 2],
  sizes: [0, 1, 6],
  inputs: (r, n) => [r.vec(n, -1, 1).map((e, i) => 0.5 * i + e), -1 + 0.2 * r.uniform(), -0.5 + 0.2 * r.uniform()],
});
spec({
  program: 'attention',
  fn: 'attentionLoss',
  wrt: [0, 1, 2, 3],
  sizes: [0, 1, 3],
  inputs: (r, n) => [r.mat(n, 3), r.tensor(2, 3, 2, -0.6, 0.6), r.tensor(2, 3, 2, -0.6, 0.6), r.tensor(2, 3, 2, -0.6, 0.6)],
});
spec({
  program: 'lennard_jones',
  fn: 'clusterEnergy',
  wrt: [0, 1, 2],
  sizes: [0, 1, 5],
  inputs: (r, n) => [
    Array.from({ length: n }, (_, i) => ({ x: 1.1 * i + 0.1 * r.uniform(), y: 0.6 * (i % 2) + 0.1 * r.uniform(), z: 0.1 * r.uniform() })),
    1 + 0.01 * r.uniform(),
    1 + 0.1 * r.uniform(),
  ],
});
spec({ program: 'determinant', fn: 'barrier', wrt: [0], sizes: [0, 1, 4], inputs: (r, n) => [shifted(r, n, 0.5)] });

export const SPECS: Record<string, Spec> = Object.fromEntries(list.map((s) => [s.program, s]));
