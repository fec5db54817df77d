// The patterns of issue 19's "Why" list, and which corpus programs use each. Patterns that show
// in the text (a method, a type) carry a regular expression: the corpus test checks that a
// program tagged with one contains it and that a program containing it is tagged with it.

export interface Pattern {
  readonly label: string;
  readonly source?: RegExp;
}

export const PATTERNS = {
  callResultWrite: { label: 'writing into an array a call returned' },
  writtenArgument: { label: 'passing a written array to a function' },
  rowSwap: { label: 'row swaps while pivoting' },
  doubleBuffer: { label: 'double buffering and swaps (`u = next`, `[a, b] = [b, a]`)' },
  records: { label: 'arrays of records and tuples (`{ x; y }[]`, `[number, number][]`, `{ W; b }[]`)' },
  tensor: { label: 'tensors `number[][][]`', source: /number\[\]\[\]\[\]/ },
  filter: { label: '`.filter`', source: /\.filter\(/ },
  concat: { label: '`.concat`', source: /\.concat\(/ },
  sortCopy: { label: '`.sort` of a copy', source: /\.sort\(/ },
  reverseCopy: { label: '`.reverse` of a copy', source: /\.reverse\(/ },
  indexOf: { label: '`.indexOf`', source: /\.indexOf\(/ },
  at: { label: '`.at`', source: /\.at\(/ },
  subarray: { label: '`.subarray`', source: /\.subarray\(/ },
  fill: { label: '`.fill` on a local', source: /\.fill\(/ },
  forEach: { label: '`.forEach`', source: /\.forEach\(/ },
  someEvery: { label: '`.some` / `.every` / `.findIndex`', source: /\.(some|every|findIndex)\(/ },
  spread: { label: 'spread `[...a, x]`', source: /[[,]\s*\.\.\.[\w[]/ },
  maxSpread: { label: '`Math.max(...a)` / `Math.min(...a)`', source: /Math\.(max|min)\(\.\.\./ },
  newArray: { label: '`new Array(n)` followed by writes' },
  mapByName: { label: '`.map(f)` with a marked function passed by name', source: /\.map\([A-Za-z_$][\w$]*\)/ },
  throw: { label: '`throw` on an error path', source: /\bthrow new\b/ },
  consoleLog: { label: '`console.log` left in', source: /console\.log\(/ },
} satisfies Record<string, Pattern>;

export type PatternId = keyof typeof PATTERNS;

/** Programs that use no pattern of the list: routines tsad builds today, which keep the harness's
 *  checks of a built program (primal, gradient, jvp) running. */
export const BASELINES = ['logistic_regression', 'polynomial_fit'];

export const USES: Record<string, readonly PatternId[]> = {
  attention: ['tensor', 'maxSpread', 'fill', 'forEach', 'concat', 'mapByName', 'doubleBuffer'],
  batch_norm: ['tensor', 'someEvery', 'throw', 'consoleLog'],
  bezier_length: ['records', 'doubleBuffer', 'at', 'throw'],
  blur_batch: ['tensor', 'doubleBuffer'],
  boids: ['records', 'filter', 'forEach', 'doubleBuffer'],
  cholesky_nll: ['newArray', 'fill', 'throw'],
  conjugate_gradient: ['doubleBuffer', 'fill', 'consoleLog'],
  conv_pool: ['tensor', 'maxSpread', 'forEach'],
  cubic_spline: ['writtenArgument', 'callResultWrite', 'someEvery', 'fill', 'forEach', 'throw'],
  determinant: ['rowSwap'],
  filtfilt: ['callResultWrite', 'reverseCopy', 'subarray'],
  gauss_jordan: ['rowSwap', 'spread', 'throw'],
  gp_lml: ['records', 'fill', 'throw', 'consoleLog'],
  gru: ['records', 'tensor', 'callResultWrite', 'mapByName', 'fill'],
  heat_implicit: ['writtenArgument', 'callResultWrite', 'doubleBuffer'],
  hmm_forward: ['maxSpread', 'newArray', 'doubleBuffer'],
  householder_qr: ['writtenArgument', 'subarray', 'forEach'],
  kalman_filter: ['records', 'callResultWrite', 'concat', 'doubleBuffer'],
  lennard_jones: ['records', 'someEvery', 'throw', 'consoleLog'],
  logistic_regression: [],
  lu_solve: ['rowSwap', 'newArray', 'throw'],
  mass_spring: ['records', 'newArray', 'fill', 'at', 'throw', 'doubleBuffer'],
  median_mad: ['spread', 'sortCopy', 'throw'],
  mlp: ['records', 'callResultWrite', 'forEach', 'consoleLog'],
  monte_carlo_option: ['newArray'],
  polygon_shape: ['records', 'reverseCopy', 'concat', 'throw'],
  polynomial_fit: [],
  portfolio: ['someEvery', 'indexOf', 'maxSpread', 'fill', 'throw'],
  power_iteration: ['someEvery', 'fill', 'doubleBuffer'],
  ray_sphere: ['records', 'someEvery', 'indexOf', 'maxSpread'],
  rk4_oscillator: ['writtenArgument', 'doubleBuffer'],
  rkf45: ['doubleBuffer', 'throw'],
  shallow_water: ['spread', 'at', 'someEvery', 'throw', 'doubleBuffer'],
  skinning: ['records', 'forEach'],
  softmax_classifier: ['maxSpread', 'indexOf', 'mapByName', 'consoleLog'],
  total_variation: ['tensor', 'forEach'],
  trimmed_mean: ['someEvery', 'filter', 'sortCopy', 'throw'],
  wave_equation: ['doubleBuffer', 'fill'],
};
