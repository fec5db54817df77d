// Loop-invariant code motion with expansion: inside a counted loop L, a costly primitive (its
// record's `costly`: exp, log, sin, pow …) computed in an inner loop nest from the inner counters
// and from values L does not change is the same in every run of L's body. It is computed once,
// before L, into a table indexed by the inner counters it depends on, and L's nest reads the
// table instead. GradBench gmm's `Math.exp(q[c·d + r])` inside `for i { for c { for r … } }`
// becomes a k×d table of e^q, as the hand-written code has it; the gradient inherits the table
// (the pass runs before J): the backward pass sums the table's cotangent over the points and takes
// it through exp once per entry.
//
// When it applies (the limits are the rule's, stated once):
// - every loop between L and the primitive is a counted loop (the `invariants` facet with a trip)
//   whose trip count L does not change and no loop between computes (the nest is rectangular):
//   the table has the product of those trip counts as its size, which is at most the work of
//   one run of L's body, so memory stays bounded by the code's own work;
// - the primitive is not under a branch (the nest computes it in every run), and what it reads is
//   computed by primitives, element reads (`cheap` body-less constructs) and unpacking from
//   L's invariants and the inner counters; nothing L carries (an array written in L is carried);
// - it depends on at least one inner counter (a plain invariant is opt/licm.ts's), and L's trip
//   count is not a literal ≤ 1;
// - it does not feed a side of a select or an operand only one branch of an `if` reads (its
//   backward code must stay under the test, as licm keeps it).
// A reduction is the same with the final value of a carried value of an inner loop M that only
// its own chain of pure updates reads (`sumq += q[c·d + r]`): the table holds M's result per
// entry (M runs, with that carried value alone, in the table's nest), and the value's start must
// not change in L. A reduction that depends on no inner counter (a scalar: a whole inner loop
// invariant in L) is not moved yet.
// Everything in Linear A is pure, so the table's code computes nothing observable; it runs under
// `L's trip > 0 and every loop of the nest's trip > 0` (constructs/cond/tripGuard.ts), so that no
// entry is computed that the source never computes: an unread entry's derivative could turn a
// zero cotangent into NaN (0·∞).
import { NameSupply, namesIn } from '../ir/build';
import { arityOf } from '../language/arity';
import { BOOL, REAL, arrayType, binder, block, construct, letS, lit, prim, ret } from '../ir/syntax';
import type { Binder, Block, Expr, FnDef, Lambda, Program, Stmt, Type } from '../ir/syntax';
import { forEachOperand, holdsConstruct, mapChildren, renameOperands, visitDef } from '../ir/traverse';
import { closeLoop } from '../ir/close';
import { restoreLinearity } from '../ir/linearity';
import { NESTING_FOLLOWED } from '../ir/nesting';
import { constructRule } from '../constructs/registry';
import { underTripGuard } from '../constructs/cond/tripGuard';
import type { ConstructExpr, Counts, InvariantSlots } from '../constructs/types';
import { mapSourceDefs } from './sourceDefs';
import { PRIMS } from '../prims/registry';

type Let = Extract<Stmt, { tag: 'let' }>;

/** A counted loop of the nest under analysis: L itself (depth 0) or one inside it. */
interface Node {
  readonly id: number;
  readonly depth: number;
  readonly parent?: Node;
  readonly e: ConstructExpr;
  readonly slots: InvariantSlots;
  /** The statement of the parent's body that binds the loop (undefined for L). */
  readonly stmt?: Let;
  /** The body's counter parameter. */
  readonly counter: string;
}

/** Where a name's value comes from, seen through the loops' invariant parameters. */
type Origin =
  | { readonly kind: 'outer'; readonly name: string }
  | { readonly kind: 'counter'; readonly node: Node }
  | { readonly kind: 'stmt'; readonly node: Node; readonly stmt: Stmt; readonly name: string }
  | { readonly kind: 'varying' };

/** The inner loops a value depends on (by id), or 'varying' where it changes with L's runs. */
type Dep = ReadonlySet<number> | 'varying';

const NONE: ReadonlySet<number> = new Set();

function join(a: Dep, b: Dep): Dep {
  if (a === 'varying' || b === 'varying') return 'varying';
  if (b.size === 0) return a;
  if (a.size === 0) return b;
  return new Set([...a, ...b]);
}

/** Tabulates what every loop of every source def recomputes for each run (defs without a role). */
export function tabulateInvariants(p: Program): Program {
  return mapSourceDefs(p, tabulateInDef);
}

