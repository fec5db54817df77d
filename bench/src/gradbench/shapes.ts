// The typed-array forms of the eval inputs that more than one implementation (hand-written, tsad)
// consumes. All matrices are row-major Float64Arrays.

/** gmm's data: x is n×d. */
export interface GmmData {
  d: number;
  k: number;
  n: number;
  x: Float64Array;
  m: number;
  gamma: number;
}

/** gmm's independent variables: alpha (k), mu and q (k×d), l (k×d(d−1)/2, Q's strict lower triangle by columns). */
export interface GmmParams {
  alpha: Float64Array;
  mu: Float64Array;
  q: Float64Array;
  l: Float64Array;
}

/**
 * lstm's input: mainParams is l blocks of 8b (Wf Wi Wo Wc bf bi bo bc), extraParams is in_w,
 * out_w, out_b (b each), state is l blocks of 2b (hidden, cell), sequence is len×b.
 */
export interface LstmInput {
  l: number;
  b: number;
  len: number;
  mainParams: Float64Array;
  extraParams: Float64Array;
  state: Float64Array;
  sequence: Float64Array;
}

/**
 * ba's input after the eval's duplication: cams is n×11 ([r1 r2 r3 C1 C2 C3 f u0 v0 k1 k2]),
 * X is m×3, w is p, obs is p×2 (camera, point), feats is p×2.
 */
export interface BaInput {
  n: number;
  m: number;
  p: number;
  cams: Float64Array;
  X: Float64Array;
  w: Float64Array;
  obs: Int32Array;
  feats: Float64Array;
}

/** A sparse matrix in compressed rows: row r holds cols/vals[rows[r] .. rows[r+1]). */
export interface Csr {
  rows: Int32Array;
  cols: Int32Array;
  vals: Float64Array;
}
