// Loop-invariant code motion: a statement of a loop body that reads only the loop's invariants
// (and literals, and other such statements) is computed once before the loop and passed in as a
// new invariant. It runs before J, so the derivative passes see the hoisted value as an invariant
// operand: U then saves it once instead of stacking it every iteration (JAX's scan: intensive
// residuals are constants), and the primal half stops recomputing it.
//
// The pass is generic: a construct says where its invariants are with its `invariants` facet
// (a counted loop: the operands between the trip count and the carried values); constructs
// without one are left alone. Bodies are rewritten innermost first, so a value invariant in two
// nested loops leaves both.
//
// Everything in Linear A is pure, so hoisting out of a loop that runs zero times never changes a
// value; it could change a derivative (an infinite partial of code JavaScript never runs, times the
// zero cotangent of the empty loop), so hoisted code that computes something runs under the
// loop's `trip > 0` (constructs/cond/tripGuard.ts).
//
// The backend runs the same motion again on every finished def (erased, all non-linear), where it
// also moves element reads (`hoistInvariantsAfterAD`): the backward loops are made by T, after
// this pass ran, and read the invariants they need again in every iteration (gmm's
// `x[i·d + col] − μ[c·d + col]` in the loop over rows, forward and backward). Before J reads stay
// where they are: a read hoisted under a trip guard is a cond whose cotangent the backward pass
// adds into a fresh array in every run of the enclosing loop, instead of into the loop's carried one.
import { NameSupply, namesIn } from '../ir/build';
import { arityOf } from '../language/arity';
import { Binder, Expr, FnDef, Lambda, Program, Stmt, binder, construct, lambda } from '../ir/syntax';
import { forEachOperand, holdsConstruct, renameStmtOperands, renameOperands, rewriteDef, visitBlock, visitDef } from '../ir/traverse';

/** A statement with the variables it reads renamed (a drop's variable included; no bodies in hoisted code). */
function renameStmt(s: Stmt, r: (name: string) => string): Stmt {
  if (s.tag === 'unpack') return renameStmtOperands(s, r);
  const rhs = s.rhs.tag === 'drop' ? { ...s.rhs, expr: renameOperands(s.rhs.expr, r) } : renameOperands(s.rhs, r);
  return { ...s, rhs };
}
import { constructRule, hasEffect } from '../constructs/registry';
import { underTripGuard } from '../constructs/cond/tripGuard';
import type { ConstructExpr, Counts } from '../constructs/types';
import { mapSourceDefs } from './sourceDefs';
import { PRIMS } from '../prims/registry';

type Let = Extract<Stmt, { tag: 'let' }>;

/** Moves loop-invariant statements out of the loop bodies of every source def (defs without a role). */
export function hoistInvariants(p: Program): Program {
  return mapSourceDefs(p, (d, callee) => hoistInDef(d, callee, false));
}

/**
 * Loop-invariant statements and element reads moved out of the loops of a finished def (after
 * differentiation and erasure: nothing linear, no derivative taken of it any more).
 */
export function hoistInvariantsAfterAD(d: FnDef, callee: (fn: string) => Counts | undefined): FnDef {
  return hoistInDef(d, callee, true);
}

function hoistInDef(d: FnDef, callee: (fn: string) => Counts | undefined, reads: boolean): FnDef {
  // The rewriter recurses once per nesting level: defs without a loop (some are blocks nested
  // thousands deep) are not rewritten at all, and a def where nothing moves stays the same object.
  if (!holdsConstruct(d.body)) return d;
  let loops = false;
  const positive = new Set<string>();
  visitDef(d, {
    expr: (e) => {
      if (e.tag === 'construct' && constructRule(e, 'invariants').invariants) loops = true;
    },
    stmt: (s) => {
      if (s.tag === 'let' && s.rhs.tag === 'lit' && typeof s.rhs.value === 'number' && s.rhs.value > 0 && s.nl.length === 1) positive.add(s.nl[0].name);
    },
  });
  if (!loops) return d;
  let supply: NameSupply | undefined;
  let changed = false;
  const names = () => (supply ??= new NameSupply(namesIn(d)));
  const fresh = (hint: string) => names().fresh(hint);
  // The trip guards this pass puts around code it hoists out of an inner loop: what feeds them
  // ran unconditionally in the source, so it may leave the outer loop (feedingSides).
  const tripGuards = new WeakSet<Expr>();
  const moved = (e: ConstructExpr, emit: (s: Stmt) => void): ConstructExpr => {
    const guard = (trip: string | undefined, hoisted: readonly Stmt[], readLater: ReadonlySet<string>) => {
      const out = trip === undefined ? hoisted : underTripGuard(trip, hoisted, readLater, names(), positive.has(trip), reads);
      for (const s of out) if (s.tag === 'let' && s.rhs.tag === 'construct') tripGuards.add(s.rhs);
      return out;
    };
    const h = hoistFrom(e, emit, fresh, callee, guard, tripGuards, reads);
    if (h) changed = true;
    return h ?? e;
  };
  const out = rewriteDef(d, {
    stmt: (s, emit) => {
      if (s.tag === 'let' && s.rhs.tag === 'construct') emit({ ...s, rhs: moved(s.rhs, emit) });
      else emit(s);
    },
    result: (e, emit) => (e.tag === 'construct' ? moved(e, emit) : e),
  });
  return changed ? out : d;
}

