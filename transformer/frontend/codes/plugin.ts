// Codes TSAD1001-1099: markers, call sites, project set-up.
import type { DiagnosticSpec } from './spec';

export const PLUGIN_CODES: Readonly<Record<number, DiagnosticSpec>> = {
  1001: {
    title: 'not a differentiable function',
    hint: 'mark the function with @differentiable, a /** @differentiable */ comment, or wrap it in differentiable(...)',
  },
  1002: {
    title: 'wrt names a parameter that cannot be differentiated',
    hint: 'wrt lists the names or indices of number-valued parameters (numbers, tuples and objects of numbers)',
  },
  1003: { title: 'transform options must be a literal', hint: 'write the options inline, e.g. grad(f, { wrt: [0, 1] })' },
  1004: { title: 'grad needs a number result', hint: 'grad and valueAndGrad differentiate scalar functions; use jacobian or vjp for others' },
  1005: { title: 'wrong arguments to a transform', hint: 'see the API: grad(f, options?), jvp(f, primals, tangents), vjp(f, ...primals)' },
  1006: {
    title: 'transform of a transform',
    hint: 'derivatives of derivatives are not compiled yet: use hessian(f) for the matrix of second derivatives or hvp(f)(x, v) for Hessian-vector products',
  },
  // 1007 (second derivative through a loop) is retired: hessian and hvp differentiate loops.
};
