// J of the stack operations. A stack<τ>'s tangent is a stack<tangent τ> (linear.ts); a symbolic
// zero (null) stands for the stack of zeros, whatever its length.
//
//   J(let s = stack(x) [])      = let s = stack(x) []                             ṡ = 0
//   J(let k = size(s) [])       = let k = size(s) []                              k̇ = 0 (an integer)
//   J(let s' = push(s, x) [])   = let k = size(s) []                              read before the
//                                 let s' = push(s, x) []                          in-place push
//                                 let (; ṡ') = lpush(k ; ṡ, ẋ) []
//   J(let y = at(s, i) [])      = let y = at(s, i) []
//                                 let (; ẏ) = lat(i ; ṡ) [|| { zero(tangent τ) }]
//
// push is linear in the pair (s, x) as a map to sequences: the pushed sequence is s followed by
// x at position |s|, so its tangent is ṡ with ẋ at |s| (zeros of ṡ or ẋ are materialised; both
// zero: the result's tangent is zero). at is linear in s and piecewise constant in i: ẏ is
// element i of ṡ, the zero of its type where ṡ has none (a symbolic or sparse zero). The index
// and the position get no tangent. The counter of a loop and the trip count are constants too,
// so J of a loop that pushes or reads carries ṡ beside s (constructs/loop/jvp.ts): a carried
// stack's tangent is carried and grows by lpush, an invariant stack's tangent is a linear
// invariant read by lat once per iteration.
//
// The erased linear operations (E of lpush, lat: third derivatives) are linear maps again:
//   J(lpush(k, s, x)) = (lpush(k, s, x) ; lpush(k ; ṡ, ẋ))    J(lat(i, s)[d]) = (lat(i, s)[d] ; lat(i ; ṡ)[zero])
import { InternalError, binder, block, construct, lambda, letS, lvar, tangentType, zero as zeroE, REAL } from '../../ir/syntax';
import type { Binder, Lambda, Type } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, JvpOps } from '../types';
import { dotName } from '../../ir/names';
import { flatIndexIn } from './position';

/** The body of a linear `lat`: the zero of its element type, read where the stack has none. */
export const zeroBody = (t: Type): Lambda => lambda([], [], block([], zeroE(t)));

/** An operation whose result has a zero tangent (a fresh stack, a size). */
export function constantJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[]): readonly Tangent[] {
  ops.b.bind([...results], [], e);
  return [null];
}

function resultType(y: Binder): Type {
  if (!y.type) throw new InternalError(`jvp: untyped result ${y.name} of a stack operation (annotate types first)`);
  return y.type;
}

const tangentOrZero = (ops: JvpOps, x: string, t: Tangent): string => t ?? ops.b.zero(tangentType(ops.typeOf(x)), 'zero');

/** `lpush(k ; ṡ, ẋ)` bound to the tangent of `y`, or null when ṡ and ẋ are both zero. */
function pushTangent(ops: JvpOps, k: string, s: string, x: string, y: Binder): Tangent {
  const sDot = ops.tangentOf(s);
  const xDot = ops.tangentOf(x);
  if (sDot === null && xDot === null) return null;
  const yDot = binder(ops.b.fresh(dotName(y.name)), tangentType(resultType(y)));
  ops.b.bind([], [yDot], construct('lpush', [k], [tangentOrZero(ops, s, sDot), tangentOrZero(ops, x, xDot)], []));
  return yDot.name;
}

/** `lat(i ; ṡ)[zero]` bound to the tangent of `y`, or null when ṡ is zero. */
function readTangent(ops: JvpOps, i: string, s: string, y: Binder): Tangent {
  const sDot = ops.tangentOf(s);
  if (sDot === null) return null;
  const t = tangentType(resultType(y));
  const yDot = binder(ops.b.fresh(dotName(y.name)), t);
  ops.b.bind([], [yDot], construct('lat', [i], [sDot], [zeroBody(t)]));
  return yDot.name;
}

export function pushJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[]): readonly Tangent[] {
  const [s, x] = e.nl;
  if (ops.tangentOf(s) === null && ops.tangentOf(x) === null) return constantJvp(ops, e, results);
  const k = binder(ops.b.fresh('k'), REAL);
  ops.b.stmt(letS([k], [], construct('size', [s], [], [])));
  ops.b.bind([...results], [], e);
  return [pushTangent(ops, k.name, s, x, results[0])];
}

export function atJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[]): readonly Tangent[] {
  const [s, ...indices] = e.nl;
  ops.b.bind([...results], [], e);
  if (ops.tangentOf(s) === null) return [null];
  // A record's field: the tangent stack is read at the same flat position.
  const i = flatIndexIn(ops.b, indices);
  return [readTangent(ops, i, s, results[0])];
}

const linearForm = (op: string) => new InternalError(`jvp: ${op} with linear operands in a non-linear program (J applies to non-linear code; erase first)`);

export function lpushJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[]): readonly Tangent[] {
  if (e.lin.length > 0) throw linearForm('lpush');
  const [k, s, x] = e.nl;
  ops.b.bind([...results], [], e);
  return [pushTangent(ops, k, s, x, results[0])];
}

export function latJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[]): readonly Tangent[] {
  if (e.lin.length > 0) throw linearForm('lat');
  const [i, s] = e.nl;
  ops.b.bind([...results], [], e);
  return [readTangent(ops, i, s, results[0])];
}

/**
 * J of an operation that changes only a stack's room or size, never a value it holds (extend,
 * presize): the tangent stack is the operand's, passed through (it is sparse: new room reads as zero).
 */
export function roomOnlyJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[]): readonly Tangent[] {
  ops.b.bind([...results], [], e);
  const sDot = ops.tangentOf(e.nl[0]);
  if (sDot === null) return [null];
  const y = binder(ops.b.fresh(dotName(results[0].name)), tangentType(ops.typeOf(e.nl[0])));
  ops.b.bind([], [y], lvar(sDot));
  return [y.name];
}