function tabulateInDef(d: FnDef, callee: (fn: string) => Counts | undefined): FnDef {
  // Without a construct there is no loop: not walked further.
  if (!holdsConstruct(d.body)) return d;
  // Only a def with a costly primitive inside a loop inside a loop, or three loops deep, is rewritten at all.
  const loopBodies = new WeakSet<Lambda>();
  let depth = 0;
  let candidate = false;
  // The rewrite recurses once per level: nesting deeper than every pass follows is left as it is.
  let nesting = 0;
  let deepest = 0;
  const literals = new Map<string, number>();
  const types = new Map<string, Type>();
  visitDef(d, {
    // A construct is visited before its bodies are entered.
    expr: (e) => {
      if (e.tag === 'construct' && slotsOf(e as ConstructExpr, callee)) for (const l of e.bodies) loopBodies.add(l);
      if (e.tag === 'prim' && PRIMS[e.op]?.costly && depth >= 2) candidate = true;
    },
    // A reduction needs a third loop: L, the loop whose body reads it, the loop computing it.
    enter: (l) => {
      if (loopBodies.has(l) && ++depth >= 3) candidate = true;
      deepest = Math.max(deepest, ++nesting);
    },
    leave: (l) => {
      if (loopBodies.has(l)) depth--;
      nesting--;
    },
    stmt: (s) => {
      if (s.tag === 'let' && s.rhs.tag === 'lit' && typeof s.rhs.value === 'number' && s.nl.length === 1) literals.set(s.nl[0].name, s.rhs.value);
    },
    bind: (b) => {
      if (b.type) types.set(b.name, b.type);
    },
  });
  if (!candidate || deepest > NESTING_FOLLOWED) return d;
  const names = new NameSupply(namesIn(d.body, new Set([...d.nlParams, ...d.linParams].map((b) => b.name))));
  const ctx: Ctx = { names, callee, literals, types, changed: false };
  const body = processBlock(d.body, ctx);
  // What the table replaced is no longer read, nor is what a level of the table's nest was handed
  // and does not need: restoreLinearity drops it.
  return ctx.changed ? restoreLinearity({ ...d, body }) : d;
}

interface Ctx {
  readonly names: NameSupply;
  readonly callee: (fn: string) => Counts | undefined;
  readonly literals: ReadonlyMap<string, number>;
  readonly types: Map<string, Type>;
  changed: boolean;
}

function slotsOf(e: ConstructExpr, callee: (fn: string) => Counts | undefined): InvariantSlots | undefined {
  const slots = constructRule(e, 'invariants').invariants?.(e, (body) => arityOf(body.body.result, callee));
  return slots && slots.trip !== undefined ? slots : undefined;
}

/** The block with every loop in it (outermost first) rid of what its runs all recompute. */
function processBlock(b: Block, ctx: Ctx): Block {
  const stmts: Stmt[] = [];
  let result = b.result;
  let all = b.stmts;
  // A loop as the block's result is bound first, like one in a statement.
  if (result.tag === 'construct' && slotsOf(result as ConstructExpr, ctx.callee)) {
    const n = arityOf(result, ctx.callee);
    if (n.lin === 0) {
      const out = Array.from({ length: n.nl }, () => binder(ctx.names.fresh('out')));
      all = [...all, letS(out, [], result)];
      result = ret(out.map((x) => x.name));
    }
  }
  for (const s of all) {
    if (s.tag !== 'let' || s.rhs.tag !== 'construct') {
      stmts.push(s);
      continue;
    }
    let e = s.rhs as ConstructExpr;
    if (slotsOf(e, ctx.callee)) {
      for (;;) {
        const done = tabulateOne(e, stmts, ctx);
        if (!done) break;
        e = done;
        ctx.changed = true;
      }
    }
    const inner = mapChildren(e, (l) => ({ ...l, body: processBlock(l.body, ctx) }));
    stmts.push(inner === s.rhs ? s : { ...s, rhs: inner });
  }
  return { stmts, result };
}

/**
 * What a table holds: a costly statement's value, or the final value of a reduction (a carried
 * value of inner loop `loop` that only its own update chain reads, `sumq += q[c·d + r]`), both
 * depending on inner counters only; `node` is the loop whose body reads it.
 */
type Target =
  | { readonly kind: 'prim'; readonly stmt: Let; readonly node: Node; readonly name: string }
  | {
      readonly kind: 'reduction';
      readonly node: Node;
      readonly loop: Node;
      readonly slot: number;
      /** The statements of the loop's body that compute the carried value, in order. */
      readonly chain: readonly Stmt[];
      readonly param: string;
      readonly final: string;
      readonly init: string;
      readonly name: string;
      readonly dep: ReadonlySet<number>;
    };

