// A check's message is built where it fails: `"… (" + checked + " > " + 0 + ")"` where the limit
// is a literal. backend/ts/stringFolds.ts makes literals next to each other, once the `+` chain
// has met a string literal, one string literal (`" > 0)"`): the same string, fewer bytes. Checked
// on the text (what folds, and what must not: a sum of numbers before the first string, a
// parenthesized sum) against evaluating both, and on a derivative's messages.
import * as ts from 'typescript';
import { foldStrings } from '../../transformer/backend/ts/stringFolds';
import { compile, loadOutput } from './harness';

function folded(expr: string): string {
  const sf = ts.createSourceFile('x.ts', `r = ${expr};`, ts.ScriptTarget.Latest, true);
  const printer = ts.createPrinter();
  return foldStrings(ts, sf.statements)
    .map((s) => printer.printNode(ts.EmitHint.Unspecified, s, sf))
    .join('\n');
}

/** The value `r = expr;` assigns with x = 7 and s = 'q': the expressions use only x, s, literals and `+`. */
function run(code: string): unknown {
  const e = ts.createSourceFile('y.ts', code, ts.ScriptTarget.Latest, true).statements[0] as ts.ExpressionStatement;
  const value = (n: ts.Expression): any => {
    if (ts.isParenthesizedExpression(n)) return value(n.expression);
    if (ts.isBinaryExpression(n)) return n.operatorToken.kind === ts.SyntaxKind.EqualsToken ? value(n.right) : value(n.left) + value(n.right);
    if (ts.isStringLiteral(n)) return n.text;
    if (ts.isNumericLiteral(n)) return Number(n.text);
    if (ts.isIdentifier(n)) return n.text === 'x' ? 7 : 'q';
    throw new Error(`unexpected ${ts.SyntaxKind[n.kind]}`);
  };
  return value(e.expression);
}

describe('literals concatenated into a string', () => {
  test.each([
    ['"a (" + x + " > " + 0 + ")"', 'r = "a (" + x + " > 0)";'],
    ['"(" + 1 + " > " + x + ")"', 'r = "(1 > " + x + ")";'],
    ['x + 1 + 2 + "a" + 3 + 4', 'r = x + 1 + 2 + "a34";'],
    ['1 + 2 + "a"', 'r = 1 + 2 + "a";'],
    ['s + (1 + 2) + "b"', 'r = s + (1 + 2) + "b";'],
    ['"a" + 1e21 + 0.5', 'r = "a1e+210.5";'],
  ])('%s', (expr, want) => {
    const out = folded(expr);
    expect(out).toBe(want);
    expect(run(out)).toBe(run(`r = ${expr};`));
  });

  test("a derivative's read checks name their limits as before", () => {
    const result = compile(`import { grad } from 'tsad';
/** @differentiable */
export function f(x: Float64Array, k: number): number {
  let s = 0;
  for (let r = 0; r < 3; r++) s += x[r] * x[r * k];
  return s;
}
export const g = grad(f);
`);
    expect(result.outputText).not.toMatch(/" \+ \d+ \+ "/);
    const m = loadOutput(result);
    expect(() => m.g(Float64Array.from([1, 2]), 1)).toThrow("grad(f): in f: the loop for (… i < 3 …) reads 'x[i]' past its end (3 > 2)");
    expect(() => m.g(Float64Array.from([1, 2, 3]), 0.5)).toThrow(/before its start or between two elements/);
  });
});
