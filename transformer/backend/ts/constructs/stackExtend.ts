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

export const extendTs: ConstructTsRule = (ops, e, into) => {
  const f = ops.factory;
  const [s, n, stride] = e.nl;
  const st = ops.ref(s);
  const ceil = f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Math'), 'ceil'), undefined, [ops.ref(n)]);
  const count: ts.Expression = stride === undefined ? ceil : f.createMultiply(ceil, ops.ref(stride));
  const room = f.createIdentifier(ops.fresh('room'));
  const declare = f.createVariableStatement(
    undefined,
    f.createVariableDeclarationList(
      [
        f.createVariableDeclaration(
          room,
          undefined,
          undefined,
          f.createConditionalExpression(f.createGreaterThan(ops.ref(n), f.createNumericLiteral(0)), undefined, count, undefined, f.createNumericLiteral(0)),
        ),
      ],
      ops.ts.NodeFlags.Const,
    ),
  );
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
