// remat in TypeScript: its (first) body in a block of its own (the parameters are `const`s there).
import type * as ts from 'typescript';
import type { ConstructExpr } from '../../../constructs/types';
import type { EmitTsOps } from '../types';

function emitRemat(ops: EmitTsOps, e: ConstructExpr, into: readonly string[]): ts.Statement[] {
  const args = [...e.nl, ...e.lin].map((x) => ops.ref(x));
  return [ops.factory.createBlock(ops.emitBody(e.bodies[0], args, into), true)];
}

export const rematTs = { remat: emitRemat };
