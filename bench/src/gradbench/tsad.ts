// The evals whose derivatives tsad computes: every derivative is a grad/hvp/jacobian call of tsad
// on a @differentiable primal in bench/src/tsad, nothing by hand. gmm and lstm join as the
// plugin learns writes into arrays (drafts in bench/drafts/).
import { grad, hvp } from 'tsad';
import { table } from './evals';
import { hello } from './hello';
import { lse } from '../tsad/lse';
import { llsq } from '../tsad/llsq';
import { kmeansCost, pointCost } from '../tsad/kmeans';
import { baObjective, baJacobian } from '../tsad/ba';

const dlse = grad(lse);
const dllsq = grad(llsq);
const dkmeans = grad(kmeansCost);
const hpoint = hvp(pointCost);

export const tsad = table({
  hello,
  lse: { primal: lse, gradient: dlse },
  llsq: { primal: llsq, gradient: dllsq },
  kmeans: {
    cost: (points, centroids, d) => kmeansCost(centroids, points, d),
    // The eval's dir is J·H⁻¹ with H the Hessian in the centroids. H is diagonal (each term
    // is a squared difference of one centroid coordinate), so H·𝟙 is its diagonal: Hessian-vector
    // products with a ones vector, summed over the points' terms (see pointCost), then J ⊘ diag(H).
    dir: (points, centroids, d) => {
      const J = dkmeans(centroids, points, d);
      const ones = new Float64Array(centroids.length).fill(1);
      const H = new Float64Array(centroids.length);
      for (let i = 0; i * d < points.length; i++) {
        const h = hpoint(centroids, points.subarray(i * d, i * d + d), ones);
        for (let q = 0; q < H.length; q++) H[q] += h[q];
      }
      for (let q = 0; q < J.length; q++) J[q] /= H[q];
      return J;
    },
  },
  // The per-observation blocks are tsad's jacobian of a marked reprojection error (see ba.ts).
  ba: { objective: baObjective, jacobian: baJacobian },
});
