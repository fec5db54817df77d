// The burn-down list of issue 19: every corpus program tsad refuses today, with exactly the
// diagnostic codes it gets and why. corpus.test.ts fails when a program builds or gets other
// codes: then update this table (and test/corpus/README.md) in the same change.

export interface Refusal {
  readonly codes: readonly string[];
  /** One line: which of the program's patterns the codes are about. */
  readonly reason: string;
}

export const REFUSALS: Record<string, Refusal> = {
  attention: { codes: ['TSAD1120', 'TSAD1121'], reason: 'number[][][] per-head weights; project() reads x inside a .map over W[0] (Math.max(...scores), .concat and .map(gelu) not reported)' },
  batch_norm: { codes: ['TSAD1120'], reason: 'a number[][][] batch (.flat, .some, throw and console.log not reported)' },
  bezier_length: { codes: ['TSAD1121', 'TSAD1123'], reason: 'pts = next, the written array of points handed to the next round; ctrl.at(-1) (the [number, number][] points compile; throw not reported)' },
  blur_batch: { codes: ['TSAD1120'], reason: 'a number[][][] batch of images ([src, dst] = [dst, src] not reported)' },
  boids: { codes: ['TSAD1121', 'TSAD1122'], reason: '.filter of the flock for the neighbours, .forEach over them (the { pos: [number, number]; vel: [number, number] }[] records compile)' },
  cholesky_nll: { codes: ['TSAD1123'], reason: 'L = new Array(n) with rows L[i] = new Array(n).fill(0) written afterwards (throw not reported)' },
  conv_pool: { codes: ['TSAD1102', 'TSAD1120'], reason: 'number[][][] images and a number[][][][] batch; Math.max(...window) spread' },
  cubic_spline: { codes: ['TSAD1123'], reason: 'written diagonals passed to solveTridiagonal(); M[0] = 0 into the array it returned, .findIndex and throw not reported' },
  determinant: { codes: ['TSAD1123'], reason: 'row swap through a temporary, m[p] = m[c] (the [, logDet] destructuring of a tuple result not reported)' },
  filtfilt: { codes: ['TSAD1121', 'TSAD1122'], reason: '.reverse of a slice() copy and of iir()\'s fresh result; .subarray windows' },
  gauss_jordan: { codes: ['TSAD1123'], reason: 'row swap [M[p], M[c]] = [M[c], M[p]] (rows built with spread, throw not reported)' },
  gru: { codes: ['TSAD1120'], reason: 'gates as { W: number[][]; U: number[][]; b: number[] }[], records holding matrices, and number[][][] batches (the write into affine()\'s result and .map(sigmoid) not reported)' },
  heat_implicit: { codes: ['TSAD1123'], reason: 'the written rhs buffer passed to implicitSolve(); with that copied, next[0] = 0 into its result is TSAD1122 next' },
  hmm_forward: { codes: ['TSAD1102', 'TSAD1123'], reason: 'Math.max(...xs) spread; alpha = next, double buffering of a written array' },
  householder_qr: { codes: ['TSAD1122', 'TSAD1123'], reason: 'column views cols[k].subarray(k) of a written matrix; .forEach over R reported as a method that changes its array' },
  kalman_filter: { codes: ['TSAD1122'], reason: 'writes into prior.mean, an array inside the record predict() returned (the const [p, v] = t.mean destructuring compiles; .concat not reported)' },
  lennard_jones: { codes: ['TSAD1121'], reason: '.some to check the atoms (the { x; y; z }[] atoms compile; Number.isFinite (TSAD1113), throw and console.log not reported)' },
  lu_solve: { codes: ['TSAD1105', 'TSAD1123'], reason: 'row swap lu[p] = lu[c] while pivoting; a destructured { lu, perm } parameter' },
  mass_spring: { codes: ['TSAD1123'], reason: 'state = next, double buffering of the written new Array<Mass>(n) (the { x: number; v: number }[] records compile; .at and throw not reported)' },
  median_mad: { codes: ['TSAD1122'], reason: '.sort of a spread copy [...xs] (the throw on an empty array compiles)' },
  mlp: { codes: ['TSAD1120'], reason: 'layers as { W: number[][]; b: number[] }[], records holding matrices (of sizes that differ from layer to layer) (writes into matVec()\'s result, a = z and console.log not reported)' },
  monte_carlo_option: { codes: ['TSAD1102', 'TSAD1108'], reason: "the seeded generator's '>>>' and its local function uniform() assigning the state (the for…of over the written new Array(paths) compiles)" },
  polygon_shape: { codes: ['TSAD1121', 'TSAD1122'], reason: '.reverse of a slice() copy, .concat to close the polygon (the [number, number][] vertices compile; throw not reported)' },
  portfolio: { codes: ['TSAD1121'], reason: '.every for validation, .indexOf(Math.max(...excess)), .findIndex' },
  power_iteration: { codes: ['TSAD1123'], reason: 'v = w, the written iterate handed to the next iteration (.findIndex not reported)' },
  ray_sphere: { codes: ['TSAD1121'], reason: '.some over the hit distances (the array of sphere records compiles; .indexOf and Math.min(...ts) not reported)' },
  rk4_oscillator: { codes: ['TSAD1123'], reason: 'RK4 stage buffers y1, y2, y3 written and passed to rhs(); [y, yNext] = [yNext, y] not reported' },
  rkf45: { codes: ['TSAD1108', 'TSAD1121'], reason: 'stage lists [k1, k2] passed as Float64Array[] literals; ++steps inside a condition' },
  shallow_water: { codes: ['TSAD1121'], reason: 'spread [x, ...a, y] for ghost cells; .some for the depth check (.at, throw and h = hNext not reported)' },
  skinning: { codes: ['TSAD1122'], reason: '.forEach over the vertices (the bone records { angle; translation: [number, number] }[] and [number, number][] vertices compile)' },
  softmax_classifier: { codes: ['TSAD1102', 'TSAD1121'], reason: 'Math.max(...logits), .indexOf, .map(softplus) by name (the console.log compiles)' },
  total_variation: { codes: ['TSAD1120'], reason: 'number[][][] colour images (.forEach over channels not reported)' },
  trimmed_mean: { codes: ['TSAD1121', 'TSAD1122'], reason: '.every, .filter, .sort of a slice() copy (Number.isFinite (TSAD1113) and throw not reported)' },
  wave_equation: { codes: ['TSAD1123'], reason: '[prev, u, next] = [u, next, prev] rotation of written buffers (next.fill(0) not reported)' },
};