/** What the analysis of one loop L finds: every name's origin and dependence, and the candidates. */
interface Analysis {
  readonly origin: Map<string, Origin>;
  readonly dep: Map<string, Dep>;
  readonly candidates: Target[];
}

function analyse(L: ConstructExpr, slots: InvariantSlots, ctx: Ctx): Analysis {
  const origin = new Map<string, Origin>();
  const dep = new Map<string, Dep>();
  const candidates: Target[] = [];
  let ids = 0;
  const walk = (node: Node, body: Lambda, inv: readonly { origin: Origin; dep: Dep }[]) => {
    const params = body.nlParams;
    params.forEach((p, k) => {
      if (k === 0) {
        origin.set(p.name, node.depth === 0 ? { kind: 'varying' } : { kind: 'counter', node });
        dep.set(p.name, node.depth === 0 ? 'varying' : new Set([node.id]));
      } else if (k >= node.slots.param && k < node.slots.param + node.slots.count) {
        const m = k - node.slots.param;
        origin.set(p.name, inv[m].origin);
        dep.set(p.name, inv[m].dep);
      } else {
        origin.set(p.name, { kind: 'varying' });
        dep.set(p.name, 'varying');
      }
    });
    const depOf = (n: string): Dep => dep.get(n) ?? 'varying';
    const near = feedingSides(body.body.stmts, body.body.result);
    const bindAll = (s: Stmt, bs: readonly Binder[], d: Dep) => {
      for (const b of bs) {
        dep.set(b.name, d);
        origin.set(b.name, d === 'varying' ? { kind: 'varying' } : { kind: 'stmt', node, stmt: s, name: b.name });
      }
    };
    for (const s of body.body.stmts) {
      if (s.tag === 'unpack') {
        bindAll(s, s.names, s.linear ? 'varying' : depOf(s.tuple));
        continue;
      }
      const rhs = s.rhs;
      if (rhs.tag === 'drop') continue;
      if (s.lin.length > 0) {
        bindAll(s, s.nl, 'varying');
        continue;
      }
      let d: Dep = 'varying';
      if (rhs.tag === 'lit') d = NONE;
      else if (rhs.tag === 'prim' || (rhs.tag === 'tuple' && !rhs.linear) || (rhs.tag === 'var' && !rhs.linear)) {
        d = NONE;
        forEachOperand(rhs, (n) => {
          d = join(d, depOf(n));
        });
      } else if (rhs.tag === 'construct' && rhs.bodies.length === 0 && rhs.lin.length === 0 && constructRule(rhs, 'cheap').cheap) {
        d = NONE;
        for (const n of rhs.nl) d = join(d, depOf(n));
      } else if (rhs.tag === 'construct') {
        const e = rhs as ConstructExpr;
        const inner = slotsOf(e, ctx.callee);
        // An inner counted loop whose trip count is the same in every run of L and of the loops
        // between: its body is part of the rectangular nest.
        if (inner && depOf(e.nl[inner.trip!]) !== 'varying' && (depOf(e.nl[inner.trip!]) as ReadonlySet<number>).size === 0 && e.bodies.length === 1) {
          const child: Node = { id: ++ids, depth: node.depth + 1, parent: node, e, slots: inner, stmt: s, counter: e.bodies[0].nlParams[0].name };
          const operands = e.nl.slice(inner.operand, inner.operand + inner.count).map((n) => ({ origin: origin.get(n) ?? { kind: 'varying' as const }, dep: depOf(n) }));
          walk(child, e.bodies[0], operands);
          if (node.depth > 0) candidates.push(...reductionsOf(child, s, node, depOf).filter((r) => !near.has(r.name)));
        }
      }
      bindAll(s, s.nl, d);
      if (node.depth > 0 && rhs.tag === 'prim' && PRIMS[rhs.op]?.costly && d !== 'varying' && d.size > 0 && s.nl.length === 1 && !near.has(s.nl[0].name))
        candidates.push({ kind: 'prim', stmt: s, node, name: s.nl[0].name });
    }
  };
  const root: Node = { id: 0, depth: 0, e: L, slots, counter: L.bodies[slots.body].nlParams[0].name };
  const operands = L.nl.slice(slots.operand, slots.operand + slots.count).map((n): { origin: Origin; dep: Dep } => ({ origin: { kind: 'outer', name: n }, dep: NONE }));
  walk(root, L.bodies[slots.body], operands);
  // A candidate read only by others (`exp(sin(x))`'s sin) is computed in their tables.
  const costly = new Set(candidates.flatMap((c) => (c.kind === 'prim' ? [c.name] : [])));
  const readByOthers = new Set<string>();
  const readers = (stmts: readonly Stmt[], result: Expr) => {
    for (const s of stmts) {
      if (s.tag === 'unpack') readByOthers.add(s.tuple);
      else if (!(s.nl.length === 1 && costly.has(s.nl[0].name))) forEachOperand(s.rhs, (n) => readByOthers.add(n));
    }
    forEachOperand(result, (n) => readByOthers.add(n));
  };
  visitBodies(L, readers);
  return { origin, dep, candidates: candidates.filter((c) => c.kind === 'reduction' || readByOthers.has(c.name)) };
}

