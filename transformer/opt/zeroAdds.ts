// Adds of a zero into an accumulator that never holds −0 go (s15; fuzz23-findings, the `+ 0` of
// gmm23's paired adds).
//
// `x + 0` is x for every x but −0 (−0 + 0 is +0), so nothing drops an add of a literal +0 in
// general, and AD makes such adds: the Hessian of `z[r] * z[r] * c` in z adds c's zero tangent
// into z̄̇[r] beside the two real terms, printed `z_bar_dot[r] + 0 + t + t` once they are paired.
// But a sum is −0 only when both its terms are, so an array that starts as +0s
// (ConstructRule.zeros: a fill of +0s, a claim of one) and is only ever added to
// (Threading.adds) or read (Threading.unchanged) never holds −0: there an add of +0 changes no
// bit, and goes. An add of −0 changes no bit of anything (x + −0 is x, −0 included), and goes
// wherever it is.
//
// A loop's carried array keeps the property when it enters with it and every run hands back an
// array that has it, given that the run started with one (ConstructRule.carries: the construct's
// result is the last run's); a branch or anything else that takes the array ends what is known.
// Runs on finished, erased defs before opt/ownedChains.ts (while the adds are still `laccum`,
// which says what it adds). Generic: records say what is zero, what threads an array and what adds.
import { constructRule, isConstruct } from '../constructs/registry';
import type { ConstructExpr, Counts } from '../constructs/types';
import { arityOf } from '../language/arity';
import { freeVars } from '../ir/freeVars';
import type { Block, Expr, FnDef, Lambda, Stmt } from '../ir/syntax';
import { bodiesOf, holdsConstruct, renameOperands, renameStmtOperands } from '../ir/traverse';
import { readCounts } from './readCounts';

type Callee = (fn: string) => Counts | undefined;

const PASS = 'zeroAdds';

const asConstruct = (e: Expr): ConstructExpr | undefined => (e.tag === 'construct' && isConstruct(e.op) && e.lin.length === 0 ? e : undefined);

/** What is known in a scope: names bound to +0 or −0, names that are +0 or arrays of +0s (ConstructRule.zeros), arrays that never hold −0. */
interface Known {
  readonly plusZero: Set<string>;
  readonly minusZero: Set<string>;
  readonly zeros: Set<string>;
  readonly signless: Set<string>;
}

const nothingKnown = (): Known => ({ plusZero: new Set(), minusZero: new Set(), zeros: new Set(), signless: new Set() });

class ZeroAdds {
  constructor(private readonly callee: Callee) {}

  private bodyArity = (body: Lambda): Counts => arityOf(body.body.result, this.callee);

  /** The block with its zero adds dropped; `known` grows with what its statements bind. */
  block(b: Block, known: Known): Block {
    const out: Stmt[] = [];
    const renamed = new Map<string, string>();
    const rename = (n: string) => renamed.get(n) ?? n;
    let changed = false;
    for (const given of b.stmts) {
      let s = renamed.size > 0 ? renameStmtOperands(given, rename) : given;
      if (s.tag !== 'let') {
        changed ||= s !== given;
        out.push(s);
        continue;
      }
      let rhs = renamed.size > 0 ? renameOperands(s.rhs, rename) : s.rhs;
      // A name dropped here that a nested body reads as a free name would need renaming there: rare, left as it is.
      if (renamed.size > 0 && bodiesOf(rhs).some((l) => [...freeVars(l.body).nl].some((n) => renamed.has(n)))) {
        return b;
      }
      // A name bound again is what this statement makes it.
      for (const x of s.nl) for (const set of [known.plusZero, known.minusZero, known.zeros, known.signless]) set.delete(x.name);
      const e = asConstruct(rhs);
      if (e && e.bodies.length > 0) {
        const done = this.loop(e, known);
        rhs = done.e;
        for (const r of done.results) if (s.nl[r]) known.signless.add(s.nl[r].name);
      }
      if (rhs !== s.rhs) s = { ...s, rhs };
      const single = s.nl.length === 1 && s.lin.length === 0 ? s.nl[0].name : undefined;
      const c = asConstruct(s.rhs);
      if (single !== undefined && c && c.bodies.length === 0) {
        const t = constructRule(c, PASS).threads?.(c);
        if (t && t.result === 0) {
          const array = c.nl[t.array];
          const value = t.adds ? c.nl[t.adds.value] : undefined;
          const signless = known.signless.has(array);
          if (value !== undefined && (known.minusZero.has(value) || (signless && known.plusZero.has(value))) && this.denseLater(b, given, single, t.dense === undefined ? undefined : c.nl[t.dense])) {
            renamed.set(single, array);
            changed = true;
            continue;
          }
          if (signless && (t.adds || t.unchanged)) known.signless.add(single);
        }
        if (constructRule(c, PASS).zeros?.(c, (n) => known.zeros.has(n))) {
          known.zeros.add(single);
          known.signless.add(single);
        }
      } else if (single !== undefined && s.rhs.tag === 'lit' && typeof s.rhs.value === 'number' && s.rhs.value === 0) {
        (Object.is(s.rhs.value, -0) ? known.minusZero : known.plusZero).add(single);
        if (!Object.is(s.rhs.value, -0)) known.zeros.add(single);
      } else if (single !== undefined && s.rhs.tag === 'var' && !s.rhs.linear) {
        for (const set of [known.plusZero, known.minusZero, known.zeros, known.signless]) if (set.has(s.rhs.name)) set.add(single);
      }
      changed ||= s !== given;
      out.push(s);
    }
    const result = renamed.size > 0 ? renameOperands(b.result, rename) : b.result;
    if (renamed.size > 0 && bodiesOf(result).length > 0) return b;
    return changed || result !== b.result ? { stmts: out, result } : b;
  }

