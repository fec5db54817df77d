// Special cases of reduce's J, recognised from the body (docs/linear-a.md, "scan and reduce").
// The general rule (fold.ts) is exact for every operator; these give cheaper and sparser
// derivatives for the three operators whose derivative has a closed form:
//
//   reduce(n, e, xs)[|a, b| add(a, b)]   ẏ = ė + lsum(n ; ẋs)            T: the broadcast lfill
//   reduce(n, e, xs)[|a, b| min(a, b)]   ẏ = (k ≥ 0 ? ẋs[k] : 0) + (1 − w)·ė   T: one update, lonehot(k ; ȳ) under the cond
//   (max alike)                          k: the index of the first element equal to the result
//                                        (−1: e itself, or no element), w = [k ≥ 0]
//
// The arg-extremum comes from a second reduce over (xs, iota) with a strict comparison, so the
// lowest index wins ties and the neutral element wins over an element equal to it, as min/max's
// own JVP lets the accumulator win; the primal value is the user's reduce, unchanged. The body
// must be exactly the primitive on (accumulator, element) in that order (for min/max: the order
// decides ties), otherwise the general rule applies. Everything emitted here is ordinary
// non-linear code, body-less linear constructs and one cond, so second derivatives go through.
import { binder, block, construct, lambda, letS, prim, ret, drop, nvar, lvar, zero as zeroE, REAL, arrayType } from '../../ir/syntax';
import type { Binder, Expr } from '../../ir/syntax';
import type { Tangent } from '../../prims/types';
import type { ConstructExpr, JvpOps } from '../types';
import { dotName } from '../../ir/names';

export type SpecialOp = 'add' | 'min' | 'max';

/** The operator of a one-accumulator reduce whose body is a single add, min or max of (a, b). */
export function recognise(e: ConstructExpr): SpecialOp | undefined {
  if (e.op !== 'reduce' || e.lin.length !== 0 || e.nl.length !== 3 || e.bodies.length !== 1) return undefined;
  const l = e.bodies[0];
  if (l.nlParams.length !== 2 || l.linParams.length !== 0) return undefined;
  const [a, b] = l.nlParams.map((p) => p.name);
  const { stmts, result } = l.body;
  let tail: Expr = result;
  if (stmts.length === 1) {
    const s = stmts[0];
    if (s.tag !== 'let' || s.nl.length !== 1 || s.lin.length !== 0 || result.tag !== 'ret' || result.nl.length !== 1 || result.lin.length !== 0 || result.nl[0] !== s.nl[0].name) return undefined;
    tail = s.rhs;
  } else if (stmts.length !== 0) return undefined;
  if (tail.tag !== 'prim' || tail.args.length !== 2) return undefined;
  const [x, y] = tail.args;
  if (tail.op === 'add' && ((x === a && y === b) || (x === b && y === a))) return 'add';
  if ((tail.op === 'min' || tail.op === 'max') && x === a && y === b) return tail.op;
  return undefined;
}

export function specialJvp(ops: JvpOps, e: ConstructExpr, results: readonly Binder[], op: SpecialOp): readonly Tangent[] {
  const { b } = ops;
  const [n, e0, xs] = e.nl;
  b.bind([...results], [], e);
  const eDot = ops.tangentOf(e0);
  const xDot = ops.tangentOf(xs);
  if (eDot === null && xDot === null) return [null];
  const y = results[0].name;
  const name = dotName(y);
  if (op === 'add') {
    const sum = xDot === null ? null : b.lin(name, construct('lsum', [n], [xDot], []), REAL);
    if (sum === null) return [eDot];
    return [eDot === null ? sum : b.lprim('ladd', [], [eDot, sum], name, REAL)];
  }
  // iota = map(n, xs)[|i, x| i]; (_, k) = reduce(n, e, −1, xs, iota)[|a, ia, c, ic| c ≺ a ? (c, ic) : (a, ia)]
  const i = binder(b.fresh('i'), REAL);
  const x = binder(b.fresh('x'), REAL);
  const iota = b.nl('iota', construct('map', [n, xs], [], [lambda([i, x], [], block([letS([], [], drop(nvar(x.name)))], ret([i.name])))]), arrayType(REAL));
  const none = b.lit(-1, 'none');
  const [acc, ia, c, ic] = ['a', 'ia', 'c', 'ic'].map((h) => binder(b.fresh(h), REAL));
  const wins = binder(b.fresh('wins'), { tag: 'bool' });
  const best = binder(b.fresh('best'), REAL);
  const at = binder(b.fresh('at'), REAL);
  const argBody = lambda([acc, ia, c, ic], [], {
    stmts: [
      letS([wins], [], prim(op === 'min' ? 'lt' : 'gt', [c.name, acc.name])),
      letS([best], [], prim('select', [wins.name, c.name, acc.name])),
      letS([at], [], prim('select', [wins.name, ic.name, ia.name])),
    ],
    result: ret([best.name, at.name]),
  });
  const extremum = binder(b.fresh('extremum'), REAL);
  const k = binder(b.fresh('k'), REAL);
  b.bind([extremum, k], [], construct('reduce', [n, e0, none, xs, iota], [], [argBody]));
  const zero = b.lit(0, 'zero');
  const one = b.lit(1, 'one');
  const found = b.test('ge', [k.name, zero], 'found');
  const w = b.prim('select', [found, one, zero], 'w');
  const terms: string[] = [];
  if (xDot !== null) {
    // k is −1 when no element won (e itself, or no element at all): then nothing is read, under a
    // cond, since a read at any index would transpose to a one-hot longer than an empty array.
    const [at, other] = [binder(b.fresh('k'), REAL), binder(b.fresh('k'), REAL)];
    const [taken, skipped] = [binder(b.fresh('xs_dot'), arrayType(REAL)), binder(b.fresh('xs_dot'), arrayType(REAL))];
    const read = binder(b.fresh(name), REAL);
    const readBody = block([letS([], [read], construct('lindex', [at.name], [taken.name], []))], ret([], [read.name]));
    const none = binder(b.fresh(name), REAL);
    const noneBody = block([letS([], [], drop(nvar(other.name))), letS([], [], drop(lvar(skipped.name))), letS([], [none], zeroE(REAL))], ret([], [none.name]));
    terms.push(b.lin(name, construct('cond', [found, k.name], [xDot], [lambda([at], [taken], readBody), lambda([other], [skipped], noneBody)]), REAL));
  }
  if (eDot !== null) {
    const wn = b.prim('sub', [one, w], 'wn');
    terms.push(b.lprim('scale', [wn], [eDot], name, REAL));
  }
  return [terms.length === 1 ? terms[0] : b.lprim('ladd', [], terms, name, REAL)];
}
