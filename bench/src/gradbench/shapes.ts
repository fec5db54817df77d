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
