// Emitted TypeScript for the stack constructs. A non-linear stack of reals (a loop's residuals,
// the bulk of a tape) is `{ a: Float64Array, b, c, n }`: element k at a[b + k], room up to a[c],
// n elements: unboxed, grown by doubling, so a million residuals cost 8 MB and no garbage per
// push, where a JS array of numbers costs about six times the time. The base b lets a counted
// inner loop's stack be a region of a shared slab without a typed-array view per run. Stacks of other elements, and linear (tangent) stacks, which are
// sparse and read `undefined` in their holes, stay JS arrays.
import type * as ts from 'typescript';
import { InternalError } from '../../../ir/syntax';
import type { CheckHelperName, EmitTsOps, OwnHelperName, StackHelperName } from '../types';

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
/** `{ a, b, c, n }` as an object literal. */
function stackLiteral(f: ts.NodeFactory, a: ts.Expression, b: ts.Expression, c: ts.Expression, n: ts.Expression = f.createNumericLiteral(0)): ts.Expression {
  return f.createObjectLiteralExpression([f.createPropertyAssignment('a', a), f.createPropertyAssignment('b', b), f.createPropertyAssignment('c', c), f.createPropertyAssignment('n', n)]);
}

/**
 * `{ a: $slab.chunk, b: $slab.top, c: $slab.top, n: 0 }`: an empty stack with no room, which
 * allocates nothing until its first push (reserve then gives it a buffer of its own, at least 16).
 * Stacks of stacks are built from one (an element that is never stored), once per run of an
 * inner loop.
 */
export function emptyRealStack(ops: EmitTsOps): ts.Expression {
  const f = ops.factory;
  const slab = ops.slab();
  const helper = ops.moduleHelper?.('empty');
  if (helper) return f.createCallExpression(helper, undefined, [slab]);
  const top = f.createPropertyAccessExpression(slab, 'top');
  return stackLiteral(f, f.createPropertyAccessExpression(slab, 'chunk'), top, top);
}

export const stackSize = (f: ts.NodeFactory, s: ts.Expression) => f.createPropertyAccessExpression(s, 'n');

/** `s.a[s.b + k]`: element k of a typed stack. */
export function stackElement(f: ts.NodeFactory, s: ts.Expression, k: ts.Expression): ts.ElementAccessExpression {
  return f.createElementAccessExpression(f.createPropertyAccessExpression(s, 'a'), f.createAdd(f.createPropertyAccessExpression(s, 'b'), k));
}

/**
 * Room for `need` elements:
 * `if (s.b + need > s.c) { const grown = new Float64Array(Math.max(2 * (s.c - s.b), need, 16)); grown.set(s.a.subarray(s.b, s.b + s.n)); s.a = grown; s.b = 0; s.c = grown.length; }`
 */
export function reserve(ops: EmitTsOps, s: ts.Expression, need: ts.Expression): ts.Statement {
  const f = ops.factory;
  const test = f.createGreaterThan(f.createAdd(f.createPropertyAccessExpression(s, 'b'), need), f.createPropertyAccessExpression(s, 'c'));
  const helper = ops.moduleHelper?.('grow');
  if (helper) return f.createIfStatement(test, f.createExpressionStatement(f.createCallExpression(helper, undefined, [s, need, ops.slab()])));
  return f.createIfStatement(test, f.createBlock(growStatements(f, ops.ts, s, need, f.createIdentifier(ops.fresh('grown'))), true));
}

function growStatements(f: ts.NodeFactory, t: typeof ts, s: ts.Expression, need: ts.Expression, grown: ts.Identifier): ts.Statement[] {
  const field = (name: string) => f.createPropertyAccessExpression(s, name);
  const room = f.createSubtract(field('c'), field('b'));
  const twice = f.createMultiply(f.createNumericLiteral(2), f.createParenthesizedExpression(room));
  const size = f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Math'), 'max'), undefined, [twice, need, f.createNumericLiteral(INITIAL_CAPACITY)]);
  const declare = f.createVariableStatement(
    undefined,
    f.createVariableDeclarationList([f.createVariableDeclaration(grown, undefined, undefined, f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [size]))], t.NodeFlags.Const),
  );
  const used = f.createCallExpression(f.createPropertyAccessExpression(field('a'), 'subarray'), undefined, [field('b'), f.createAdd(field('b'), field('n'))]);
  const copy = f.createExpressionStatement(f.createCallExpression(f.createPropertyAccessExpression(grown, 'set'), undefined, [used]));
  const set = (name: string, v: ts.Expression) => f.createExpressionStatement(f.createAssignment(field(name), v));
  return [declare, copy, set('a', grown), set('b', f.createNumericLiteral(0)), set('c', f.createPropertyAccessExpression(grown, 'length'))];
}

