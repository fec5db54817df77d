// TypeScript helpers for the array constructs. An array<real> is a Float64Array, any other array a
// plain JavaScript array; the zero array is empty and its missing elements read as zeros.
import type * as ts from 'typescript';
import { isInt32Array } from '../../../../ir/syntax';
import type { Type } from '../../../../ir/syntax';
import type { EmitTsOps } from '../../types';

export function assign(ops: EmitTsOps, name: string, value: ts.Expression): ts.Statement {
  const f = ops.factory;
  return f.createExpressionStatement(f.createAssignment(f.createIdentifier(name), value));
}

/** Is a value of this type emitted as a Float64Array (an array of reals)? */
export const isRealArray = (t: Type | undefined): boolean => t?.tag === 'array' && t.elem.tag === 'real';

/**
 * `new Float64Array(n)` for an array of reals, `new Int32Array(n)` for one whose elements are
 * 32-bit integers (ir/types.ts `store`: integer compares and remainders, and a store that is its
 * own ToInt32), `new Array(n)` otherwise (filled by the caller).
 */
export function allocate(ops: EmitTsOps, t: Type | undefined, n: ts.Expression): ts.Expression {
  const f = ops.factory;
  return f.createNewExpression(f.createIdentifier(isInt32Array(t) ? 'Int32Array' : isRealArray(t) ? 'Float64Array' : 'Array'), undefined, [n]);
}

/** `a[i] ?? 0`: an element of a (possibly shorter, sparse) tangent array of reals. */
export function readOrZero(ops: EmitTsOps, a: ts.Expression, i: ts.Expression): ts.Expression {
  const f = ops.factory;
  return f.createParenthesizedExpression(f.createBinaryExpression(f.createElementAccessExpression(a, i), ops.ts.SyntaxKind.QuestionQuestionToken, f.createNumericLiteral(0)));
}

/** `for (let k = 0; k < n; k++) { body }` */
export function forCount(ops: EmitTsOps, k: string, n: ts.Expression, body: readonly ts.Statement[]): ts.Statement {
  const f = ops.factory;
  const SK = ops.ts.SyntaxKind;
  return f.createForStatement(
    f.createVariableDeclarationList([f.createVariableDeclaration(k, undefined, undefined, f.createNumericLiteral(0))], ops.ts.NodeFlags.Let),
    f.createBinaryExpression(f.createIdentifier(k), SK.LessThanToken, n),
    f.createPostfixIncrement(f.createIdentifier(k)),
    f.createBlock([...body], true),
  );
}

/** The length of an owned copy of the fresh zero array for a dense length n: a length or a literal is a size already; any other real is clamped as Math.max(n, r.length) did. */
function freshSize(ops: EmitTsOps, n: ts.Expression): ts.Expression {
  const f = ops.factory;
  const plain = (ops.ts.isPropertyAccessExpression(n) && n.name.text === 'length') || (ops.ts.isNumericLiteral(n) && Number(n.text) >= 0);
  return plain ? n : f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Math'), 'max'), undefined, [n, f.createNumericLiteral(0)]);
}

/**
 * A claim's owned dense array (see emitOwnedDense), as one assignment `into = tsad$fresh($own, n)`
 * or `into = tsad$claim($own, a, n)` where the backend binds the runtime's helpers: a claim runs
 * once per loop, not per element, so it needs no hot slot, and its check and copy print once in
 * the runtime instead of at every claim. Undefined where there is no helper (inline statements).
 */
export function claimedDense(ops: EmitTsOps, a: string, n: ts.Expression): ts.Expression | undefined {
  const f = ops.factory;
  if (ops.freshZero(a)) {
    const fresh = ops.ownHelper('fresh');
    return fresh && f.createCallExpression(fresh, undefined, [ops.owned(), freshSize(ops, n)]);
  }
  const claim = ops.ownHelper('claim');
  return claim && f.createCallExpression(claim, undefined, [ops.owned(), ops.ref(a), n]);
}

/**
 * The owned dense array to update in place, into `into`:
 *
 *   r = a;
 *   if (!(r.length >= n && ((r === $hot_k && $hg_k === $gen) || $own.has(r)))) {
 *     r = new Float64Array(Math.max(n, r.length)); r.set(a); $own.add(r);
 *   }
 *   $hot_k = r; $hg_k = $gen;
 *
 * From the zero array this call made (EmitTsOps.freshZero), which is empty and never owned, the
 * test always fails and the copy copies nothing: `r = new Float64Array(Math.max(n, 0)); $own.add(r);`
 * is the same, and asks for no slot.
 *
 * (laccum, lupdate, ltake: see accum.ts for why only owned arrays are updated in place.)
 */
