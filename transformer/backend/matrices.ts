// The matrix helpers a wrapper converts number[][] with, emitted once per module that needs them
// (typescript.ts), and the node builders they are written with.
import type * as ts from 'typescript';

/**
 * The two matrix helpers, emitted once per module that needs them (docs/frontend.md,
 * "Matrices"):
 *
 *   tsad$packMatrix(m, path, like?)   number[][] -> [Float64Array data (row-major), rows, cols];
 *                                     a tangent (third argument given) gets dimensions 0 and, with
 *                                     `like`, must be as large as it
 *   tsad$unpackMatrix(data, like, Row) the rows of `like`'s size (`like` the user's matrix or the
 *                                     IR's [data, rows, cols]), missing elements 0
 *
 * An IR matrix is told from a user's by its second element, a number (a user matrix's is a row
 * or undefined).
 */
export function matrixHelpers(f: ts.NodeFactory, t: typeof ts): ts.Statement[] {
  const kit = helperKit(f, t);
  const { K, id, str, num, bin, cat, at, local, fn } = kit;
  const len = (e: ts.Expression) => f.createPropertyAccessExpression(e, 'length');
  const cond = (c: ts.Expression, a: ts.Expression, b: ts.Expression) => f.createConditionalExpression(c, undefined, a, undefined, b);
  const range = (message: ts.Expression) => f.createThrowStatement(f.createNewExpression(id('RangeError'), undefined, [message]));
  const forEach = (i: string, limit: ts.Expression, body: ts.Statement[]) => kit.forEach(i, 0, limit, 1, body);
  const colsOf = (m: ts.Expression) => cond(bin(len(m), K.EqualsEqualsEqualsToken, num(0)), num(0), len(at(m, 0)));
  const isIR = (m: ts.Expression) => bin(f.createTypeOfExpression(at(m, 1)), K.EqualsEqualsEqualsToken, str('number'));
  const ij = bin(bin(id('i'), K.AsteriskToken, id('cols')), K.PlusToken, id('j'));

  const pack = fn(
    'tsad$packMatrix',
    ['m', 'path', 'like'],
    [
      local('rows', len(id('m'))),
      local('cols', colsOf(id('m'))),
      f.createIfStatement(
        bin(id('like'), K.ExclamationEqualsToken, f.createNull()),
        f.createBlock(
          [
            local('likeRows', cond(isIR(id('like')), at(id('like'), 1), len(id('like')))),
            local('likeCols', cond(isIR(id('like')), at(id('like'), 2), colsOf(id('like')))),
            f.createIfStatement(
              bin(bin(id('rows'), K.ExclamationEqualsEqualsToken, id('likeRows')), K.BarBarToken, bin(id('cols'), K.ExclamationEqualsEqualsToken, id('likeCols'))),
              range(cat(str("'"), id('path'), str("' must be a "), id('likeRows'), str(' × '), id('likeCols'), str(' matrix like its primal, got '), id('rows'), str(' × '), id('cols'))),
            ),
          ],
          true,
        ),
      ),
      local('data', f.createNewExpression(id('Float64Array'), undefined, [bin(id('rows'), K.AsteriskToken, id('cols'))])),
      forEach('i', id('rows'), [
        local('row', at(id('m'), id('i'))),
        f.createIfStatement(
          bin(bin(id('row'), K.EqualsEqualsToken, f.createNull()), K.BarBarToken, bin(len(id('row')), K.ExclamationEqualsEqualsToken, id('cols'))),
          range(
            cat(
              str("'"),
              id('path'),
              str("' must be a rectangular matrix (number[][]): row "),
              id('i'),
              str(' has '),
              cond(bin(id('row'), K.EqualsEqualsToken, f.createNull()), str('no'), len(id('row'))),
              str(' numbers, row 0 has '),
              id('cols'),
            ),
          ),
        ),
        forEach('j', id('cols'), [f.createExpressionStatement(f.createAssignment(at(id('data'), ij), at(id('row'), id('j'))))]),
      ]),
      f.createReturnStatement(
        cond(
          bin(id('like'), K.EqualsEqualsEqualsToken, id('undefined')),
          f.createArrayLiteralExpression([id('data'), id('rows'), id('cols')]),
          f.createArrayLiteralExpression([id('data'), num(0), num(0)]),
        ),
      ),
    ],
  );

  const unpack = fn(
    'tsad$unpackMatrix',
    ['data', 'like', 'Row'],
    [
      local('rows', cond(isIR(id('like')), at(id('like'), 1), len(id('like')))),
      local('cols', cond(isIR(id('like')), at(id('like'), 2), colsOf(id('like')))),
      local('out', f.createNewExpression(id('Array'), undefined, [id('rows')])),
      forEach('i', id('rows'), [
        local(
          'row',
          cond(bin(id('Row'), K.EqualsEqualsEqualsToken, id('Array')), f.createNewExpression(id('Array'), undefined, [id('cols')]), f.createNewExpression(id('Row'), undefined, [id('cols')])),
        ),
        forEach('j', id('cols'), [f.createExpressionStatement(f.createAssignment(at(id('row'), id('j')), bin(at(id('data'), ij), K.QuestionQuestionToken, num(0))))]),
        f.createExpressionStatement(f.createAssignment(at(id('out'), id('i')), id('row'))),
      ]),
      f.createReturnStatement(id('out')),
    ],
  );
  return [pack, unpack];
}

/** The node builders the helper functions emitted once per module are written with. */
function helperKit(f: ts.NodeFactory, t: typeof ts) {
  const K = t.SyntaxKind;
  const id = (name: string) => f.createIdentifier(name);
  const num = (n: number) => f.createNumericLiteral(n);
  const bin = (a: ts.Expression, op: ts.BinaryOperator, b: ts.Expression) => f.createBinaryExpression(a, op, b);
  return {
    K,
    id,
    num,
    bin,
    str: (text: string) => f.createStringLiteral(text),
    cat: (...parts: ts.Expression[]) => parts.reduce((a, b) => bin(a, K.PlusToken, b)),
    at: (e: ts.Expression, i: ts.Expression | number) => f.createElementAccessExpression(e, i),
    local: (name: string, init: ts.Expression) =>
      f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(name, undefined, undefined, init)], t.NodeFlags.Const)),
    /** `for (let i = from; i < limit; i += step) { body }` */
    forEach: (i: string, from: number, limit: ts.Expression, step: number, body: ts.Statement[]) =>
      f.createForStatement(
        f.createVariableDeclarationList([f.createVariableDeclaration(i, undefined, undefined, num(from))], t.NodeFlags.Let),
        bin(id(i), K.LessThanToken, limit),
        bin(id(i), K.PlusEqualsToken, num(step)),
        f.createBlock(body, true),
      ),
    /** A function declaration; a parameter written `...rest` is a rest parameter, `name=""` has a default. */
    fn: (name: string, params: string[], body: ts.Statement[]) =>
      f.createFunctionDeclaration(
        undefined,
        undefined,
        name,
        undefined,
        params.map((p) => {
          if (p.startsWith('...')) return f.createParameterDeclaration(undefined, f.createToken(K.DotDotDotToken), p.slice(3));
          // `name=""`: a parameter whose default is the empty string.
          const [bare, initial] = p.split('=');
          return f.createParameterDeclaration(undefined, undefined, bare, undefined, undefined, initial === undefined ? undefined : f.createStringLiteral(JSON.parse(initial)));
        }),
        undefined,
        f.createBlock(body, true),
      ),
  };
}
