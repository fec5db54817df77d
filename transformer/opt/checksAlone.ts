// A construct nobody reads a result of, kept only for the run-time checks in its bodies
// (constructs/effect `holdsCheck`: a loop's `atmost` of an inner loop's trip count). Where every
// statement left in its body after pruning reads only the construct's invariants (and literals,
// and one another), every run of the body checks the same thing: the first run throws or none
// does. So the body runs once in the construct's place, under its trip guard (the rule's
// `invariants` facet names the operand counting the runs; constructs/cond/tripGuard.ts), and
// the construct goes: a zero-trip loop checks nothing, as before.
//
//   let () = loop(k, x, d)[|c, x', d'| { let n = len(x'); let m = atmost(d', n, "…"); () }]
//   ⇒ let () = cond(k > 0, x, d)[|x', d'| { let n = len(x'); let m = atmost(d', n, "…"); () }, |…| { () }]
//
// A check that reads the counter or a carried value differs from run to run: the construct
// stays, pruned to it.
import { arityOf } from '../language/arity';
import type { NameSupply } from '../ir/build';
import type { Stmt } from '../ir/syntax';
import { forEachOperand, renameOperands, renameStmtOperands } from '../ir/traverse';
import { constructRule } from '../constructs/registry';
import { underTripGuard } from '../constructs/cond/tripGuard';
import type { ConstructExpr, Counts } from '../constructs/types';

/**
 * The statements to run in place of `e`, whose results nobody reads (the statement binding it
 * binds nothing), or undefined to keep it. `positive`: a name known to hold a positive number
 * (a literal), whose trip guard is always taken.
 */
export function checksAlone(e: ConstructExpr, names: NameSupply, positive: (name: string) => boolean, callee: (fn: string) => Counts | undefined = () => undefined): readonly Stmt[] | undefined {
  if (e.lin.length > 0 || e.bodies.length !== 1) return undefined;
  const body = e.bodies[0];
  if (body.linParams.length > 0 || body.body.result.tag !== 'ret' || body.body.result.nl.length > 0 || body.body.result.lin.length > 0) return undefined;
  const slots = constructRule(e, 'simplify').invariants?.(e, (l) => arityOf(l.body.result, callee));
  if (slots?.body !== 0) return undefined;
  // Inside the body, an invariant parameter is the operand it binds; the others (the counter,
  // carried values) differ from run to run.
  const outer = new Map<string, string>(body.nlParams.slice(slots.param, slots.param + slots.count).map((b, m) => [b.name, e.nl[slots.operand + m]]));
  const varying = new Set(body.nlParams.map((b) => b.name).filter((n) => !outer.has(n)));
  const stmts: Stmt[] = [];
  for (const s of body.body.stmts) {
    // Untyped, the trip guard's untaken side could not be built.
    if (s.tag === 'let' ? s.lin.length > 0 || s.nl.some((b) => b.type === undefined) : s.linear || s.names.some((b) => b.type === undefined)) return undefined;
    // A drop of a parameter computes nothing: outside, there is nothing to drop.
    if (s.tag === 'let' && s.nl.length === 0 && s.rhs.tag === 'drop' && s.rhs.expr.tag === 'var' && !s.rhs.expr.linear && (varying.has(s.rhs.expr.name) || outer.has(s.rhs.expr.name))) continue;
    let reads = true;
    const read = (n: string, linear = false) => {
      if (linear || varying.has(n)) reads = false;
    };
    if (s.tag === 'unpack') read(s.tuple, s.linear);
    else if (s.rhs.tag === 'drop' && s.rhs.expr.tag === 'var') read(s.rhs.expr.name, s.rhs.expr.linear);
    else forEachOperand(s.rhs, read);
    if (!reads) return undefined;
    const r = (n: string) => outer.get(n) ?? n;
    stmts.push(s.tag === 'unpack' ? renameStmtOperands(s, r) : { ...s, rhs: s.rhs.tag === 'drop' ? { ...s.rhs, expr: renameOperands(s.rhs.expr, r) } : renameOperands(s.rhs, r) });
  }
  if (slots.trip === undefined) return stmts;
  const trip = e.nl[slots.trip];
  return underTripGuard(trip, stmts, new Set(), names, positive(trip));
}
