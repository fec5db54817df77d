// jvp(f, primals, tangents): forward mode, one fused def returning the value and its tangent.
import { jvpOf } from '../ad/drivers';
import { eraseProgram } from '../ad/erase';
import { erasedName } from '../ir/names';
import { annotateTypes } from '../language/check';
import { simplifyProgram } from '../opt/simplify';
import { visitBlock } from '../ir/traverse';
import type { Program } from '../ir/syntax';
import { Planner, callerParams, checked, shownName, wrapperOf } from './request';
import { listSpec, specOf } from './marshal';
import { PlanStatement, array, callDef, index, name, ret } from './syntax';

export const planJvp: Planner = (req) => {
  const { fn } = req;
  const { m } = wrapperOf(fn, true);
  const j0 = jvpOf(req.program, fn.name, { ...req.driver, inline: true });
  // Erased and simplified again: a tangent J carried through a loop for a result nobody reads
  // (the min fold's in jvp(grad(f))) is linear before, so only then can it go. Straight-line code
  // has no such carry: it keeps J's def, shared with the module's other forward-mode sites.
  const erase = carriesThroughBodies(j0.program, j0.jvp);
  const jvp = erase ? erasedName(j0.jvp) : j0.jvp;
  const j = erase ? { program: annotateTypes(simplifyProgram(eraseProgram(j0.program, [j0.jvp]), [jvp])), jvp } : j0;
  const caller = callerParams(fn);
  // Module state (after the caller's parameters) is bound by name, and constant.
  const prim = fn.params.map((p, i) => m.toIR(p.read ? name(p.name) : index(name('primals'), i), p.shape));
  const tan = fn.params.map((p, i) => (p.read ? m.zeros(p.shape) : m.tangentToIR(index(name('tangents'), i), p.shape, index(name('primals'), i))));
  // A tangent array must be as long as its primal (checked once, before any work).
  const lengths: PlanStatement[] = caller.flatMap((p, i) =>
    m.lengthChecks(req.where, `the tangent of '${shownName(p)}'`, `'${shownName(p)}'`, index(name('tangents'), i), index(name('primals'), i), p.shape),
  );
  const [y, yDot] = [m.fresh('value'), m.fresh('tangent')];
  const checks = ['primals', 'tangents'].map((list, k) => ({
    label: `argument ${k + 1}`,
    path: list,
    value: list,
    spec: listSpec(caller.map((p) => [shownName(p), specOf(p.shape, k === 1)] as const)),
  }));
  return {
    program: j.program,
    entries: [j.jvp],
    params: ['primals', 'tangents'],
    body: checked(req.where, checks, [
      ...lengths,
      m.const([y, yDot], callDef(j.jvp, [...prim, ...tan])),
      ret(array([m.fromIR(name(y), fn.result), m.tangentFromIR(name(yDot), fn.result, name(y), true)])),
    ]),
  };
};

/** Whether the def runs any construct (a loop, a branch, a combinator), whose bodies carry values. */
function carriesThroughBodies(p: Program, fn: string): boolean {
  const def = p.defs.find((d) => d.name === fn);
  if (!def) return true;
  let found = false;
  visitBlock(def.body, {
    expr: (e) => {
      if (e.tag === 'construct') found = true;
    },
  });
  return found;
}
