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
  blur_batch: { codes: ['TSAD1120'], reason: 'a number[][][] batch of images ([src, dst] = [dst, src] not reported)' },
  conv_pool: { codes: ['TSAD1120'], reason: 'number[][][] images and a number[][][][] batch (Math.max(...[…]) and .forEach compile)' },
  gru: { codes: ['TSAD1120'], reason: "gates as { W: number[][]; U: number[][]; b: number[] }[] (number[][][] batches, the write into affine()'s result and .map(sigmoid) not reported)" },
  householder_qr: { codes: ['TSAD1123'], reason: 'column views cols[k].subarray(k) of a written matrix (writes through the views, c[i] -= …, not reported; .forEach compiles)' },
  kalman_filter: { codes: ['TSAD1122'], reason: 'writes into prior.mean, an array inside the record predict() returned (the const [p, v] = t.mean destructuring compiles; .concat not reported)' },
  mlp: { codes: ['TSAD1120'], reason: "layers as { W: number[][]; b: number[] }[] (writes into matVec()'s result, a = z and console.log not reported)" },
  monte_carlo_option: {
    codes: ['TSAD1102', 'TSAD1108'],
    reason: "the seeded generator's '>>>' and its local function assigning the state (for (const z of normals) over the written new Array(paths) compiles)",
  },
  rkf45: { codes: ['TSAD1108', 'TSAD1121'], reason: 'stage lists [k1, k2] passed as Float64Array[] literals; ++steps inside a condition' },
  total_variation: { codes: ['TSAD1120'], reason: 'number[][][] colour images (.forEach over channels not reported)' },
};
