// Constructs run for their effect (ConstructRule.effect), and the question every pass asks about
// a statement before dropping, hoisting or moving it: does evaluating it do more than compute
// its results? A leaf module, so that construct rules (a loop's pruning) can ask it too.
//
// A run-time check (ConstructRule.keptUnread: `atmost`) is the other kind of statement that is
// there for more than its result: it may throw. Dead-code removal keeps it like an effect
// (`keptAlive`), but it is not an effect: it may move (out of a loop whose every run would check
// the same, under the loop's trip guard) and run where the source ran it once.
import { blockE } from '../../ir/syntax';
import type { Block, Expr } from '../../ir/syntax';
import { rewriteBlock, visitExpr, walkMeter } from '../../ir/traverse';
import { raise } from './raise';
import { log } from './log';
import { atmost, within } from '../array/checks';

export { raise, log };

/** The constructs whose rule says `effect`: the registry checks no other rule does. */
export const EFFECTFUL: ReadonlySet<string> = new Set([raise, log].filter((r) => r.effect).map((r) => r.name));

/** The constructs whose rule says `keptUnread` (checks): the registry checks no other rule does. */
export const KEPT_UNREAD: ReadonlySet<string> = new Set([atmost, within].filter((r) => r.keptUnread).map((r) => r.name));

/**
 * Whether a construct of one of `ops`, or a construct or block holding one in its bodies, is `e`
 * (through drops). Every construct and block met is answered and remembered on the way, so asking
 * again about one nested inside (a loop nest asked level by level) costs nothing: linear in the
 * nest, not quadratic. An explicit stack: nests may be thousands deep.
 */
function holding(ops: ReadonlySet<string>, memo: WeakMap<Expr, boolean>, e: Expr): boolean {
  if (e.tag === 'drop') return holding(ops, memo, e.expr);
  if (e.tag !== 'construct' && e.tag !== 'block') return false;
  const known = memo.get(e);
  if (known !== undefined) return known;
  const stack: [Expr, boolean][] = [[e, false]];
  while (stack.length > 0) {
    const [x, childrenDone] = stack.pop()!;
    if (memo.has(x)) continue;
    if (!childrenDone) walkMeter.exprs++;
    const inner = nestedExprs(x);
    if (childrenDone) {
      memo.set(x, (x.tag === 'construct' && ops.has(x.op)) || inner.some((y) => memo.get(y) === true));
      continue;
    }
    stack.push([x, true]);
    for (const y of inner) if (!memo.has(y)) stack.push([y, false]);
  }
  return memo.get(e)!;
}

const effectful = new WeakMap<Expr, boolean>();
const checking = new WeakMap<Expr, boolean>();

/**
 * True when evaluating `e` may do something besides computing its results (a `raise`, or a
 * construct whose bodies hold one): such a statement stays where it is, even with its results unread.
 */
export function hasEffect(e: Expr): boolean {
  return holding(EFFECTFUL, effectful, e);
}

/** True when `e` is a run-time check (`atmost`) or holds one in its bodies. */
export function holdsCheck(e: Expr): boolean {
  return holding(KEPT_UNREAD, checking, e);
}

/**
 * True when dead-code removal must keep `e` though nobody reads its results: it has an effect, or
 * it checks something at run time (a loop's trip count against an array's length) and so may
 * throw. A check dropped with the loop it sat in let a gradient read past an array's end and
 * return finite, wrong numbers (s12, fuzz12's F3).
 */
export function keptAlive(e: Expr): boolean {
  return hasEffect(e) || holdsCheck(e);
}

/** The constructs and blocks directly inside e (through drops), whose effects are e's. */
function nestedExprs(e: Expr): Expr[] {
  const out: Expr[] = [];
  const add = (x: Expr): void => {
    let y = x;
    while (y.tag === 'drop') y = y.expr;
    if (y.tag === 'construct' || y.tag === 'block') out.push(y);
  };
  const addBlock = (b: Block): void => {
    for (const s of b.stmts) if (s.tag === 'let') add(s.rhs);
    add(b.result);
  };
  if (e.tag === 'block') addBlock(e.block);
  else if (e.tag === 'construct') for (const l of e.bodies) addBlock(l.body);
  return out;
}

/**
 * The block as a recomputation runs it: the effects went with the run that computed the values
 * first (a throw would have thrown there, a log printed there), so a statement that binds nothing
 * and only has an effect goes, in bodies too.
 */
export function withoutEffects(b: Block): Block {
  let any = false;
  visitExpr(blockE(b), {
    expr: (x) => {
      if (x.tag === 'construct' && EFFECTFUL.has(x.op)) any = true;
    },
  });
  if (!any) return b;
  return rewriteBlock(b, {
    stmt: (s, emit) => {
      if (s.tag === 'let' && s.nl.length === 0 && s.lin.length === 0 && s.rhs.tag === 'construct' && EFFECTFUL.has(s.rhs.op)) return;
      emit(s);
    },
  });
}