/**
 * An empty stack of reals with room for exactly `capacity` pushes, cut from the function's slab:
 *
 *   const cap = Math.max(0, Math.ceil(n));
 *   if ($slab.top + cap > $slab.chunk.length) { $slab.chunk = new Float64Array(Math.max(2 * $slab.chunk.length, cap)); $slab.top = 0; }
 *   s = { a: $slab.chunk, b: $slab.top, c: $slab.top + cap, n: cap };
 *   $slab.top += cap;
 *
 * An inner loop run once per outer iteration then costs a small object, not a backing store
 * (half the time of llsq's gradient went to allocating them) nor a typed-array view (a sixth of
 * gmm's). A push past the capacity grows the stack into a buffer of its own (reserve), so
 * regions never overlap. The stack counts as full from the start: the loop fills it by `put`
 * (put.ts), record i in iteration i, and a size is only read after the loop (a tape handed out).
 */
export function slabStack(ops: EmitTsOps, into: string, capacity: ts.Expression): ts.Statement[] {
  const f = ops.factory;
  // The same four statements at every counted loop: one runtime function where the backend binds
  // one (runtime/emitted.ts; V8 inlines it where the loop is hot), else inline.
  const helper = ops.moduleHelper?.('reserve');
  if (helper) return [assign(ops, into, f.createCallExpression(helper, undefined, [ops.slab(), capacity]))];
  return reserveStatements(ops.factory, ops.ts, ops.slab(), f.createIdentifier(ops.fresh('cap')), capacity, (stack) => [assign(ops, into, stack)]);
}

/** The runtime function (runtime/emitted.ts) a module calls for a stack helper: `tsad$reserve` is slabStack's block, `tsad$grow` reserve's. */
export function stackHelperName(name: StackHelperName | OwnHelperName | CheckHelperName): string {
  return `tsad$${name}`;
}

/**
 * The stack helpers that only read memory (tsad$lat; tsad$empty, which reads the slab's top into a
 * new object): the tidy moves a call of one like an element read (nodeFacts.ts), never past a write.
 */
export const READING_HELPERS: ReadonlySet<string> = new Set([stackHelperName('lat'), stackHelperName('empty')]);

function reserveStatements(f: ts.NodeFactory, t: typeof ts, slab: ts.Identifier, cap: ts.Identifier, capacity: ts.Expression, store: (stack: ts.Expression) => ts.Statement[]): ts.Statement[] {
  const math = (fn: string, args: ts.Expression[]) => f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Math'), fn), undefined, args);
  const chunk = f.createPropertyAccessExpression(slab, 'chunk');
  const top = f.createPropertyAccessExpression(slab, 'top');
  const declare = f.createVariableStatement(
    undefined,
    f.createVariableDeclarationList([f.createVariableDeclaration(cap, undefined, undefined, math('max', [f.createNumericLiteral(0), math('ceil', [capacity])]))], t.NodeFlags.Const),
  );
  const fresh = f.createBlock(
    [
      // The first chunk is what the first loop needs, each later one twice the last: a small
      // derivative called many times (a per-point Hessian-vector product) zeroes no big slab.
      f.createExpressionStatement(
        f.createAssignment(
          chunk,
          f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [math('max', [f.createMultiply(f.createNumericLiteral(2), f.createPropertyAccessExpression(chunk, 'length')), cap])]),
        ),
      ),
      f.createExpressionStatement(f.createAssignment(top, f.createNumericLiteral(0))),
    ],
    true,
  );
  const room = f.createIfStatement(f.createGreaterThan(f.createAdd(top, cap), f.createPropertyAccessExpression(chunk, 'length')), fresh);
  const stack = stackLiteral(f, chunk, top, f.createAdd(top, cap), cap);
  const bump = f.createExpressionStatement(f.createBinaryExpression(top, t.SyntaxKind.PlusEqualsToken, cap));
  return [declare, room, ...store(stack), bump];
}
