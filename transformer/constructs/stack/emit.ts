// Emitted TypeScript for the stack constructs. A non-linear stack of reals (a loop's residuals,
// the bulk of a tape) is `{ a: Float64Array, n: number }`: unboxed, grown by doubling, so a
// million residuals cost 8 MB and no garbage per push, where a JS array of numbers costs
// about six times the time. Stacks of other elements, and linear (tangent) stacks, which are
// sparse and read `undefined` in their holes, stay JS arrays.
import type * as ts from 'typescript';
import { InternalError } from '../../ir/syntax';
import type { EmitTsOps } from '../types';

/** `name = value;` (the caller declared `name`). */
export function assign(ops: EmitTsOps, name: string, value: ts.Expression): ts.Statement {
  const f = ops.factory;
  return f.createExpressionStatement(f.createAssignment(f.createIdentifier(name), value));
}

/** Whether the non-linear stack variable `name` is a typed stack of reals. */
export function isRealStack(ops: EmitTsOps, name: string): boolean {
  const t = ops.typeOf(name);
  if (!t) throw new InternalError(`emitTs: the stack ${name} has no type (annotate types first)`);
  return t.tag === 'stack' && t.elem.tag === 'real';
}

const INITIAL_CAPACITY = 16;

/**
 * `{ a: new Float64Array(16), n: 0 }`, or with room for exactly `capacity` pushes:
 * `Math.max(0, Math.ceil(capacity))` (NaN allocates none). Exactly, not rounded up: an inner
 * loop's stack of 8 residuals (64 bytes) lives in V8's heap, while one of 16 needs an external
 * buffer, about twice as slow to allocate and collect (kmeans: one per point and centroid).
 */
export function emptyRealStack(f: ts.NodeFactory, capacity?: ts.Expression): ts.Expression {
  const math = (fn: string, args: ts.Expression[]) => f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Math'), fn), undefined, args);
  const room = capacity ? math('max', [f.createNumericLiteral(0), math('ceil', [capacity])]) : f.createNumericLiteral(INITIAL_CAPACITY);
  const a = f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [room]);
  return f.createObjectLiteralExpression([f.createPropertyAssignment('a', a), f.createPropertyAssignment('n', f.createNumericLiteral(0))]);
}

export const stackData = (f: ts.NodeFactory, s: ts.Expression) => f.createPropertyAccessExpression(s, 'a');
export const stackSize = (f: ts.NodeFactory, s: ts.Expression) => f.createPropertyAccessExpression(s, 'n');

/** `if (need > s.a.length) { const grown = new Float64Array(Math.max(2 * s.a.length, need)); grown.set(s.a); s.a = grown; }` */
export function reserve(ops: EmitTsOps, s: ts.Expression, need: ts.Expression): ts.Statement {
  const f = ops.factory;
  const capacity = f.createPropertyAccessExpression(stackData(f, s), 'length');
  const twice = f.createMultiply(f.createNumericLiteral(2), capacity);
  const size = f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Math'), 'max'), undefined, [twice, need]);
  const grown = f.createIdentifier(ops.fresh('grown'));
  const declare = f.createVariableStatement(
    undefined,
    f.createVariableDeclarationList([f.createVariableDeclaration(grown, undefined, undefined, f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [size]))], ops.ts.NodeFlags.Const),
  );
  const copy = f.createExpressionStatement(f.createCallExpression(f.createPropertyAccessExpression(grown, 'set'), undefined, [stackData(f, s)]));
  const swap = f.createExpressionStatement(f.createAssignment(stackData(f, s), grown));
  return f.createIfStatement(f.createGreaterThan(need, capacity), f.createBlock([declare, copy, swap], true));
}
