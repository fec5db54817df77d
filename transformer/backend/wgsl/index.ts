// The WGSL backend's entry: the device program of `gpu(f)`, `gpu(grad(f))` or
// `gpu(valueAndGrad(f))` (runtime/webgpu/plan.ts). The IR comes from the same drivers as the
// TypeScript backend's (the value-and-gradient def with a flat signature); lower.ts turns it into
// kernels. What is not on the GPU yet throws NotOnGpu, which the compiler reports as TSAD1011.
import { valueAndGradOf, DriverOptions } from '../../ad/drivers';
import { annotateTypes } from '../../ir/check';
import type { Program } from '../../ir/syntax';
import type { Reverse } from '../../plan/request';
import type { Shape } from '../../plan/shapes';
import type { GpuProgram } from '../../../runtime/webgpu/plan';
import { NotOnGpu, gpuDef, lowerToGpu } from './lower';

export { NotOnGpu } from './lower';

export interface GpuRequest {
  /** `gpu(grad(loss))`, for messages. */
  readonly where: string;
  /** undefined: the function itself. */
  readonly transform?: 'grad' | 'valueAndGrad';
  readonly wrt: readonly number[];
}

export interface GpuFunction {
  readonly name: string;
  readonly params: readonly { readonly name: string; readonly shape: Shape }[];
  readonly result: Shape;
}

const onGpu = (s: Shape): boolean => s.kind === 'number' || (s.kind === 'array' && s.elem.kind === 'number');

export function gpuProgramOf(program: Program, fn: GpuFunction, req: GpuRequest, driver: DriverOptions, reverse: () => Reverse): GpuProgram {
  for (const p of fn.params) {
    if (!onGpu(p.shape)) throw new NotOnGpu(`the parameter '${p.name}' (only numbers and arrays of numbers are on the GPU yet)`);
  }
  if (!onGpu(fn.result)) throw new NotOnGpu('the result (only a number or an array of numbers is on the GPU yet)');
  const paramNames = fn.params.map((p) => p.name);
  if (!req.transform) {
    const typed = annotateTypes(program);
    return lowerToGpu(gpuDef(typed, fn.name), { where: req.where, paramNames, likes: [undefined], tuple: false });
  }
  if (req.wrt.length !== 1) throw new NotOnGpu('a gradient with respect to several parameters');
  const withValue = req.transform === 'valueAndGrad';
  const vg = valueAndGradOf(program, fn.name, { ...driver, wrt: req.wrt, value: withValue, flatSignature: true, vjp: driver.forwardGrad ? undefined : reverse() });
  const typed = annotateTypes(vg.program);
  const grad = fn.params[req.wrt[0]].shape.kind === 'array' ? req.wrt[0] : undefined;
  return lowerToGpu(gpuDef(typed, vg.valueAndGrad), { where: req.where, paramNames, likes: withValue ? [undefined, grad] : [grad], tuple: withValue });
}
