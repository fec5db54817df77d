// Accumulations that are an element's first write become stores (issue 22, lse).
//
// The backward loop of `for (i …) s += f(x[i])` adds one cotangent per run into x̄, which starts
// as zeros: `x̄[n − 1 − k] += y_k`. Each element is added to once, onto +0, so the add is a store
// of `y_k + 0` (the same bits, −0 included) that need not read the element: one load per element
// less, and on a fresh array of many pages no read of each zero page before its write (lse's
// gradient at n = 1.28M: ÷ hand-written 1.15 → 0.97, docs/benchmarks.md, s11 lse22).
//
// What the rewrite needs, for a carried array of a repeating construct (a loop):
// - the array enters as zeros: its operand is bound in the same block to an expression whose
//   record says so (ConstructRule.zeros: fill of +0s or of no element, a claim of such an array);
// - one construct a run touches it with, in the body's own statements (so once per run), which
//   adds at an index and has a storing twin (Threading.first: laccumw → linitw), its result
//   handed straight back as the body's result in the same slot, and nothing else reading it;
// - the index a different value in every run: the counter (ConstructRule.counter) plus or minus
//   small literals and at most one loop invariant or cheap read of invariants (ConstructRule.cheap:
//   len), through unit-coefficient sums (PrimDef.signs: add, sub, neg), so a nonzero whole
//   multiple of the counter plus the same value in every run, computed exactly (counterMultiples).
//
// Runs on finished, erased programs after opt/ownedChains.ts (the adds it proved owned are the
// ones rewritten). Generic: records say what is zero, what counts, what adds and what sums.
import { constructRule, isConstruct } from '../constructs/registry';
import type { CarrySlot, ConstructExpr, ConstructRule, Counts } from '../constructs/types';
import { arityOf } from '../language/arity';
import type { CalleeCounts } from './sourceDefs';
import { readCounts } from './readCounts';
import type { Block, Expr, FnDef, Lambda, Stmt } from '../ir/syntax';
import { mapChildren } from '../ir/traverse';
import { PRIMS } from '../prims/registry';

type Callee = CalleeCounts;

const asConstruct = (e: Expr): ConstructExpr | undefined => (e.tag === 'construct' && isConstruct(e.op) ? e : undefined);

/** An index as `multiple`·counter + a value the same in every run, that value summed from `leaves` invariant names (with repeats) and small literals. */
interface Affine {
  readonly multiple: number;
  readonly leaves: number;
}

/** Literals an index may add: small enough that no sum of them and of a counter loses a bit. */
const SMALL = 2 ** 31;

/**
 * Each name of a body that is a whole multiple of the counter plus a value the same in every run,
 * with how it is built (absent where it is not, or not known to be).
 *
 * Floating-point sums are exact below 2^53, so an index `c·i + Σ literals ± T` built from at most
 * one invariant leaf T is the value its affine form says wherever it is inside an array: with
 * |T| < 2^52 every partial sum is exact, and with |T| ≥ 2^52 the index is outside every array
 * (where the store and the add both write nothing). Two leaves could cancel after rounding
 * (`(i + T) − T` with T = 2^60 is a constant), so such an index is left alone.
 */
function counterMultiples(body: Lambda, counter: string, invariant: ReadonlySet<string>): Map<string, Affine> {
  const m = new Map<string, Affine>([[counter, { multiple: 1, leaves: 0 }]]);
  for (const p of invariant) m.set(p, { multiple: 0, leaves: 1 });
  for (const s of body.body.stmts) {
    if (s.tag !== 'let' || s.nl.length !== 1 || s.lin.length > 0) continue;
    const name = s.nl[0].name;
    const e = s.rhs;
    if (e.tag === 'lit' && typeof e.value === 'number' && Math.abs(e.value) < SMALL) m.set(name, { multiple: 0, leaves: 0 });
    else if (e.tag === 'var' && !e.linear && m.has(e.name)) m.set(name, m.get(e.name)!);
    else if (e.tag === 'construct' && isConstruct(e.op) && e.bodies.length === 0 && e.lin.length === 0 && constructRule(e, 'firstWrites').cheap) {
      // A read of the same operands in every run (len of an invariant array) reads the same value.
      if (e.nl.every((a) => m.get(a)?.multiple === 0)) m.set(name, { multiple: 0, leaves: 1 });
    } else if (e.tag === 'prim') {
      const signs = PRIMS[e.op]?.signs;
      if (!signs || signs.length !== e.args.length || !e.args.every((a) => m.has(a))) continue;
      const terms = e.args.map((a) => m.get(a)!);
      m.set(name, { multiple: terms.reduce((sum, t, k) => sum + signs[k] * t.multiple, 0), leaves: terms.reduce((sum, t) => sum + t.leaves, 0) });
    }
  }
  return m;
}

