import type * as ts from 'typescript';
import type { ConstructTsRule, EmitTsOps } from '../../types';
import { assign, emitOwnedDense, readOrZero } from './emit';
import { accumValues, peekParts, split } from '../../../../constructs/array/accum';

/** The dense length a witness gives: a real itself, or an array's length. */
const witness = (ops: EmitTsOps, w: string): ts.Expression => (ops.typeOf(w)?.tag === 'real' ? ops.ref(w) : ops.factory.createPropertyAccessExpression(ops.ref(w), 'length'));

export const accumTs = {
  // r = the owned dense ā (emitOwnedDense); r[i] += ẏ
  laccum: (ops, e, into) => {
    const f = ops.factory;
    const { i, w, a, y } = split(e, e);
    const n = witness(ops, w);
    const r = f.createIdentifier(into[0]);
    return [
      ...emitOwnedDense(ops, into[0], a, n),
      f.createExpressionStatement(f.createBinaryExpression(f.createElementAccessExpression(r, ops.ref(i)), ops.ts.SyntaxKind.PlusEqualsToken, ops.ref(y))),
    ];
  },
  // r = the owned dense a, where the loop it precedes runs (n > 0)
  claim: (ops, e, into) => {
    const f = ops.factory;
    const [a, w, n] = e.nl;
    const claimed = emitOwnedDense(ops, into[0], a, witness(ops, w));
    if (n === undefined) return claimed;
    const runs = f.createBinaryExpression(ops.ref(n), ops.ts.SyntaxKind.GreaterThanToken, f.createNumericLiteral(0));
    return [f.createIfStatement(runs, f.createBlock(claimed, true), f.createBlock([assign(ops, into[0], ops.ref(a))], true))];
  },
  // r = ā; r[i] += ẏ (ā proved owned and dense: opt/ownedChains.ts); several values, paired
  // (opt/pairedAccums.ts): r[i] = r[i] + ẏ1 + ẏ2, read and stored once, added in the same order
  laccumw: (ops, e, into) => {
    const f = ops.factory;
    const { i, a } = split(e, e);
    const [y, ...more] = accumValues(e);
    const r = f.createIdentifier(into[0]);
    const at = () => f.createElementAccessExpression(r, ops.ref(i));
    const update =
      more.length === 0
        ? f.createBinaryExpression(at(), ops.ts.SyntaxKind.PlusEqualsToken, ops.ref(y))
        : f.createAssignment(
            at(),
            [y, ...more].reduce<ts.Expression>((sum, v) => f.createAdd(sum, ops.ref(v)), at()),
          );
    return [assign(ops, into[0], ops.ref(a)), f.createExpressionStatement(update)];
  },
  // r = ā; r[i] = ẏ + 0 (ā[i] proved +0: opt/firstWrites.ts; + 0 keeps laccumw's bits for ẏ = −0)
  linitw: (ops, e, into) => {
    const f = ops.factory;
    const { i, a, y } = split(e, e);
    const r = f.createIdentifier(into[0]);
    return [assign(ops, into[0], ops.ref(a)), f.createExpressionStatement(f.createAssignment(f.createElementAccessExpression(r, ops.ref(i)), f.createAdd(ops.ref(y), f.createNumericLiteral(0))))];
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
