// One planner per transform: a transform added to TRANSFORMS without one is a compile error.
import type { Planner } from './request';
import type { TransformKind } from './transforms';
import { planGrad } from './grad';
import { planJvp } from './jvp';
import { planVjp } from './vjp';
import { planLinearize } from './linearize';
import { planJacobian, planJacfwd, planJacrev } from './jacobian';
import { planHessian, planHvp } from './hessian';

export const PLANNERS: { readonly [K in TransformKind]: Planner } = {
  grad: planGrad,
  valueAndGrad: planGrad,
  jvp: planJvp,
  vjp: planVjp,
  linearize: planLinearize,
  jacobian: planJacobian,
  jacfwd: planJacfwd,
  jacrev: planJacrev,
  hessian: planHessian,
  hvp: planHvp,
};
