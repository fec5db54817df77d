// matmul and its linear forms (docs/linear-a.md, "matmul"). Matrices are flat array<real>s,
// row-major: A is n×k (A[i·k + l]), B is k×m (B[l·m + j]), C is n×m (C[i·m + j]).
//
//   let c = matmul(a, b, n, k, m) []                  C = A·B, c_{ij} = Σ_l a_{il} b_{lj}       work n·k·m + n·m
//   let (; ċ) = lmatmul_ac(b, n, k, m ; ȧ) []         Ċ = Ȧ·B   (B fixed, linear in A)           work n·k·m + n·m
//   let (; ā) = lmatmul_ca(b, n, k, m ; c̄) []         Ā = C̄·Bᵀ  (its transpose)                  work n·k·m + n·k
//   let (; ċ) = lmatmul_bc(a, n, k, m ; ḃ) []         Ċ = A·Ḃ   (A fixed, linear in B)           work n·k·m + n·m
//   let (; b̄) = lmatmul_cb(a, n, k, m ; c̄) []         B̄ = Aᵀ·C̄  (its transpose)                  work n·k·m + k·m
//   let (; ḃ) = lmatmul_ab(c, n, k, m ; ȧ) []         Ḃ = Ȧᵀ·C  (C fixed, linear in A)           work n·k·m + k·m
//   let (; ȧ) = lmatmul_ba(c, n, k, m ; ḃ) []         Ȧ = C·Ḃᵀ  (its transpose)                  work n·k·m + n·k
//
// The six are the partial maps of one trilinear form, ⟨C, A·B⟩ = Σ_{i,l,j} c_{ij} a_{il} b_{lj}:
// `lmatmul_xy(w, n, k, m ; u)` takes the matrix in role x (a, b or c) to the one in role y, the
// third role's matrix w fixed. The form is symmetric in its three slots, so
// ⟨lmatmul_xy(w ; u), v⟩ = ⟨u, lmatmul_yx(w ; v)⟩: T swaps the two letters (T∘T = id), with the
// same coefficients. n, k, m are always the primal product's sizes, so every form knows the
// length of its result (zero padded: a linear operand may be short, the zero array empty).
//
// J: matmul(a, b) ↦ lmatmul_ac(b ; ȧ) + lmatmul_bc(a ; ḃ) (bilinear; the sizes get no tangent,
//    like gather's indices). T closes on the first four; second order needs all six: erased,
//    lmatmul_xy(w, u) is bilinear in (w, u), so J of it is lmatmul_xy(w ; u̇) + lmatmul_zy(u ; ẇ)
//    with z the coefficient's role (hvp = E ∘ J ∘ grad).
// The sizes are checked once per call (non-negative integers, len a = n·k, len b = k·m): an
// IrError in the interpreter, a RangeError in emitted code, never a test per element.
import { construct, lprim, arrayType, tangentType, InternalError, IrError, REAL } from '../../ir/syntax';
import type { Type } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { Tangent } from '../../prims/types';
import type { CheckOps, ConstructRule, EmitTsOps, JvpOps } from '../types';
import { dotName } from '../../ir/names';
import { allocate, assign, forCount } from './emit';
import { count } from './fold';
import { constant, elementAt, throwRange } from './indices';
import { linearOp } from './linearOp';
import type * as ts from 'typescript';
import { nonLinearOnly } from '../shared/nonLinear';

const REAL_ARRAY = arrayType(REAL);

/** A matrix's role in C = A·B. */
type Role = 'a' | 'b' | 'c';
const ROLES: readonly Role[] = ['a', 'b', 'c'];

interface Sizes {
  readonly n: number;
  readonly k: number;
  readonly m: number;
}

/** The number of elements of the matrix in a role: A n×k, B k×m, C n×m. */
const size = (r: Role, { n, k, m }: Sizes): number => (r === 'a' ? n * k : r === 'b' ? k * m : n * m);

/** The role neither x nor y plays. */
const third = (x: Role, y: Role): Role => ROLES.find((r) => r !== x && r !== y)!;

const linearName = (x: Role, y: Role): string => `lmatmul_${x}${y}`;

/** A record by role from the values of roles x, y and z (a permutation of a, b, c). */
function byRole<T>(x: Role, y: Role, z: Role, vx: T, vy: T, vz: T): Record<Role, T> {
  const r = { [x]: vx, [y]: vy, [z]: vz } as Partial<Record<Role, T>>;
  return { a: r.a!, b: r.b!, c: r.c! };
}

