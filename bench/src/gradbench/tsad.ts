// The evals whose derivatives tsad computes: every derivative here is a grad/hvp/jacobian call of
// tsad on a @differentiable primal in bench/src/tsad, nothing by hand. gmm and lstm join as the
// plugin learns writes into arrays (drafts in bench/drafts/).
import { grad, hvp } from 'tsad';
import { table } from './evals';
import { hello } from './hello';
import { lse } from '../tsad/lse';
import { llsq } from '../tsad/llsq';
import { kmeansCost } from '../tsad/kmeans';

const dlse = grad(lse);
const dllsq = grad(llsq);
const dkmeans = grad(kmeansCost);
const hkmeans = hvp(kmeansCost);

export const tsad = table({
  hello,
  lse: { primal: lse, gradient: dlse },
  llsq: { primal: llsq, gradient: dllsq },
  kmeans: {
    cost: (points, centroids, d) => kmeansCost(centroids, points, d),
    // The eval's dir is J·H⁻¹ with H the Hessian in the centroids. H is diagonal (each cost term
    // involves one centroid coordinate at a time, squared), so H·𝟙 is its diagonal: one
    // Hessian-vector product with a ones vector, then J ⊘ diag(H).
    dir: (points, centroids, d) => {
      const J = dkmeans(centroids, points, d);
      const H = hkmeans(centroids, points, d, new Float64Array(centroids.length).fill(1));
      for (let q = 0; q < J.length; q++) J[q] /= H[q];
      return J;
    },
  },
});
