// Cotangent arrays proved owned once per loop instead of checked at every accumulation (issue 22).
//
// A backward loop accumulates into a carried cotangent array, `x̄[j] += y` (laccum). The emitted
// code updates an array in place only where the running call owns it and it is dense
// (constructs/array/accum.ts), and checks both at every accumulation: a length compare, a cached
// slot or a set lookup, two slot writes, per element. Where a loop hands its carried array only
// to such constructs (ConstructRule.threads: laccum, lupdate, ltake, lpeek), or to an inner loop
// or a branch that does the same, nothing else can hold the array during the loop: made owned
// and dense once before the loop (`claim`, when the loop runs), it stays so through every
// iteration, and each construct on the chain becomes its twin that writes without checking
// (Threading.owned). What the chain must show:
//
// - the carried parameter, and each array a construct of the chain hands on, is read exactly
//   once in its block (erased code is not type-checked as linear any more, so this is counted),
//   by the next construct of the chain, and the last one is the body's result in the same slot;
// - an inner loop on the chain threads its own carried parameter the same way (recursively), and
//   a branch threads it in every body to the same result;
// - every construct that needs the array dense names a length that is the same loop-invariant
//   value outside the loop (a witness passed in unchanged), which the claim then uses.
//
// Runs on finished, erased programs just before the TypeScript backend, after opt/inplace.ts,
// innermost loops first: an inner loop's claim on an outer chain becomes a plain copy of the name.
// Generic over constructs: it reads the records' facets (threads, carries, invariants, repeats).
import { constructRule, isConstruct } from '../constructs/registry';
import type { CarrySlot, ConstructExpr, Counts } from '../constructs/types';
import { arityOf } from '../language/arity';
import { freeVars } from '../ir/freeVars';
import { REAL, arrayType, binder, construct, letS, lit, nvar } from '../ir/syntax';
import type { Block, Expr, FnDef, Lambda, Stmt } from '../ir/syntax';
import { forEachOperand, mapChildren, namesIn } from '../ir/traverse';
import { freshOwnName } from './inplace';

type Callee = (fn: string) => Counts | undefined;

const asConstruct = (e: Expr): ConstructExpr | undefined => (e.tag === 'construct' && isConstruct(e.op) ? e : undefined);

/** How many times an expression reads each name from its block (a nested block's reads count twice: never a chain's). */
function uses(e: Expr, out: Map<string, number>): void {
  const add = (n: string, k = 1) => out.set(n, (out.get(n) ?? 0) + k);
  let x = e;
  while (x.tag === 'drop') x = x.expr;
  if (x.tag === 'block') {
    const { nl, lin } = freeVars(x);
    for (const n of [...nl, ...lin]) add(n, 2);
    return;
  }
  forEachOperand(x, (n) => add(n));
}

function stmtReads(s: Stmt, name: string): boolean {
  if (s.tag === 'unpack') return s.tuple === name;
  const m = new Map<string, number>();
  uses(s.rhs, m);
  return m.has(name);
}

function blockUses(b: Block): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of b.stmts) {
    if (s.tag === 'unpack') out.set(s.tuple, (out.get(s.tuple) ?? 0) + 1);
    else uses(s.rhs, out);
  }
  uses(b.result, out);
  return out;
}

/** A chain through a block: the block rewritten, the result slot the array ends in, the lengths it needs (names outside the outermost loop). */
interface Chain {
  readonly block: Block;
  readonly result: number;
  readonly dense: ReadonlySet<string>;
  /** Whether a check was removed (a construct turned into its twin, or an inner claim dropped). */
  readonly gains: boolean;
}

/** Maps a name of a body to the name outside the outermost loop it always equals, where there is one. */
type Outside = (name: string) => string | undefined;

class OwnedChains {
  constructor(
    private readonly callee: Callee,
    private readonly names: Set<string>,
  ) {}

  private fresh(hint: string): string {
    return freshOwnName(this.names, hint);
  }

  private bodyArity = (body: Lambda): Counts => arityOf(body.body.result, this.callee);

