// The operands of `cond(p, x̄ ; ẋ̄)[then, else]`: the predicate, and what the taken body receives.
import { InternalError } from '../../ir/syntax';
import type { ConstructExpr, Sides } from '../types';

export interface CondParts<T> {
  readonly pred: T;
  /** The body's arguments: the non-linear operands after the predicate, and the linear ones. */
  readonly args: Sides<T>;
}

export function condParts<T>(operands: Sides<T>): CondParts<T> {
  if (operands.nl.length === 0) throw new InternalError('cond: no predicate (was the program type-checked?)');
  return { pred: operands.nl[0], args: { nl: operands.nl.slice(1), lin: operands.lin } };
}

/** The names of a cond's operands split the same way. */
export const condNames = (e: ConstructExpr): CondParts<string> => condParts(e);

export const THEN = 0;
export const ELSE = 1;
