// grad and valueAndGrad: one straight-line def computes the value and exactly the requested
// gradients on scalar leaves; the wrapper passes fields and elements and builds the user's shapes.
import { valueAndGradOf } from '../ad/drivers';
import { gradName, valueAndGradName } from '../ir/names';
import type { Shape } from './shapes';
import type { Program } from '../ir/syntax';
import { Planner, PlanRequest, checked, paramChecks, wrapperOf } from './request';
import { PlanStatement, array, callDef, index, name, ret } from './syntax';

export const planGrad: Planner = (req) => {
  const { fn, wrt } = req;
  const { m, irArgs } = wrapperOf(fn);
  const withValue = req.kind === 'valueAndGrad';
  // grad beside a valueAndGrad of the same parameters calls its def: the value costs nothing more.
  const shared = withValue ? undefined : req.valueAndGrad;
  const { program, irName } = shared ? { program: shared.program, irName: shared.def } : gradDef(req, withValue);
  const defHasValue = withValue || shared !== undefined;
  const value = defHasValue ? [m.fresh('value')] : [];
  const barLeaves = wrt.map((i) => m.leafNames(`${fn.params[i].name}_bar`, fn.params[i].shape));
  const args = fn.params.flatMap((p, i) => (wrt.includes(i) ? m.leaves(name(p.name), p.shape) : [irArgs[i]]));
  // The parameters are the templates: a cotangent array comes back as long as its parameter.
  const grads = wrt.map((i, k) => m.build(fn.params[i].shape, barLeaves[k], name(fn.params[i].name)));
  const gradient = grads.length === 1 ? grads[0] : array(grads);
  const flatShape = (s: Shape) => s.kind === 'number' || (s.kind === 'tuple' && s.elems.every((c) => c.kind === 'number'));
  const sameShape = wrt.length === 1 ? flatShape(fn.params[wrt[0]].shape) : wrt.every((i) => fn.params[i].shape.kind === 'number');
  if (shared?.wrapper) {
    // The valueAndGrad wrapper's body, run under this wrapper's name: the same check, call and
    // repacking, then the gradient without the value.
    return { program, entries: [irName], params: fn.params.map((p) => p.name), body: [ret(index({ tag: 'runAs', wrapper: shared.wrapper, where: req.where }, 1))] };
  }
  const body: PlanStatement[] = [
    // Matrices packed flat before the call.
    ...m.takePending(),
    ...(!defHasValue && sameShape
      ? // The def already returns the gradient in the user's shape: no copy.
        [ret(callDef(irName, args))]
      : [m.const([...value, ...barLeaves.flat()], callDef(irName, args)), ret(withValue ? array([name(value[0]), gradient]) : gradient)]),
  ];
  return { program, entries: [irName], params: fn.params.map((p) => p.name), body: checked(req.where, paramChecks(fn), body) };
};

/** One def per (transform, wrt) in the module: f.vg, f.grad, f.grad_1 for wrt [1], ... */
function gradDef(req: PlanRequest, withValue: boolean): { program: Program; irName: string } {
  const { fn, wrt } = req;
  const vg = valueAndGradOf(req.program, fn.name, { ...req.driver, wrt, value: withValue, flatSignature: true, vjp: req.driver.forwardGrad ? undefined : req.reverse(true) });
  const allParams = wrt.join('_') === fn.params.map((_, i) => i).join('_');
  const irName = `${withValue ? valueAndGradName(fn.name) : gradName(fn.name)}${allParams ? '' : `_${wrt.join('_')}`}`;
  return { program: { defs: vg.program.defs.map((d) => (d.name === vg.valueAndGrad ? { ...d, name: irName } : d)) }, irName };
}
