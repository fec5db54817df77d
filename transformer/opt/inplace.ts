// In-place writes (docs/linear-a.md, "Arrays", "Writes"). The IR has value semantics: `update(a,
// i, v)` returns a changed copy and a stays as it was, which is what lets J, U and T treat every
// version of an array the source overwrites as a value of its own. The backend would pay for that
// with a copy per write (n² to fill an n-array), so this pass, run on finished programs just
// before they are emitted, turns a construct with an in-place twin (ConstructRule.inPlace) into
// that twin where nobody can tell the difference:
//
// - the array is *unique*: bound in this block by a construct that allocates its results
//   (ConstructRule.fresh: fill, map, an update), or a carried parameter of a loop body whose
//   operand was unique and read last by the loop and whose body hands back a unique array
//   (ConstructRule.carries), or the loop's result for such a slot; and no statement before the
//   write could have kept a reference to it (one whose results hold no array or stack cannot);
// - and the write is its last reader: nothing after it in the block, nor the block's result,
//   reads the old version.
//
// Anything else stays an update, a copy: a function's parameters (the caller's arrays), a
// version kept on a residual stack for the reverse sweep, an array a branch writes. Generic
// over constructs: only the records' facets are read.
import { constructRule, isConstruct } from '../constructs/registry';
import type { CarrySlot, ConstructExpr, Counts } from '../constructs/types';
import { arityOf } from '../language/arity';
import { REAL, arrayType, binder, construct, letS, ret } from '../ir/syntax';
import type { Block, Expr, FnDef, Lambda, Stmt, Type } from '../ir/syntax';
import { mapChildren, namesIn } from '../ir/traverse';
import { closedFreeVars } from '../ir/freeVars';

type Callee = (fn: string) => Counts | undefined;

/**
 * Whether a value of this type can hold a reference to an array: an array, a tuple or stack with
 * one inside. A stack of numbers (a loop's residuals) holds only numbers: a loop that reads an
 * array and stacks what it read keeps no reference to the array.
 */
function holdsArrays(t: Type | undefined): boolean {
  if (t === undefined) return true;
  if (t.tag !== 'tuple' && t.tag !== 'stack') return t.tag === 'array';
  // A tape type nests its callees' tapes (a chain of k functions calling the next twice is a tree
  // of 2^k tuples sharing k objects): remembered per type object, so the walk is linear.
  let known = HOLDS_ARRAYS.get(t);
  if (known === undefined) {
    known = t.tag === 'stack' ? holdsArrays(t.elem) : t.elems.some(holdsArrays);
    HOLDS_ARRAYS.set(t, known);
  }
  return known;
}
const HOLDS_ARRAYS = new WeakMap<Type, boolean>();

/** Whether a value of this type may be an array (what `unique` tracks: only arrays are written in place). */
const mayBeArray = (t: Type | undefined): boolean => t === undefined || t.tag === 'array';

/**
 * The names an expression reads from its block. A construct's bodies are closed (the checker
 * rejects a free variable): they read their parameters, never the block's names, so they are
 * not walked (a walk per level made a deep nest quadratic).
 */
const readsOf = (e: Expr): Set<string> => {
  const { nl, lin } = closedFreeVars(e);
  for (const n of lin) nl.add(n);
  return nl;
};

/**
 * What a statement reads, less the operands its construct reads only for their length (a witness,
 * ConstructRule.lengthOnly): a write changes no length, so such a read may come after it.
 */
function stmtReads(s: Stmt): Set<string> {
  if (s.tag === 'unpack') return new Set([s.tuple]);
  const e = asConstruct(s.rhs);
  const lengthOnly = e ? (constructRule(e, 'inplace').lengthOnly ?? []) : [];
  if (!e || lengthOnly.length === 0) return readsOf(s.rhs);
  return readsOf({ ...e, nl: e.nl.filter((_, k) => !lengthOnly.includes(k)) });
}