  /** The block with each loop whose carried cotangents it can prove owned rewritten (inner loops first). */
  block(b: Block): Block {
    const out: Stmt[] = [];
    for (const s of b.stmts) {
      if (s.tag !== 'let') {
        out.push(s);
        continue;
      }
      let rhs = mapChildren(s.rhs, (l) => ({ ...l, body: this.block(l.body) }));
      const e = asConstruct(rhs);
      if (e) rhs = this.loop(e, out);
      out.push(rhs === s.rhs ? s : { ...s, rhs });
    }
    const result = mapChildren(b.result, (l) => ({ ...l, body: this.block(l.body) }));
    return result === b.result && out.every((s, k) => s === b.stmts[k]) && out.length === b.stmts.length ? b : { stmts: out, result };
  }

  /** A loop with its provable carried arrays claimed before it (statements into `before`). */
  private loop(given: ConstructExpr, before: Stmt[]): ConstructExpr {
    const rule = constructRule(given, 'ownedChains');
    if (!rule.repeats || !rule.carries || given.bodies.length !== 1 || given.lin.length > 0) return given;
    let e = given;
    const slots = rule.carries(e, this.bodyArity).filter((c) => c.result !== undefined);
    const inv = rule.invariants?.(e, this.bodyArity);
    const trip = inv?.trip !== undefined ? e.nl[inv.trip] : undefined;
    for (const slot of slots) {
      const operand = e.nl[slot.operand];
      if (e.nl.filter((n) => n === operand).length !== 1) continue;
      const body = e.bodies[0];
      const outside: Outside = (name) => {
        const k = body.nlParams.findIndex((p) => p.name === name);
        if (!inv || k < inv.param || k >= inv.param + inv.count) return undefined;
        return e.nl[inv.operand + (k - inv.param)];
      };
      const chain = this.chain(body.body, body.nlParams[slot.param].name, outside);
      if (!chain || chain.result !== slot.result || !chain.gains || chain.dense.size > 1) continue;
      let w = [...chain.dense][0];
      if (w === undefined) {
        w = this.fresh('none');
        before.push(letS([binder(w, REAL)], [], lit(0)));
      }
      const owned = this.fresh(operand);
      before.push(letS([binder(owned, arrayType(REAL))], [], construct('claim', trip === undefined ? [operand, w] : [operand, w, trip], [], [])));
      const nl = [...e.nl];
      nl[slot.operand] = owned;
      e = { ...e, nl, bodies: [{ ...body, body: chain.block }] };
    }
    return e;
  }

  /**
   * The chain of `start` through a block: each construct reading it hands it on (ConstructRule
   * threads, an inner loop's carried slot, a branch's), and the block returns the last name.
   */
  private chain(b: Block, start: string, outside: Outside): Chain | undefined {
    const counts = blockUses(b);
    // A length bound to 0 here asks for nothing (an inner claim with no dense construct on its chain).
    const zeros = new Set(b.stmts.flatMap((s) => (s.tag === 'let' && s.rhs.tag === 'lit' && s.rhs.value === 0 && s.nl.length === 1 ? [s.nl[0].name] : [])));
    const dense = new Set<string>();
    let gains = false;
    let cur = start;
    const stmts = [...b.stmts];
    for (let k = 0; k < stmts.length; k++) {
      const s = stmts[k];
      if (!stmtReads(s, cur)) continue;
      if (counts.get(cur) !== 1 || s.tag !== 'let') return undefined;
      // A copy of the name (an inner claim this chain made redundant): the chain goes on under it.
      if (s.rhs.tag === 'var' && !s.rhs.linear && s.nl.length === 1) {
        cur = s.nl[0].name;
        continue;
      }
      const e = asConstruct(s.rhs);
      if (!e) return undefined;
      const rule = constructRule(e, 'ownedChains');
      const t = rule.threads?.(e);
      if (t && e.nl[t.array] === cur && s.nl[t.result]) {
        if (t.dense !== undefined && !zeros.has(e.nl[t.dense])) {
          const w = outside(e.nl[t.dense]);
          if (w === undefined) return undefined;
          dense.add(w);
        }
        if (e.op === 'claim') {
          // An inner loop's claim on this chain: the array is owned and dense already.
          stmts[k] = letS([s.nl[t.result]], [], nvar(cur));
          gains = true;
        } else if (t.owned) {
          stmts[k] = { ...s, rhs: { ...e, op: t.owned } };
          gains = true;
        }
        cur = s.nl[t.result].name;
        continue;
      }
      const inner = this.through(e, cur, outside);
      if (!inner || !s.nl[inner.result]) return undefined;
      inner.dense.forEach((w) => dense.add(w));
      gains ||= inner.gains;
      stmts[k] = { ...s, rhs: inner.expr };
      cur = s.nl[inner.result].name;
    }
    const r = b.result;
    if (r.tag !== 'ret' || counts.get(cur) !== 1) return undefined;
    const result = r.nl.indexOf(cur);
    if (result < 0) return undefined;
    return { block: { stmts, result: r }, result, dense, gains };
  }

