// The whole table bench/src/gradbench/tsad.ts will become once gmm and lstm compile: every
// derivative is a tsad transform of the primals, nothing by hand. lse, llsq, kmeans (and ba) are
// already in bench/src/gradbench/tsad.ts; this file is not compiled (see README.md).
import { grad, hvp } from 'tsad';
import { table } from '../src/gradbench/evals';
import { hello } from '../src/gradbench/hello';
import { lse } from '../src/tsad/lse';
import { llsq } from '../src/tsad/llsq';
import { kmeansCost } from '../src/tsad/kmeans';
import { gmmObjective, logMultiGamma } from './gmm';
import { lstmObjective } from './lstm';

const dlse = grad(lse);
const dllsq = grad(llsq);
const dkmeans = grad(kmeansCost);
const hkmeans = hvp(kmeansCost);
const dgmm = grad(gmmObjective);
const dlstm = grad(lstmObjective, { wrt: [0, 1] });

export const tsad = table({
  hello,
  lse: { primal: lse, gradient: dlse },
  llsq: { primal: llsq, gradient: dllsq },
  gmm: {
    objective: (data, p) =>
      gmmObjective(p, data.x, data.d, data.k, data.n, data.m, data.gamma, logMultiGamma((data.d + data.m + 1) / 2, data.d)),
    jacobian: (data, p) =>
      dgmm(p, data.x, data.d, data.k, data.n, data.m, data.gamma, logMultiGamma((data.d + data.m + 1) / 2, data.d)),
  },
  kmeans: {
    cost: (points, centroids, d) => kmeansCost(centroids, points, d),
    // H is diagonal, so H·𝟙 is its diagonal: one Hessian-vector product, then J ⊘ diag(H).
    dir: (points, centroids, d) => {
      const J = dkmeans(centroids, points, d);
      const H = hkmeans(centroids, points, d, new Float64Array(centroids.length).fill(1));
      for (let q = 0; q < J.length; q++) J[q] /= H[q];
      return J;
    },
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
});
