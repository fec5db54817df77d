// matmul and its six linear forms in TypeScript (constructs/array/matmul.ts).
import type * as ts from 'typescript';
import { REAL_ARRAY } from '../../../../constructs/array/ops';
import { type Role, byRole, third } from '../../../../constructs/array/matmul';
import type { ConstructTsRule, EmitTsOps } from '../../types';
import { allocate, assign, forCount } from './emit';
import { constant, elementAt, throwRange } from './indices';
import { linearOpTs } from './linearOp';

// One loop nest per product, i-l-j, the innermost loop over j contiguous in
// every array it touches (a row of B times a scalar of A added into a row of C, or a row of C
// dotted with a row of B), row offsets hoisted, no allocation but the result.

const num = (ops: EmitTsOps, v: number): ts.Expression => ops.factory.createNumericLiteral(v);

/** The number of elements of a role's matrix, as an expression of the size variables. */
function sizeExpr(ops: EmitTsOps, r: Role, [n, k, m]: readonly ts.Expression[]): ts.Expression {
  const f = ops.factory;
  return r === 'a' ? f.createMultiply(n, k) : r === 'b' ? f.createMultiply(k, m) : f.createMultiply(n, m);
}

/**
 *   out = new Float64Array(size);
 *   for (let i = 0; i < n; i++) { const ia = i * k, ic = i * m;
 *     for (let l = 0; l < k; l++) { const lb = l * m;
 *       c:  const s = A[ia + l]; for (let j = 0; j < m; j++) C[ic + j] += s * B[lb + j];
 *       a:  let s = 0; for (let j = 0; j < m; j++) s += C[ic + j] * B[lb + j]; A[ia + l] = s;
 *       b:  const s = A[ia + l]; for (let j = 0; j < m; j++) B[lb + j] += s * C[ic + j]; } }
 */
function emitProduct(ops: EmitTsOps, out: Role, into: string, mats: Record<Role, ts.Expression>, dims: readonly ts.Expression[]): ts.Statement[] {
  const f = ops.factory;
  const SK = ops.ts.SyntaxKind;
  const [n, k, m] = dims;
  const [i, l, j, ia, ic, lb, s] = ['i', 'l', 'j', 'ia', 'ic', 'lb', 's'].map((h) => ops.fresh(h));
  const id = (x: string) => f.createIdentifier(x);
  const at = (a: ts.Expression, row: string, col: string) => elementAt(ops, a, f.createAdd(id(row), id(col)));
  const addTo = (target: ts.Expression, value: ts.Expression) => f.createExpressionStatement(f.createBinaryExpression(target, SK.PlusEqualsToken, value));
  const target: Record<Role, ts.Expression> = { ...mats };
  target[out] = id(into);
  const { a, b, c } = target;
  let inner: ts.Statement[];
  if (out === 'c') inner = [constant(ops, s, at(a, ia, l)), forCount(ops, j, m, [addTo(at(c, ic, j), f.createMultiply(id(s), at(b, lb, j)))])];
  else if (out === 'b') inner = [constant(ops, s, at(a, ia, l)), forCount(ops, j, m, [addTo(at(b, lb, j), f.createMultiply(id(s), at(c, ic, j)))])];
  else {
    const sum = f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(s, undefined, undefined, num(ops, 0))], ops.ts.NodeFlags.Let));
    inner = [sum, forCount(ops, j, m, [addTo(id(s), f.createMultiply(at(c, ic, j), at(b, lb, j)))]), f.createExpressionStatement(f.createAssignment(at(a, ia, l), id(s)))];
  }
  return [
    assign(ops, into, allocate(ops, REAL_ARRAY, sizeExpr(ops, out, dims))),
    forCount(ops, i, n, [constant(ops, ia, f.createMultiply(id(i), k)), constant(ops, ic, f.createMultiply(id(i), m)), forCount(ops, l, k, [constant(ops, lb, f.createMultiply(id(l), m)), ...inner])]),
  ];
}