export function emitOwnedDense(ops: EmitTsOps, into: string, a: string, n: ts.Expression, grows = false): ts.Statement[] {
  const f = ops.factory;
  const SK = ops.ts.SyntaxKind;
  const r = f.createIdentifier(into);
  const own = ops.owned();
  if (ops.freshZero(a)) {
    const size = freshSize(ops, n);
    const fresh = ops.ownHelper('fresh');
    if (fresh) return [f.createExpressionStatement(f.createAssignment(r, f.createCallExpression(fresh, undefined, [own, size])))];
    return [
      f.createExpressionStatement(f.createAssignment(r, f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [size]))),
      f.createExpressionStatement(f.createCallExpression(f.createPropertyAccessExpression(own, 'add'), undefined, [r])),
    ];
  }
  const { slot, gen, now } = ops.hotSlot();
  const length = (x: ts.Expression) => f.createPropertyAccessExpression(x, 'length');
  const call = (target: ts.Expression, method: string, arg: ts.Expression) => f.createCallExpression(f.createPropertyAccessExpression(target, method), undefined, [arg]);
  const stmt = (x: ts.Expression) => f.createExpressionStatement(x);
  const cached = f.createParenthesizedExpression(f.createBinaryExpression(f.createStrictEquality(r, slot), SK.AmpersandAmpersandToken, f.createStrictEquality(gen, now)));
  const isOwned = f.createParenthesizedExpression(f.createBinaryExpression(cached, SK.BarBarToken, call(own, 'has', r)));
  const dense = f.createBinaryExpression(f.createBinaryExpression(length(r), SK.GreaterThanEqualsToken, n), SK.AmpersandAmpersandToken, isOwned);
  const size = f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Math'), 'max'), undefined, [n, length(r)]);
  let copy: ts.Statement = f.createBlock(
    [stmt(f.createAssignment(r, f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [size]))), stmt(call(r, 'set', ops.ref(a))), stmt(call(own, 'add', r))],
    true,
  );
  if (grows) {
    // An owned array one element short (the tangent of a push): grow into spare room at the end
    // of its buffer, or into a new buffer twice as large, as a push does (ops/update.ts appendw):
    // a loop of n pushes then costs O(n), not O(n²). Spare room holds zeros: every view of the
    // buffer starts at its start, and the old, shorter one is dead (its operand was linear).
    const num = (k: number) => f.createNumericLiteral(k);
    const bin = (x: ts.Expression, op: ts.BinaryOperator, y: ts.Expression) => f.createBinaryExpression(x, op, y);
    const prop = (x: ts.Expression, name: string) => f.createPropertyAccessExpression(x, name);
    const room = bin(bin(prop(r, 'byteOffset'), SK.PlusToken, bin(num(8), SK.AsteriskToken, n)), SK.LessThanEqualsToken, prop(prop(r, 'buffer'), 'byteLength'));
    const view = f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [prop(r, 'buffer'), prop(r, 'byteOffset'), n]);
    const doubled = f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [
      f.createCallExpression(prop(f.createIdentifier('Math'), 'max'), undefined, [num(16), bin(num(2), SK.AsteriskToken, n)]),
    ]);
    const grown = f.createBlock(
      [
        f.createIfStatement(
          room,
          stmt(f.createAssignment(r, view)),
          f.createBlock([stmt(f.createAssignment(r, f.createCallExpression(prop(doubled, 'subarray'), undefined, [num(0), n]))), stmt(call(r, 'set', ops.ref(a)))], true),
        ),
        stmt(call(own, 'add', r)),
      ],
      true,
    );
    copy = f.createIfStatement(isOwned, grown, copy);
  }
  return [
    stmt(f.createAssignment(r, ops.ref(a))),
    f.createIfStatement(f.createPrefixUnaryExpression(SK.ExclamationToken, f.createParenthesizedExpression(dense)), copy),
    stmt(f.createAssignment(slot, r)),
    stmt(f.createAssignment(gen, now)),
  ];
}

/** `let a, b;` (nothing for none). */
export function declare(ops: EmitTsOps, names: readonly string[]): ts.Statement[] {
  const f = ops.factory;
  if (names.length === 0) return [];
  return [
    f.createVariableStatement(
      undefined,
      f.createVariableDeclarationList(
        names.map((x) => f.createVariableDeclaration(x)),
        ops.ts.NodeFlags.Let,
      ),
    ),
  ];
}
