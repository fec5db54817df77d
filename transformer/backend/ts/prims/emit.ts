// Shared TypeScript spellings for the primitive tables. Entries build nodes with the factory the
// emitter hands them; its operator helpers (createAdd, createLogicalNot, ...) carry the syntax
// kinds, so no table loads the compiler. No explicit parentheses: operands are names or
// literals (A-normal form), and the factory parenthesizes by precedence wherever expressions nest.
import type * as ts from 'typescript';
import type { PrimTsRule } from '../types';

export function mathCall(name: string): PrimTsRule {
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