/**
 * The matrix in role `out` from the other two, in the i-l-j order of the emitted loops:
 *   c_{ij} = Σ_l a_{il} b_{lj},  a_{il} = Σ_j c_{ij} b_{lj},  b_{lj} = Σ_i a_{il} c_{ij}.
 * `get` reads the inputs (dense or zero padded by the caller).
 */
function product(out: Role, get: Record<Role, (x: number) => number>, { n, k, m }: Sizes): number[] {
  const r: number[] = new Array<number>(size(out, { n, k, m })).fill(0);
  for (let i = 0; i < n; i++) {
    for (let l = 0; l < k; l++) {
      for (let j = 0; j < m; j++) {
        if (out === 'c') r[i * m + j] += get.a(i * k + l) * get.b(l * m + j);
        else if (out === 'a') r[i * k + l] += get.c(i * m + j) * get.b(l * m + j);
        else r[l * m + j] += get.a(i * k + l) * get.c(i * m + j);
      }
    }
  }
  return r;
}

function sizesOf(op: string, [n, k, m]: readonly Value[]): Sizes {
  return { n: count(n, op, 'size n ='), k: count(k, op, 'size k ='), m: count(m, op, 'size m =') };
}

/** Element x of a matrix that may be short (a sparse tangent: 0 past its end), but never longer than its role allows. */
function paddedReader(op: string, what: string, v: Value, length: number): (x: number) => number {
  const a = v as Value[];
  if (a.length > length) throw new IrError(`${op}: ${what} has ${a.length} elements, more than the ${length} of its matrix`);
  return (x) => (a[x] as number | undefined) ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Emitted TypeScript: one loop nest per product, i-l-j, the innermost loop over j contiguous in
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

// ---------------------------------------------------------------------------------------------

function expectRealArray(ops: CheckOps, op: string, what: string, t: Type): void {
  if (t.tag !== 'array' || t.elem.tag !== 'real') ops.error(`${op} needs an array<real> as ${what}, got ${printType(t)}`);
}

function expectSizes(ops: CheckOps, op: string, ts: readonly Type[]): void {
  ts.forEach((t, q) => {
    if (t.tag !== 'real') ops.error(`the size ${'nkm'[q]} of ${op} must be real, got ${printType(t)}`);
  });
}

/** The length check of matmul's operands, the message the emitted code gives too. */
function lengthMessage(name: string, length: number, rows: string, cols: string, r: number, c: number): string {
  return `matmul: ${name} has ${length} elements, not ${rows}×${cols} = ${r}×${c} = ${r * c}`;
}

/** ladd of the tangent terms, or the one term, or a symbolic zero. */
function addTerms(ops: JvpOps, terms: readonly string[], name: string): Tangent {
  if (terms.length === 0) return null;
  return terms.length === 1 ? terms[0] : ops.b.lin(name, lprim('ladd', [], [...terms]), REAL_ARRAY);
}

export const matmul: ConstructRule = {
  name: 'matmul',
  fresh: true,
  arity: () => ({ nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (e.bodies.length !== 0 || t.nl.length !== 5 || t.lin.length !== 0) {
      ops.error('matmul takes two matrices and their sizes: matmul(a, b, n, k, m) []');
      return { nl: [REAL_ARRAY], lin: [] };
    }
    expectRealArray(ops, 'matmul', 'its first matrix', t.nl[0]);
    expectRealArray(ops, 'matmul', 'its second matrix', t.nl[1]);
    expectSizes(ops, 'matmul', t.nl.slice(2));
    return { nl: [REAL_ARRAY], lin: [] };
  },
  impl: (ops, e, v) => {
    const [a, b] = v.nl as Value[][];
    const d = sizesOf('matmul', v.nl.slice(2));
    if (a.length !== d.n * d.k) throw new IrError(lengthMessage(e.nl[0], a.length, 'n', 'k', d.n, d.k));
    if (b.length !== d.k * d.m) throw new IrError(lengthMessage(e.nl[1], b.length, 'k', 'm', d.k, d.m));
    ops.charge(d.n * d.k * d.m + d.n * d.m);
    const read = (x: Value[]) => (q: number) => x[q] as number;
    return { nl: [product('c', { a: read(a), b: read(b), c: () => 0 }, d)], lin: [] };
  },
  // ċ = Ȧ·B + A·Ḃ, a term for each operand with a tangent.
  jvp: (ops, e, results) => {
    const [a, b, ...dims] = e.nl;
    ops.b.bind([...results], [], e);
    const t = ops.typeOf(a);
    if (t.tag !== 'array' || t.elem.tag !== 'real') throw new IrError(`the tangent of matmul is implemented for arrays of reals only, not ${printType(t)}`);
    const name = dotName(results[0].name);
    const terms: string[] = [];
    const aDot = ops.tangentOf(a);
    const bDot = ops.tangentOf(b);
    if (aDot !== null) terms.push(ops.b.lin(name, construct(linearName('a', 'c'), [b, ...dims], [aDot], []), tangentType(t)));
    if (bDot !== null) terms.push(ops.b.lin(name, construct(linearName('b', 'c'), [a, ...dims], [bDot], []), tangentType(t)));
    return [addTerms(ops, terms, name)];
  },
  ...nonLinearOnly('matmul'),
  //   (the size checks, then) if (a.length !== n * k) throw new RangeError(…); if (b.length !== k * m) throw …;
  //   c = new Float64Array(n * m); the i-l-j loops (emitProduct)
  emitTs: (ops, e, into) => {
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
  },
};

/** lmatmul_xy(w, n, k, m ; u): the matrix in role y from u in role x, w in the third role fixed. */
function linearForm(x: Role, y: Role): ConstructRule {
  const z = third(x, y);
  const name = linearName(x, y);
  const rule = linearOp({
    name,
    coefficients: 4,
    inputs: 1,
    outputs: 1,
    type: (ops, [w, ...dims], [u]) => {
      expectRealArray(ops, name, 'its fixed matrix', w);
      expectSizes(ops, name, dims);
      expectRealArray(ops, name, 'its linear operand', u);
      return [REAL_ARRAY];
    },
    run: ([w, ...dims], [u], charge) => {
      const d = sizesOf(name, dims);
      charge(d.n * d.k * d.m + size(y, d));
      const get = byRole(z, x, y, paddedReader(name, 'the fixed matrix', w, size(z, d)), paddedReader(name, 'the linear operand', u, size(x, d)), () => 0);
      return [product(y, get, d)];
    },
    transpose: linearName(y, x),
    //   let W = w; if (W.length < size_z) { W = new Float64Array(size_z); W.set(w); } (the same for u), then the loops.
    emit: (ops, [into], [w, ...dimNames], [u]) => {
      const dims = dimNames.map((q) => ops.ref(q));
      const [wd, ud] = [ops.fresh('w'), ops.fresh('u')];
      const f = ops.factory;
      const mats = byRole<ts.Expression>(z, x, y, f.createIdentifier(wd), f.createIdentifier(ud), f.createIdentifier(into));
      return [...emitPadded(ops, wd, ops.ref(w), sizeExpr(ops, z, dims)), ...emitPadded(ops, ud, ops.ref(u), sizeExpr(ops, x, dims)), ...emitProduct(ops, y, into, mats, dims)];
    },
  });
  return {
    ...rule,
    // Erased (second order) the form is bilinear in (w, u): d(w ⋆ u) = w ⋆ u̇ + ẇ ⋆ u, the second
    // term the form that fixes u (in role x) and maps w (role z) to role y.
    jvp: (ops, e, results) => {
      if (e.lin.length > 0) throw new InternalError(`jvp: ${name} with linear operands in a non-linear program (erase first)`);
      ops.b.bind([...results], [], e);
      const [w, n, k, m, u] = e.nl;
      const yName = dotName(results[0].name);
      const terms: string[] = [];
      const uDot = ops.tangentOf(u);
      const wDot = ops.tangentOf(w);
      if (uDot !== null) terms.push(ops.b.lin(yName, construct(name, [w, n, k, m], [uDot], []), REAL_ARRAY));
      if (wDot !== null) terms.push(ops.b.lin(yName, construct(linearName(z, y), [u, n, k, m], [wDot], []), REAL_ARRAY));
      return [addTerms(ops, terms, yName)];
    },
  };
}

export const lmatmul_ac = linearForm('a', 'c');
export const lmatmul_ca = linearForm('c', 'a');
export const lmatmul_bc = linearForm('b', 'c');
export const lmatmul_cb = linearForm('c', 'b');
export const lmatmul_ab = linearForm('a', 'b');
export const lmatmul_ba = linearForm('b', 'a');
