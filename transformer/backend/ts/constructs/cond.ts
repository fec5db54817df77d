// cond in TypeScript: the results are `let` variables the caller declared; each branch is a
// JavaScript block binding its parameters and assigning them.
//
//   let y1, y2;
//   if (p) { …then (a is x)…; y1 = …; y2 = …; } else { …else (a_1 is x)…; y1 = …; y2 = …; }
import type * as ts from 'typescript';
import type { ConstructExpr } from '../../../constructs/types';
import type { EmitTsOps } from '../types';
import { ELSE, THEN, condNames } from '../../../constructs/cond/operands';

function emitCond(ops: EmitTsOps, e: ConstructExpr, into: readonly string[]): ts.Statement[] {
  const f = ops.factory;
  const { pred, args } = condNames(e);
  const values = [...args.nl, ...args.lin];
  // A branch cannot change its operands: its parameters are other names for them.
  const branch = (k: number) =>
    f.createBlock(
      ops.emitBody(
        e.bodies[k],
        values.map((n) => ({ alias: n })),
        into,
      ),
      true,
    );
  // An else that does nothing (the untaken side of a trip guard around checks) is left out.
  const otherwise = branch(ELSE);
  return [f.createIfStatement(ops.ref(pred), branch(THEN), otherwise.statements.length > 0 ? otherwise : undefined)];
}

export const condTs = { cond: emitCond };
