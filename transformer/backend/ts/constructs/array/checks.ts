// atmost in TypeScript (constructs/array/checks.ts).
import type * as ts from 'typescript';
import type { ConstructTsRule } from '../../types';

export const checksTs = {
  // if (!(n <= limit)) throw new RangeError(what + " (" + n + " > " + limit + ")"); into = n (`"… (" + n` when what is a literal)
  atmost: (ops, e, [into]) => {
    const f = ops.factory;
    const K = ops.ts.SyntaxKind;
    const [n, limit, what] = e.nl.map((x) => ops.ref(x));
    // A message that is a literal takes the ` (` in: one string, as a person would write it.
    const start = ops.ts.isStringLiteral(what) ? [f.createStringLiteral(`${what.text} (`)] : [what, f.createStringLiteral(' (')];
    const parts: ts.Expression[] = [...start, n, f.createStringLiteral(' > '), limit, f.createStringLiteral(')')];
    const message = parts.reduce((a, b) => f.createBinaryExpression(a, K.PlusToken, b));
    const test = f.createPrefixUnaryExpression(K.ExclamationToken, f.createParenthesizedExpression(f.createBinaryExpression(n, K.LessThanEqualsToken, limit)));
    return [
      f.createIfStatement(test, f.createThrowStatement(f.createNewExpression(f.createIdentifier('RangeError'), undefined, [message]))),
      f.createExpressionStatement(f.createAssignment(f.createIdentifier(into), ops.ref(e.nl[0]))),
    ];
  },
} satisfies Record<string, ConstructTsRule>;