  /** An inner loop or a branch on the chain: `cur` threaded through its bodies to one result. */
  private through(e: ConstructExpr, cur: string, outside: Outside): { expr: ConstructExpr; result: number; dense: ReadonlySet<string>; gains: boolean } | undefined {
    const rule = constructRule(e, 'ownedChains');
    if (!rule.carries || e.lin.length > 0 || e.nl.filter((n) => n === cur).length !== 1) return undefined;
    const slots = rule.carries(e, this.bodyArity);
    const mine = slots.filter((c) => e.nl[c.operand] === cur);
    // Each body's other parameters: for a loop its invariants, for a branch every operand it gets.
    const mapped = (body: number, from: readonly CarrySlot[]): Outside => {
      const l = e.bodies[body];
      const inv = rule.repeats ? rule.invariants?.(e, this.bodyArity) : undefined;
      return (name) => {
        const k = l.nlParams.findIndex((p) => p.name === name);
        if (k < 0) return undefined;
        if (rule.repeats) {
          if (!inv || inv.body !== body || k < inv.param || k >= inv.param + inv.count) return undefined;
          return outside(e.nl[inv.operand + (k - inv.param)]);
        }
        const slot = from.find((c) => c.body === body && c.param === k);
        return slot ? outside(e.nl[slot.operand]) : undefined;
      };
    };
    if (rule.repeats) {
      if (e.bodies.length !== 1 || mine.length !== 1 || mine[0].result === undefined) return undefined;
      const slot = mine[0];
      const l = e.bodies[0];
      const chain = this.chain(l.body, l.nlParams[slot.param].name, mapped(0, slots));
      if (!chain || chain.result !== slot.result) return undefined;
      return { expr: { ...e, bodies: [{ ...l, body: chain.block }] }, result: slot.result, dense: chain.dense, gains: chain.gains };
    }
    // A branch: every body gets the array once and hands it back in the same result.
    if (e.bodies.length === 0 || e.bodies.some((_, j) => mine.filter((c) => c.body === j).length !== 1)) return undefined;
    const dense = new Set<string>();
    let gains = false;
    let result: number | undefined;
    const bodies: Lambda[] = [];
    for (let j = 0; j < e.bodies.length; j++) {
      const slot = mine.find((c) => c.body === j)!;
      const l = e.bodies[j];
      const chain = this.chain(l.body, l.nlParams[slot.param].name, mapped(j, slots));
      if (!chain || (result !== undefined && chain.result !== result)) return undefined;
      result = chain.result;
      chain.dense.forEach((w) => dense.add(w));
      gains ||= chain.gains;
      bodies.push({ ...l, body: chain.block });
    }
    return result === undefined ? undefined : { expr: { ...e, bodies }, result, dense, gains };
  }
}

/** The def with each loop's accumulations into a carried cotangent it proves owned made unchecked, and the array claimed once before the loop. */
export function proveOwnedChains(def: FnDef, callee: Callee): FnDef {
  const pass = new OwnedChains(callee, namesIn(def));
  const body = pass.block(def.body);
  return body === def.body ? def : { ...def, body };
}
