// A counted loop in TypeScript: the results are `let` variables the caller declared; they hold
// the carried values, start as the carried operands, and each iteration's body (a JavaScript
// block binding its parameters as `const`s, so a body that swaps values reads the old ones)
// assigns them anew.
//
//   c1 = c1_0; c2 = c2_0;
//   for (let k = 0; k < n; k++) { const a = c1; const b = c2; …(i is k, u is u0)…; c1 = …; c2 = …; }
import type * as ts from 'typescript';
import type { ConstructExpr } from '../../../constructs/types';
import type { EmitTsOps } from '../types';
import { loopNames } from '../../../constructs/loop/operands';

function emitLoop(ops: EmitTsOps, e: ConstructExpr, into: readonly string[]): ts.Statement[] {
  const f = ops.factory;
  const body = e.bodies[0];
  const { count, invariant, carried } = loopNames(e, ops.arity(body));
  const init = [...carried.nl, ...carried.lin].map((c, k) => f.createExpressionStatement(f.createAssignment(f.createIdentifier(into[k]), ops.ref(c))));
  const k = ops.fresh('k');
  const cur = into.map((c) => f.createIdentifier(c));
  const nlCarried = carried.nl.length;
  // The body's parameters: the counter, non-linear invariants and carried values, then the linear ones.
  // The counter and the invariants are names for variables the body cannot change; the carried
  // values are copied, since the body's last assignments overwrite them (a swap reads the old ones).
  const args = [{ alias: k }, ...invariant.nl.map((u) => ({ alias: u })), ...cur.slice(0, nlCarried), ...invariant.lin.map((u) => ({ alias: u })), ...cur.slice(nlCarried)];
  // Every iteration reads an invariant: none may update it in place (EmitTsOps.owned). Inside,
  // the invariants stay released: loops nested in the body need not release them again.
  const arrays = [...invariant.nl, ...invariant.lin].filter((u) => ops.typeOf(u)?.tag === 'array').map((u) => ops.ref(u));
  const release = arrays.flatMap((x) => ops.release(x));
  const released = arrays.flatMap((x) => (ops.ts.isIdentifier(x) ? [x.text] : []));
  const decl = f.createVariableDeclarationList([f.createVariableDeclaration(k, undefined, undefined, f.createNumericLiteral(0))], ops.ts.NodeFlags.Let);
  const loop = f.createForStatement(
    decl,
    f.createLessThan(f.createIdentifier(k), ops.ref(count)),
    f.createPostfixIncrement(f.createIdentifier(k)),
    f.createBlock(ops.emitBody(body, args, into, released), true),
  );
  return [...release, ...init, loop];
}

export const loopTs = { loop: emitLoop };
