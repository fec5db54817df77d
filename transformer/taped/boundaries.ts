// Where a taped copy's numbers meet JavaScript that would treat a node as an object: truthiness,
// integer and bit operations, `typeof`, Number's tests, searches by value, Map keys, sort's
// comparator, strings and console output. Each is rewritten to act on the number's value (these
// are piecewise constant or not numbers at all, so no derivative is lost), or, for a spread into
// Math's min and max, to the taped primitive folded over the elements. Whatever still converts a
// node at run time throws a TypeError (runtime/tape.ts): a derivative is never silently lost.
import type * as ts from 'typescript';
import type { TapedOps } from './prims';
import { TapedRefusal } from './refusal';

/** The binary operators on integers: their results are piecewise constant in their operands. */
const INTEGER_OPERATORS = (K: typeof ts.SyntaxKind): ReadonlySet<ts.SyntaxKind> =>
  new Set([K.AmpersandToken, K.BarToken, K.CaretToken, K.LessThanLessThanToken, K.GreaterThanGreaterThanToken, K.GreaterThanGreaterThanGreaterThanToken]);
const INTEGER_ASSIGNMENTS = (K: typeof ts.SyntaxKind): ReadonlyMap<ts.SyntaxKind, ts.BinaryOperator> =>
  new Map<ts.SyntaxKind, ts.BinaryOperator>([
    [K.AmpersandEqualsToken, K.AmpersandToken],
    [K.BarEqualsToken, K.BarToken],
    [K.CaretEqualsToken, K.CaretToken],
    [K.LessThanLessThanEqualsToken, K.LessThanLessThanToken],
    [K.GreaterThanGreaterThanEqualsToken, K.GreaterThanGreaterThanToken],
    [K.GreaterThanGreaterThanGreaterThanEqualsToken, K.GreaterThanGreaterThanGreaterThanToken],
  ]);
/** Functions that test or convert a number without a derivative: they get its value. */
const VALUE_FUNCTIONS = new Set(['isFinite', 'isNaN', 'Boolean', 'String', 'parseFloat', 'parseInt']);
const NUMBER_TESTS = new Set(['isFinite', 'isNaN', 'isInteger', 'isSafeInteger', 'parseFloat', 'parseInt']);
/** Map's methods whose first argument is a key (compared by value). */
const KEYED = new Set(['get', 'has', 'set', 'delete']);
const SEARCHES = new Set(['indexOf', 'lastIndexOf', 'includes']);

/** The temporary that `x || y` on numbers keeps x in. */
export const LOGIC_TEMPORARY = 'tsad$test';

export class TapedBoundaries {
  constructor(
    private readonly tsApi: typeof ts,
    private readonly checker: ts.TypeChecker,
    private readonly f: ts.NodeFactory,
    private readonly prims: TapedOps,
    /** `tsad$rt.tsad$tape.<member>` */
    private readonly runtime: (member: string) => ts.Expression,
    private readonly isNumber: (e: ts.Node) => boolean,
  ) {}

