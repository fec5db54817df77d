// The stack constructs in TypeScript (constructs/stack): typed stacks of reals and JS arrays
// (stackEmit.ts says how each is laid out).
import type * as ts from 'typescript';
import type { ConstructTsRule, EmitTsOps } from '../types';
import { isLinear, rest } from '../../../constructs/stack/linear';
import { assign, emptyRealStack, isRealStack, reserve, slabStack, stackElement, stackSize } from './stackEmit';
import { position } from '../../../constructs/stack/position';
import { extendTs, presizeTs } from './stackExtend';

/**
 * r, r·stride + field, and either plus the base (constructs/stack/position.ts), summed from the
 * left: base + r·stride + field. Positions are integers below 2⁵³, whose sums are exact in any
 * order, so the grouping needs no parentheses; a literal field 0 is left out (exact for a
 * position, though not for every sum: −0 + 0 is +0, and an index −0 reads the element at 0).
 */
function flatPosition(ops: EmitTsOps, indices: readonly string[], start?: ts.Expression): ts.Expression {
  const f = ops.factory;
  const { r, stride, field, base } = position(indices);
  const terms: ts.Expression[] = start ? [start] : [];
  // `base | 0`: the offset comes back from a Float64Array as a double; as an int32 the index stays integer arithmetic.
  if (base !== undefined) terms.push(f.createParenthesizedExpression(f.createBitwiseOr(ops.ref(base), f.createNumericLiteral(0))));
  terms.push(stride === undefined ? ops.ref(r) : f.createMultiply(ops.ref(r), ops.ref(stride)));
  const fieldRef = field === undefined ? undefined : ops.ref(field);
  if (fieldRef && !(ops.ts.isNumericLiteral(fieldRef) && Number(fieldRef.text) === 0)) terms.push(fieldRef);
  return terms.reduce((sum, term) => f.createAdd(sum, term));
}

/** Where a position is in a stack: `s.a[s.b + position]` for a typed stack (its offset the sum's first term), `s[position]` else. */
function slotAt(ops: EmitTsOps, s: string, indices: readonly string[]): ts.ElementAccessExpression {
  const f = ops.factory;
  if (!isRealStack(ops, s)) return f.createElementAccessExpression(ops.ref(s), flatPosition(ops, indices));
  const st = ops.ref(s);
  return f.createElementAccessExpression(f.createPropertyAccessExpression(st, 'a'), flatPosition(ops, indices, f.createPropertyAccessExpression(st, 'b')));
}

