// The GradBench evals as tables of functions, built from one implementation per eval. An
// implementation (hand-written, tsad, ...) supplies only the maths over typed arrays; this module
// turns the eval's JSON input into those arrays (outside the timed region) and the result back
// into the JSON shape the eval's README asks for.
import type { BaInput, Csr, GmmData, GmmParams, LstmInput } from './shapes';

/** One eval function: `prepare` and `output` are untimed, `run` is what is timed. */
export interface Fn {
  prepare(input: any): any;
  run(prepared: any): any;
  output?(result: any): unknown;
}

export type Module = Record<string, Fn>;
export type Table = Record<string, Module>;

/** The implementations one tool mode offers; an eval left out answers `define` with failure. */
export interface Impls {
  hello?: { square(x: number): number; double(x: number): number };
  lse?: { primal(x: Float64Array): number; gradient(x: Float64Array): Float64Array };
  llsq?: { primal(x: Float64Array, n: number): number; gradient(x: Float64Array, n: number): Float64Array };
  gmm?: { objective(data: GmmData, p: GmmParams): number; jacobian(data: GmmData, p: GmmParams): GmmParams };
  /** `dir` is the Newton direction J·H⁻¹ (k×d, row-major); d is the dimension. */
  kmeans?: {
    cost(points: Float64Array, centroids: Float64Array, d: number): number;
    dir(points: Float64Array, centroids: Float64Array, d: number): Float64Array;
  };
  /** `jacobian` is ∇ with respect to mainParams then extraParams, concatenated. */
  lstm?: { objective(input: LstmInput): number; jacobian(input: LstmInput): Float64Array };
  /** `jacobian` is the whole sparse Jacobian (rows: 2p reprojection then p weight rows). */
  ba?: { objective(input: BaInput): { reprojErr: Float64Array; wErr: Float64Array }; jacobian(input: BaInput): Csr };
}

/** Row-major Float64Array of a JSON matrix (rows of equal length). */
export function flatten(rows: number[][]): Float64Array {
  const cols = rows.length === 0 ? 0 : rows[0].length;
  const out = new Float64Array(rows.length * cols);
  for (let r = 0; r < rows.length; r++) {
    if (rows[r].length !== cols) throw new Error(`row ${r} has ${rows[r].length} entries, row 0 has ${cols}`);
    out.set(rows[r], r * cols);
  }
  return out;
}

/** The JSON matrix (rows × cols) of a row-major Float64Array. */
export function unflatten(data: Float64Array, cols: number): number[][] {
  const rows: number[][] = [];
  for (let r = 0; r * cols < data.length; r++) rows.push(Array.from(data.subarray(r * cols, (r + 1) * cols)));
  return rows;
}

const toArray = (v: Float64Array) => Array.from(v);

function gmmInput(input: any): { data: GmmData; params: GmmParams } {
  return {
    data: { d: input.d, k: input.k, n: input.n, x: flatten(input.x), m: input.m, gamma: input.gamma },
    params: { alpha: Float64Array.from(input.alpha), mu: flatten(input.mu), q: flatten(input.q), l: flatten(input.l) },
  };
}

function lstmInput(input: any): LstmInput {
  const main: number[][] = input.main_params;
  const sequence: number[][] = input.sequence;
  return {
    l: main.length / 2,
    b: main[0].length / 4,
    len: sequence.length,
    mainParams: flatten(main),
    extraParams: flatten(input.extra_params),
    state: flatten(input.state),
    sequence: flatten(sequence),
  };
}

function kmeansInput(input: any) {
  const points: number[][] = input.points;
  return { points: flatten(points), centroids: flatten(input.centroids), d: points[0].length };
}

