// Code hoisted out of a loop or a map runs once even where the construct runs zero times. Its
// value is then never read, but its derivative still is: reverse mode multiplies the zero
// cotangent the empty loop leaves by the hoisted statement's partial, and a partial that is
// infinite where JavaScript never computes anything (`a.map((t) => t * Math.log(y))` with
// `a = []` and y = 0: ∂log/∂y = 1/0) turns the gradient into 0·∞ = NaN where it is 0. Under a
// `trip > 0` guard the hoisted code runs exactly where the loop would have run it, and the cond's
// rules keep the side that is not taken out of every derivative (docs/linear-a.md, "Guards in
// branches"). Hoisting keeps its worth: the guarded code still runs once, not once per trip.
import { BOOL, REAL, binder, block, construct, lambda, letS, lit, nvar, prim, ret } from '../../ir/syntax';
import type { Binder, Stmt } from '../../ir/syntax';
import { Builder, NameSupply } from '../../ir/build';
import { closeLoop } from '../../ir/close';
import { forEachOperand, renameOperands, rewriteBlock } from '../../ir/traverse';
import { placeholder } from '../placeholder';

/**
 * `stmts` (non-linear, in order, moved out of a construct whose body runs `trip` times) as they
 * should run before it: under `cond(trip > 0)` when one of them computes something, unchanged
 * when none does (literals, tuples, unpacking and drops have no partials), when `trip` is known
 * positive, or when a binder has no type to fill the untaken side with. `readLater`: the names
 * the code after them reads (the construct's operands); only those leave the guarded arm.
 * `afterAD`: code no derivative will be taken of, where a primitive may run where the loop would
 * not (it is pure and cannot fail): only constructs (an element read) and calls need the guard.
 */
export function underTripGuard(trip: string, stmts: readonly Stmt[], readLater: ReadonlySet<string>, names: NameSupply, knownPositive = false, afterAD = false): readonly Stmt[] {
  const computes = (s: Stmt) => s.tag === 'let' && ((s.rhs.tag === 'prim' && !afterAD) || s.rhs.tag === 'call' || s.rhs.tag === 'construct');
  if (knownPositive || !stmts.some(computes)) return stmts;
  const drops = stmts.filter((s) => s.tag === 'let' && s.rhs.tag === 'drop');
  // What computes goes into the arm with everything that reads its results; the rest (a tuple's
  // unpacking, a literal) stays before the cond under its own names.
  const inArm = new Set<string>();
  const guarded: Stmt[] = [];
  const before: Stmt[] = [];
  for (const s of stmts) {
    if (drops.includes(s)) continue;
    const reads: string[] = [];
    if (s.tag === 'unpack') reads.push(s.tuple);
    else forEachOperand(s.rhs, (n) => reads.push(n));
    if (computes(s) || reads.some((n) => inArm.has(n))) {
      guarded.push(s);
      for (const b of s.tag === 'let' ? s.nl : s.names) inArm.add(b.name);
    } else before.push(s);
  }
  const dropped = new Set(drops.flatMap((s) => (s.tag === 'let' && s.rhs.tag === 'drop' && s.rhs.expr.tag === 'var' ? [s.rhs.expr.name] : [])));
  const bound: Binder[] = guarded.flatMap((s) => (s.tag === 'let' ? [...s.nl] : [...s.names]));
  if (bound.some((b) => b.type === undefined)) return stmts;
  const outs = bound.filter((b) => readLater.has(b.name) || dropped.has(b.name));

  // Names are unique in a function: inside the arm the statements bind fresh names, and the cond
  // binds the original ones, so the code after it reads them unchanged.
  const inner = new Map(bound.map((b) => [b.name, names.fresh(b.name)] as const));
  const rename = (n: string) => inner.get(n) ?? n;
  const taken = rewriteBlock(block(guarded, ret(outs.map((b) => b.name))), {
    expr: (e) => renameOperands(e, rename),
    stmt: (s, emit) =>
      emit(s.tag === 'let' ? { ...s, nl: s.nl.map((b) => ({ ...b, name: rename(b.name) })) } : { ...s, tuple: rename(s.tuple), names: s.names.map((b) => ({ ...b, name: rename(b.name) })) }),
  });
  const closed = closeLoop([taken], new Set(), (n) => names.fresh(n));
  const skipped = new Builder(names);
  const skippedParams = closed.invariants.map((n) => binder(names.fresh(n)));
  for (const p of skippedParams) skipped.drop(nvar(p.name));
  const fills = outs.map((b) => placeholder(skipped, b.type!));

  const zero = names.fresh('c');
  const nonEmpty = names.fresh('nonEmpty');
  return [
    ...before,
    letS([binder(zero, REAL)], [], lit(0)),
    letS([binder(nonEmpty, BOOL)], [], prim('gt', [trip, zero])),
    letS(outs, [], construct('cond', [nonEmpty, ...closed.invariants], [], [lambda(closed.bodies[0].inv, [], closed.bodies[0].body), lambda(skippedParams, [], skipped.finish(ret(fills)))])),
    ...drops,
  ];
}
