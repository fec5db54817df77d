// update, write, lupdate, ltake, clone, append and appendw in TypeScript (constructs/array/update.ts).
import type * as ts from 'typescript';
import type { ConstructTsRule, EmitTsOps } from '../../types';
import { assign, emitOwnedDense } from './emit';
import { isInt32Array } from '../../../../ir/syntax';
import { takeParts, updateParts } from '../../../../constructs/array/update';

const elementAt = (ops: EmitTsOps, a: ts.Expression, i: string) => ops.factory.createElementAccessExpression(a, ops.ref(i));

/**
 * `a` is held as an Int32Array (ir/types.ts `store`) and the result is not: its copy must hold
 * reals (`new Float64Array(a)`, where `slice` would keep the Int32Array and truncate what is then
 * written into it), and it is never written in place. The front end copies between the two kinds
 * itself (frontend/arrays.ts, inContainer); this keeps a pass that mixed them from truncating.
 */
const leavesInt32 = (ops: EmitTsOps, a: string): boolean => isInt32Array(ops.typeOf(a)) && !isInt32Array(ops.resultTypes[0]);

/** `a.slice()`, or a copy into a Float64Array where the result holds reals and a does not (leavesInt32). */
function copyOf(ops: EmitTsOps, a: string): ts.Expression {
  const f = ops.factory;
  if (leavesInt32(ops, a)) return f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [ops.ref(a)]);
  return f.createCallExpression(f.createPropertyAccessExpression(ops.ref(a), 'slice'), undefined, []);
}

const witnessExpr = (ops: EmitTsOps, w: string): ts.Expression => (ops.typeOf(w)?.tag === 'real' ? ops.ref(w) : ops.factory.createPropertyAccessExpression(ops.ref(w), 'length'));

/** r = new Float64Array(a.length + 1); r.set(a); r[a.length] = v */
const appendCopy: ConstructTsRule = (ops, e, into) => {
  const f = ops.factory;
  const a = ops.ref(e.nl[0]);
  const n = f.createPropertyAccessExpression(a, 'length');
  const r = f.createIdentifier(into[0]);
  return [
    assign(ops, into[0], f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [f.createAdd(n, f.createNumericLiteral(1))])),
    f.createExpressionStatement(f.createCallExpression(f.createPropertyAccessExpression(r, 'set'), undefined, [a])),
    f.createExpressionStatement(f.createAssignment(f.createElementAccessExpression(r, n), ops.ref(e.nl[1]))),
  ];
};