/**
 * Whether a statement can leave the body, given the names available outside it. With `reads`,
 * element reads (a body-less construct whose record says `cheap`) may leave too.
 */
function hoistable(s: Stmt, outside: ReadonlySet<string>, reads: boolean): boolean {
  if (s.tag === 'unpack') return !s.linear && outside.has(s.tuple);
  if (s.lin.length > 0) return false;
  // Untyped, the trip guard could not be built (tripGuard.ts) and a read would run unguarded.
  if (reads && s.nl.some((b) => b.type === undefined)) return false;
  const rhs = s.rhs;
  switch (rhs.tag) {
    case 'prim':
    case 'tuple':
    case 'call':
      break;
    case 'construct':
      if (!reads || rhs.bodies.length > 0 || rhs.lin.length > 0 || !constructRule(rhs, 'licm').cheap || hasEffect(rhs)) return false;
      break;
    case 'drop':
      return rhs.expr.tag === 'var' && outside.has(rhs.expr.name);
    default:
      return false;
  }
  if (rhs.tag === 'call' && rhs.lin.length > 0) return false;
  let ok = true;
  forEachOperand(rhs, (n, linear) => {
    if (linear || !outside.has(n)) ok = false;
  });
  return ok;
}

/**
 * The construct with its invariant statements hoisted (emitted before it through `emit`), or
 * undefined when nothing moves.
 */
function hoistFrom(
  e: ConstructExpr,
  emitOutside: (s: Stmt) => void,
  fresh: (hint: string) => string,
  callee: (fn: string) => Counts | undefined,
  guard: (trip: string | undefined, hoisted: readonly Stmt[], readLater: ReadonlySet<string>) => readonly Stmt[],
  tripGuards: WeakSet<Expr>,
  reads: boolean,
): ConstructExpr | undefined {
  const slots = constructRule(e, 'invariants').invariants?.(e, (body) => arityOf(body.body.result, callee));
  if (!slots) return undefined;
  const before: Stmt[] = [];
  const emit = (s: Stmt) => before.push(s);
  const body = e.bodies[slots.body];
  // A nested block reads the enclosing body's names directly; renaming into it is not worth it
  // (the front end's loop bodies are flat after hoisting).
  if ([...body.body.stmts.map((s) => (s.tag === 'let' ? s.rhs : undefined)), body.body.result].some((x) => x?.tag === 'block' || (x?.tag === 'drop' && x.expr.tag === 'block'))) return undefined;
  const invParams = body.nlParams.slice(slots.param, slots.param + slots.count);
  // Inside the body, invariant parameter -> the operand it is outside.
  const outer = new Map<string, string>(invParams.map((b, m) => [b.name, e.nl[slots.operand + m]]));
  const literals = new Map<string, Stmt>();
  const hoisted: Stmt[] = [];
  let kept: Stmt[] = [];
  const outside = new Set<string>(outer.keys());
  const nearSelect = feedingSides(body.body.stmts, body.body.result, tripGuards);
  // A read after a statement with an effect stays: the effect may end the body first, and the
  // interpreter's out-of-range read is an error, so their order would show.
  let effects = false;
  for (const s of body.body.stmts) {
    effects ||= s.tag === 'let' && hasEffect(s.rhs);
    if (s.tag === 'let' && s.rhs.tag === 'lit' && s.nl.length === 1) {
      // Literals cost nothing: copy them out when a hoisted statement needs one, keep them inside.
      literals.set(s.nl[0].name, s);
      outside.add(s.nl[0].name);
      kept.push(s);
    } else if (hoistable(s, outside, reads && !effects) && !bindersOf(s).some((b) => nearSelect.has(b.name))) {
      hoisted.push(s);
      for (const b of bindersOf(s)) outside.add(b.name);
    } else kept.push(s);
  }
  if (hoisted.every((s) => s.tag === 'let' && s.rhs.tag === 'drop')) return undefined;

  // Outside, the hoisted statements read the operands and fresh copies of the literals they need.
  const rename = new Map(outer);
  const neededLiterals = new Set<string>();
  for (const s of hoisted) forEachStmtOperand(s, (n) => literals.has(n) && neededLiterals.add(n));
  for (const name of neededLiterals) {
    const copy = fresh(name);
    rename.set(name, copy);
    const lit = literals.get(name) as Let;
    emit({ ...lit, nl: [{ ...lit.nl[0], name: copy }] });
  }
  // The same computation hoisted twice (`h / 2` written four times in a loop body) is emitted
  // once: the loop then takes one invariant for it, not four.
  const computed = new Map<string, readonly Binder[]>();
  for (const s of hoisted) {
    const out = renameStmt(s, (n) => rename.get(n) ?? n);
    const key = out.tag === 'let' && out.rhs.tag !== 'drop' ? JSON.stringify(out.rhs) : undefined;
    const same = key === undefined ? undefined : computed.get(key);
    if (same && out.tag === 'let' && same.length === out.nl.length) {
      out.nl.forEach((b, k) => rename.set(b.name, same[k].name));
      continue;
    }
    if (key !== undefined && out.tag === 'let') computed.set(key, out.nl);
    emit(out);
  }

  // Inside, what the kept statements still read of the hoisted values becomes new invariants.
  let used = usedNames(kept, body.body.result);
  // A literal only hoisted statements read is no longer needed inside.
  const unusedLiteral = (s: Stmt) => s.tag === 'let' && s.rhs.tag === 'lit' && !used.has(s.nl[0].name);
  if (kept.some(unusedLiteral)) {
    kept = kept.filter((s) => !unusedLiteral(s));
    used = usedNames(kept, body.body.result);
  }
  const hoistedBinders = hoisted.flatMap(bindersOf).filter((b) => used.has(b.name));
  const inner = new Map<string, string>();
  // `inside`: the name the kept statements read it by (a hoisted binder or an old parameter).
  const newParams = hoistedBinders.map((b) => {
    const name = fresh(b.name);
    return { inside: b.name, b: b.type ? binder(name, b.type) : { name }, operand: rename.get(b.name) ?? b.name };
  });
  const keptInv = invParams.filter((b) => used.has(b.name)).map((b) => ({ inside: b.name, b, operand: outer.get(b.name)! }));
  // One parameter per distinct operand: the kept statements read the first one.
  const byOperand = new Map<string, Binder>();
  const invariants: { b: Binder; operand: string }[] = [];
  for (const x of [...keptInv, ...newParams]) {
    const first = byOperand.get(x.operand);
    if (first) inner.set(x.inside, first.name);
    else {
      byOperand.set(x.operand, x.b);
      if (x.inside !== x.b.name) inner.set(x.inside, x.b.name);
      invariants.push(x);
    }
  }
  const params = invariants.map(({ b }) => b);
  const operands = invariants.map(({ operand }) => operand);
  const r = (n: string) => inner.get(n) ?? n;
  const newBody: Lambda = lambda([...body.nlParams.slice(0, slots.param), ...params, ...body.nlParams.slice(slots.param + slots.count)], body.linParams, {
    stmts: kept.map((s) => renameStmt(s, r)),
    result: renameOperands(body.body.result, r),
  });
  const nl = [...e.nl.slice(0, slots.operand), ...operands, ...e.nl.slice(slots.operand + slots.count)];
  for (const s of guard(slots.trip === undefined ? undefined : e.nl[slots.trip], before, new Set(nl))) emitOutside(s);
  return construct(
    e.op,
    nl,
    e.lin,
    e.bodies.map((l, k) => (k === slots.body ? newBody : l)),
  ) as ConstructExpr;
}

