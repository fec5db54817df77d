// Shared TypeScript spellings for primitive records. Records build nodes with the factory the
// backend hands them; its operator helpers (createAdd, createLogicalNot, ...) carry the syntax
// kinds, so no record loads the compiler. No explicit parentheses: operands are names or
// literals (A-normal form), and the factory parenthesizes by precedence wherever expressions nest.
import type * as ts from 'typescript';

type Emit = (args: readonly ts.Expression[], f: ts.NodeFactory) => ts.Expression;

export function mathCall(name: string): Emit {
  return (args, f) => f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Math'), name), undefined, [...args]);
}

/** `c ? a : b` */
export function conditional(f: ts.NodeFactory, c: ts.Expression, a: ts.Expression, b: ts.Expression): ts.Expression {
  return f.createConditionalExpression(c, undefined, a, undefined, b);
}

/** `v === 0 ? 0 : u * v` */
export function strongZeroProduct(u: ts.Expression, v: ts.Expression, f: ts.NodeFactory): ts.Expression {
  return conditional(f, f.createStrictEquality(v, f.createNumericLiteral(0)), f.createNumericLiteral(0), f.createMultiply(u, v));
}
