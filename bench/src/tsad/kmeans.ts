// GradBench kmeans for tsad: f(C) = Σ_i min_j |C_j − P_i|², centroids first (the differentiated
// argument), points and the dimension d constant. The eval's `dir` is J·H⁻¹ with H diagonal; as
// H is diagonal, H·𝟙 is its diagonal, so bench/src/gradbench/tsad.ts asks tsad for both at once:
// jvp(grad(f), [C, P, d], [𝟙, 0, 0]) gives [∇f, H·𝟙] from one pass.

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
