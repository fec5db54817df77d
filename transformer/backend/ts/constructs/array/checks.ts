// atmost and within in TypeScript (constructs/array/checks.ts). The test is inline, the failure
// path one call of the runtime (tsad$exceeds, tsad$badRead) where the module binds its helpers:
// a message written out per check was most of its bytes.
import type * as ts from 'typescript';
import type { ConstructTsRule, EmitTsOps } from '../../types';

/** `if (!test) throw failure;` */
function failing(ops: EmitTsOps, test: ts.Expression, failure: ts.Expression): ts.Statement {
  const f = ops.factory;
  const not = f.createPrefixUnaryExpression(ops.ts.SyntaxKind.ExclamationToken, f.createParenthesizedExpression(test));
  return f.createIfStatement(not, f.createThrowStatement(failure));
}

/** The number 0 written as a literal (a read whose start needs no test). */
function isZero(ops: EmitTsOps, e: ts.Expression): boolean {
  return ops.ts.isNumericLiteral(e) && Number(e.text) === 0;
}

export const checksTs = {
  // if (!(n <= limit)) throw tsad$exceeds(what, n, limit); into = n
  atmost: (ops, e, [into]) => {
    const f = ops.factory;
    const K = ops.ts.SyntaxKind;
    const [n, limit, what] = e.nl.map((x) => ops.ref(x));
    const helper = ops.moduleHelper?.('exceeds');
    let failure: ts.Expression;
    if (helper) failure = f.createCallExpression(helper, undefined, [what, n, limit]);
    else {
      // A message that is a literal takes the ` (` in: one string, as a person would write it.
      const start = ops.ts.isStringLiteral(what) ? [f.createStringLiteral(`${what.text} (`)] : [what, f.createStringLiteral(' (')];
      const parts: ts.Expression[] = [...start, n, f.createStringLiteral(' > '), limit, f.createStringLiteral(')')];
      failure = f.createNewExpression(f.createIdentifier('RangeError'), undefined, [parts.reduce((a, b) => f.createBinaryExpression(a, K.PlusToken, b))]);
    }
    return [failing(ops, f.createBinaryExpression(n, K.LessThanEqualsToken, limit), failure), f.createExpressionStatement(f.createAssignment(f.createIdentifier(into), ops.ref(e.nl[0])))];
  },
  // if (!(lo >>> 0 === lo && hi < limit)) throw tsad$badRead(what, lo, hi, limit); into = lo
  // (with a fifth operand, where the reads happen: if (runs && !(…)) …)
  // `lo >>> 0 === lo`: lo is whole and 0 ≤ lo < 2^32 (no array is longer), false for NaN; one
  // compare where floor, a compare and a sign test were. A literal 0 start needs no test.
  within: (ops, e, [into]) => {
    const f = ops.factory;
    const K = ops.ts.SyntaxKind;
    const [lo, hi, limit, what] = e.nl.map((x) => ops.ref(x));
    const end = f.createBinaryExpression(hi, K.LessThanToken, limit);
    const whole = f.createBinaryExpression(f.createBinaryExpression(lo, K.GreaterThanGreaterThanGreaterThanToken, f.createNumericLiteral(0)), K.EqualsEqualsEqualsToken, ops.ref(e.nl[0]));
    const test = isZero(ops, lo) ? end : f.createBinaryExpression(whole, K.AmpersandAmpersandToken, end);
    const helper = ops.moduleHelper?.('badRead');
    let failure: ts.Expression;
    if (helper) failure = f.createCallExpression(helper, undefined, [what, ops.ref(e.nl[0]), ops.ref(e.nl[1]), ops.ref(e.nl[2])]);
    else {
      // Without the runtime's helper: the same words, chosen here.
      const reach = f.createBinaryExpression(ops.ref(e.nl[1]), K.PlusToken, f.createNumericLiteral(1));
      const past = [what, f.createStringLiteral(' past its end ('), reach, f.createStringLiteral(' > '), ops.ref(e.nl[2]), f.createStringLiteral(')')].reduce((a, b) =>
        f.createBinaryExpression(a, K.PlusToken, b),
      );
      const before = [ops.ref(e.nl[3]), f.createStringLiteral(' before its start or between two elements (at '), ops.ref(e.nl[0]), f.createStringLiteral(')')].reduce((a, b) =>
        f.createBinaryExpression(a, K.PlusToken, b),
      );
      const atEnd = f.createBinaryExpression(f.createBinaryExpression(ops.ref(e.nl[1]), K.PlusToken, f.createNumericLiteral(1)), K.LessThanEqualsToken, ops.ref(e.nl[2]));
      failure = f.createNewExpression(f.createIdentifier('RangeError'), undefined, [f.createConditionalExpression(atEnd, undefined, before, undefined, past)]);
    }
    const check =
      e.nl.length > 4
        ? f.createIfStatement(
            f.createBinaryExpression(ops.ref(e.nl[4]), K.AmpersandAmpersandToken, f.createPrefixUnaryExpression(K.ExclamationToken, f.createParenthesizedExpression(test))),
            f.createThrowStatement(failure),
          )
        : failing(ops, test, failure);
    return [check, f.createExpressionStatement(f.createAssignment(f.createIdentifier(into), ops.ref(e.nl[0])))];
  },
} satisfies Record<string, ConstructTsRule>;
