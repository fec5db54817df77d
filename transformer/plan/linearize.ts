// linearize(f, ...primals): the value and the linear part as a function of the tangents, which
// runs only the linear def on the tape the primal pass saved.
import { linearizeOf } from '../ad/drivers';
import { Planner, callerParams, checked, ownedParams, paramChecks, shownName, wrapperOf } from './request';
import { specOf } from './marshal';
import { array, callDef, fn as func, name, ret } from './syntax';

export const planLinearize: Planner = (req) => {
  const { fn } = req;
  const { m, irArgs } = wrapperOf(fn, true);
  const l = linearizeOf(req.program, fn.name, req.driver);
  const [value, tape] = [m.fresh('value'), m.fresh('tape')];
  const caller = callerParams(fn);
  const dots = caller.map((p) => m.fresh(`${p.name}_dot`));
  const tangentChecks = caller.map((p, i) => ({ label: `argument ${i + 1}`, path: shownName(p), value: dots[i], spec: specOf(p.shape, true) }));
  const fLin = func(dots, [
    { tag: 'check', where: `${req.where}'s linear function`, checks: tangentChecks },
    ...caller.flatMap((p, i) => m.lengthChecks(`${req.where}'s linear function`, `the tangent of '${shownName(p)}'`, `'${shownName(p)}'`, name(dots[i]), name(p.name), p.shape)),
    // The tangent's arrays as long as the value's (the IR's may be shorter: zeros left out);
    // module state is a constant.
    ret(m.tangentFromIR(callDef(l.lin, [name(tape), ...fn.params.map((p, i) => (p.read ? m.zeros(p.shape) : m.tangentToIR(name(dots[i]), p.shape, name(p.name))))]), fn.result, name(value), true)),
  ]);
  return {
    program: l.program,
    entries: [l.fwd, l.lin],
    params: fn.params.map((p) => p.name),
    body: checked(req.where, paramChecks(fn), [...ownedParams(m, fn), m.const([value, tape], callDef(l.fwd, irArgs)), ret(array([m.fromIR(name(value), fn.result), fLin]))]),
  };
};
