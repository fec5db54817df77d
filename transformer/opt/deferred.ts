// Simplifying once, where a pipeline ends, instead of after every pass (issue 20 item 1).
//
// The drivers simplify what each pass adds, because J, U, T and E decide things from their
// input that no later simplification can undo: what a tape holds, what a loop carries, which
// accumulations into an array fuse (E turns a linear addition into a plain one, which the
// simplifier no longer fuses). When a pipeline inlines its defs into one and simplifies that
// (valueAndGradOf's fusion), none of this matters for straight-line code: the tape becomes
// locals, dead residuals die in the fused def, and copy, zero and literal propagation, CSE and
// dead code give the same function whether the halves were simplified first or not (compared on
// every emitted program of the repository: the same code, a few names aside). So such a pipeline marks a
// straight-line def as waiting instead, and whatever still calls a waiting def at the end gets it
// simplified then (`finishWaiting`).
//
// Only small defs wait: inlining has a size budget per callee (inline.ts), and an unsimplified
// callee must not miss it where its simplified self would have been inlined.
import { Expr, FnDef, Program } from '../ir/syntax';
import { calleesFirst, findDef } from '../ir/program';
import { simplifyDef } from './simplify';

/** Statements of a def that may wait (far below inlining's budget for a callee used once). */
const WAIT_LIMIT = 400;

const waiting = new WeakSet<FnDef>();

const plain = (e: Expr): boolean => {
  while (e.tag === 'drop') e = e.expr;
  return e.tag !== 'block' && e.tag !== 'construct';
};

/**
 * A def whose simplification may wait for the pipeline's end: straight-line code of primitives,
 * calls and tuples (no nested block, no construct: a construct's shape is what the passes decide
 * from their input), and small.
 */
export function mayWait(d: FnDef): boolean {
  const { stmts, result } = d.body;
  if (stmts.length > WAIT_LIMIT || !plain(result)) return false;
  for (const s of stmts) if (s.tag === 'let' && !plain(s.rhs)) return false;
  return true;
}

export function markWaiting(d: FnDef): void {
  waiting.add(d);
}

export const isWaiting = (d: FnDef): boolean => waiting.has(d);

/** The program with every waiting def that `roots` reach (themselves included) simplified. */
export function finishWaiting(p: Program, roots: readonly string[]): Program {
  const due = new Set(calleesFirst(p, roots).filter((n) => waiting.has(findDef(p, n))));
  if (due.size === 0) return p;
  return { ...p, defs: p.defs.map((d) => (due.has(d.name) ? simplifyDef(d) : d)) };
}
