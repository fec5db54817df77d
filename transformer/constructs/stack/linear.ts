// The linear stack operations: tangents (and, erased, values) of stacks.
//
//   let (; ṡ') = lpush(k ; ṡ, ẋ) []               ṡ with ẋ at position k
//   let (; ẋ) = lat(i ; ṡ) [|| { zero(τ) }]         element i of ṡ, or the body's zero where ṡ has none
//
// The tangent space of stack<τ> is stack<tangent τ>: sequences of tangents, added elementwise.
// Its zero, `zero(stack<τ>)`, is the empty stack, and a stack whose element i was never set reads
// as zero there: a tangent stack is *sparse*. That is what lets a symbolic zero stand for a stack
// of any length (a stack of constants has a zero tangent, built without knowing how many values
// it holds), and why `lat` carries its element's zero as a body (`|| { zero(τ) }`): the element
// type's zero is a value the interpreter and the emitted code must build, and a body is where a
// construct keeps code of a given type. The body costs nothing (a zero is free).
//
// `lpush` places ẋ at an explicit position k, the primal stack's size before its push (J reads it
// with `size`, jvp.ts), not at the tangent stack's top: a tangent stack that started as a symbolic
// zero is shorter than its primal (it is empty), and pushing on top of it would misalign every
// tangent after it. Positions keep the tangent of element j at index j whatever zeros came before.
// Both operations are linear in their linear operands: lpush(k ; ṡ, ẋ) = ṡ + e_k·ẋ (ṡ is zero at k
// and above), lat(i ; ṡ) = e_iᵀ·ṡ.
//
// Linearity in a loop: a stack read in every iteration is a linear loop invariant (`loop(n ; ṡ)`,
// `|i ; ṡ| { lat(i ; ṡ) … }`), used once per iteration, as the checker requires; the loop is
// linear in it (its contribution is the sum of the iterations' reads).
//
// Erased (E keeps a construct's op and makes its operands non-linear), `lpush(k, s, x)` and
// `lat(i, s) [|| { 0 }]` are non-linear operations on sparse stacks with the same semantics, so
// each record types, runs and emits both forms: the linear one (operands after `;`) and the
// erased one (all before it). The cost model charges nothing, like push and at.
//
// Transposition (reverse over reverse: the gradient of a gradient through a loop) is not
// implemented: T of either is an IrError saying so (transpose below).
import { IrError, InternalError, stackType, REAL, typeEquals } from '../../ir/syntax';
import type { Type } from '../../ir/syntax';
import type { Value } from '../../ir/value';
import { printType } from '../../ir/printType';
import type { CheckOps, ConstructExpr, ConstructRule, Sides, TypeRun } from '../types';
import { lpushJvp, latJvp } from './jvp';

/** A linear form has linear operands; its erasure has none (E moves them to the non-linear side). */
export const isLinear = (e: { readonly lin: readonly unknown[] }): boolean => e.lin.length > 0;

/** The operands after the index in one list: the linear ones, or the erased form's non-linear ones. */
export function rest<T>(e: ConstructExpr, v: Sides<T>): readonly T[] {
  return isLinear(e) ? v.lin : v.nl.slice(1);
}

const result = (e: ConstructExpr, t: Type): Sides<Type> => (isLinear(e) ? { nl: [], lin: [t] } : { nl: [t], lin: [] });

function expectIndex(ops: CheckOps, op: string, what: string, t: Type | undefined): void {
  if (t !== undefined && t.tag !== 'real') ops.error(`the ${what} of ${op} must be real, got ${printType(t)}`);
}

function shape(ops: CheckOps, e: ConstructExpr, t: Sides<Type>, op: string, after: number, bodies: number): boolean {
  if (e.bodies.length !== bodies) ops.error(`${op} takes ${bodies === 0 ? 'no bodies' : `${bodies} body`}, got ${e.bodies.length}`);
  const ok = isLinear(e) ? t.nl.length === 1 && t.lin.length === after : t.nl.length === 1 + after && t.lin.length === 0;
  if (!ok) {
    ops.error(`${op} takes an index and ${after} operand(s), all linear (${op}(k ; …)) or, erased, all non-linear; got ${t.nl.length} non-linear and ${t.lin.length} linear`);
  }
  return ok && e.bodies.length === bodies;
}

