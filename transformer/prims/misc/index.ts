// stop_gradient: the identity whose derivative is zero (the IR form of `stopGradient(x)`).
import { nonDifferentiable, realOp, unary, anywhere } from '../helpers';
import type { PrimDef } from '../types';

export const stop_gradient: PrimDef = {
  name: 'stop_gradient',
  arity: unary,
  typeRule: realOp('stop_gradient'),
  impl: (x) => x,
  jvp: nonDifferentiable,
  test: { ...anywhere, zeroDerivative: true },
};