/** `let x = v; if (x.length < size) { x = new Float64Array(size); x.set(v); }`: a short (sparse) operand zero padded once, so that the loops read without tests. */
function emitPadded(ops: EmitTsOps, x: string, v: ts.Expression, length: ts.Expression): ts.Statement[] {
  const f = ops.factory;
  const id = f.createIdentifier(x);
  const decl = f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(x, undefined, undefined, v)], ops.ts.NodeFlags.Let));
  const copy = f.createBlock(
    [
      f.createExpressionStatement(f.createAssignment(id, allocate(ops, REAL_ARRAY, length))),
      f.createExpressionStatement(f.createCallExpression(f.createPropertyAccessExpression(id, 'set'), undefined, [v])),
    ],
    true,
  );
  return [decl, f.createIfStatement(f.createLessThan(f.createPropertyAccessExpression(id, 'length'), length), copy)];
}

/** `if (!(Number.isInteger(n) && n >= 0)) throw new RangeError(…)`, the interpreter's message. */
function emitSizeCheck(ops: EmitTsOps, what: string, n: ts.Expression): ts.Statement {
  const f = ops.factory;
  const isInt = f.createCallExpression(f.createPropertyAccessExpression(f.createIdentifier('Number'), 'isInteger'), undefined, [n]);
  const ok = f.createLogicalAnd(isInt, f.createGreaterThanEquals(n, num(ops, 0)));
  return f.createIfStatement(f.createLogicalNot(f.createParenthesizedExpression(ok)), throwRange(ops, [`matmul: the size ${what} = `, n, ' is not a non-negative integer']));
}

//   (the size checks, then) if (a.length !== n * k) throw new RangeError(…); if (b.length !== k * m) throw …;
//   c = new Float64Array(n * m); the i-l-j loops (emitProduct)
const matmul: ConstructTsRule = (ops, e, into) => {
  const f = ops.factory;
  const [a, b, ...dims] = e.nl.map((x) => ops.ref(x));
  const [n, k, m] = dims;
  const length = (x: ts.Expression) => f.createPropertyAccessExpression(x, 'length');
  const lengthCheck = (x: ts.Expression, name: string, rows: string, cols: string, r: ts.Expression, c: ts.Expression) =>
    f.createIfStatement(
      f.createStrictInequality(length(x), f.createMultiply(r, c)),
      throwRange(ops, [`matmul: ${name} has `, length(x), ` elements, not ${rows}×${cols} = `, r, '×', c, ' = ', f.createParenthesizedExpression(f.createMultiply(r, c))]),
    );
  return [
    emitSizeCheck(ops, 'n', n),
    emitSizeCheck(ops, 'k', k),
    emitSizeCheck(ops, 'm', m),
    lengthCheck(a, e.nl[0], 'n', 'k', n, k),
    lengthCheck(b, e.nl[1], 'k', 'm', k, m),
    ...emitProduct(ops, 'c', into[0], { a, b, c: f.createIdentifier(into[0]) }, dims),
  ];
};

/** lmatmul_xy(w, n, k, m ; u): the matrix in role y from u in role x, w in the third role fixed. */
function linearForm(x: Role, y: Role): ConstructTsRule {
  const z = third(x, y);
  //   let W = w; if (W.length < size_z) { W = new Float64Array(size_z); W.set(w); } (the same for u), then the loops.
  return linearOpTs(4, (ops, [into], [w, ...dimNames], [u]) => {
    const dims = dimNames.map((q) => ops.ref(q));
    const [wd, ud] = [ops.fresh('w'), ops.fresh('u')];
    const f = ops.factory;
    const mats = byRole<ts.Expression>(z, x, y, f.createIdentifier(wd), f.createIdentifier(ud), f.createIdentifier(into));
    return [...emitPadded(ops, wd, ops.ref(w), sizeExpr(ops, z, dims)), ...emitPadded(ops, ud, ops.ref(u), sizeExpr(ops, x, dims)), ...emitProduct(ops, y, into, mats, dims)];
  });
}

export const matmulTs = {
  matmul,
  lmatmul_ac: linearForm('a', 'c'),
  lmatmul_ca: linearForm('c', 'a'),
  lmatmul_bc: linearForm('b', 'c'),
  lmatmul_cb: linearForm('c', 'b'),
  lmatmul_ab: linearForm('a', 'b'),
  lmatmul_ba: linearForm('b', 'a'),
};