export const updateTs = {
  // r = a.slice(); r[i] = v
  update: (ops, e, into) => {
    const f = ops.factory;
    const r = f.createIdentifier(into[0]);
    return [assign(ops, into[0], copyOf(ops, e.nl[0])), f.createExpressionStatement(f.createAssignment(elementAt(ops, r, e.nl[1]), ops.ref(e.nl[2])))];
  },
  // r = a; r[i] = v
  write: (ops, e, into) => {
    const f = ops.factory;
    const r = f.createIdentifier(into[0]);
    const a = leavesInt32(ops, e.nl[0]) ? copyOf(ops, e.nl[0]) : ops.ref(e.nl[0]);
    return [assign(ops, into[0], a), f.createExpressionStatement(f.createAssignment(elementAt(ops, r, e.nl[1]), ops.ref(e.nl[2])))];
  },
  lupdate: (ops, e, into) => {
    const f = ops.factory;
    const { i, w, a, x } = updateParts(e, e);
    const r = f.createIdentifier(into[0]);
    return [...emitOwnedDense(ops, into[0], a, witnessExpr(ops, w), true), f.createExpressionStatement(f.createAssignment(elementAt(ops, r, i), ops.ref(x)))];
  },
  // if (i < c.length) { r = owned dense c; x = r[i]; r[i] = 0 } else { r = c; x = 0 }
  ltake: (ops, e, into) => {
    const f = ops.factory;
    const SK = ops.ts.SyntaxKind;
    const { i, c } = takeParts(e, e);
    const [r, x] = into.map((n) => f.createIdentifier(n));
    const inside = f.createBinaryExpression(ops.ref(i), SK.LessThanToken, f.createPropertyAccessExpression(ops.ref(c), 'length'));
    const taken = f.createBlock(
      [
        ...emitOwnedDense(ops, into[0], c, f.createNumericLiteral(0)),
        f.createExpressionStatement(f.createAssignment(x, elementAt(ops, r, i))),
        f.createExpressionStatement(f.createAssignment(elementAt(ops, r, i), f.createNumericLiteral(0))),
      ],
      true,
    );
    const past = f.createBlock([assign(ops, into[0], ops.ref(c)), f.createExpressionStatement(f.createAssignment(x, f.createNumericLiteral(0)))], true);
    return [f.createIfStatement(inside, taken, past)];
  },
  // r = ȧ; r[i] = v̇ (ȧ proved owned and dense: opt/ownedChains.ts)
  lupdatew: (ops, e, into) => {
    const f = ops.factory;
    const { i, a, x } = updateParts(e, e);
    const r = f.createIdentifier(into[0]);
    return [assign(ops, into[0], ops.ref(a)), f.createExpressionStatement(f.createAssignment(elementAt(ops, r, i), ops.ref(x)))];
  },
  // r = c̄; if (i < r.length) { x = r[i]; r[i] = 0 } else x = 0 (c̄ proved owned: opt/ownedChains.ts)
  ltakew: (ops, e, into) => {
    const f = ops.factory;
    const { i, c } = takeParts(e, e);
    const [r, x] = into.map((n) => f.createIdentifier(n));
    const inside = f.createBinaryExpression(ops.ref(i), ops.ts.SyntaxKind.LessThanToken, f.createPropertyAccessExpression(r, 'length'));
    const taken = f.createBlock(
      [f.createExpressionStatement(f.createAssignment(x, elementAt(ops, r, i))), f.createExpressionStatement(f.createAssignment(elementAt(ops, r, i), f.createNumericLiteral(0)))],
      true,
    );
    return [assign(ops, into[0], ops.ref(c)), f.createIfStatement(inside, taken, f.createExpressionStatement(f.createAssignment(x, f.createNumericLiteral(0))))];
  },
  clone: (ops, e, into) => [assign(ops, into[0], copyOf(ops, e.nl[0]))],
  append: (ops, e, into) => appendCopy(ops, e, into),
  // const n = a.length;
  // if (a.byteOffset + 8 * (n + 1) <= a.buffer.byteLength) r = new Float64Array(a.buffer, a.byteOffset, n + 1);
  // else { r = new Float64Array(Math.max(16, 2 * n + 2)).subarray(0, n + 1); r.set(a); }
  // r[n] = v
  appendw: (ops, e, into) => {
    // An Int32Array's buffer is no Float64Array's: appended to as a copy.
    if (isInt32Array(ops.typeOf(e.nl[0]))) return appendCopy(ops, e, into);
    const f = ops.factory;
    const SK = ops.ts.SyntaxKind;
    const a = ops.ref(e.nl[0]);
    const r = f.createIdentifier(into[0]);
    const n = f.createIdentifier(ops.fresh('n'));
    const n1 = f.createAdd(n, f.createNumericLiteral(1));
    const prop = (x: ts.Expression, p: string) => f.createPropertyAccessExpression(x, p);
    const declare = f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(n, undefined, undefined, prop(a, 'length'))], ops.ts.NodeFlags.Const));
    const fits = f.createBinaryExpression(
      f.createAdd(prop(a, 'byteOffset'), f.createMultiply(f.createNumericLiteral(8), f.createParenthesizedExpression(n1))),
      SK.LessThanEqualsToken,
      prop(prop(a, 'buffer'), 'byteLength'),
    );
    const view = f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [prop(a, 'buffer'), prop(a, 'byteOffset'), n1]);
    const size = f.createCallExpression(prop(f.createIdentifier('Math'), 'max'), undefined, [
      f.createNumericLiteral(16),
      f.createAdd(f.createMultiply(f.createNumericLiteral(2), n), f.createNumericLiteral(2)),
    ]);
    const grown = f.createCallExpression(prop(f.createNewExpression(f.createIdentifier('Float64Array'), undefined, [size]), 'subarray'), undefined, [f.createNumericLiteral(0), n1]);
    const stmt = (x: ts.Expression) => f.createExpressionStatement(x);
    return [
      declare,
      f.createIfStatement(fits, stmt(f.createAssignment(r, view)), f.createBlock([stmt(f.createAssignment(r, grown)), stmt(f.createCallExpression(prop(r, 'set'), undefined, [a]))], true)),
      stmt(f.createAssignment(f.createElementAccessExpression(r, n), ops.ref(e.nl[1]))),
    ];
  },
} satisfies Record<string, ConstructTsRule>;