/** The room `stack(x, n[, stride])` reserves, before slabStack rounds it up: n, or ⌈n⌉·stride (⌈n·stride⌉ can miss the last record's fields when n is fractional). */
function capacity(ops: EmitTsOps, n: string, stride: string | undefined): ts.Expression {
  const f = ops.factory;
  if (stride === undefined) return ops.ref(n);
  return f.createMultiply(f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Math'), 'ceil'), undefined, [ops.ref(n)]), ops.ref(stride));
}

const stack: ConstructTsRule = (ops, e, into) => {
  const t = ops.resultTypes[0];
  const reals = t ? t.tag === 'stack' && t.elem.tag === 'real' : isRealStack(ops, into[0]);
  const [, n, stride] = e.nl;
  if (reals && n !== undefined) return slabStack(ops, into[0], capacity(ops, n, stride));
  return [assign(ops, into[0], reals ? emptyRealStack(ops) : ops.factory.createArrayLiteralExpression([]))];
};

const push: ConstructTsRule = (ops, e, into) => {
  const f = ops.factory;
  const s = ops.ref(e.nl[0]);
  if (isRealStack(ops, e.nl[0])) {
    // s.a[s.b + s.n] = x; s.n += 1;   after making room
    const top = stackSize(f, s);
    const room = reserve(ops, s, f.createAdd(top, f.createNumericLiteral(1)));
    const write = f.createExpressionStatement(f.createAssignment(stackElement(f, s, top), ops.ref(e.nl[1])));
    const grow = f.createExpressionStatement(f.createAssignment(stackSize(f, s), f.createAdd(stackSize(f, s), f.createNumericLiteral(1))));
    return [room, write, grow, assign(ops, into[0], s)];
  }
  const pushCall = f.createCallExpression(f.createPropertyAccessExpression(s, 'push'), undefined, [ops.ref(e.nl[1])]);
  return [f.createExpressionStatement(pushCall), assign(ops, into[0], s)];
};

const at: ConstructTsRule = (ops, e, into) => {
  const [s, ...indices] = e.nl;
  return [assign(ops, into[0], slotAt(ops, s, indices))];
};

const size: ConstructTsRule = (ops, e, into) => {
  const f = ops.factory;
  const s = ops.ref(e.nl[0]);
  return [assign(ops, into[0], isRealStack(ops, e.nl[0]) ? stackSize(f, s) : f.createPropertyAccessExpression(s, 'length'))];
};

const lpush: ConstructTsRule = (ops, e, into) => {
  const f = ops.factory;
  const [s, x] = rest(e, e);
  const k = ops.ref(e.nl[0]);
  if (!isLinear(e) && isRealStack(ops, s)) {
    // Erased (a non-linear typed stack): write position k, then the size covers it.
    const st = ops.ref(s);
    const next = f.createAdd(k, f.createNumericLiteral(1));
    const write = f.createExpressionStatement(f.createAssignment(stackElement(f, st, k), ops.ref(x)));
    // One runtime call, tsad$lpush (V8 inlines it where the loop is hot): the test below, in a
    // third of the text at every push of a tangent.
    const put = ops.moduleHelper?.('lpush');
    if (put) return [f.createExpressionStatement(f.createCallExpression(put, undefined, [st, k, ops.ref(x), ops.slab()])), assign(ops, into[0], st)];
    // Below its size a typed stack has room (n ≤ c − b): only a position at or past the top needs
    // the room test and the new size, one runtime call.
    const helper = ops.moduleHelper?.('cover');
    if (helper) {
      const past = f.createIfStatement(f.createGreaterThanEquals(k, stackSize(f, st)), f.createExpressionStatement(f.createCallExpression(helper, undefined, [st, next, ops.slab()])));
      return [past, write, assign(ops, into[0], st)];
    }
    const cover = f.createIfStatement(f.createGreaterThan(next, stackSize(f, st)), f.createExpressionStatement(f.createAssignment(stackSize(f, st), next)));
    return [reserve(ops, st, next), write, cover, assign(ops, into[0], st)];
  }
  const set = f.createAssignment(f.createElementAccessExpression(ops.ref(s), k), ops.ref(x));
  return [f.createExpressionStatement(set), assign(ops, into[0], ops.ref(s))];
};

/** The value a body assigns to `into` when it is that one assignment of a literal (a zero), else undefined. */
function literalResult(ops: EmitTsOps, body: readonly ts.Statement[], into: string): ts.Expression | undefined {
  const t = ops.ts;
  const [only] = body;
  if (body.length !== 1 || !t.isExpressionStatement(only) || !t.isBinaryExpression(only.expression)) return undefined;
  const { left, operatorToken, right } = only.expression;
  if (operatorToken.kind !== t.SyntaxKind.EqualsToken || !t.isIdentifier(left) || left.text !== into) return undefined;
  return t.isNumericLiteral(right) ? right : undefined;
}

// y = s[i]; if (y === undefined) { …the zero… }   (a hole of a sparse stack reads undefined)
// A zero that is a number is one expression: `y = s[i] ?? 0`, `y = i < s.n ? s.a[s.b + i] : 0`.
const lat: ConstructTsRule = (ops, e, into) => {
  const f = ops.factory;
  const [s] = rest(e, e);
  const i = ops.ref(e.nl[0]);
  const zero = ops.emitBody(e.bodies[0], [], into);
  const literal = literalResult(ops, zero, into[0]);
  if (!isLinear(e) && isRealStack(ops, s)) {
    // Erased (a non-linear typed stack): if (i < s.n) y = s.a[s.b + i]; else { …the zero… }
    const st = ops.ref(s);
    const inside = f.createLessThan(i, stackSize(f, st));
    // `tsad$lat(s, i)`: a zero that is 0, the runtime's (V8 inlines it where the loop is hot).
    const read = literal && ops.ts.isNumericLiteral(literal) && Number(literal.text) === 0 ? ops.moduleHelper?.('lat') : undefined;
    if (read) return [assign(ops, into[0], f.createCallExpression(read, undefined, [st, i]))];
    if (literal) return [assign(ops, into[0], f.createConditionalExpression(inside, undefined, stackElement(f, st, i), undefined, literal))];
    return [f.createIfStatement(inside, assign(ops, into[0], stackElement(f, st, i)), f.createBlock(zero, true))];
  }
  const read = f.createElementAccessExpression(ops.ref(s), i);
  if (literal) return [assign(ops, into[0], f.createBinaryExpression(read, ops.ts.SyntaxKind.QuestionQuestionToken, literal))];
  const missing = f.createStrictEquality(f.createIdentifier(into[0]), f.createIdentifier('undefined'));
  return [assign(ops, into[0], read), f.createIfStatement(missing, f.createBlock(zero, true))];
};

// s.a[s.b + i] = x (or s[i] = x): the counted loop's iteration i fills record i of the room it reserved.
const put: ConstructTsRule = (ops, e, into) => {
  const f = ops.factory;
  const [s, x, ...indices] = e.nl;
  return [f.createExpressionStatement(f.createAssignment(slotAt(ops, s, indices), ops.ref(x))), assign(ops, into[0], ops.ref(s))];
};

export const stackTs = { stack, push, put, extend: extendTs, presize: presizeTs, at, size, lpush, lat };