/**
 * The names a side of a `select` reads (the prim's `sides`) or an operand only one branch of an
 * `if` reads (the construct's `sideOperands`), and what computes them: such a value stays next to
 * its test, where T puts its backward code under it (as opt/licm.ts keeps it). Tabulated, its
 * entry's cotangent would be 0 where the side is not taken, times a partial that may be infinite
 * there (`v > 0 ? Math.log(v) : 0` at v = 0): NaN.
 */
function feedingSides(stmts: readonly Stmt[], result: Expr): Set<string> {
  const near = new Set<string>();
  const sidesOf = (e: Expr) => {
    if (e.tag === 'prim') for (const i of PRIMS[e.op]?.sides ?? []) near.add(e.args[i]);
    if (e.tag === 'construct') for (const i of constructRule(e, 'licm').sideOperands?.(e) ?? []) near.add(e.nl[i]);
  };
  sidesOf(result);
  for (let i = stmts.length - 1; i >= 0; i--) {
    const s = stmts[i];
    if (s.tag === 'unpack') {
      if (s.names.some((b) => near.has(b.name))) near.add(s.tuple);
      continue;
    }
    if (s.rhs.tag === 'drop') continue;
    sidesOf(s.rhs);
    if (s.nl.some((b) => near.has(b.name))) forEachOperand(s.rhs, (n) => near.add(n));
  }
  return near;
}

/** What only computes a value (no bodies, no checks that throw): safe to compute anywhere or drop. */
function pure(s: Stmt): boolean {
  if (s.tag === 'unpack') return !s.linear;
  const r = s.rhs;
  if (s.lin.length > 0) return false;
  if (r.tag === 'lit' || r.tag === 'prim' || r.tag === 'drop') return true;
  if ((r.tag === 'tuple' || r.tag === 'var') && !r.linear) return true;
  return r.tag === 'construct' && r.bodies.length === 0 && r.lin.length === 0 && !!constructRule(r, 'cheap').cheap;
}

/**
 * The carried values of inner loop `m` (bound by `s` in `node`'s body) that are reductions of
 * values depending on inner counters only: each is updated by a chain of pure statements that
 * nothing else in the body reads, from a start that L does not change.
 */
function reductionsOf(m: Node, s: Let, node: Node, depOf: (n: string) => Dep): Target[] {
  const body = m.e.bodies[0];
  const result = body.body.result;
  if (result.tag !== 'ret' || result.lin.length > 0 || m.e.lin.length > 0) return [];
  const carried = body.nlParams.slice(m.slots.param + m.slots.count);
  if (carried.length !== result.nl.length || carried.length !== s.nl.length) return [];
  const inits = m.e.nl.slice(m.e.nl.length - carried.length);
  const out: Target[] = [];
  carried.forEach((p, j) => {
    const init = depOf(inits[j]);
    if (init === 'varying') return;
    const inChain = new Set([p.name]);
    const chain: Stmt[] = [];
    let d: Dep = init;
    for (const st of body.body.stmts) {
      const reads: string[] = [];
      if (st.tag === 'unpack') reads.push(st.tuple);
      else if (st.rhs.tag === 'drop') continue;
      else forEachOperand(st.rhs, (n) => reads.push(n));
      if (!reads.some((n) => inChain.has(n))) continue;
      if (!pure(st)) d = 'varying';
      for (const n of reads) if (!inChain.has(n)) d = join(d, depOf(n));
      for (const b of st.tag === 'let' ? st.nl : st.names) inChain.add(b.name);
      chain.push(st);
    }
    const final = result.nl[j];
    if (d === 'varying' || final === p.name || !inChain.has(final)) return;
    if (result.nl.some((n, k) => k !== j && inChain.has(n))) return;
    const dep = new Set([...d].filter((id) => id !== m.id));
    if (dep.size === 0) return;
    // The loop goes when this was its only carried value: then all of it must be pure.
    if (carried.length === 1 && !body.body.stmts.every(pure)) return;
    out.push({ kind: 'reduction', node, loop: m, slot: j, chain, param: p.name, final, init: inits[j], name: s.nl[j].name, dep });
  });
  return out;
}

