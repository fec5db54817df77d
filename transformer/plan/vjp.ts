// vjp(f, ...primals): the value and a pullback, from the module's one reverse pass of f.
import { Planner, callerParams, checked, ownedParams, paramChecks, wrapperOf } from './request';
import { specOf } from './marshal';
import { array, callDef, fn as func, name, ret } from './syntax';

export const planVjp: Planner = (req) => {
  const { fn } = req;
  const { m, irArgs } = wrapperOf(fn, true);
  const v = req.reverse();
  const [value, tape] = [m.fresh('value'), m.fresh('tape')];
  const bars = fn.params.map((p) => m.fresh(`${p.name}_bar`));
  // A function value of its own: its `arguments` is what its check counts.
  const pullback = func(
    ['cotangent'],
    [
      { tag: 'check', where: `${req.where}'s pullback`, checks: [{ label: 'argument 1', path: 'cotangent', value: 'cotangent', spec: specOf(fn.result, true) }] },
      ...m.lengthChecks(`${req.where}'s pullback`, 'the cotangent', 'the value', name('cotangent'), name(value), fn.result),
      m.const(bars, callDef(v.bwd, [name(tape), m.tangentToIR(name('cotangent'), fn.result, name(value), true)])),
      // Module state, a constant, gets no cotangent.
      ret(array(callerParams(fn).map((p, i) => m.tangentFromIR(name(bars[i]), p.shape, name(p.name))))),
    ],
  );
  return {
    program: v.program,
    entries: [v.fwd, v.bwd],
    params: fn.params.map((p) => p.name),
    body: checked(req.where, paramChecks(fn), [...ownedParams(m, fn), m.const([value, tape], callDef(v.fwd, irArgs)), ret(array([m.fromIR(name(value), fn.result), pullback]))]),
  };
};
