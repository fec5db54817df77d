// + - * / % and unary minus.
import { elementwise, realOp, binary, anywhere } from '../helpers';
import type { PrimDef } from '../types';

export const add: PrimDef = {
  name: 'add',
  arity: binary,
  typeRule: realOp('add'),
  impl: (a, b) => (a as number) + (b as number),
  // d(a + b) = ȧ + ḃ
  jvp: elementwise(() => (b) => b.lit(1, 'one')),
  emitTs: ([a, b], f) => f.createBinaryExpression(a, f.createToken(ts().SyntaxKind.PlusToken), b),
  test: anywhere,
};

export const mul: PrimDef = {
  name: 'mul',
  arity: binary,
  typeRule: realOp('mul'),
  impl: (a, b) => (a as number) * (b as number),
  // d(a·b) = b·ȧ + a·ḃ
  jvp: elementwise((i) => (_b, [x, y]) => (i === 0 ? y : x)),
  emitTs: ([a, b], f) => f.createBinaryExpression(a, f.createToken(ts().SyntaxKind.AsteriskToken), b),
  test: anywhere,
};

function ts(): typeof import('typescript') {
  // Loaded lazily so the interpreter and the CLI's IR commands do not pay for the compiler.
  return require('typescript');
}
