// The body-less array operations in TypeScript (constructs/array/ops.ts): an array<real> is a
// Float64Array, any other array a plain JavaScript array; a linear form and its erasure share
// their entry (the erased one reads its linear operand from the non-linear side).
import type * as ts from 'typescript';
import type { Type } from '../../../../ir/syntax';
import type { ConstructExpr } from '../../../../constructs/types';
import { REAL_ARRAY, coefficients, isLinear, linearOperands } from '../../../../constructs/array/ops';
import type { ConstructTsRule, EmitTsOps } from '../../types';
import { allocate, assign, forCount, isRealArray, readOrZero } from './emit';

type NonLinearEmit = (ops: EmitTsOps, e: ConstructExpr, into: string, t: Type | undefined) => ts.Statement[];
type LinearEmit = (ops: EmitTsOps, into: string, k: string, x: string, t: Type | undefined) => ts.Statement[];

const nonLinear =
  (emit: NonLinearEmit): ConstructTsRule =>
  (ops, e, into) =>
    emit(ops, e, into[0], ops.resultTypes[0]);
const linear =
  (emit: LinearEmit): ConstructTsRule =>
  (ops, e, into) =>
    emit(ops, into[0], coefficients(e, e, 1)[0], linearOperands(e, e, 1)[0], isLinear(e) ? REAL_ARRAY : ops.resultTypes[0]);

/** `a = alloc(n); for (k < n) a[k] = x` */
function emitFill(ops: EmitTsOps, into: string, n: string, x: string, t: Type | undefined): ts.Statement[] {
  const f = ops.factory;
  const length = ops.ref(n);
  const value = ops.ref(x);
  const alloc = assign(ops, into, allocate(ops, t, length));
  // A new Float64Array is zeros already, and an empty array needs no loop (the zero cotangent).
  const zero = (e: ts.Expression) => ops.ts.isNumericLiteral(e) && Number(e.text) === 0;
  if (zero(length) || (isRealArray(t) && zero(value))) return [alloc];
  const k = ops.fresh('k');
  const set = f.createExpressionStatement(f.createAssignment(f.createElementAccessExpression(f.createIdentifier(into), f.createIdentifier(k)), value));
  return [alloc, forCount(ops, k, length, [set])];
}

/** `s = 0; for (k < len a) s += a[k]` (missing elements of a sparse tangent read 0). */
function emitSum(ops: EmitTsOps, into: string, a: string, n: ts.Expression): ts.Statement[] {
  const f = ops.factory;
  const k = ops.fresh('k');
  const add = f.createExpressionStatement(f.createBinaryExpression(f.createIdentifier(into), ops.ts.SyntaxKind.PlusEqualsToken, readOrZero(ops, ops.ref(a), f.createIdentifier(k))));
  return [assign(ops, into, f.createNumericLiteral(0)), forCount(ops, k, n, [add])];
}

export const opsTs = {
  len: nonLinear((ops, e, into) => [assign(ops, into, ops.factory.createPropertyAccessExpression(ops.ref(e.nl[0]), 'length'))]),
  index: nonLinear((ops, e, into) => [assign(ops, into, ops.factory.createElementAccessExpression(ops.ref(e.nl[0]), ops.ref(e.nl[1])))]),
  fill: nonLinear((ops, e, into, t) => emitFill(ops, into, e.nl[0], e.nl[1], t)),
  sum: nonLinear((ops, e, into) => emitSum(ops, into, e.nl[0], ops.factory.createPropertyAccessExpression(ops.ref(e.nl[0]), 'length'))),
  lindex: linear((ops, into, i, a) => [assign(ops, into, readOrZero(ops, ops.ref(a), ops.ref(i)))]),
  // r = new Float64Array(i + 1); r[i] = ẏ
  lonehot: linear((ops, into, i, y) => {
    const f = ops.factory;
    const n = f.createBinaryExpression(ops.ref(i), ops.ts.SyntaxKind.PlusToken, f.createNumericLiteral(1));
    const set = f.createAssignment(f.createElementAccessExpression(f.createIdentifier(into), ops.ref(i)), ops.ref(y));
    return [assign(ops, into, allocate(ops, REAL_ARRAY, n)), f.createExpressionStatement(set)];
  }),
  lsum: linear((ops, into, _n, a) => emitSum(ops, into, a, ops.factory.createPropertyAccessExpression(ops.ref(a), 'length'))),
  lfill: linear((ops, into, n, y) => emitFill(ops, into, n, y, REAL_ARRAY)),
};
