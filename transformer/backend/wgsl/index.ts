// The WGSL backend's entry: the device program of `gpu(f)`, `gpu(grad(f))` or
// `gpu(valueAndGrad(f))` (runtime/webgpu/plan.ts). The IR comes from the same drivers as the
// TypeScript backend's (the value-and-gradient def with a flat signature); lower.ts turns it into
// kernels. What is not on the GPU yet throws NotOnGpu, which the compiler reports as TSAD1011.
import { valueAndGradOf, DriverOptions, fuse, hvpOf } from '../../ad/drivers';
import { annotateTypes } from '../../language/check';
import { calleesOf } from '../../ir/traverse';
import { inlineProgram } from '../../opt/inline';
import { Builder, NameSupply } from '../../ir/build';
import { FnDef, Program, REAL, binder, call, construct, lit, ret } from '../../ir/syntax';
import type { Reverse } from '../../plan/request';
import type { Shape } from '../../plan/shapes';
import type { GpuProgram } from '../../../runtime/webgpu/plan';
import { NotOnGpu, gpuDef, lowerToGpu } from './lower';

export { NotOnGpu } from './lower';

export interface GpuRequest {
  /** `gpu(grad(loss))`, for messages. */
  readonly where: string;
  /** undefined: the function itself. */
  readonly transform?: 'grad' | 'valueAndGrad' | 'hvp';
  readonly wrt: readonly number[];
}

export interface GpuFunction {
  readonly name: string;
  readonly params: readonly { readonly name: string; readonly shape: Shape }[];
  readonly result: Shape;
}

const numbers = (s: Shape): boolean => s.kind === 'array' && s.elem.kind === 'number';
/** Numbers, arrays of numbers and matrices (arrays of arrays of numbers), and objects of numbers and arrays of numbers. */
const onGpu = (s: Shape): boolean =>
  s.kind === 'number' || numbers(s) || (s.kind === 'array' && numbers(s.elem)) || (s.kind === 'object' && s.fields.every(([, f]) => f.kind === 'number' || numbers(f)));
/** Per parameter, its fields' names when it is an object (the IR's tuple, in this order). */
const fieldsOf = (fn: GpuFunction) => fn.params.map((p) => (p.shape.kind === 'object' ? p.shape.fields.map(([name]) => name) : undefined));

export function gpuProgramOf(program: Program, fn: GpuFunction, req: GpuRequest, driver: DriverOptions, reverse: () => Reverse): GpuProgram {
  for (const p of fn.params) {
    if (!onGpu(p.shape)) throw new NotOnGpu(`the parameter '${p.name}' (only numbers, arrays of numbers, matrices and objects of numbers and arrays are on the GPU yet)`);
  }
  if (!onGpu(fn.result) || fn.result.kind === 'object') throw new NotOnGpu('the result (only a number, an array of numbers or a matrix is on the GPU yet)');
  const paramNames = fn.params.map((p) => p.name);
  if (!req.transform) {
    const typed = inlined(annotateTypes(program), fn.name);
    return lowerToGpu(gpuDef(typed, fn.name), { where: req.where, paramNames, fields: fieldsOf(fn), likes: [undefined], tuple: false });
  }
  if (req.wrt.length !== 1) throw new NotOnGpu('a gradient with respect to several parameters');
  if (req.transform === 'hvp') return hvpProgram(program, fn, req, driver);
  const withValue = req.transform === 'valueAndGrad';
  // A matrix parameter stays one (data, rows, cols) tuple, which the lowering takes as a matrix.
  // So does an object (a tuple of its fields, which comes back as an object).
  const matrix = (fn.params[req.wrt[0]].shape.kind === 'array' && !numbers(fn.params[req.wrt[0]].shape)) || fn.params[req.wrt[0]].shape.kind === 'object';
  const vg = valueAndGradOf(program, fn.name, { ...driver, wrt: req.wrt, value: withValue, flatSignature: !matrix, vjp: driver.forwardGrad ? undefined : reverse() });
  const typed = inlined(annotateTypes(vg.program), vg.valueAndGrad);
  const wrtShape = fn.params[req.wrt[0]].shape;
  const grad = wrtShape.kind === 'array' || wrtShape.kind === 'object' ? req.wrt[0] : undefined;
  return lowerToGpu(gpuDef(typed, vg.valueAndGrad), { where: req.where, paramNames, fields: fieldsOf(fn), likes: withValue ? [undefined, grad] : [grad], tuple: withValue });
}

/** The program with every call in `entry` inlined (a device program is one def): calls of other marked functions. */
function inlined(program: Program, entry: string): Program {
  const def = gpuDef(program, entry);
  // Whatever their size: a device program has no calls (the CPU path's budget keeps big callees as calls).
  return calleesOf(def.body).size === 0 ? program : annotateTypes(inlineProgram(program, [entry], { maxCalleeSize: Infinity, maxSingleUseSize: Infinity, maxSize: Infinity, loops: true }));
}

/**
 * `gpu(hvp(f, { wrt: [w] }))(...args, v)`: H·v in parameter w. The hvp def (forward over the
 * reverse-mode gradient) takes a direction per parameter; a def of the user's signature plus v
 * calls it with zero directions elsewhere, and everything is inlined into one straight-line def.
 */
function hvpProgram(program: Program, fn: GpuFunction, req: GpuRequest, driver: DriverOptions): GpuProgram {
  const [w] = req.wrt;
  const { program: withHvp, hvp } = hvpOf(program, fn.name, { ...driver, forwardGrad: undefined });
  const typed = annotateTypes(withHvp);
  const inner = gpuDef(typed, hvp);
  const k = fn.params.length;
  const params = inner.nlParams.slice(0, k);
  const dirs = inner.nlParams.slice(k);
  const names = new NameSupply(params.map((p) => p.name));
  const v = binder(names.fresh('v'), dirs[w].type);
  const b = new Builder(names);
  // A zero direction: 0, or an empty array (a sparse zero: maps read 0 past its end).
  const dirNames = dirs.map((d, i) => {
    if (i === w) return v.name;
    const z = b.nl(`${d.name}_zero`, lit(0), REAL);
    return d.type?.tag === 'array' ? b.nl(`${d.name}_empty`, construct('fill', [z, z], [], []), d.type) : z;
  });
  const outs = dirs.map((d) => binder(names.fresh(`${d.name}_hv`), d.type));
  b.bind(outs, [], call(hvp, [...params.map((p) => p.name), ...dirNames]));
  outs.forEach((o, i) => {
    if (i !== w) b.drop({ tag: 'var', linear: false, name: o.name });
  });
  const name = `${hvp}_gpu`;
  const def: FnDef = { name, role: inner.role, nlParams: [...params, v], linParams: [], nlResults: [inner.nlResults[w]], linResults: [], body: b.finish(ret([outs[w].name])) };
  const fused = annotateTypes(fuse({ defs: [...typed.defs, def] }, name, driver));
  const paramNames = [...fn.params.map((p) => p.name), 'v'];
  const like = fn.params[w].shape.kind === 'array' ? w : undefined;
  return lowerToGpu(gpuDef(fused, name), { where: req.where, paramNames, likes: [like], tuple: false });
}