/** Calls `f` on the statements and result of every body inside `e`, at any depth. */
function visitBodies(e: ConstructExpr, f: (stmts: readonly Stmt[], result: Expr) => void): void {
  const stack: Lambda[] = [...e.bodies];
  while (stack.length > 0) {
    const l = stack.pop()!;
    f(l.body.stmts, l.body.result);
    for (const s of l.body.stmts) if (s.tag === 'let' && s.rhs.tag === 'construct') stack.push(...s.rhs.bodies);
    if (l.body.result.tag === 'construct') stack.push(...l.body.result.bodies);
  }
}

/**
 * Tabulates the first candidate of loop L: the statements that build its table go to `out`;
 * returns L rewritten to read the table, or undefined when L has no candidate.
 */
function tabulateOne(source: ConstructExpr, out: Stmt[], ctx: Ctx): ConstructExpr | undefined {
  const slots = slotsOf(source, ctx.callee)!;
  const tripL = source.nl[slots.trip!];
  const known = ctx.literals.get(tripL);
  if (known !== undefined && !(known > 1)) return undefined;
  const L = boundResults(source, ctx);
  const a = analyse(L, slots, ctx);
  for (const c of a.candidates) {
    const r = tabulate(L, slots, a, c, ctx);
    if (r) {
      out.push(...r.before);
      return r.loop;
    }
  }
  return undefined;
}