/** How many times a name is an operand of the expression itself. */
function operandCount(e: ConstructExpr, name: string): number {
  let k = 0;
  for (const n of e.nl) if (n === name) k++;
  for (const n of e.lin) if (n === name) k++;
  return k;
}

const asConstruct = (e: Expr): ConstructExpr | undefined => (e.tag === 'construct' && isConstruct(e.op) ? e : undefined);

interface Analysed {
  readonly block: Block;
  /** How many writes now run in place, nested bodies included. */
  readonly writes: number;
  /** The names the block's result hands on unique (its `ret` operands read once there and nowhere else). */
  readonly uniqueResults: readonly boolean[];
}

/** The pass's work, for tests: how many blocks it analysed. */
export interface InPlaceMeter {
  blocks: number;
}

class InPlace {
  constructor(
    private readonly callee: Callee,
    private readonly names: Set<string>,
    private readonly meter: InPlaceMeter = { blocks: 0 },
  ) {}

  private fresh(hint: string): string {
    return freshOwnName(this.names, hint);
  }

  private bodyArity = (body: Lambda): Counts => arityOf(body.body.result, this.callee);

  /**
   * What `analyse` made of each block, by the names unique on entry: a loop tries its body with
   * several sets of carried slots, and each try analyses the loops inside it again, so without
   * this a nest of d loops is analysed 2^d times. The analysis depends on nothing else (fresh
   * names aside).
   */
  private readonly analysed = new WeakMap<Block, Map<string, Analysed>>();

  /** The block with in-place twins where safe, given the names that are unique on entry. */
  block(given: Block, uniqueOnEntry: ReadonlySet<string>): Analysed {
    let byEntry = this.analysed.get(given);
    if (byEntry === undefined) {
      byEntry = new Map();
      this.analysed.set(given, byEntry);
    }
    const key = [...uniqueOnEntry].sort().join(' ');
    let done = byEntry.get(key);
    if (done === undefined) {
      done = this.analyse(given, uniqueOnEntry);
      byEntry.set(key, done);
    }
    return done;
  }

  private analyse(given: Block, uniqueOnEntry: ReadonlySet<string>): Analysed {
    this.meter.blocks++;
    const b = this.bindTail(given);
    const reads = b.stmts.map(stmtReads);
    const resultReads = readsOf(b.result);
    const lastUse = new Map<string, number>();
    reads.forEach((rs, k) => rs.forEach((n) => lastUse.set(n, k)));
    resultReads.forEach((n) => lastUse.set(n, Infinity));
    const unique = new Set(uniqueOnEntry);
    const out: Stmt[] = [];
    let writes = 0;
    const nested = (l: Lambda): Lambda => {
      const r = this.block(l.body, new Set());
      writes += r.writes;
      return { ...l, body: r.block };
    };
    b.stmts.forEach((s, k) => {
      if (s.tag === 'unpack') {
        unique.delete(s.tuple);
        out.push(s);
        return;
      }
      const e = asConstruct(s.rhs);
      const rule = e && constructRule(e, 'inplace');
      const diesHere = (x: string) => unique.has(x) && lastUse.get(x) === k && e !== undefined && operandCount(e, x) === 1;
      let rhs: Expr = s.rhs;
      const freshResults = new Set<number>();
      if (e && rule?.inPlace && diesHere(e.nl[rule.inPlace.operand])) {
        rhs = { ...e, op: rule.inPlace.op };
        writes++;
      } else if (e && rule?.carries && !rule.repeats) {
        const c = this.branching(e, rule.carries(e, this.bodyArity), diesHere);
        rhs = c.expr;
        writes += c.writes;
        c.uniqueResults.forEach((r) => freshResults.add(r));
      } else if (e && rule?.carries) {
        const c = this.carrying(e, rule.carries(e, this.bodyArity), diesHere);
        out.push(...c.copies);
        rhs = c.expr;
        writes += c.writes;
        c.uniqueResults.forEach((r) => freshResults.add(r));
      } else {
        rhs = mapChildren(s.rhs, nested);
      }
      const fresh = rule?.fresh === true;
      const keepsNothing = !s.nl.some((x) => holdsArrays(x.type)) && !s.lin.some((x) => holdsArrays(x.type));
      // A statement that could keep a reference to one of its operands makes that operand shared.
      if (!fresh && !keepsNothing) for (const n of this.held(s.rhs, reads[k])) unique.delete(n);
      s.nl.forEach((x, j) => {
        if ((fresh || freshResults.has(j)) && mayBeArray(x.type)) unique.add(x.name);
      });
      out.push(rhs === s.rhs ? s : { ...s, rhs });
    });
    const result = b.result;
    const retNames = result.tag === 'ret' ? result.nl : [];
    const uniqueResults = retNames.map((n) => unique.has(n) && retNames.filter((m) => m === n).length === 1);
    return { block: { stmts: out, result: mapChildren(result, nested) }, writes, uniqueResults };
  }

