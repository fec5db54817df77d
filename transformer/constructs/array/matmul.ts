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
import type { CheckOps, ConstructRule, JvpOps } from '../types';
import { dotName } from '../../ir/names';
import { count } from './fold';
import { linearOp } from './linearOp';
import { nonLinearOnly } from '../shared/nonLinear';

const REAL_ARRAY = arrayType(REAL);

/** A matrix's role in C = A·B. */
export type Role = 'a' | 'b' | 'c';
const ROLES: readonly Role[] = ['a', 'b', 'c'];

interface Sizes {
  readonly n: number;
  readonly k: number;
  readonly m: number;
}

/** The number of elements of the matrix in a role: A n×k, B k×m, C n×m. */
const size = (r: Role, { n, k, m }: Sizes): number => (r === 'a' ? n * k : r === 'b' ? k * m : n * m);

/** The role neither x nor y plays. */
export const third = (x: Role, y: Role): Role => ROLES.find((r) => r !== x && r !== y)!;

export const linearName = (x: Role, y: Role): string => `lmatmul_${x}${y}`;

/** A record by role from the values of roles x, y and z (a permutation of a, b, c). */
export function byRole<T>(x: Role, y: Role, z: Role, vx: T, vy: T, vz: T): Record<Role, T> {
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
  checks: true,
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