function tabulate(L: ConstructExpr, slots: InvariantSlots, a: Analysis, goal: Target, ctx: Ctx): { before: Stmt[]; loop: ConstructExpr } | undefined {
  const at = goal.node;
  const target = goal.kind === 'prim' ? goal.stmt : undefined;
  const reduction = goal.kind === 'reduction' ? goal : undefined;
  const { names } = ctx;
  const fresh = (n: string) => names.fresh(n);
  const tripL = L.nl[slots.trip!];
  const path: Node[] = [];
  for (let n: Node | undefined = at; n && n.depth > 0; n = n.parent) path.unshift(n);
  const targetDep = reduction ? reduction.dep : (a.dep.get(goal.name) as ReadonlySet<number>);
  const kept = path.filter((n) => targetDep.has(n.id));

  // The slice: every statement the target reads, through the loops' invariant parameters.
  const slice: { stmt: Stmt; node: Node }[] = [];
  const seen = new Set<Stmt>();
  let ok = true;
  const visit = (n: string) => {
    const o = a.origin.get(n);
    if (!o || o.kind === 'varying') ok = false;
    else if (o.kind === 'stmt' && !seen.has(o.stmt)) {
      seen.add(o.stmt);
      if (o.stmt.tag === 'unpack') visit(o.stmt.tuple);
      else forEachOperand(o.stmt.rhs, visit);
      slice.push({ stmt: o.stmt, node: o.node });
    }
  };
  const chainNames = new Set<string>();
  if (reduction) {
    for (const st of reduction.chain) for (const b of st.tag === 'let' ? st.nl : st.names) chainNames.add(b.name);
    chainNames.add(reduction.param);
    visit(reduction.init);
    visit(reduction.loop.e.nl[reduction.loop.slots.trip!]);
    for (const st of reduction.chain) {
      const reads: string[] = [];
      if (st.tag === 'unpack') reads.push(st.tuple);
      else forEachOperand(st.rhs, (n) => reads.push(n));
      for (const n of reads) if (!chainNames.has(n)) visit(n);
    }
  } else visit(goal.name);
  // The trip counts of the loops of the nest, for the guard and the table's shape.
  const trips = path.map((n) => n.stmt && (n.e.nl[n.slots.trip!] as string));
  for (const t of trips) if (t) visit(t);
  if (!ok) return undefined;
  // What the trip counts need runs before the guard, unguarded: only arithmetic and lengths, which
  // cannot throw.
  const tripStmts = new Set<Stmt>();
  const markTrip = (n: string) => {
    const o = a.origin.get(n);
    if (o?.kind !== 'stmt' || tripStmts.has(o.stmt)) return;
    tripStmts.add(o.stmt);
    if (o.stmt.tag === 'unpack') markTrip(o.stmt.tuple);
    else forEachOperand(o.stmt.rhs, markTrip);
  };
  for (const t of trips) if (t) markTrip(t);
  for (const s of tripStmts) if (s.tag === 'let' && s.rhs.tag === 'construct' && s.rhs.op !== 'len') return undefined;

  // New names: a copy of each slice binder, a counter per kept loop.
  const copy = new Map<string, string>();
  const typeOf = (n: string): Type | undefined => ctx.types.get(n);
  const bindersOf = (s: Stmt) => (s.tag === 'let' ? s.nl : s.names);
  for (const { stmt } of slice) for (const b of bindersOf(stmt)) copy.set(b.name, fresh(b.name));
  for (const n of chainNames) copy.set(n, fresh(n));
  const counters = new Map<number, string>([...kept, ...(reduction ? [reduction.loop] : [])].map((n) => [n.id, fresh(n.counter)]));
  const rename = (n: string): string => {
    if (chainNames.has(n)) return copy.get(n)!;
    const o = a.origin.get(n)!;
    if (o.kind === 'outer') return o.name;
    if (o.kind === 'counter') return counters.get(o.node.id)!;
    if (o.kind === 'stmt') return copy.get(o.name)!;
    throw new Error(`tabulate: ${n} varies`);
  };
  const renamed = (s: Stmt): Stmt => {
    if (s.tag === 'unpack') return { ...s, tuple: rename(s.tuple), names: s.names.map((b) => withName(b, copy.get(b.name)!)) };
    return { ...s, nl: s.nl.map((b) => withName(b, copy.get(b.name)!)), rhs: renameOperands(s.rhs, rename) };
  };
  for (const [orig, c] of copy) {
    const type = typeOf(orig);
    if (type) ctx.types.set(c, type);
  }

  // Statements by where they run: before the guard (the trips), in the guarded arm before the
  // nest, or in the body of the innermost kept loop they depend on.
  const depthOfKept = new Map(kept.map((n, k) => [n.id, k]));
  const pre: Stmt[] = [];
  const top: Stmt[] = [];
  const levels: Stmt[][] = kept.map(() => []);
  // A reduction's own loop runs in the innermost kept loop's body: what depends on its counter runs in it.
  const reduced: Stmt[] = [];
  for (const { stmt } of slice) {
    if (stmt === target) continue;
    const d = a.dep.get(bindersOf(stmt)[0]?.name ?? '') as ReadonlySet<number> | undefined;
    if (reduction && d?.has(reduction.loop.id)) {
      reduced.push(renamed(stmt));
      continue;
    }
    let k = -1;
    for (const id of d ?? NONE) k = Math.max(k, depthOfKept.get(id) ?? -1);
    if (k >= 0) levels[k].push(renamed(stmt));
    else if (tripStmts.has(stmt)) pre.push(renamed(stmt));
    else top.push(renamed(stmt));
  }

  const real = (name: string): Binder => {
    ctx.types.set(name, REAL);
    return binder(name, REAL);
  };
  // The guard: L and every loop of the nest run.
  const zero = fresh('zero');
  pre.push(letS([real(zero)], [], lit(0)));
  let all: string | undefined;
  for (const t of [tripL, ...trips.filter((x): x is string => x !== undefined).map(rename)]) {
    const pos = fresh('runs');
    pre.push(letS([binder(pos, BOOL)], [], prim('gt', [t, zero])));
    if (all === undefined) all = pos;
    else {
      const both = fresh('runs');
      pre.push(letS([binder(both, BOOL)], [], prim('and', [all, pos])));
      all = both;
    }
  }
  const one = fresh('one');
  const guardTrip = fresh('guard');
  pre.push(letS([real(one)], [], lit(1)), letS([real(guardTrip)], [], prim('select', [all!, one, zero])));

  // The table's shape: a kept loop runs ⌈trip⌉ times (its trip is positive under the guard).
  const elemType = typeOf(goal.name) ?? REAL;
  const tableType = arrayType(elemType);
  const extents = kept.map((n) => {
    const e = fresh('extent');
    top.push(letS([real(e)], [], prim('ceil', [rename(n.e.nl[n.slots.trip!])])));
    return e;
  });
  let size = extents[0];
  for (let k = 1; k < extents.length; k++) {
    const s = fresh('size');
    top.push(letS([real(s)], [], prim('mul', [size, extents[k]])));
    size = s;
  }
  const fillZero = fresh('zero');
  const empty = fresh('table');
  ctx.types.set(empty, tableType);
  top.push(letS([real(fillZero)], [], lit(0)), letS([binder(empty, tableType)], [], construct('fill', [size, fillZero], [], [])));

  // The nest, innermost first: each kept loop's body computes its statements and its position in
  // the table (row-major over the kept loops), then runs the next kept loop or writes the entry.
  for (const c of counters.values()) ctx.types.set(c, REAL);
  const tableParams = kept.map(() => {
    const t = fresh('table');
    ctx.types.set(t, tableType);
    return t;
  });
  const position = (stmts: Stmt[], outer: string | undefined, extent: string | undefined, counter: string, hint: string): string => {
    if (outer === undefined) return counter;
    const scaled = fresh('scaled');
    const pos = fresh(hint);
    stmts.push(letS([real(scaled)], [], prim('mul', [outer, extent!])), letS([real(pos)], [], prim('add', [scaled, counter])));
    return pos;
  };
  const buildLevel = (k: number, outerPos: string | undefined, carriedIn: string): Expr => {
    const n = kept[k];
    const stmts: Stmt[] = [...levels[k]];
    const counter = counters.get(n.id)!;
    const pos = position(stmts, outerPos, extents[k], counter, `at_${n.counter}`);
    const done = fresh('table');
    ctx.types.set(done, tableType);
    if (k === kept.length - 1) {
      const value = target ? copy.get(goal.name)! : fresh(goal.name);
      if (target) stmts.push(renamed(target));
      else stmts.push(letS([binder(value, elemType)], [], reductionLoop(reduction!)));
      stmts.push(letS([binder(done, tableType)], [], construct('update', [tableParams[k], pos, value], [], [])));
    } else stmts.push(letS([binder(done, tableType)], [], buildLevel(k + 1, pos, tableParams[k])));
    const closed = closeLoop([block(stmts, ret([done]))], new Set([counter, tableParams[k]]), fresh, (x) => ctx.types.get(x));
    return construct(
      'loop',
      [rename(n.e.nl[n.slots.trip!]), ...closed.invariants, carriedIn],
      [],
      [{ nlParams: [real(counter), ...closed.bodies[0].inv, binder(tableParams[k], tableType)], linParams: [], body: closed.bodies[0].body }],
    );
  };
  // The reduction's loop with only its carried value, from its start: `loop(d, …, 0) [|r, …, s| s + q[c·d + r]]`.
  const reductionLoop = (r: Extract<Target, { kind: 'reduction' }>): Expr => {
    const counter = counters.get(r.loop.id)!;
    const param = copy.get(r.param)!;
    const stmts = [...reduced, ...r.chain.map(renamed)];
    const closed = closeLoop([block(stmts, ret([copy.get(r.final)!]))], new Set([counter, param]), fresh, (x) => ctx.types.get(x));
    const paramType = ctx.types.get(param) ?? REAL;
    return construct(
      'loop',
      [rename(r.loop.e.nl[r.loop.slots.trip!]), ...closed.invariants, rename(r.init)],
      [],
      [{ nlParams: [real(counter), ...closed.bodies[0].inv, binder(param, paramType)], linParams: [], body: closed.bodies[0].body }],
    );
  };
  const table = fresh('table');
  ctx.types.set(table, tableType);
  const guarded: Stmt[] = [...top, letS([binder(table, tableType)], [], buildLevel(0, undefined, empty))];
  const before = [...pre, ...underTripGuard(guardTrip, guarded, new Set([table, ...extents.slice(1)]), names)];

  // L's nest reads the table: the table and the extents become invariants of every loop on the
  // path down to the target, and each kept loop's body computes its position.
  // (The outermost kept loop's extent only sizes the table: its position is its counter.)
  const threaded: { key: string; type: Type }[] = [{ key: 'table', type: tableType }, ...extents.slice(1).map((_e, k) => ({ key: `extent${k + 1}`, type: REAL as Type }))];
  const outside = new Map<string, string>([['table', table], ...extents.slice(1).map((e, k) => [`extent${k + 1}`, e] as const)]);
  const rewrite = (level: number, e: ConstructExpr, incoming: ReadonlyMap<string, string>): ConstructExpr => {
    const n = level === 0 ? undefined : path[level - 1];
    const s = level === 0 ? slots : n!.slots;
    const body = e.bodies[s.body];
    const inside = new Map<string, string>();
    const extraOperands: string[] = [];
    const extraParams: Binder[] = [];
    for (const [key, operand] of incoming) {
      const type = threaded.find((t) => t.key === key)?.type ?? REAL;
      const param = fresh(key === 'at' ? 'at' : key);
      ctx.types.set(param, type);
      extraOperands.push(operand);
      extraParams.push(binder(param, type));
      inside.set(key, param);
    }
    const stmts: Stmt[] = [];
    const k = n ? kept.indexOf(n) : -1;
    if (k >= 0) inside.set('at', position(stmts, inside.get('at'), inside.get(`extent${k}`), n!.counter, `at_${n!.counter}`));
    const child = path[level];
    for (const st of body.body.stmts) {
      if (n === at && target && st === target) stmts.push({ ...target, rhs: construct('index', [inside.get('table')!, inside.get('at')!], [], []) });
      else if (n === at && reduction && st === reduction.loop.stmt) {
        const rest = withoutCarried(reduction.loop.stmt!, reduction.loop, reduction.slot, reduction.chain, chainNames);
        if (rest) stmts.push(rest);
        const b = reduction.loop.stmt!.nl[reduction.slot];
        stmts.push(letS([b], [], construct('index', [inside.get('table')!, inside.get('at')!], [], [])));
      } else if (child && st === child.stmt) stmts.push({ ...child.stmt, rhs: rewrite(level + 1, child.e, inside) });
      else stmts.push(st);
    }
    const params = [...body.nlParams.slice(0, s.param + s.count), ...extraParams, ...body.nlParams.slice(s.param + s.count)];
    const nl = [...e.nl.slice(0, s.operand + s.count), ...extraOperands, ...e.nl.slice(s.operand + s.count)];
    const newBody: Lambda = { nlParams: params, linParams: body.linParams, body: { stmts, result: body.body.result } };
    return construct(
      e.op,
      nl,
      e.lin,
      e.bodies.map((l, j) => (j === s.body ? newBody : l)),
    ) as ConstructExpr;
  };
  return { before, loop: rewrite(0, L, outside) };
}

