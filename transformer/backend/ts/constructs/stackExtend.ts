// `extend(s, n[, stride])` in TypeScript (constructs/stack/extend.ts): an inner loop's run reserves
// its room at the top of the flat stack shared by all runs.
//
//   const room = n > 0 ? Math.ceil(n) * stride : 0;
//   if (s.b + (s.n + room) > s.c) { …grow (reserve)… }
//   s.n += room;
//
// `presize(s, i, n)`: `if (i === 0) { …reserve ⌈n⌉·s.n… }` (stacks of reals only: a JS array has no room).
//
// A stack of other values (a JS array) gets its length raised: holes until put fills them.
import type * as ts from 'typescript';
import type { ConstructTsRule } from '../types';
import { assign, isRealStack, reserve, stackSize } from './stackEmit';
import { room as roomOf } from '../../../constructs/stack/extend';

/** The value of a literal operand (a while loop's one record per iteration), else undefined. */
function literal(ops: Parameters<ConstructTsRule>[0], x: ts.Expression | undefined): number | undefined {
  return x !== undefined && ops.ts.isNumericLiteral(x) ? Number(x.text) : undefined;
}

export const extendTs: ConstructTsRule = (ops, e, into) => {
  const f = ops.factory;
  const [s, n, stride] = e.nl;
  const st = ops.ref(s);
  const [nRef, strideRef] = [ops.ref(n), stride === undefined ? undefined : ops.ref(stride)];
  const [nLit, strideLit] = [literal(ops, nRef), literal(ops, strideRef)];
  const ceil = f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Math'), 'ceil'), undefined, [nRef]);
  const count: ts.Expression = strideRef === undefined ? ceil : f.createMultiply(ceil, strideRef);
  const known = nLit !== undefined && (stride === undefined || strideLit !== undefined) ? roomOf(nLit, strideLit) : undefined;
  const room = f.createIdentifier(ops.fresh('room'));
  const value =
    known !== undefined
      ? f.createNumericLiteral(known)
      : f.createConditionalExpression(f.createGreaterThan(ops.ref(n), f.createNumericLiteral(0)), undefined, count, undefined, f.createNumericLiteral(0));
  const declare = f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(room, undefined, undefined, value)], ops.ts.NodeFlags.Const));
  // On a stack of reals, the room test, the growth and the size's update are one runtime call.
  const helper = isRealStack(ops, s) ? ops.moduleHelper?.('extend') : undefined;
  if (helper) return [declare, f.createExpressionStatement(f.createCallExpression(helper, undefined, [st, room, ops.slab()])), assign(ops, into[0], st)];
  const size = isRealStack(ops, s) ? stackSize(f, st) : f.createPropertyAccessExpression(st, 'length');
  const grow = f.createExpressionStatement(f.createBinaryExpression(size, ops.ts.SyntaxKind.PlusEqualsToken, room));
  const reserveRoom = isRealStack(ops, s) ? [reserve(ops, st, f.createAdd(stackSize(f, st), room))] : [];
  return [declare, ...reserveRoom, grow, assign(ops, into[0], st)];
};

export const presizeTs: ConstructTsRule = (ops, e, into) => {
  const f = ops.factory;
  const [s, i, n] = e.nl;
  const st = ops.ref(s);
  if (!isRealStack(ops, s)) return [assign(ops, into[0], st)];
  const ceil = f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Math'), 'ceil'), undefined, [ops.ref(n)]);
  const first = f.createLogicalAnd(f.createStrictEquality(ops.ref(i), f.createNumericLiteral(0)), f.createGreaterThan(ops.ref(n), f.createNumericLiteral(1)));
  return [f.createIfStatement(first, f.createBlock([reserve(ops, st, f.createMultiply(stackSize(f, st), ceil))], true)), assign(ops, into[0], st)];
};
