// GradBench kmeans for tsad: f(C) = Σ_i min_j |C_j − P_i|², centroids first (the differentiated
// argument), points and the dimension d constant. The eval's `dir` is J·H⁻¹ with H diagonal; as
// H is diagonal, H·𝟙 is its diagonal, so bench/src/gradbench/tsad.ts asks tsad for grad(f) and
// for hvp(·)(C, 𝟙), the latter point by point (see pointCost).

/** @differentiable */
export function kmeansCost(centroids: Float64Array, points: Float64Array, d: number): number {
  const n = points.length / d;
  const k = centroids.length / d;
  let cost = 0;
  for (let i = 0; i < n; i++) {
    let best = Infinity;
    for (let j = 0; j < k; j++) {
      let dist = 0;
      for (let c = 0; c < d; c++) {
        const e = points[i * d + c] - centroids[j * d + c];
        dist += e * e;
      }
      best = Math.min(best, dist);
    }
    cost += best;
  }
  return cost;
}

/**
 * One point's term of kmeansCost, min_j |C_j − P|², with P (length d) alone. f = Σ_i of these,
 * so H·𝟙 = Σ_i hvp(pointCost)(C, P_i, 𝟙). The Hessian goes point by point because tsad's
 * hvp(kmeansCost) also accumulates the cotangent of the whole points array (a constant) into a
 * fresh n·d array per point, which makes it quadratic in n.
 * @differentiable
 */
export function pointCost(centroids: Float64Array, point: Float64Array): number {
  const d = point.length;
  const k = centroids.length / d;
  let best = Infinity;
  for (let j = 0; j < k; j++) {
    let dist = 0;
    for (let c = 0; c < d; c++) {
      const e = point[c] - centroids[j * d + c];
      dist += e * e;
    }
    best = Math.min(best, dist);
  }
  return best;
}