  /**
   * The rewrite of `node` where it is such a boundary, its parts visited by `sub`; undefined
   * where it is not one. `state.logic` is set when the logic temporary is used.
   */
  rewrite(node: ts.Node, sub: (e: ts.Expression) => ts.Expression, state: { logic: boolean }): ts.Node | undefined {
    const t = this.tsApi;
    const f = this.f;
    const K = t.SyntaxKind;
    const value = (e: ts.Expression) => (this.isNumber(e) ? this.prims.value(sub(e)) : sub(e));
    if (t.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      if (INTEGER_OPERATORS(K).has(op)) return f.createBinaryExpression(value(node.left), op, value(node.right));
      const assigned = INTEGER_ASSIGNMENTS(K).get(op);
      if (assigned !== undefined) return f.createParenthesizedExpression(f.createAssignment(sub(node.left), f.createBinaryExpression(value(node.left), assigned, value(node.right))));
      if ((op === K.BarBarToken || op === K.AmpersandAmpersandToken) && this.isNumber(node.left)) {
        // x || y is x where x's value is truthy, else y (x && y the other way round): x once.
        state.logic = true;
        const kept = f.createIdentifier(LOGIC_TEMPORARY);
        const test = this.prims.value(f.createParenthesizedExpression(f.createAssignment(kept, sub(node.left))));
        return f.createParenthesizedExpression(
          op === K.BarBarToken ? f.createConditionalExpression(test, undefined, kept, undefined, sub(node.right)) : f.createConditionalExpression(test, undefined, sub(node.right), undefined, kept),
        );
      }
      return undefined;
    }
    if (t.isPrefixUnaryExpression(node) && node.operator === K.TildeToken) return f.createPrefixUnaryExpression(K.TildeToken, value(node.operand));
    if (t.isTypeOfExpression(node) && this.isNumber(node.expression)) return f.createTypeOfExpression(value(node.expression));
    if (t.isTemplateExpression(node)) {
      return f.createTemplateExpression(
        node.head,
        node.templateSpans.map((s) => f.createTemplateSpan(value(s.expression), s.literal)),
      );
    }
    if (!t.isCallExpression(node)) return undefined;
    const callee = node.expression;
    const args = node.arguments;
    const global = (e: ts.Expression, name: string) => t.isIdentifier(e) && e.text === name && this.isBuiltIn(e);
    // isFinite(x), Number.isNaN(x), Boolean(x), String(x): the value; Number(x) is x.
    if (t.isIdentifier(callee) && VALUE_FUNCTIONS.has(callee.text) && this.isBuiltIn(callee)) return f.createCallExpression(callee, undefined, args.map(value));
    if (global(callee, 'Number') && args.length === 1 && this.isNumber(args[0])) return sub(args[0]);
    if (t.isPropertyAccessExpression(callee) && global(callee.expression, 'Number') && NUMBER_TESTS.has(callee.name.text)) return f.createCallExpression(callee, undefined, args.map(value));
    if (t.isPropertyAccessExpression(callee) && t.isIdentifier(callee.expression) && callee.expression.text === 'console' && this.isBuiltIn(callee.expression)) {
      return f.createCallExpression(
        callee,
        undefined,
        args.map((a) => f.createCallExpression(this.runtime('primal'), undefined, [sub(a)])),
      );
    }
    if (t.isPropertyAccessExpression(callee) && this.isNumber(callee.expression)) {
      // x.toFixed(2), x.toString(): a string of the value.
      return f.createCallExpression(f.createPropertyAccessExpression(this.prims.value(sub(callee.expression)), callee.name), undefined, args.map(sub));
    }
    if (t.isPropertyAccessExpression(callee) && t.isIdentifier(callee.expression) && callee.expression.text === 'Math' && args.some(t.isSpreadElement)) {
      return this.mathSpread(node, callee.name.text, sub);
    }
    if (!t.isPropertyAccessExpression(callee)) return undefined;
    const method = callee.name.text;
    const receiver = this.checker.getTypeAtLocation(callee.expression);
    if (SEARCHES.has(method) && this.isArrayLike(receiver) && args.length >= 1) {
      return f.createCallExpression(this.runtime('search'), undefined, [sub(callee.expression), f.createStringLiteral(method), ...args.map(sub)]);
    }
    if (method === 'sort' && this.isArrayLike(receiver)) {
      const order = args[0] ? f.createCallExpression(this.runtime('comparator'), undefined, [sub(args[0])]) : this.runtime('defaultOrder');
      return f.createCallExpression(f.createPropertyAccessExpression(sub(callee.expression), 'sort'), undefined, [order]);
    }
    if (KEYED.has(method) && receiver.getSymbol()?.getName() === 'Map' && args.length >= 1)
      return f.createCallExpression(f.createPropertyAccessExpression(sub(callee.expression), method), undefined, [value(args[0]), ...args.slice(1).map(sub)]);
    if (receiver.getSymbol()?.getName() === 'Set' && args.some((a) => this.isNumber(a))) {
      throw new TapedRefusal(node, `taped code keeps numbers in a Set (${method}): its members would lose their derivatives; keep them in an array`);
    }
    return undefined;
  }

  /** `Math.max(a, ...xs)`: the two-argument taped primitive folded over all the numbers. */
  private mathSpread(node: ts.CallExpression, name: string, sub: (e: ts.Expression) => ts.Expression): ts.Expression {
    const f = this.f;
    if (name !== 'max' && name !== 'min') throw new TapedRefusal(node, `taped code spreads an array into Math.${name}: taped mode folds only Math.max and Math.min over a spread`);
    const all = f.createArrayLiteralExpression(node.arguments.map(sub));
    const [acc, e] = [f.createIdentifier('tsad$acc'), f.createIdentifier('tsad$e')];
    const step = f.createArrowFunction(
      undefined,
      undefined,
      [f.createParameterDeclaration(undefined, undefined, acc), f.createParameterDeclaration(undefined, undefined, e)],
      undefined,
      undefined,
      this.prims.apply(name, [acc, e]),
    );
    const start = name === 'max' ? f.createPrefixUnaryExpression(this.tsApi.SyntaxKind.MinusToken, f.createIdentifier('Infinity')) : f.createIdentifier('Infinity');
    return f.createCallExpression(f.createPropertyAccessExpression(all, 'reduce'), undefined, [step, start]);
  }

  private isBuiltIn(id: ts.Identifier): boolean {
    const sym = this.checker.getSymbolAtLocation(id);
    return !!sym?.declarations?.every((d) => d.getSourceFile().isDeclarationFile);
  }

  private isArrayLike(type: ts.Type): boolean {
    const name = type.getSymbol()?.getName();
    return this.checker.isArrayType(type) || this.checker.isTupleType(type) || name === 'Float64Array' || name === 'Float32Array' || name === 'ReadonlyArray';
  }
}
