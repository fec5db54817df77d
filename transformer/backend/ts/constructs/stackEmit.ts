// Emitted TypeScript for the stack constructs. A non-linear stack of reals (a loop's residuals,
// the bulk of a tape) is `{ a: Float64Array, b, c, n }`: element k at a[b + k], room up to a[c],
// n elements: unboxed, grown by doubling, so a million residuals cost 8 MB and no garbage per
// push, where a JS array of numbers costs about six times the time. The base b lets a counted
// inner loop's stack be a region of a shared slab without a typed-array view per run. Stacks of other elements, and linear (tangent) stacks, which are
// sparse and read `undefined` in their holes, stay JS arrays.
import type * as ts from 'typescript';
import { InternalError } from '../../../ir/syntax';
import type { EmitTsOps, StackHelperName } from '../types';
import { helperStatements } from '../../helperSource';

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
 *   if ($slab.top + cap > $slab.chunk.length) { $slab.chunk = new Float64Array(Math.max($slab.top + cap, Math.min(2 * $slab.chunk.length, POOL_KEEPS))); $slab.top = 0; }
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
  // The same four statements at every counted loop: one module function where the backend has
  // one (V8 inlines it where the loop is hot), else inline.
  const helper = ops.moduleHelper?.('reserve');
  if (helper) return [assign(ops, into, f.createCallExpression(helper, undefined, [ops.slab(), capacity]))];
  return reserveStatements(ops.factory, ops.ts, ops.slab(), f.createIdentifier(ops.fresh('cap')), capacity, (stack) => [assign(ops, into, stack)]);
}

export function stackHelperName(name: StackHelperName): string {
  return `tsad$${name}`;
}

/**
 * The module function a stack helper names: `tsad$reserve(slab, n)` returns a stack cut from the
 * slab (slabStack's block); `tsad$grow`, `tsad$take` and `tsad$give` are POOL_HELPERS below.
 */
export function stackHelper(f: ts.NodeFactory, t: typeof ts, name: StackHelperName): ts.FunctionDeclaration {
  if (name !== 'reserve') {
    const params = { grow: 's, need, slab', take: '', give: 'slab, value' }[name];
    return helperStatements(t, 'tsad-stack.js', `function ${stackHelperName(name)}(${params}) {\n${POOL_HELPERS[name]}\n}`)[0] as ts.FunctionDeclaration;
  }
  const id = (x: string) => f.createIdentifier(x);
  const body = reserveStatements(f, t, id('slab'), id('cap'), id('n'), (stack) => [
    f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration('s', undefined, undefined, stack)], t.NodeFlags.Const)),
  ]);
  body.push(f.createReturnStatement(id('s')));
  return f.createFunctionDeclaration(
    undefined,
    undefined,
    stackHelperName(name),
    undefined,
    ['slab', 'n'].map((p) => f.createParameterDeclaration(undefined, undefined, p)),
    undefined,
    f.createBlock(body, true),
  );
}

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
      // Twice the last only up to what the pool keeps, else what the call cut from the last chunk
      // and this stack (as tsad$grow): a doubled chunk just past the limit is dropped after the
      // call and allocated again by the next.
      f.createExpressionStatement(
        f.createAssignment(
          chunk,
          f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [
            math('max', [f.createAdd(top, cap), math('min', [f.createMultiply(f.createNumericLiteral(2), f.createPropertyAccessExpression(chunk, 'length')), f.createNumericLiteral(POOL_KEEPS)])]),
          ]),
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

/** The largest slab (in numbers: 32 MB) the pool keeps for the next call; a bigger one is left to the collector. */
export const POOL_KEEPS = 1 << 22;
/** How many slabs the pool keeps: one per derivative running at once (one inside another's evaluation). */
const POOL_SIZE = 4;

/**
 * The bodies of the slab helpers, as the module prints them (parsed once into nodes).
 *
 * `tsad$grow(s, need, slab)`: room for `need` elements in s, cut from the slab. A stack that ends
 * where the slab's free room starts (a while loop's tape, the last one opened) grows in place with
 * no copy; any other moves to the top of the slab, into a new chunk when the chunk is full, whose
 * old regions stay with the stacks that hold them. The new chunk is twice the last, but not past
 * what the pool keeps unless this call needs more: it has room for what the call cut from the
 * last chunk and the grown stack, so the next call finds all of it in one chunk. (Doubling a
 * chunk the pool kept, for a tape presized to its full length, made one the pool drops: lstm's
 * gradient at l = 4 allocated and zeroed 34 MB on every call.)
 *
 * `tsad$take()` / `tsad$give(slab, value)`: a derivative whose stacks all end with its call (no
 * stack among its parameters or results: emitTs.ts, poolsSlab) takes a slab from the module's
 * pool and gives it back with its result, so the next call finds the chunk the last one grew and
 * allocates nothing. A call running inside another's evaluation finds the pool without the
 * other's slab (it was taken) and gets one of its own; a call that throws loses its slab to the
 * collector. Stacks are written before they are read (records by put, pushes by push), so a
 * chunk's old contents are never read.
 */
const POOL_HELPERS: Record<'grow' | 'take' | 'give', string> = {
  grow: `const size = Math.max(2 * (s.c - s.b), need, 16);
if (s.a === slab.chunk && s.c === slab.top && s.b + size <= slab.chunk.length) {
  slab.top = s.b + size;
  s.c = slab.top;
  return;
}
if (slab.top + size > slab.chunk.length) {
  slab.chunk = new Float64Array(Math.max(slab.top + size, Math.min(2 * slab.chunk.length, ${POOL_KEEPS})));
  slab.top = 0;
}
slab.chunk.set(s.a.subarray(s.b, s.b + s.n), slab.top);
s.a = slab.chunk;
s.b = slab.top;
s.c = slab.top + size;
slab.top = s.c;`,
  take: `const pool = tsad$take.pool;
return pool !== undefined && pool.length > 0 ? pool.pop() : { chunk: new Float64Array(0), top: 0 };`,
  give: `const pool = tsad$take.pool ?? (tsad$take.pool = []);
if (pool.length < ${POOL_SIZE} && slab.chunk.length <= ${POOL_KEEPS}) {
  slab.top = 0;
  pool.push(slab);
}
return value;`,
};
