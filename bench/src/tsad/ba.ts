// GradBench ba (bundle adjustment, from ADBench) for tsad. One observation of camera
// cam = [r1 r2 r3 C1 C2 C3 f u0 v0 k1 k2] and point X with weight w and feature (fx, fy):
//   P = X − C,  Xcam = R(r)·P (Rodrigues),  (u, v) = (Xcam₀, Xcam₁) / Xcam₂,
//   ρ = u² + v²,  L = 1 + k1·ρ + k2·ρ²,  err = w·(f·L·(u, v) + (u0, v0) − (fx, fy)),
// and the weight error 1 − w². The sparse Jacobian is assembled from tsad's derivatives of these
// two marked functions (jacobian and grad); no derivative here is written by hand.
//
// reprojError takes the camera's 11 parameters, the point's 3 coordinates and the weight as
// separate numbers and returns a tuple: with Float64Array camera and point arguments and a
// number[] result, tsad's jacobian measured about 10× slower per observation, jacrev 3×, and
// jacrev does not take a tuple result (TSAD1121); with numbers in, jacobian and vjp cost the same.
// The block comes flat (`flat: true`), written by the derivative straight into its place in the
// Jacobian's values (`out` and `offset`), as the hand-written code writes it: no array per call
// and no copy (2026-11-28; nested rows per parameter cost about 20% more than a flat block copied
// from one reused array, and the copy itself was about a sixth of the time).
import { grad, jacobian } from 'tsad';
import type { BaInput, Csr } from '../gradbench/shapes';

/** @differentiable */
export function reprojError(
  r0: number, r1: number, r2: number, c0: number, c1: number, c2: number, f: number, u0: number, v0: number,
  k1: number, k2: number, X0: number, X1: number, X2: number, w: number, fx: number, fy: number,
): [number, number] {
  const p0 = X0 - c0;
  const p1 = X1 - c1;
  const p2 = X2 - c2;
  const sq = r0 * r0 + r1 * r1 + r2 * r2;
  let x0 = 0;
  let x1 = 0;
  let x2 = 0;
  if (sq !== 0) {
    // R = cos θ·I + sin θ·[ŵ]× + (1 − cos θ)·ŵŵᵀ with θ = |r|, ŵ = r/θ.
    const th = Math.sqrt(sq);
    const c = Math.cos(th);
    const s = Math.sin(th);
    const w0 = r0 / th;
    const w1 = r1 / th;
    const w2 = r2 / th;
    const t = (w0 * p0 + w1 * p1 + w2 * p2) * (1 - c);
    x0 = p0 * c + (w1 * p2 - w2 * p1) * s + w0 * t;
    x1 = p1 * c + (w2 * p0 - w0 * p2) * s + w1 * t;
    x2 = p2 * c + (w0 * p1 - w1 * p0) * s + w2 * t;
  } else {
    // θ = 0: the first-order rotation P + r × P, as ADBench's reference does (sqrt has no
    // derivative at 0).
    x0 = p0 + (r1 * p2 - r2 * p1);
    x1 = p1 + (r2 * p0 - r0 * p2);
    x2 = p2 + (r0 * p1 - r1 * p0);
  }
  const u = x0 / x2;
  const v = x1 / x2;
  const rho = u * u + v * v;
  const L = 1 + k1 * rho + k2 * rho * rho;
  return [w * (u * L * f + u0 - fx), w * (v * L * f + v0 - fy)];
}

/** @differentiable */
export function weightError(w: number): number {
  return 1 - w * w;
}

const NCAM = 11;
/** Entries of one reprojection row in the Jacobian: 11 camera + 3 point + 1 weight. */
const ROW = NCAM + 3 + 1;

const dWeight = grad(weightError);
/**
 * ∂(reprojection error)/∂(11 camera parameters, 3 point coordinates, weight): the 2×15 block
 * written row by row (flat) into the array and at the offset given after the arguments.
 */
const dReproj = jacobian(reprojError, { wrt: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14], flat: true });

export function baObjective(inp: BaInput): { reprojErr: Float64Array; wErr: Float64Array } {
  const { p, cams, X, w, obs, feats } = inp;
  const reprojErr = new Float64Array(2 * p);
  const wErr = new Float64Array(p);
  for (let i = 0; i < p; i++) {
    const co = NCAM * obs[2 * i];
    const xo = 3 * obs[2 * i + 1];
    const e = reprojError(
      cams[co], cams[co + 1], cams[co + 2], cams[co + 3], cams[co + 4], cams[co + 5], cams[co + 6], cams[co + 7],
      cams[co + 8], cams[co + 9], cams[co + 10], X[xo], X[xo + 1], X[xo + 2], w[i], feats[2 * i], feats[2 * i + 1],
    );
    reprojErr[2 * i] = e[0];
    reprojErr[2 * i + 1] = e[1];
  }
  for (let i = 0; i < p; i++) wErr[i] = weightError(w[i]);
  return { reprojErr, wErr };
}

/**
 * The whole Jacobian in compressed rows, laid out as bench/src/hand/ba.ts lays it out: the 2p
 * reprojection rows (11 camera, 3 point, 1 weight columns each) first, then the p weight rows.
 */
export function baJacobian(inp: BaInput): Csr {
  const { n, m, p, cams, X, w, obs, feats } = inp;
  const nnz = 2 * ROW * p + p;
  const rows = new Int32Array(3 * p + 1);
  const cols = new Int32Array(nnz);
  const vals = new Float64Array(nnz);
  const pointCol = NCAM * n;
  const weightCol = NCAM * n + 3 * m;
  for (let i = 0; i < p; i++) {
    const co = NCAM * obs[2 * i];
    const xo = 3 * obs[2 * i + 1];
    // The block's two rows are the Jacobian's rows 2i and 2i + 1: entry (row, j) at vals[base + row * ROW + j].
    const base = 2 * ROW * i;
    dReproj(
      cams[co], cams[co + 1], cams[co + 2], cams[co + 3], cams[co + 4], cams[co + 5], cams[co + 6], cams[co + 7],
      cams[co + 8], cams[co + 9], cams[co + 10], X[xo], X[xo + 1], X[xo + 2], w[i], feats[2 * i], feats[2 * i + 1],
      vals, base,
    );
    const camCol = NCAM * obs[2 * i];
    const ptCol = pointCol + 3 * obs[2 * i + 1];
    for (let row = 0; row < 2; row++) {
      const o = base + row * ROW;
      for (let j = 0; j < NCAM; j++) cols[o + j] = camCol + j;
      for (let j = 0; j < 3; j++) cols[o + NCAM + j] = ptCol + j;
      cols[o + 14] = weightCol + i;
      rows[2 * i + row + 1] = o + ROW;
    }
  }
  for (let i = 0; i < p; i++) {
    const o = 2 * ROW * p + i;
    cols[o] = weightCol + i;
    vals[o] = dWeight(w[i]);
    rows[2 * p + i + 1] = o + 1;
  }
  return { rows, cols, vals };
}
