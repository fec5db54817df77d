// The hand-written derivatives (bench/src/hand) as a GradBench tool mode: the reference column
// that tsad's derivatives are measured against.
import { table } from './evals';
import { lse, lseGradient } from '../hand/lse';
import { llsq, llsqGradient } from '../hand/llsq';
import { gmmObjective, gmmGradient } from '../hand/gmm';
import { kmeansCost, kmeansDir } from '../hand/kmeans';
import { lstmObjective, lstmGradient } from '../hand/lstm';
import { baObjective, baJacobian } from '../hand/ba';

export const hand = table({
  hello: { square: (x) => x * x, double: (x) => 2 * x },
  lse: { primal: (x) => lse(x), gradient: (x) => lseGradient(x) },
  llsq: { primal: llsq, gradient: (x, n) => llsqGradient(x, n) },
  gmm: { objective: gmmObjective, jacobian: gmmGradient },
  kmeans: { cost: kmeansCost, dir: kmeansDir },
  lstm: { objective: lstmObjective, jacobian: lstmGradient },
  ba: { objective: baObjective, jacobian: baJacobian },
});
