// The evals whose derivatives tsad computes: every derivative is a grad/jvp/jacobian call of tsad
// on a @differentiable primal in bench/src/tsad, nothing by hand.
import { grad, jvp } from 'tsad';
import { table, Impls } from './evals';
import { hello } from './hello';
import { lse } from '../tsad/lse';
import { llsq } from '../tsad/llsq';
import { kmeansCost } from '../tsad/kmeans';
import { baObjective, baJacobian } from '../tsad/ba';
import { gmmObjective, logMultiGamma } from '../tsad/gmm';
import { lstmObjective } from '../tsad/lstm';

const dlse = grad(lse);
const dllsq = grad(llsq);
const dgmm = grad(gmmObjective);
const dlstm = grad(lstmObjective, { wrt: [0, 1] });

/** The maths, for the tool's table and for side-by-side timing (bench/peers/compare.js). */
export const tsadImpls: Impls = {
  hello,
  lse: { primal: lse, gradient: dlse },
  llsq: { primal: llsq, gradient: dllsq },
  kmeans: {
    cost: (points, centroids, d) => kmeansCost(centroids, points, d),
    // The eval's dir is J·H⁻¹ with H the Hessian in the centroids. H is diagonal (each term
    // is a squared difference of one centroid coordinate), so H·𝟙 is its diagonal. Forward over
    // the gradient, as JAX's jvp(grad(f)), gives J and H·𝟙 from one pass over the distances
    // (points and d held still: zero tangents); then J ⊘ diag(H).
    dir: (points, centroids, d) => {
      const ones = new Float64Array(centroids.length).fill(1);
      const [J, H] = jvp(grad(kmeansCost), [centroids, points, d], [ones, new Float64Array(points.length), 0]);
      for (let q = 0; q < J.length; q++) J[q] /= H[q];
      return J;
    },
  },
  gmm: {
    objective: (data, p) => gmmObjective(p, data.x, data.d, data.k, data.n, data.m, data.gamma, logMultiGamma((data.d + data.m + 1) / 2, data.d)),
    jacobian: (data, p) => dgmm(p, data.x, data.d, data.k, data.n, data.m, data.gamma, logMultiGamma((data.d + data.m + 1) / 2, data.d)),
  },
  lstm: {
    objective: (p) => lstmObjective(p.mainParams, p.extraParams, p.state, p.sequence, p.l, p.b),
    jacobian: (p) => {
      const [gMain, gExtra] = dlstm(p.mainParams, p.extraParams, p.state, p.sequence, p.l, p.b);
      const out = new Float64Array(gMain.length + gExtra.length);
      out.set(gMain);
      out.set(gExtra, gMain.length);
      return out;
    },
  },
  // The per-observation blocks are tsad's jacobian of a marked reprojection error (see ba.ts).
  ba: { objective: baObjective, jacobian: baJacobian },
};

export const tsad = table(tsadImpls);