/**
 * The names a side of a `select` in the body reads (its alternatives, both computed: the front
 * end's `?:` of cheap sides), and what computes them. Such code stays in the body: hoisted, its
 * partials would meet the sum of the iterations' cotangents outside, 0 where no iteration takes
 * the side, and an infinite one (1 / u under `u === 0 ? 0 : 1 / u` at u = 0) turns that into
 * NaN; next to the select, T runs its backward code under the test (ad/guards.ts). Likewise
 * what feeds an operand only one branch of an `if` reads (the construct's `sideOperands`).
 */
function feedingSides(stmts: readonly Stmt[], result: Expr, tripGuards: WeakSet<Expr>): Set<string> {
  const near = new Set<string>();
  const sidesOf = (e: Expr) => {
    if (e.tag === 'prim') for (const i of PRIMS[e.op]?.sides ?? []) near.add(e.args[i]);
    if (e.tag === 'construct' && !tripGuards.has(e)) for (const i of constructRule(e, 'licm').sideOperands?.(e) ?? []) near.add(e.nl[i]);
  };
  sidesOf(result);
  for (let i = stmts.length - 1; i >= 0; i--) {
    const s = stmts[i];
    if (s.tag === 'unpack') {
      if (s.names.some((b) => near.has(b.name))) near.add(s.tuple);
      continue;
    }
    const rhs = s.rhs.tag === 'drop' ? undefined : s.rhs;
    if (!rhs) continue;
    sidesOf(rhs);
    if (bindersOf(s).some((b) => near.has(b.name))) forEachOperand(rhs, (n) => near.add(n));
  }
  return near;
}

function bindersOf(s: Stmt): readonly Binder[] {
  return s.tag === 'unpack' ? s.names : [...s.nl, ...s.lin];
}

function forEachStmtOperand(s: Stmt, f: (name: string) => void): void {
  if (s.tag === 'unpack') f(s.tuple);
  else if (s.rhs.tag === 'drop' && s.rhs.expr.tag === 'var') f(s.rhs.expr.name);
  else forEachOperand(s.rhs, f);
}

/** The names read by statements and a result (nested bodies are closed: only their operands). */
function usedNames(stmts: readonly Stmt[], result: Expr): Set<string> {
  const used = new Set<string>();
  visitBlock(
    { stmts, result },
    {
      read: (n) => {
        used.add(n);
      },
    },
  );
  return used;
}