  /**
   * The names among `reads` whose arrays the expression's results may hold: those its construct's
   * record says it holds (ConstructRule.holds) and its linear operands, or else all of them.
   */
  private held(rhs: Expr, reads: ReadonlySet<string>): Iterable<string> {
    const e = asConstruct(rhs);
    const holds = e && constructRule(e, 'inplace').holds;
    if (!e || !holds) return reads;
    return [...holds(e, this.bodyArity, this.handsBack).map((k) => e.nl[k]), ...e.lin];
  }

  private readonly handedBack = new WeakMap<Lambda, ReadonlySet<number>>();

  /**
   * The non-linear parameter positions whose arrays the body's results may hold: followed through
   * its statements, each result holding what `held` says its statement's operands hold.
   */
  private readonly handsBack = (l: Lambda): ReadonlySet<number> => {
    const known = this.handedBack.get(l);
    if (known) return known;
    const from = new Map<string, ReadonlySet<number>>();
    l.nlParams.forEach((p, k) => {
      if (holdsArrays(p.type)) from.set(p.name, new Set([k]));
    });
    const heldBy = (e: Expr, reads: ReadonlySet<string>): Set<number> => {
      const out = new Set<number>();
      const c = asConstruct(e);
      if (c && constructRule(c, 'inplace').fresh) return out;
      for (const n of this.held(e, reads)) from.get(n)?.forEach((k) => out.add(k));
      return out;
    };
    for (const s of l.body.stmts) {
      if (s.tag === 'unpack') {
        const h = from.get(s.tuple) ?? new Set<number>();
        for (const x of s.names) from.set(x.name, h);
        continue;
      }
      const h = heldBy(s.rhs, readsOf(s.rhs));
      for (const x of [...s.nl, ...s.lin]) if (holdsArrays(x.type) && h.size > 0) from.set(x.name, h);
    }
    const r = heldBy(l.body.result, readsOf(l.body.result));
    this.handedBack.set(l, r);
    return r;
  };

  /** A block ending in a construct (a loop body's `update(o, i, s) []`) with that construct bound by a let, so it is a statement like the others. */
  private bindTail(b: Block): Block {
    const e = asConstruct(b.result);
    if (!e) return b;
    const { nl, lin } = arityOf(e, this.callee);
    if (lin > 0) return b;
    const names = Array.from({ length: nl }, () => binder(this.fresh('tail')));
    return { stmts: [...b.stmts, letS(names, [], e)], result: ret(names.map((x) => x.name)) };
  }

