// Rematerialisation (JAX's `checkpoint`): `remat(ū ; u̇̄) [|ū ; u̇̄| { body }]` runs its body once
// and returns its results. It means nothing to evaluation; it tells U not to save the body's
// residuals but to recompute them from the operands when the linear half needs them, which is how
// a counted loop is checkpointed (ad/checkpoint.ts wraps each segment of a strip-mined loop in
// one). The body is closed: it reads only its parameters.
import type { ConstructRule } from '../types';
import { rematTypeRule } from './typeRule';
import { rematImpl } from './impl';
import { rematJvp } from './jvp';
import { rematUnzip } from './unzip';
import { rematTranspose } from './transpose';
import { pruneBodyResults } from '../prune';
import { rematFuseAdd } from './fuseAdd';
import { rematErase } from './erase';

export const remat: ConstructRule = {
  name: 'remat',
  arity: (e, bodyArity) => (e.bodies.length > 0 ? bodyArity(e.bodies[0]) : { nl: 0, lin: 0 }),
  typeRule: rematTypeRule,
  impl: rematImpl,
  jvp: rematJvp,
  unzip: rematUnzip,
  transpose: rematTranspose,
  erase: rematErase,
  pruneResults: pruneBodyResults,
  fuseAdd: rematFuseAdd,
};
