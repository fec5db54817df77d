// The linear primitives: everything a tangent program may do besides zero, dup and drop.
import type { LinPrimDef } from '../types';
import { REAL } from '../../ir/syntax';

export const ladd: LinPrimDef = {
  name: 'ladd',
  nlArity: 0,
  linArity: 2,
  nlTypes: [],
  impl: (_, [a, b]) => a + b,
  // ⟨ȧ + ḃ, ÿ⟩ = ⟨ȧ, ÿ⟩ + ⟨ḃ, ÿ⟩: the cotangent fans out.
  transpose: ({ b, ct, resultType }) => b.dup(ct, resultType),
  erase: 'add',
  emitTs: (_, [a, b2], f) => f.createBinaryExpression(a, f.createToken(require('typescript').SyntaxKind.PlusToken), b2),
};

export const scale: LinPrimDef = {
  name: 'scale',
  nlArity: 1,
  linArity: 1,
  nlTypes: [REAL],
  impl: ([u], [v]) => (u as number) * v,
  // ⟨u·v̇, ÿ⟩ = ⟨v̇, u·ÿ⟩: scaling is self-adjoint.
  transpose: ({ b, nl: [u], ct, resultType }) => [b.lprim('scale', [u], [ct], `${ct}_s`, resultType)],
  erase: 'mul',
  emitTs: ([u], [v], f) => f.createBinaryExpression(u, f.createToken(require('typescript').SyntaxKind.AsteriskToken), v),
};
