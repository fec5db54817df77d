// The entries bench/src/gradbench/tsad.ts gains once gmm and lstm compile: every derivative is
// a tsad transform of the primals, nothing by hand. Not compiled (see README.md); hello, lse,
// llsq, kmeans and ba are already in the tool's table.
import { grad } from 'tsad';
import { table } from '../src/gradbench/evals';
import { gmmObjective, logMultiGamma } from './gmm';
import { lstmObjective } from './lstm';

const dgmm = grad(gmmObjective);
const dlstm = grad(lstmObjective, { wrt: [0, 1] });

export const tsad = table({
  gmm: {
    objective: (data, p) =>
      gmmObjective(p, data.x, data.d, data.k, data.n, data.m, data.gamma, logMultiGamma((data.d + data.m + 1) / 2, data.d)),
    jacobian: (data, p) =>
      dgmm(p, data.x, data.d, data.k, data.n, data.m, data.gamma, logMultiGamma((data.d + data.m + 1) / 2, data.d)),
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
