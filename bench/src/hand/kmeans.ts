// k-means cost f(P, C) = Σ_i min_j |C_j − P_i|² and the Newton direction J·H⁻¹ of GradBench's
// kmeans eval, by hand. The min's adjoint goes only to the arg-minimum (lowest index wins ties),
// so J_j = Σ_{i→j} 2(C_j − P_i) and the Hessian is diagonal with H_j = 2·|{i→j}| per coordinate.
// Points and centroids are row-major (n×d and k×d).

export function kmeansCost(points: Float64Array, centroids: Float64Array, d: number): number {
  const n = points.length / d;
  const k = centroids.length / d;
  let cost = 0;
  for (let i = 0; i < n; i++) {
    const pi = i * d;
    let best = Infinity;
    for (let j = 0; j < k; j++) {
      const cj = j * d;
      let dist = 0;
      for (let c = 0; c < d; c++) {
        const e = points[pi + c] - centroids[cj + c];
        dist += e * e;
      }
      if (dist < best) best = dist;
    }
    cost += best;
  }
  return cost;
}

/** Index of the closest centroid to point i (lowest index on ties). */
function closest(points: Float64Array, pi: number, centroids: Float64Array, k: number, d: number): number {
  let best = Infinity;
  let arg = 0;
  for (let j = 0; j < k; j++) {
    const cj = j * d;
    let dist = 0;
    for (let c = 0; c < d; c++) {
      const e = points[pi + c] - centroids[cj + c];
      dist += e * e;
    }
    if (dist < best) {
      best = dist;
      arg = j;
    }
  }
  return arg;
}

/** The gradient J (k×d) and the Hessian diagonal H (k×d) of the cost with respect to C. */
export function kmeansGradHessDiag(
  points: Float64Array,
  centroids: Float64Array,
  d: number,
  J: Float64Array = new Float64Array(centroids.length),
  H: Float64Array = new Float64Array(centroids.length),
): { J: Float64Array; H: Float64Array } {
  const n = points.length / d;
  const k = centroids.length / d;
  J.fill(0);
  H.fill(0);
  for (let i = 0; i < n; i++) {
    const pi = i * d;
    const cj = closest(points, pi, centroids, k, d) * d;
    for (let c = 0; c < d; c++) {
      J[cj + c] += 2 * (centroids[cj + c] - points[pi + c]);
      H[cj + c] += 2;
    }
  }
  return { J, H };
}

/** The Newton direction J·H⁻¹ (elementwise, H being diagonal), k×d. */
export function kmeansDir(points: Float64Array, centroids: Float64Array, d: number): Float64Array {
  const { J, H } = kmeansGradHessDiag(points, centroids, d);
  for (let q = 0; q < J.length; q++) J[q] /= H[q];
  return J;
}
