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

/** `{ a: new Float64Array(16), n: 0 }`: a stack of reals whose pushes are not counted ahead (a while loop's); see slabStack for a counted loop's. */
export function emptyRealStack(f: ts.NodeFactory): ts.Expression {
  const a = f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [f.createNumericLiteral(INITIAL_CAPACITY)]);
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

const SLAB_CHUNK = 65536;

/**
 * An empty stack of reals with room for exactly `capacity` pushes, cut from the function's slab:
 *
 *   const cap = Math.max(0, Math.ceil(n));
 *   if ($slab.top + cap > $slab.chunk.length) { $slab.chunk = new Float64Array(Math.max(65536, cap)); $slab.top = 0; }
 *   s = { a: $slab.chunk.subarray($slab.top, $slab.top + cap), n: 0 };
 *   $slab.top += cap;
 *
 * An inner loop run once per outer iteration then costs a view, not a backing store (half the
 * time of llsq's gradient went to allocating them). A push past the capacity grows the stack
 * into a buffer of its own (reserve), so views never overlap.
 */
export function slabStack(ops: EmitTsOps, into: string, capacity: ts.Expression): ts.Statement[] {
  const f = ops.factory;
  const math = (fn: string, args: ts.Expression[]) => f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Math'), fn), undefined, args);
  const cap = f.createIdentifier(ops.fresh('cap'));
  const slab = ops.slab();
  const chunk = f.createPropertyAccessExpression(slab, 'chunk');
  const top = f.createPropertyAccessExpression(slab, 'top');
  const declare = f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(cap, undefined, undefined, math('max', [f.createNumericLiteral(0), math('ceil', [capacity])]))], ops.ts.NodeFlags.Const));
  const fresh = f.createBlock(
    [
      f.createExpressionStatement(f.createAssignment(chunk, f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [math('max', [f.createNumericLiteral(SLAB_CHUNK), cap])]))),
      f.createExpressionStatement(f.createAssignment(top, f.createNumericLiteral(0))),
    ],
    true,
  );
  const room = f.createIfStatement(f.createGreaterThan(f.createAdd(top, cap), f.createPropertyAccessExpression(chunk, 'length')), fresh);
  const view = f.createCallExpression(f.createPropertyAccessExpression(chunk, 'subarray'), undefined, [top, f.createAdd(top, cap)]);
  const stack = f.createObjectLiteralExpression([f.createPropertyAssignment('a', view), f.createPropertyAssignment('n', f.createNumericLiteral(0))]);
  const bump = f.createExpressionStatement(f.createBinaryExpression(top, ops.ts.SyntaxKind.PlusEqualsToken, cap));
  return [declare, room, assign(ops, into, stack), bump];
}
