// Bundle adjustment (GradBench ba, from ADBench) and its sparse Jacobian, by hand. Per
// observation i of camera c and point X with weight w:
//   P = X − C,  Xcam = R(r)·P (Rodrigues),  (u, v) = Xcam₀₁ / Xcam₂,
//   L = 1 + k1·ρ + k2·ρ², ρ = u² + v²,  proj = f·L·(u, v) + (u0, v0),
//   reproj_err = w·(proj − feat),  w_err = 1 − w².
// The Jacobian has one 2×15 block per observation (11 camera columns, 3 point columns, 1 weight
// column) and one entry −2w per weight, laid out as compressed rows: the 2p reprojection rows
// first, then the p weight rows.
import type { BaInput, Csr } from '../gradbench/shapes';

const NCAM = 11;
/** Entries of one reprojection row in the Jacobian: 11 camera + 3 point + 1 weight. */
const ROW = NCAM + 3 + 1;

/**
 * Xcam = R(r)·P with R = cos θ·I + sin θ·[ŵ]× + (1 − cos θ)·ŵŵᵀ, ŵ = r/θ (and I + [r]× at θ = 0,
 * as the reference does). With `dR` and `dr` given, also writes ∂Xcam/∂P (= R) and ∂Xcam/∂r,
 * both row-major 3×3.
 */
function rotate(
  cams: Float64Array, co: number, P0: number, P1: number, P2: number,
  out: Float64Array, dR?: Float64Array, dr?: Float64Array,
): void {
  const r0 = cams[co], r1 = cams[co + 1], r2 = cams[co + 2];
  const sq = r0 * r0 + r1 * r1 + r2 * r2;
  if (sq === 0) {
    out[0] = P0 + (r1 * P2 - r2 * P1);
    out[1] = P1 + (r2 * P0 - r0 * P2);
    out[2] = P2 + (r0 * P1 - r1 * P0);
    if (dR && dr) {
      dR[0] = 1; dR[1] = -r2; dR[2] = r1;
      dR[3] = r2; dR[4] = 1; dR[5] = -r0;
      dR[6] = -r1; dR[7] = r0; dR[8] = 1;
      // ∂(r × P)/∂r = −[P]×
      dr[0] = 0; dr[1] = P2; dr[2] = -P1;
      dr[3] = -P2; dr[4] = 0; dr[5] = P0;
      dr[6] = P1; dr[7] = -P0; dr[8] = 0;
    }
    return;
  }
  const th = Math.sqrt(sq);
  const c = Math.cos(th), s = Math.sin(th), inv = 1 / th;
  const w0 = r0 * inv, w1 = r1 * inv, w2 = r2 * inv;
  const q0 = w1 * P2 - w2 * P1, q1 = w2 * P0 - w0 * P2, q2 = w0 * P1 - w1 * P0; // ŵ × P
  const d = w0 * P0 + w1 * P1 + w2 * P2;
  const omc = 1 - c;
  out[0] = P0 * c + q0 * s + w0 * d * omc;
  out[1] = P1 * c + q1 * s + w1 * d * omc;
  out[2] = P2 * c + q2 * s + w2 * d * omc;
  if (!dR || !dr) return;
  dR[0] = c + omc * w0 * w0; dR[1] = -s * w2 + omc * w0 * w1; dR[2] = s * w1 + omc * w0 * w2;
  dR[3] = s * w2 + omc * w1 * w0; dR[4] = c + omc * w1 * w1; dR[5] = -s * w0 + omc * w1 * w2;
  dR[6] = -s * w1 + omc * w2 * w0; dR[7] = s * w0 + omc * w2 * w1; dR[8] = c + omc * w2 * w2;
  // With M = ∂ŵ/∂r = (I − ŵŵᵀ)/θ and ∂θ/∂r = ŵᵀ:
  //   ∂Xcam/∂r = (−s·P + c·q + s·d·ŵ) ŵᵀ + s·(−[P]× M) + (1 − c)(ŵ (MP)ᵀ + d·M)
  // (M is symmetric, so PᵀM = (MP)ᵀ).
  const a0 = -s * P0 + c * q0 + s * d * w0;
  const a1 = -s * P1 + c * q1 + s * d * w1;
  const a2 = -s * P2 + c * q2 + s * d * w2;
  const mp0 = (P0 - w0 * d) * inv, mp1 = (P1 - w1 * d) * inv, mp2 = (P2 - w2 * d) * inv;
  for (let j = 0; j < 3; j++) {
    // Column j of M.
    const wj = j === 0 ? w0 : j === 1 ? w1 : w2;
    const m0 = ((j === 0 ? 1 : 0) - w0 * wj) * inv;
    const m1 = ((j === 1 ? 1 : 0) - w1 * wj) * inv;
    const m2 = ((j === 2 ? 1 : 0) - w2 * wj) * inv;
    // −[P]× m = m × P
    const x0 = m1 * P2 - m2 * P1, x1 = m2 * P0 - m0 * P2, x2 = m0 * P1 - m1 * P0;
    const mpj = j === 0 ? mp0 : j === 1 ? mp1 : mp2;
    dr[j] = a0 * wj + s * x0 + omc * (w0 * mpj + d * m0);
    dr[3 + j] = a1 * wj + s * x1 + omc * (w1 * mpj + d * m1);
    dr[6 + j] = a2 * wj + s * x2 + omc * (w2 * mpj + d * m2);
  }
}

