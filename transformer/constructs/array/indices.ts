// Index arrays (gather, scatter, reduceByIndex): the checks that name the argument, in the
// interpreter (IrError) and in emitted TypeScript (RangeError), and small emission helpers.
import { IrError } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import type { EmitTsOps } from '../types';
import type * as ts from 'typescript';

/** idx[j] as a valid index of an array of n elements, or an error naming both arrays. */
export function indexAt(op: string, idxName: string, idx: readonly Value[], j: number, arrayName: string, n: number): number {
  const b = idx[j];
  if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b >= n) throw new IrError(`${op}: ${idxName}[${j}] = ${String(b)} is not an index of ${arrayName} (length ${n})`);
  return b;
}

/** A bin of idx[j]: an integer, or an error; out of range (−1 when outside 0 … m − 1) is ignored by the caller. */
export function binAt(op: string, idxName: string, idx: readonly Value[], j: number, m: number): number {
  const b = idx[j];
  if (typeof b !== 'number' || !Number.isInteger(b)) throw new IrError(`${op}: ${idxName}[${j}] = ${String(b)} is not an integer`);
  return b >= 0 && b < m ? b : -1;
}

export function sameLength(op: string, names: readonly string[], arrays: readonly Value[]): number {
  const n = (arrays[0] as Value[]).length;
  arrays.forEach((a, k) => {
    if ((a as Value[]).length !== n) throw new IrError(`${op}: ${names[k]} has ${(a as Value[]).length} elements, ${names[0]} has ${n}`);
  });
  return n;
}

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
