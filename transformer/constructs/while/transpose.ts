// T of a linear while: there is none to transpose. U never makes one (the linear half of a while
// is a counted `loop` over the saved trip count, whose transpose is the reversed loop), and a
// hand-written one is degenerate: in Linear B a linear expression has no non-linear results, so
// every non-linear operand is an invariant, the condition reads only invariants, and the loop
// runs zero times or forever. Write a counted `loop` instead.
import { IrError } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, TransposeOps } from '../types';

export function whileTranspose(_ops: TransposeOps, _e: ConstructExpr): readonly Tangent[] {
  throw new IrError(
    'T of while: a linear while loop cannot be transposed (its condition reads only loop-invariant values, so it runs zero times or forever); U turns the linear half of a while into a counted loop, write a loop(n, …) instead',
  );
}
