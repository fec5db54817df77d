// cond: `let (ȳ ; ẏ̄) = cond(p, x̄ ; ẋ̄) [|ā: τ̄ ; ȧ: σ̄| { then }, |ā: τ̄ ; ȧ: σ̄| { else }]`.
// nl[0] is the bool predicate; the other operands are the parameters of whichever body runs.
// Bodies are closed (JAX's cond with closed sub-jaxprs): they read only their parameters.
import type { CarrySlot, ConstructExpr, ConstructRule } from '../types';
import { condTypeRule } from './typeRule';
import { condImpl } from './impl';
import { condJvp } from './jvp';
import { condUnzip } from './unzip';
import { condTranspose } from './transpose';
import { bodyOperandsPartly, pruneBodyResults } from '../prune';
import { condFuseAdd } from './fuseAdd';
import { condSideOperands, condSink, condSoleReader } from './guard';
import { condNames } from './operands';

export const cond: ConstructRule = {
  name: 'cond',
  // Both bodies return the same results (the type rule checks it): count the first.
  arity: (e, bodyArity) => (e.bodies.length > 0 ? bodyArity(e.bodies[0]) : { nl: 0, lin: 0 }),
  typeRule: condTypeRule,
  impl: condImpl,
  jvp: condJvp,
  unzip: condUnzip,
  // A branch's residuals are slots, which the body around the cond keeps as its own.
  bodyResiduals: 'enclosing',
  runsOneBody: true,
  transpose: condTranspose,
  pruneResults: pruneBodyResults,
  // An operand no branch reads goes too (nl[0], the test, is no branch's parameter).
  prunePartly: (e, keep, alive) => bodyOperandsPartly(e, keep, 1, alive),
  fuseAdd: condFuseAdd,
  soleReader: condSoleReader,
  sideOperands: condSideOperands,
  sink: condSink,
  branchTest: (e) => condNames(e).pred,
  // The branch that runs takes its operands over: it may write an array in place (opt/inplace.ts)
  // when the cond is that array's last reader.
  carries: (e) => branchSlots(e),
  // The branch that runs gets the operands as its parameters: an operand is overwritten where a
  // branch overwrites or hands on its parameter (every one, where U cannot tell).
  overwrites: (e, _arity, handsOn) => {
    const operands = e.nl.map((_, k) => k).slice(1);
    if (!handsOn) return operands;
    const sets = e.bodies.map((body) => handsOn(body));
    return operands.filter((k) => e.bodies.some((body, b) => body.nlParams[k - 1] === undefined || sets[b].has(body.nlParams[k - 1].name)));
  },
  // A result has an operand's length where both branches return an array of that parameter's length.
  keepsLength: (e, source) => {
    const r = e.bodies[0]?.body.result;
    if (r?.tag !== 'ret') return [];
    return r.nl.map((_, k) => {
      const ps = e.bodies.map((body) => source(body, k));
      return ps[0] !== undefined && ps.every((p) => p === ps[0]) ? ps[0] + 1 : undefined;
    });
  },
};

function branchSlots(e: ConstructExpr): CarrySlot[] {
  return e.bodies.flatMap((_, body) => e.nl.slice(1).map((__, k) => ({ operand: k + 1, body, param: k })));
}