  /**
   * Whether the add's result `r` is read once, by the next statement that reads it, an add into
   * it as dense as this one (the same witness): that one makes the array as long as this one
   * would have (an add into a shorter array makes it dense), so dropping this one changes no
   * length either.
   */
  private denseLater(b: Block, add: Stmt, r: string, witness: string | undefined): boolean {
    if (witness === undefined) return false;
    const rest = b.stmts.slice(b.stmts.indexOf(add) + 1);
    if (readCounts({ stmts: rest, result: b.result }).get(r) !== 1) return false;
    const next = rest.find((s) => s.tag === 'let' && readCounts({ stmts: [s], result: { tag: 'ret', nl: [], lin: [] } }).has(r));
    const c = next?.tag === 'let' ? asConstruct(next.rhs) : undefined;
    const t = c && c.bodies.length === 0 ? constructRule(c, PASS).threads?.(c) : undefined;
    return !!c && !!t?.adds && t.dense !== undefined && c.nl[t.array] === r && c.nl[t.dense] === witness;
  }

  /**
   * A construct with bodies: each body rewritten, a repeating construct's carried arrays assumed
   * to never hold −0 where they enter so and every run hands one back so (else the construct
   * stays as it is); those results are then known to be so too.
   */
  private loop(e: ConstructExpr, known: Known): { e: ConstructExpr; results: readonly number[] } {
    const rule = constructRule(e, PASS);
    const slots = rule.repeats && rule.carries ? rule.carries(e, this.bodyArity).filter((slot) => slot.result !== undefined && known.signless.has(e.nl[slot.operand])) : [];
    // One pass over the bodies: where an assumption fails, the construct stays as it is (a second
    // pass with fewer assumptions would rewrite every loop inside again: 2^depth passes for loops
    // nested depth deep).
    const ends = new Map<number, Known>();
    const bodies = e.bodies.map((l, k) => {
      // Bodies are closed: what they know of outer values comes in through their parameters.
      const inner = nothingKnown();
      for (const slot of slots) if (slot.body === k) inner.signless.add(l.nlParams[slot.param].name);
      const body = this.block(l.body, inner);
      ends.set(k, inner);
      return body === l.body ? l : { ...l, body };
    });
    const holds = slots.every((slot) => {
      const r = bodies[slot.body].body.result;
      return r.tag === 'ret' && ends.get(slot.body)!.signless.has(r.nl[slot.result!]);
    });
    if (!holds) return { e, results: [] };
    return { e: bodies.every((l, k) => l === e.bodies[k]) ? e : { ...e, bodies }, results: slots.map((slot) => slot.result!) };
  }
}

/** The def with each add of −0, and of +0 into an array that never holds −0, dropped. */
export function dropZeroAdds(def: FnDef, callee: Callee): FnDef {
  if (!holdsConstruct(def.body)) return def;
  const body = new ZeroAdds(callee).block(def.body, nothingKnown());
  return body === def.body ? def : { ...def, body };
}
