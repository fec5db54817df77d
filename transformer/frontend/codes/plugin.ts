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
    title: 'transform that cannot be nested',
    hint: 'grad, valueAndGrad and hvp (called in place, grad(h)(x)) and jvp(h, [x], [dx]) can be differentiated again and called in differentiable functions; vjp and linearize return functions and hessian and jacobian return matrices: use hvp or jvp for products with them',
  },
  1007: {
    title: 'vjp of a derivative that runs a loop',
    hint: "reverse mode cannot transpose a derivative's loop yet: use forward mode over it, jvp(grad(f), [x], [v]), or hessian(f), hvp(f)(x, v); grad, valueAndGrad, jacobian and hessian of such a derivative work (by forward mode)",
  },
  1008: {
    title: 'unknown checkpoint policy',
    hint: "write checkpoint: 'store' (the default), 'sqrt', { every: 32 } or { levels: 3 } in @differentiable({ ... }) or differentiable(fn, { ... })",
  },
  1009: {
    title: 'a differentiable function held by a variable that is assigned again',
    hint: 'hold a differentiable function in a const (const f = differentiable(...)); give another function another name',
  },
  1010: {
    title: 'a transform used as a value',
    hint: "call the transform where it is named: grad(f), a renamed import (import { grad as g } from 'tsad') or a const holding it (const g = grad); a call through any other value (a let, a parameter, an object's field) is not compiled",
  },
  1011: {
    title: 'not on the GPU yet',
    hint: 'gpu(...) takes a marked function, grad(f), valueAndGrad(f) or hvp(f) (one wrt) over numbers and arrays of numbers whose code is elementwise maps, reductions, scans, gather, scatter, scatter-add, reduceByIndex, matmul and scalar code (docs/backends.md, "The WGSL backend"); call the function without gpu(...) to run it on the CPU',
  },
};
