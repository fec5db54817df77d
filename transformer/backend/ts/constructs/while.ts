// A while loop in TypeScript: the results are `let` variables the caller declared; they hold the
// carried values and start as the carried operands. The condition's statements assign a flag
// declared before the loop (its body can be any block, not only an expression), the step's
// assign the carried variables anew; each body is a JavaScript block binding its parameters as
// `const`s, so a step that swaps values reads the old ones. Nothing is allocated per iteration
// (the stacks of a non-linear while from U grow by `push`).
//
//   c1 = c1_0; c2 = c2_0; let go;
//   while (true) { { const u = u0; const a = c1; …cond…; go = …; } if (!go) break; { const u = u0; const a = c1; …step…; c1 = …; c2 = …; } }
import type * as ts from 'typescript';
import type { ConstructExpr } from '../../../constructs/types';
import type { EmitTsOps } from '../types';
import { CONDITION, STEP, conditionArgs, whileNames } from '../../../constructs/while/operands';

function emitWhile(ops: EmitTsOps, e: ConstructExpr, into: readonly string[]): ts.Statement[] {
  const f = ops.factory;
  const step = e.bodies[STEP];
  const { invariant, carried } = whileNames(e, ops.arity(step));
  const init = [...carried.nl, ...carried.lin].map((c, k) => f.createExpressionStatement(f.createAssignment(f.createIdentifier(into[k]), ops.ref(c))));
  const go = ops.fresh('go');
  const decl = f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(go)], ops.ts.NodeFlags.Let));
  const cur = into.map((c) => f.createIdentifier(c));
  const nlCarried = carried.nl.length;
  const nl = [...invariant.nl.map((u) => ({ alias: u })), ...cur.slice(0, nlCarried)];
  const condition = f.createBlock(ops.emitBody(e.bodies[CONDITION], conditionArgs(e, nl), [go]), true);
  const exit = f.createIfStatement(f.createLogicalNot(f.createIdentifier(go)), f.createBreakStatement());
  const body = f.createBlock(ops.emitBody(step, [...nl, ...invariant.lin.map((u) => ({ alias: u })), ...cur.slice(nlCarried)], into), true);
  const loop = f.createWhileStatement(f.createTrue(), f.createBlock([condition, exit, body], true));
  return [...init, decl, loop];
}

export const whileTs = { while: emitWhile };
