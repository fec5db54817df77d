// The operands and bodies of `while(ū, c̄ ; u̇̄, ċ̄)[|ū, c̄| { condition }, |ū, c̄ ; u̇̄, ċ̄| { step }]`.
// The carried operands are the last of each sort, as many as the step returns (as for `loop`);
// the others (ū, u̇̄) are loop-invariant. The condition takes the first k non-linear operands,
// k being its parameter count: in the source form all of ū, c̄; after U the non-linear while also
// carries an iteration counter and the residual stacks after c̄, which the condition never sees
// (so it need not drop them, which would cost work in every iteration).
import { InternalError } from '../../ir/syntax';
import type { ConstructExpr, Counts, Sides } from '../types';

export const CONDITION = 0;
export const STEP = 1;

export interface WhileParts<T> {
  readonly invariant: Sides<T>;
  readonly carried: Sides<T>;
}

export function whileParts<T>(operands: Sides<T>, carried: Counts): WhileParts<T> {
  const nlCut = operands.nl.length - carried.nl;
  const linCut = operands.lin.length - carried.lin;
  if (nlCut < 0 || linCut < 0) throw new InternalError('while: the step returns more values than the loop carries');
  return {
    invariant: { nl: operands.nl.slice(0, nlCut), lin: operands.lin.slice(0, linCut) },
    carried: { nl: operands.nl.slice(nlCut), lin: operands.lin.slice(linCut) },
  };
}

export const whileNames = (e: ConstructExpr, carried: Counts): WhileParts<string> => whileParts(e, carried);

/** The values the condition reads: the first non-linear values, as many as it has parameters. */
export const conditionArgs = <T>(e: ConstructExpr, nl: readonly T[]): T[] => nl.slice(0, e.bodies[CONDITION].nlParams.length);