/**
 * The construct with every body inside it that ends in a construct (`loop(…) […]` as a loop body's
 * result) or a primitive binding its results first: the nest's loops are then all statements, and
 * a carried value's update a binder of its own.
 */
function boundResults(e: ConstructExpr, ctx: Ctx): ConstructExpr {
  const body = (l: Lambda): Lambda => {
    const stmts = l.body.stmts.map((s) => (s.tag === 'let' && s.rhs.tag === 'construct' ? { ...s, rhs: boundResults(s.rhs as ConstructExpr, ctx) } : s));
    const r = l.body.result;
    if (r.tag === 'var' && !r.linear) return { ...l, body: { stmts, result: ret([r.name]) } };
    if (r.tag === 'prim' || r.tag === 'lit') {
      const out = binder(ctx.names.fresh('out'));
      return { ...l, body: { stmts: [...stmts, letS([out], [], r)], result: ret([out.name]) } };
    }
    if (r.tag !== 'construct') return stmts.every((s, k) => s === l.body.stmts[k]) ? l : { ...l, body: { stmts, result: r } };
    const inner = boundResults(r as ConstructExpr, ctx);
    const n = arityOf(inner, ctx.callee);
    if (n.lin > 0) return { ...l, body: { stmts, result: inner } };
    const out = Array.from({ length: n.nl }, () => binder(ctx.names.fresh('out')));
    return { ...l, body: { stmts: [...stmts, letS(out, [], inner)], result: ret(out.map((b) => b.name)) } };
  };
  const out = mapChildren(e, body);
  return out as ConstructExpr;
}