class FirstWrites {
  constructor(private readonly callee: Callee) {}

  private bodyArity = (body: Lambda): Counts => arityOf(body.body.result, this.callee);

  block(b: Block): Block {
    // Names bound here to +0 or to an array of +0s.
    const zero = new Set<string>();
    const isZero = (n: string) => zero.has(n);
    let changed = false;
    const out: Stmt[] = [];
    for (const s of b.stmts) {
      if (s.tag !== 'let') {
        out.push(s);
        continue;
      }
      let rhs = mapChildren(s.rhs, (l) => ({ ...l, body: this.block(l.body) }));
      const e = asConstruct(rhs);
      if (e) rhs = this.loop(e, isZero);
      if (s.nl.length === 1 && s.lin.length === 0) {
        if (rhs.tag === 'lit' && Object.is(rhs.value, 0)) zero.add(s.nl[0].name);
        else if (rhs.tag === 'var' && !rhs.linear && zero.has(rhs.name)) zero.add(s.nl[0].name);
        else if (e && constructRule(e, 'firstWrites').zeros?.(e, isZero)) zero.add(s.nl[0].name);
      }
      changed ||= rhs !== s.rhs;
      out.push(rhs === s.rhs ? s : { ...s, rhs });
    }
    const result = mapChildren(b.result, (l) => ({ ...l, body: this.block(l.body) }));
    return changed || result !== b.result ? { stmts: out, result } : b;
  }

  /** A repeating construct with the add into each carried array of zeros that is a first write made a store. */
  private loop(given: ConstructExpr, isZero: (name: string) => boolean): ConstructExpr {
    const rule = constructRule(given, 'firstWrites');
    const c = rule.counter?.(given);
    if (!rule.repeats || !rule.carries || !c || given.lin.length > 0) return given;
    let e = given;
    for (const slot of rule.carries(e, this.bodyArity)) {
      if (slot.body !== c.body || slot.result === undefined || !isZero(e.nl[slot.operand])) continue;
      const body = this.store(rule, e, slot, c.param);
      if (body) e = { ...e, bodies: e.bodies.map((l, k) => (k === slot.body ? body : l)) };
    }
    return e;
  }

  /** The body with the one add into the slot's array made a store, where it is a first write. */
  private store(rule: ConstructRule, e: ConstructExpr, slot: CarrySlot, counterParam: number): Lambda | undefined {
    const body = e.bodies[slot.body];
    const r = body.body.result;
    const param = body.nlParams[slot.param]?.name;
    const counter = body.nlParams[counterParam]?.name;
    if (r.tag !== 'ret' || param === undefined || counter === undefined) return undefined;
    const counts = readCounts(body.body);
    if (counts.get(param) !== 1) return undefined;
    const k = body.body.stmts.findIndex((s) => s.tag === 'let' && s.rhs.tag === 'construct' && s.rhs.nl.includes(param));
    const s = body.body.stmts[k];
    const add = s?.tag === 'let' ? asConstruct(s.rhs) : undefined;
    if (s?.tag !== 'let' || !add || add.bodies.length > 0) return undefined;
    const t = constructRule(add, 'firstWrites').threads?.(add);
    const next = t ? s.nl[t.result]?.name : undefined;
    if (!t?.first || add.nl[t.array] !== param || next === undefined) return undefined;
    // Its new value only handed back, in the slot's own result.
    if (counts.get(next) !== 1 || r.nl[slot.result!] !== next) return undefined;
    const inv = rule.invariants?.(e, this.bodyArity);
    const invariant = new Set(inv && inv.body === slot.body ? body.nlParams.slice(inv.param, inv.param + inv.count).map((p) => p.name) : []);
    const index = counterMultiples(body, counter, invariant).get(add.nl[t.first.index]);
    if (index === undefined || index.multiple === 0 || index.leaves > 1) return undefined;
    const stmts = [...body.body.stmts];
    stmts[k] = { ...s, rhs: { ...add, op: t.first.op } };
    return { ...body, body: { ...body.body, stmts } };
  }
}

/** The def with each loop's adds into a carried array of zeros that write each element once made stores. */
export function storeFirstWrites(def: FnDef, callee: Callee): FnDef {
  const body = new FirstWrites(callee).block(def.body);
  return body === def.body ? def : { ...def, body };
}
