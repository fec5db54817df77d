// jacobian, jacrev, jacfwd: one matrix per differentiated parameter (rows are outputs); several
// wrt give a tuple of them. Rows come from reverse mode (one primal pass, one backward pass per
// output scalar), columns from forward mode (one JVP per input scalar); jacobian picks the mode
// with fewer passes.
import { jvpOf } from '../ad/drivers';
import { Planner, PlanRequest, checked, paramChecks, wrapperOf } from './request';
import { leafCount } from './marshal';
import { CallSitePlan, PlanExpr, PlanStatement, array, callDef, index, name, ret } from './syntax';

export const planJacrev: Planner = (req) => {
  const { fn, wrt } = req;
  const { m, irArgs } = wrapperOf(fn);
  const rows = leafCount(fn.result);
  const pickParam = (all: PlanExpr, w: number) => (fn.params.length === 1 ? all : index(all, w));
  const v = req.reverse();
  const [value, tape] = [m.fresh('value'), m.fresh('tape')];
  const cotangents = Array.from({ length: rows }, (_, r) => {
    const ct = m.fresh(`cotangent_${r}`);
    return { ct, decl: m.const([ct], callDef(v.bwd, [name(tape), m.basis(fn.result, r)])) };
  });
  const matrices = wrt.map((w) => array(cotangents.map(({ ct }) => m.flatten(pickParam(name(ct), w), fn.params[w].shape, 'row'))));
  const body = [m.const([value, tape], callDef(v.fwd, irArgs)), ...cotangents.map((c) => c.decl), ...m.takePending()];
  return result(req, { program: v.program, entries: [v.fwd, v.bwd] }, body, matrices);
};

export const planJacfwd: Planner = (req) => {
  const { fn, wrt } = req;
  const { m, irArgs } = wrapperOf(fn);
  const rows = leafCount(fn.result);
  const j = jvpOf(req.program, fn.name, { ...req.driver, inline: true });
  const body: PlanStatement[] = [];
  const matrices = wrt.map((w) => {
    const cols = Array.from({ length: leafCount(fn.params[w].shape) }, (_, c) => {
      const tangents = fn.params.map((p, i) => (i === w ? m.basis(p.shape, c) : m.zeros(p.shape)));
      return m.flatten(index(callDef(j.jvp, [...irArgs, ...tangents]), 1), fn.result, 'column');
    });
    const columns = m.fresh(wrt.length === 1 ? 'columns' : `columns_${fn.params[w].name}`);
    body.push(...m.takePending(), m.const([columns], array(cols)));
    return m.transpose(columns, rows, cols.length);
  });
  return result(req, { program: j.program, entries: [j.jvp] }, body, matrices);
};

/** Reverse mode when the function has fewer outputs than differentiated inputs. */
export const planJacobian: Planner = (req) => {
  const inputs = req.wrt.reduce((n, w) => n + leafCount(req.fn.params[w].shape), 0);
  return leafCount(req.fn.result) < inputs ? planJacrev(req) : planJacfwd(req);
};

function result(req: PlanRequest, defs: Pick<CallSitePlan, 'program' | 'entries'>, body: PlanStatement[], matrices: PlanExpr[]): CallSitePlan {
  body.push(ret(matrices.length === 1 ? matrices[0] : array(matrices)));
  return { ...defs, params: req.fn.params.map((p) => p.name), body: checked(req.where, paramChecks(req.fn), body) };
}
