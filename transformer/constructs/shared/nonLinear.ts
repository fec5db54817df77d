// The facets of a construct whose results are all non-linear (a length, a run-time check, a
// product of constants, an effect): J keeps it as it is or adds tangent code beside it, U leaves
// it in the non-linear half and T never meets it, so their rules are never called; saying so in
// one place keeps every such record honest about it.
import { InternalError } from '../../ir/syntax';
import type { ConstructRule } from '../types';

export function nonLinearOnly(name: string): Pick<ConstructRule, 'unzip' | 'transpose' | 'pruneResults'> {
  const never = (pass: string) => (): never => {
    throw new InternalError(`${name} is non-linear: ${pass} never hands it to its rule`);
  };
  return { unzip: never('U'), transpose: never('T'), pruneResults: () => undefined };
}

/** T of a construct that U splits into itself, non-linear, and another construct that is linear (a fold's lfold). */
export const neverTransposed = (name: string) => (): never => {
  throw new InternalError(`${name} is never linear: T does not reach it`);
};

/** J of a construct whose results have zero tangents: the construct itself, unchanged. */
export const keptWithZeroTangents: ConstructRule['jvp'] = (ops, e, results) => {
  ops.b.bind([...results], [], e);
  return results.map(() => null);
};
