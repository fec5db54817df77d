import type { ConstructTsRule } from '../../types';
import { assign, emitOwnedDense, readOrZero } from './emit';
import { peekParts, split } from '../../../../constructs/array/accum';

export const accumTs = {
  // r = the owned dense ā (emitOwnedDense); r[i] += ẏ
  laccum: (ops, e, into) => {
    const f = ops.factory;
    const { i, w, a, y } = split(e, e);
    const n = ops.typeOf(w)?.tag === 'real' ? ops.ref(w) : f.createPropertyAccessExpression(ops.ref(w), 'length');
    const r = f.createIdentifier(into[0]);
    return [
      ...emitOwnedDense(ops, into[0], a, n),
      f.createExpressionStatement(f.createBinaryExpression(f.createElementAccessExpression(r, ops.ref(i)), ops.ts.SyntaxKind.PlusEqualsToken, ops.ref(y))),
    ];
  },
  share: (ops, e, into) => {
    const f = ops.factory;
    const x = ops.ref(e.nl[0]);
    return [...ops.release(x), ...into.map((n) => f.createExpressionStatement(f.createAssignment(f.createIdentifier(n), x)))];
  },
  // r = ā; y = ā[i] ?? 0
  lpeek: (ops, e, into) => {
    const { i, a } = peekParts(e, e);
    return [assign(ops, into[0], ops.ref(a)), assign(ops, into[1], readOrZero(ops, ops.ref(a), ops.ref(i)))];
  },
} satisfies Record<string, ConstructTsRule>;