/** ba's input is one camera, point, weight and feature, duplicated here (untimed) as the eval says. */
function baInput(input: any): BaInput {
  const { n, m, p } = input as { n: number; m: number; p: number };
  const cams = new Float64Array(11 * n);
  for (let i = 0; i < n; i++) cams.set(input.cam, 11 * i);
  const X = new Float64Array(3 * m);
  for (let i = 0; i < m; i++) X.set(input.x, 3 * i);
  const w = new Float64Array(p).fill(input.w);
  const obs = new Int32Array(2 * p);
  const feats = new Float64Array(2 * p);
  for (let i = 0; i < p; i++) {
    obs[2 * i] = i % n;
    obs[2 * i + 1] = i % m;
    feats.set(input.feat, 2 * i);
  }
  return { n, m, p, cams, X, w, obs, feats };
}

/** The eval sends back only the first 30 entries and the last one of each list. */
function baTruncate(v: Int32Array | Float64Array): number[] {
  return [...Array.from(v.subarray(0, 30)), v[v.length - 1]];
}

export function table(impls: Impls): Table {
  const t: Table = {};
  const { hello, lse, llsq, gmm, kmeans, lstm, ba } = impls;
  if (hello) {
    t.hello = {
      square: { prepare: (input: number) => input, run: (x: number) => hello.square(x) },
      double: { prepare: (input: number) => input, run: (x: number) => hello.double(x) },
    };
  }
  if (lse) {
    const prepare = (input: any) => Float64Array.from(input.x);
    t.lse = {
      primal: { prepare, run: (x: Float64Array) => lse.primal(x) },
      gradient: { prepare, run: (x: Float64Array) => lse.gradient(x), output: toArray },
    };
  }
  if (llsq) {
    const prepare = (input: any) => ({ x: Float64Array.from(input.x), n: input.n as number });
    t.llsq = {
      primal: { prepare, run: (p: { x: Float64Array; n: number }) => llsq.primal(p.x, p.n) },
      gradient: { prepare, run: (p: { x: Float64Array; n: number }) => llsq.gradient(p.x, p.n), output: toArray },
    };
  }
  if (gmm) {
    type P = ReturnType<typeof gmmInput>;
    t.gmm = {
      objective: { prepare: gmmInput, run: (p: P) => gmm.objective(p.data, p.params) },
      jacobian: {
        prepare: gmmInput,
        run: (p: P) => ({ g: gmm.jacobian(p.data, p.params), d: p.data.d, lsz: (p.data.d * (p.data.d - 1)) / 2 }),
        output: ({ g, d, lsz }: { g: GmmParams; d: number; lsz: number }) => ({
          alpha: toArray(g.alpha),
          mu: unflatten(g.mu, d),
          q: unflatten(g.q, d),
          // d = 1 has empty rows: one per component.
          l: lsz === 0 ? Array.from(g.alpha, () => []) : unflatten(g.l, lsz),
        }),
      },
    };
  }
  if (kmeans) {
    type P = ReturnType<typeof kmeansInput>;
    t.kmeans = {
      cost: { prepare: kmeansInput, run: (p: P) => kmeans.cost(p.points, p.centroids, p.d) },
      dir: {
        prepare: kmeansInput,
        run: (p: P) => ({ dir: kmeans.dir(p.points, p.centroids, p.d), d: p.d }),
        output: ({ dir, d }: { dir: Float64Array; d: number }) => unflatten(dir, d),
      },
    };
  }
  if (lstm) {
    t.lstm = {
      objective: { prepare: lstmInput, run: (p: LstmInput) => lstm.objective(p) },
      jacobian: { prepare: lstmInput, run: (p: LstmInput) => lstm.jacobian(p), output: toArray },
    };
  }
  if (ba) {
    t.ba = {
      objective: {
        prepare: baInput,
        run: (p: BaInput) => ba.objective(p),
        output: ({ reprojErr, wErr }: { reprojErr: Float64Array; wErr: Float64Array }) => ({
          reproj_error: { elements: [reprojErr[0], reprojErr[1]], repeated: reprojErr.length / 2 },
          w_err: { element: wErr[0], repeated: wErr.length },
        }),
      },
      jacobian: {
        prepare: baInput,
        run: (p: BaInput) => ba.jacobian(p),
        output: (j: Csr) => ({ rows: baTruncate(j.rows), cols: baTruncate(j.cols), vals: baTruncate(j.vals) }),
      },
    };
  }
  return t;
}
