// Shared TypeScript spellings for primitive records. The compiler is loaded lazily so that the
// interpreter and the `tsad ir` commands never pay for it.
import type * as ts from 'typescript';

let tsModule: typeof import('typescript') | undefined;
export function tsApi(): typeof import('typescript') {
  return (tsModule ??= require('typescript') as typeof import('typescript'));
}

type Emit = (args: readonly ts.Expression[], f: ts.NodeFactory) => ts.Expression;

// No explicit parentheses: operands are names or literals (A-normal form), and the node factory
// parenthesizes by precedence wherever expressions do nest.
export function binaryOp(kind: () => ts.BinaryOperator): Emit {
  return ([a, b], f) => f.createBinaryExpression(a, kind(), b);
}

export function mathCall(name: string): Emit {
  return (args, f) =>
    f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Math'), name), undefined, [...args]);
}

export function prefixOp(kind: () => ts.PrefixUnaryOperator): Emit {
  return ([a], f) => f.createPrefixUnaryExpression(kind(), a);
}

export const SK = () => tsApi().SyntaxKind;

/** `v === 0 ? 0 : u * v` */
export function strongZeroProduct(u: ts.Expression, v: ts.Expression, f: ts.NodeFactory): ts.Expression {
  const K = tsApi().SyntaxKind;
  return f.createConditionalExpression(
    f.createBinaryExpression(v, K.EqualsEqualsEqualsToken, f.createNumericLiteral(0)),
    f.createToken(K.QuestionToken),
    f.createNumericLiteral(0),
    f.createToken(K.ColonToken),
    f.createBinaryExpression(u, K.AsteriskToken, v),
  );
}
