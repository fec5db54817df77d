// Constructs run for their effect (ConstructRule.effect), and the question every pass asks about
// a statement before dropping, hoisting or moving it: does evaluating it do more than compute
// its results? A leaf module, so that construct rules (a loop's pruning) can ask it too.
import { blockE } from '../../ir/syntax';
import type { Block, Expr } from '../../ir/syntax';
import { rewriteBlock, visitExpr, walkMeter } from '../../ir/traverse';
import { raise } from './raise';
import { log } from './log';

export { raise, log };

/** The constructs whose rule says `effect`: the registry checks no other rule does. */
export const EFFECTFUL: ReadonlySet<string> = new Set([raise, log].filter((r) => r.effect).map((r) => r.name));

const effectful = new WeakMap<Expr, boolean>();

/**
 * True when evaluating `e` may do something besides computing its results (a `raise`, or a
 * construct whose bodies hold one): such a statement stays where it is, even with its results unread.
 */
export function hasEffect(e: Expr): boolean {
  if (e.tag === 'drop') return hasEffect(e.expr);
  if (e.tag !== 'construct' && e.tag !== 'block') return false;
  const known = effectful.get(e);
  if (known !== undefined) return known;
  // Every construct and block met is answered and remembered on the way, so asking again about
  // one nested inside (a loop nest asked level by level) costs nothing: linear in the nest, not
  // quadratic. An explicit stack: nests may be thousands deep.
  const stack: [Expr, boolean][] = [[e, false]];
  while (stack.length > 0) {
    const [x, childrenDone] = stack.pop()!;
    if (effectful.has(x)) continue;
    if (!childrenDone) walkMeter.exprs++;
    const inner = nestedExprs(x);
    if (childrenDone) {
      effectful.set(x, (x.tag === 'construct' && EFFECTFUL.has(x.op)) || inner.some((y) => effectful.get(y) === true));
      continue;
    }
    stack.push([x, true]);
    for (const y of inner) if (!effectful.has(y)) stack.push([y, false]);
  }
  return effectful.get(e)!;
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
