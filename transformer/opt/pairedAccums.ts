// Adds into one element in a row become one update (issue 22, gmm).
//
// J of `z[r] * z[r]` reads the tangent ż[r] twice, so T adds twice into z̄[r]; once
// opt/ownedChains.ts has proved z̄ owned they are `a1 = laccumw(r, w, a, t); a2 = laccumw(r, w,
// a1, t)`, printed `z̄[r] += t; z̄[r] += t`: two loads and two stores of one element. Where the
// second's record pairs them (ConstructRule.pairs) they become one construct, `z̄[r] = z̄[r] + t +
// t`: the same additions in the same order, so the same bits. (One `+= 2·t` would not be: it
// rounds once where two adds round twice, 1 + 2⁻⁵³ + 2⁻⁵³ is 1 but 1 + 2⁻⁵² is not.)
//
// What the rewrite needs, in one block:
// - the second's threaded array (Threading.array) is the first's only result, read by nothing else;
// - the statements between the two (T's output puts the second value's product there) bind
//   literals, copies and primitives only, reading neither that result nor the first's array: the
//   first add moves down to the second, and no value read in between can see it;
// - the record says the two pair (same index, same witness).
// Runs last on finished, erased defs, after opt/firstWrites.ts (a store pairs with nothing).
// Generic: records say what threads an array and what pairs.
import { constructRule, isConstruct } from '../constructs/registry';
import type { ConstructExpr } from '../constructs/types';
import type { Block, Expr, FnDef, Lambda, Stmt } from '../ir/syntax';
import { forEachOperand, holdsConstruct, mapChildren } from '../ir/traverse';
import { readCounts } from './readCounts';

type Let = Extract<Stmt, { tag: 'let' }>;

const PASS = 'pairedAccums';

const asConstruct = (e: Expr): ConstructExpr | undefined => (e.tag === 'construct' && isConstruct(e.op) && e.bodies.length === 0 && e.lin.length === 0 ? e : undefined);

/** The array operand a construct hands on, and its one result: where it threads an array. */
function threaded(s: Stmt | undefined): { e: ConstructExpr; array: string } | undefined {
  if (s?.tag !== 'let' || s.nl.length !== 1 || s.lin.length !== 0) return undefined;
  const e = asConstruct(s.rhs);
  const t = e && constructRule(e, PASS).threads?.(e);
  return e && t && t.result === 0 ? { e, array: e.nl[t.array] } : undefined;
}

/** A statement that computes a plain value from other names, reading none of `avoid`. */
function quiet(s: Stmt, avoid: ReadonlySet<string>): boolean {
  if (s.tag !== 'let' || s.lin.length > 0) return false;
  const rhs = s.rhs;
  if (rhs.tag !== 'lit' && rhs.tag !== 'prim' && !(rhs.tag === 'var' && !rhs.linear)) return false;
  let ok = true;
  forEachOperand(rhs, (n) => {
    if (avoid.has(n)) ok = false;
  });
  return ok;
}

class Pairing {
  block(b: Block): Block {
    let changed = false;
    const inner = (l: Lambda): Lambda => {
      const body = this.block(l.body);
      return body === l.body ? l : { ...l, body };
    };
    const stmts: (Stmt | undefined)[] = b.stmts.map((s) => {
      if (s.tag !== 'let') return s;
      const rhs = mapChildren(s.rhs, inner);
      if (rhs === s.rhs) return s;
      changed = true;
      return { ...s, rhs };
    });
    const result = mapChildren(b.result, inner);
    changed ||= result !== b.result;
    const reads = readCounts({ stmts: stmts as Stmt[], result });
    // The statement binding each single result of a threading construct seen so far.
    const threadedAt = new Map<string, number>();
    for (let k = 0; k < stmts.length; k++) {
      const second = threaded(stmts[k]);
      const s = stmts[k] as Let;
      if (second) {
        const j = threadedAt.get(second.array);
        const first = j === undefined ? undefined : threaded(stmts[j]);
        const pairs = constructRule(second.e, PASS).pairs;
        if (first && pairs && reads.get(second.array) === 1) {
          const avoid = new Set([second.array, first.array]);
          const between = stmts.slice(j! + 1, k);
          const merged = between.every((x) => x === undefined || quiet(x, avoid)) ? pairs(first.e, second.e) : undefined;
          if (merged) {
            stmts[j!] = undefined;
            stmts[k] = { ...s, rhs: merged };
            changed = true;
          }
        }
      }
      if (threaded(stmts[k])) threadedAt.set((stmts[k] as Let).nl[0].name, k);
    }
    if (!changed) return b;
    return { stmts: stmts.filter((x): x is Stmt => x !== undefined), result };
  }
}

/** The def with every run of pairing adds into one element made one construct. */
export function pairAccums(def: FnDef): FnDef {
  if (!holdsConstruct(def.body)) return def;
  const body = new Pairing().block(def.body);
  return body === def.body ? def : { ...def, body };
}