function index(v: Value, op: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new InternalError(`${op}: position ${String(v)} is not a stack index`);
  return v;
}

const notTransposable = (op: string) => (): never => {
  throw new IrError(
    `T of ${op}: transposing a tangent stack (reverse mode over a derivative that runs a loop, such as the gradient of a gradient through a loop) is not supported yet; second derivatives through loops work forward over reverse (hvp, hessian)`,
  );
};

export const lpush: ConstructRule = {
  name: 'lpush',
  leavesHoles: true,
  arity: (e) => (isLinear(e) ? { nl: 0, lin: 1 } : { nl: 1, lin: 0 }),
  typeRule: (ops, e, t) => {
    if (!shape(ops, e, t, 'lpush', 2, 0)) return result(e, stackType(REAL));
    expectIndex(ops, 'lpush', 'position', t.nl[0]);
    const [s, x] = rest(e, t);
    if (s.tag !== 'stack') {
      ops.error(`lpush needs a stack, got ${printType(s)}`);
      return result(e, stackType(x));
    }
    if (!typeEquals(s.elem, x)) ops.error(`lpush of a ${printType(x)} onto a ${printType(s)}`);
    return result(e, s);
  },
  impl: (_ops, e, v) => {
    const k = index(v.nl[0], 'lpush');
    const [s, x] = rest(e, v) as [Value[], Value];
    if (s.length > k) throw new InternalError(`lpush: position ${k} below the top of a tangent stack of ${s.length}`);
    // In place, as push: the stack is used once after it.
    s[k] = x;
    return isLinear(e) ? { nl: [], lin: [s] } : { nl: [s], lin: [] };
  },
  jvp: lpushJvp,
  // Linear through and through: the linear half is the operation itself, its position a residual.
  unzip: (_ops, e) => e,
  transpose: notTransposable('lpush'),
  pruneResults: () => undefined,
};

export const lat: ConstructRule = {
  name: 'lat',
  arity: (e) => (isLinear(e) ? { nl: 0, lin: 1 } : { nl: 1, lin: 0 }),
  typeRule: function* (ops: CheckOps, e: ConstructExpr, t: Sides<Type>): TypeRun {
    if (!shape(ops, e, t, 'lat', 1, 1)) return result(e, REAL);
    expectIndex(ops, 'lat', 'index', t.nl[0]);
    const [s] = rest(e, t);
    const d = yield ops.typeBody(e.bodies[0], { nl: [], lin: [] });
    const got = isLinear(e) ? d.lin : d.nl;
    const other = isLinear(e) ? d.nl : d.lin;
    if (s.tag !== 'stack') {
      ops.error(`lat needs a stack, got ${printType(s)}`);
      return result(e, got[0] ?? REAL);
    }
    if (got.length !== 1 || other.length !== 0 || !typeEquals(got[0], s.elem)) {
      ops.error(`the body of lat gives the element read where the stack has none: it must return one ${isLinear(e) ? 'linear' : 'non-linear'} ${printType(s.elem)}`);
    }
    return result(e, s.elem);
  },
  impl: (ops, e, v) => {
    const i = index(v.nl[0], 'lat');
    const [s] = rest(e, v) as [Value[]];
    let x = s[i];
    if (x === undefined) {
      const d = ops.runBody(e.bodies[0], { nl: [], lin: [] });
      x = isLinear(e) ? d.lin[0] : d.nl[0];
    }
    return isLinear(e) ? { nl: [], lin: [x] } : { nl: [x], lin: [] };
  },
  jvp: latJvp,
  unzip: (_ops, e) => e,
  transpose: notTransposable('lat'),
  pruneResults: () => undefined,
};