/** Loop `m`'s statement without carried value `j` (undefined when it was the only one: the loop goes). */
function withoutCarried(s: Let, m: Node, j: number, chain: readonly Stmt[], chainNames: ReadonlySet<string>): Let | undefined {
  const e = m.e;
  const body = e.bodies[0];
  const result = body.body.result as Extract<Expr, { tag: 'ret' }>;
  const n = result.nl.length;
  if (n === 1) return undefined;
  const skip = <T>(xs: readonly T[], at: number) => xs.filter((_x, k) => k !== at);
  // The chain goes with its value (and the drops of its names).
  const dropsChain = (st: Stmt) => st.tag === 'let' && st.rhs.tag === 'drop' && st.rhs.expr.tag === 'var' && chainNames.has(st.rhs.expr.name);
  const stmts = body.body.stmts.filter((st) => !chain.includes(st) && !dropsChain(st));
  const newBody: Lambda = { ...body, nlParams: skip(body.nlParams, m.slots.param + m.slots.count + j), body: { stmts, result: ret(skip(result.nl, j)) } };
  return { ...s, nl: skip(s.nl, j), rhs: construct(e.op, skip(e.nl, e.nl.length - n + j), e.lin, [newBody]) };
}

function withName(b: Binder, name: string): Binder {
  return b.type ? { name, type: b.type } : { name };
}
