// raise and log in TypeScript (constructs/effect): `throw new Kind(…)` and `console.method(…)`.
import type * as ts from 'typescript';
import { IrError } from '../../../ir/syntax';
import { ERROR_CLASSES, THROWN_BY_SOURCE } from '../../../constructs/effect/raise';
import { CONSOLE_METHODS, arrange } from '../../../constructs/effect/log';
import type { ConstructTsRule } from '../types';

// throw new Kind("" + part₀ + part₁ …)
const raise: ConstructTsRule = (ops, e) => {
  const f = ops.factory;
  const K = ops.ts.SyntaxKind;
  const kind = e.nl[0];
  const parts = e.nl.slice(1).map((x) => ops.ref(x));
  const cls = literalOf(ops.ref(kind), ops.ts);
  if (!ERROR_CLASSES.has(cls)) throw new IrError(`raise: ${cls} is not a built-in error class`);
  const message = parts.length === 0 ? [] : [[f.createStringLiteral('') as ts.Expression, ...parts].reduce((a, b) => f.createBinaryExpression(a, K.PlusToken, b))];
  const error = f.createNewExpression(f.createIdentifier(cls), undefined, message);
  if (cls !== 'RangeError') return [f.createThrowStatement(error)];
  // Object.defineProperty(new RangeError(…), Symbol.for(THROWN_BY_SOURCE), { value: true })
  const mark = f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Symbol'), 'for'), undefined, [f.createStringLiteral(THROWN_BY_SOURCE)]);
  const descriptor = f.createObjectLiteralExpression([f.createPropertyAssignment('value', f.createTrue())]);
  return [f.createThrowStatement(f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Object'), 'defineProperty'), undefined, [error, mark, descriptor]))];
};

/** The class name: the kind operand is a literal, which the emitter inlines as a string literal. */
function literalOf(x: ts.Expression, tsApi: typeof ts): string {
  if (tsApi.isStringLiteral(x)) return x.text;
  throw new IrError('raise: the error class must be a string literal');
}

// console.method(arg…)
const log: ConstructTsRule = (ops, e) => {
  const f = ops.factory;
  const [method, layout] = e.nl.slice(0, 2).map((x) => ops.ref(x));
  if (!ops.ts.isStringLiteral(method) || !CONSOLE_METHODS.has(method.text)) throw new IrError('log: the console method must be a string literal');
  if (!ops.ts.isStringLiteral(layout)) throw new IrError('log: the layout must be a string literal');
  const K = ops.ts.SyntaxKind;
  const parts = e.nl.slice(2).map((x) => ops.ref(x));
  const args = arrange(
    layout.text,
    parts,
    (x) => x,
    (xs) => [f.createStringLiteral('') as ts.Expression, ...xs].reduce((a, b) => f.createBinaryExpression(a, K.PlusToken, b)),
  );
  const call = f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('console'), method.text), undefined, args);
  return [f.createExpressionStatement(call) as ts.Statement];
};

export const effectTs = { raise, log };