  /**
   * A construct that runs one of its bodies once (a branch): a parameter is unique where its
   * operand dies here unique, and a result is unique where every body returns a unique value.
   */
  private branching(e: ConstructExpr, slots: readonly CarrySlot[], diesHere: (x: string) => boolean): { expr: Expr; writes: number; uniqueResults: number[] } {
    const chosen = slots.filter((c) => diesHere(e.nl[c.operand]));
    const bodies = e.bodies.map((l, j) => this.block(l.body, new Set(chosen.filter((c) => c.body === j).map((c) => l.nlParams[c.param].name))));
    const count = Math.min(...bodies.map((b) => b.uniqueResults.length));
    const uniqueResults = Array.from({ length: Number.isFinite(count) ? count : 0 }, (_, r) => r).filter((r) => bodies.every((b) => b.uniqueResults[r]));
    const expr: Expr = { ...e, bodies: e.bodies.map((l, j) => ({ ...l, body: bodies[j].block })) };
    return { expr, writes: bodies.reduce((n, b) => n + b.writes, 0), uniqueResults };
  }

  /**
   * A construct whose bodies carry values from run to run (a loop). A carried parameter is unique
   * on every run after the first when the body hands back a unique value in its slot (the largest
   * set of such slots is found by dropping those that fail), and on the first when its operand
   * dies here unique. Where only the operand fails, one copy before the construct (`clone`)
   * makes it unique, if that lets the body write in place: one copy per loop instead of one
   * per iteration.
   */
  private carrying(e: ConstructExpr, slots: readonly CarrySlot[], diesHere: (x: string) => boolean): { expr: Expr; copies: Stmt[]; writes: number; uniqueResults: number[] } {
    const run = (chosen: readonly CarrySlot[]) => e.bodies.map((l, j) => this.block(l.body, new Set(chosen.filter((c) => c.body === j).map((c) => l.nlParams[c.param].name))));
    // Only an array is ever written in place: a number or a stack carried along never comes back
    // unique, so trying it would only cost another run.
    let candidates = slots.filter((c) => mayBeArray(e.bodies[c.body].nlParams[c.param].type));
    let bodies = run(candidates);
    for (;;) {
      const holding = candidates.filter((c) => c.result !== undefined && bodies[c.body].uniqueResults[c.result] === true);
      if (holding.length === candidates.length) break;
      candidates = holding;
      bodies = run(candidates);
    }
    const total = (bs: readonly Analysed[]) => bs.reduce((n, b) => n + b.writes, 0);
    // Slots whose operand is shared: keep them (with a copy) only where that buys writes.
    for (const c of candidates.filter((c) => !diesHere(e.nl[c.operand]))) {
      const without = candidates.filter((d) => d !== c);
      const other = run(without);
      if (total(other) >= total(bodies)) {
        candidates = without;
        bodies = other;
      }
    }
    const copies: Stmt[] = [];
    const nl = [...e.nl];
    for (const c of candidates) {
      const x = e.nl[c.operand];
      if (diesHere(x)) continue;
      const copy = this.fresh(x);
      copies.push(letS([binder(copy, arrayType(REAL))], [], construct('clone', [x], [], [])));
      nl[c.operand] = copy;
    }
    const expr: Expr = { ...e, nl, bodies: e.bodies.map((l, j) => ({ ...l, body: bodies[j].block })) };
    return { expr, copies, writes: total(bodies), uniqueResults: candidates.map((c) => c.result!) };
  }
}

/** The def with each update that provably nobody else sees turned into its in-place twin. */
export function markInPlace(def: FnDef, callee: Callee, meter?: InPlaceMeter): FnDef {
  const analysed = new InPlace(callee, namesIn(def), meter).block(def.body, new Set());
  if (analysed.writes === 0) return def;
  const body = analysed.block;
  return body === def.body ? def : { ...def, body };
}

/** `hint_own` (then `hint_own_1`, …): a name not in `names` for the owned copy of an array, taken into `names`. */
export function freshOwnName(names: Set<string>, hint: string): string {
  let name = `${hint}_own`;
  for (let k = 1; names.has(name); k++) name = `${hint}_own_${k}`;
  names.add(name);
  return name;
}