/** The reprojection error of observation i into err[2i], err[2i+1]. */
function reprojError(inp: BaInput, i: number, Xcam: Float64Array, err: Float64Array): void {
  const co = inp.obs[2 * i] * NCAM;
  const xo = inp.obs[2 * i + 1] * 3;
  const { cams, X } = inp;
  rotate(cams, co, X[xo] - cams[co + 3], X[xo + 1] - cams[co + 4], X[xo + 2] - cams[co + 5], Xcam);
  const u = Xcam[0] / Xcam[2], v = Xcam[1] / Xcam[2];
  const rho = u * u + v * v;
  const L = 1 + cams[co + 9] * rho + cams[co + 10] * rho * rho;
  const f = cams[co + 6];
  const w = inp.w[i];
  err[2 * i] = w * (u * L * f + cams[co + 7] - inp.feats[2 * i]);
  err[2 * i + 1] = w * (v * L * f + cams[co + 8] - inp.feats[2 * i + 1]);
}

export function baObjective(inp: BaInput): { reprojErr: Float64Array; wErr: Float64Array } {
  const reprojErr = new Float64Array(2 * inp.p);
  const wErr = new Float64Array(inp.p);
  const Xcam = new Float64Array(3);
  for (let i = 0; i < inp.p; i++) reprojError(inp, i, Xcam, reprojErr);
  for (let i = 0; i < inp.p; i++) wErr[i] = 1 - inp.w[i] * inp.w[i];
  return { reprojErr, wErr };
}

/**
 * The 2×15 block of observation i, row-major: columns r1 r2 r3 C1 C2 C3 f u0 v0 k1 k2, X1 X2 X3,
 * w. Chain: err = w·(f·D(u, v) + pp − feat), (u, v) = π(Xcam), Xcam = R(r)(X − C).
 */
function reprojBlock(
  inp: BaInput, i: number, Xcam: Float64Array, dR: Float64Array, dr: Float64Array, J: Float64Array, jo: number,
): void {
  const co = inp.obs[2 * i] * NCAM;
  const xo = inp.obs[2 * i + 1] * 3;
  const { cams, X } = inp;
  rotate(cams, co, X[xo] - cams[co + 3], X[xo + 1] - cams[co + 4], X[xo + 2] - cams[co + 5], Xcam, dR, dr);
  const z = Xcam[2], iz = 1 / z;
  const u = Xcam[0] * iz, v = Xcam[1] * iz;
  const rho = u * u + v * v;
  const k1 = cams[co + 9], k2 = cams[co + 10];
  const L = 1 + k1 * rho + k2 * rho * rho;
  const f = cams[co + 6];
  const w = inp.w[i];
  // ∂(distorted)/∂(u, v) = L·I + (u, v)ᵀ∇L, ∇L = 2(k1 + 2k2ρ)(u, v); scaled by w·f.
  const g = 2 * (k1 + 2 * k2 * rho);
  const wf = w * f;
  const D00 = wf * (L + u * g * u), D01 = wf * (u * g * v);
  const D10 = wf * (v * g * u), D11 = wf * (L + v * g * v);
  // A = D·∂π/∂Xcam, ∂π/∂Xcam = [[1/z, 0, −u/z], [0, 1/z, −v/z]].
  const A00 = D00 * iz, A01 = D01 * iz, A02 = -(D00 * u + D01 * v) * iz;
  const A10 = D10 * iz, A11 = D11 * iz, A12 = -(D10 * u + D11 * v) * iz;
  for (let row = 0; row < 2; row++) {
    const a0 = row === 0 ? A00 : A10, a1 = row === 0 ? A01 : A11, a2 = row === 0 ? A02 : A12;
    const o = jo + row * ROW;
    for (let j = 0; j < 3; j++) {
      J[o + j] = a0 * dr[j] + a1 * dr[3 + j] + a2 * dr[6 + j];
      const dx = a0 * dR[j] + a1 * dR[3 + j] + a2 * dR[6 + j];
      J[o + 3 + j] = -dx; // C
      J[o + NCAM + j] = dx; // X
    }
    const du = row === 0 ? u : v;
    J[o + 6] = w * du * L; // f
    J[o + 7] = row === 0 ? w : 0; // u0
    J[o + 8] = row === 0 ? 0 : w; // v0
    J[o + 9] = wf * du * rho; // k1
    J[o + 10] = wf * du * rho * rho; // k2
    J[o + 14] = f * du * L + cams[co + 7 + row] - inp.feats[2 * i + row]; // w
  }
}

export function baJacobian(inp: BaInput): Csr {
  const { n, m, p } = inp;
  const nnz = 2 * ROW * p + p;
  const rows = new Int32Array(3 * p + 1);
  const cols = new Int32Array(nnz);
  const vals = new Float64Array(nnz);
  const Xcam = new Float64Array(3);
  const dR = new Float64Array(9);
  const dr = new Float64Array(9);
  const pointCol = NCAM * n;
  const weightCol = NCAM * n + 3 * m;
  for (let i = 0; i < p; i++) {
    const base = 2 * ROW * i;
    reprojBlock(inp, i, Xcam, dR, dr, vals, base);
    const camCol = NCAM * inp.obs[2 * i];
    const ptCol = pointCol + 3 * inp.obs[2 * i + 1];
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
    vals[o] = -2 * inp.w[i];
    rows[2 * p + i + 1] = o + 1;
  }
  return { rows, cols, vals };
}
