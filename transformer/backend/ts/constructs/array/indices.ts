// Index arrays in emitted TypeScript (gather, scatter, reduceByIndex): the checks that name the
// argument (RangeError), and small statement helpers.
import type * as ts from 'typescript';
import type { EmitTsOps } from '../../types';

const str = (ops: EmitTsOps, s: string): ts.Expression => ops.factory.createStringLiteral(s);

/** `throw new RangeError(parts joined)` where parts are strings or expressions. */
export function throwRange(ops: EmitTsOps, parts: readonly (string | ts.Expression)[]): ts.Statement {
  const f = ops.factory;
  const exprs = parts.map((p) => (typeof p === 'string' ? str(ops, p) : p));
  const message = exprs.reduce((a, b) => f.createAdd(a, b));
  return f.createThrowStatement(f.createNewExpression(f.createIdentifier('RangeError'), undefined, [message]));
}

/** `!(Number.isInteger(b) && b >= 0 && b < n)` (n undefined: the integer test only). */
export function notIndex(ops: EmitTsOps, b: ts.Expression, n?: ts.Expression): ts.Expression {
  const f = ops.factory;
  const isInt = f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Number'), 'isInteger'), undefined, [b]);
  const test = n === undefined ? isInt : f.createLogicalAnd(f.createLogicalAnd(isInt, f.createGreaterThanEquals(b, f.createNumericLiteral(0))), f.createLessThan(b, n));
  return f.createLogicalNot(f.createParenthesizedExpression(test));
}

export function constant(ops: EmitTsOps, name: string, value: ts.Expression): ts.Statement {
  const f = ops.factory;
  return f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(name, undefined, undefined, value)], ops.ts.NodeFlags.Const));
}

export const elementAt = (ops: EmitTsOps, a: ts.Expression, i: ts.Expression): ts.Expression => ops.factory.createElementAccessExpression(a, i);

export function setAt(ops: EmitTsOps, a: ts.Expression, i: ts.Expression, v: ts.Expression): ts.Statement {
  const f = ops.factory;
  return f.createExpressionStatement(f.createAssignment(f.createElementAccessExpression(a, i), v));
}
