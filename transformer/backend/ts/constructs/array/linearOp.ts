// A body-less linear array op in TypeScript (constructs/array/linearOp.ts): its entry sees the
// coefficients and the inputs, whether the op is linear or erased.
import type * as ts from 'typescript';
import { linearOpOperands } from '../../../../constructs/array/linearOp';
import type { ConstructTsRule, EmitTsOps } from '../../types';

type LinearOpEmit = (ops: EmitTsOps, into: readonly string[], coefficients: readonly string[], inputs: readonly string[]) => ts.Statement[];

/** The entry of a linear op with `coefficients` coefficients (its record's count). */
export function linearOpTs(coefficients: number, emit: LinearOpEmit): ConstructTsRule {
  return (ops, e, into) => {
    const { c, u } = linearOpOperands(e, coefficients);
    return emit(ops, into, c, u);
  };
}
