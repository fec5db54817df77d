// A Builder that keeps Linear A's usage discipline as it builds: a pass that mentions a linear
// variable several times or a variable not at all (J: a tangent read by two rules, the tangent of
// a parameter no rule reads) gets the `dup`s and `drop`s when the block that binds the variable
// is finished, instead of a whole-def repair (`restoreLinearity`) afterwards.
//
// Uses are counted as statements are recorded, in one table shared by the builders of a def
// (names are unique in a def built from one NameSupply). A block, when finished, settles the
// variables it binds (and a body's parameters): by then every use is recorded, since a nested
// block is finished before the statement holding it. Copies are named and placed as
// restoreLinearity places them: a chain of dups right after the binding, the uses in order.
// A construct's body is closed (it reads only its parameters): one finished by a builder of this
// def is settled already; one built otherwise (by hand, or renamed as it was closed over what it
// reads, as the front end closes loop bodies and cond arms) is settled when the construct is
// recorded, from its own reads. Lowering, J and T build with it.
import { Builder, NameSupply } from './build';
import { usageFixUps } from './linearity';
import type { Binder, Block, Expr, Lambda, Stmt } from './syntax';
import { forEachOperand, mapChildren, renameOperands, renameStmtOperands, visitExpr } from './traverse';

/** What the builders of one def share: the uses of every name, and what is counted already. */
class Usage {
  constructor(readonly closedBodies: boolean) {}
  readonly uses = new Map<string, number>();
  /** Finished blocks and bare results: their reads are counted where they were built. */
  readonly counted = new WeakSet<object>();
  /** Bodies finished with their parameters (`finishBody`), or settled as a construct's: settled whole. */
  readonly bodies = new WeakSet<Block | Lambda>();
  /** The builder that finished a block: what it counted is taken back if the block is discarded. */
  readonly finishedBy = new WeakMap<Block, SettlingBuilder>();
}

interface Fix {
  readonly copies: readonly string[];
  next: number;
}

export class SettlingBuilder extends Builder {
  private constructor(
    names: NameSupply,
    private readonly usage: Usage,
  ) {
    super(names);
  }

  /**
   * The builder of a def's top-level body. `closedBodies`: a construct's bodies that no builder
   * finished with their parameters are settled when the construct is recorded (the front end's,
   * closed over what they read); otherwise they must come settled (J's and T's rules finish theirs).
   */
  static forDef(names: NameSupply, closedBodies = false): SettlingBuilder {
    return new SettlingBuilder(names, new Usage(closedBodies));
  }

  /** A builder for a block or body nested in this one's def. */
  override inner(): SettlingBuilder {
    const child = new SettlingBuilder(this.names, this.usage);
    if (this.usage.closedBodies) this.children.push(child);
    return child;
  }

  /** The names this builder counted as read, and its inner builders: what a discard takes back. */
  private readonly journal: string[] = [];
  private readonly children: SettlingBuilder[] = [];

  override bind(nl: Binder[], lin: Binder[], rhs: Expr): void {
    super.bind(nl, lin, this.count(rhs));
  }

  override unpack(linear: boolean, names: Binder[], tuple: string): void {
    this.read(tuple);
    super.unpack(linear, names, tuple);
  }

  override stmt(s: Stmt): void {
    if (s.tag === 'unpack') {
      this.read(s.tuple);
      return super.stmt(s);
    }
    const rhs = this.count(s.rhs);
    super.stmt(rhs === s.rhs ? s : { ...s, rhs });
  }

  /** The recorded statements as a nested block, its own variables settled. */
  override finish(result: Expr): Block {
    return this.finished([], [], result);
  }

  /** The recorded statements as a body with these parameters, parameters and variables settled. */
  override finishBody(nlParams: readonly Binder[], linParams: readonly Binder[], result: Expr): Block {
    const b = this.finished(nlParams, linParams, result);
    this.usage.bodies.add(b);
    return b;
  }

  private finished(nlParams: readonly Binder[], linParams: readonly Binder[], result: Expr): Block {
    const r = this.count(result);
    const b = this.settle(nlParams, linParams, super.finish(r), this.uses);
    this.usage.counted.add(b);
    this.usage.counted.add(b.result);
    if (this.usage.closedBodies) this.usage.finishedBy.set(b, this);
    return b;
  }

  /**
   * Takes back every read the builder that finished this block counted, and its inner builders'
   * (a discarded loop's branches read outer variables that closing their bodies renamed), so a
   * variable only that block read gets its drop.
   */
  override discard(block: Block): void {
    this.usage.finishedBy.get(block)?.uncount();
  }

  private uncount(): void {
    const { uses } = this.usage;
    for (const n of this.journal) uses.set(n, (uses.get(n) ?? 1) - 1);
    this.journal.length = 0;
    for (const c of this.children) c.uncount();
  }

  private readonly uses = (name: string): number => this.usage.uses.get(name) ?? 0;

  private read(name: string): void {
    const { uses } = this.usage;
    uses.set(name, (uses.get(name) ?? 0) + 1);
    // Only the front end discards blocks it built (a loop without effect).
    if (this.usage.closedBodies) this.journal.push(name);
  }

  /** Counts what e reads; a construct's bodies that no builder of this def settled are settled now. */
  private count(e: Expr): Expr {
    const { counted } = this.usage;
    if (counted.has(e)) return e;
    if (e.tag === 'drop') {
      const inner = this.count(e.expr);
      return inner === e.expr ? e : { tag: 'drop', expr: inner };
    }
    if (e.tag === 'block') {
      if (!counted.has(e.block)) visitExpr(e, { read: (n) => this.read(n) });
      return e;
    }
    forEachOperand(e, (n) => this.read(n));
    return e.tag === 'construct' && this.usage.closedBodies ? this.closedBodies(e) : e;
  }

  private closedBodies<E extends Expr & { bodies: readonly Lambda[] }>(e: E): E {
    return settledBodies(e, this.names, this.usage.bodies);
  }

  private settle(nlParams: readonly Binder[], linParams: readonly Binder[], blk: Block, usesOf: (name: string) => number): Block {
    return settleBlock(nlParams, linParams, blk, usesOf, this.names);
  }
}

/**
 * A construct's bodies, each settled: one known to be (`settled`: finished by a SettlingBuilder
 * with its parameters, or settled here before) is kept; one built otherwise (by hand, by a rule
 * from parts, or renamed when it was closed over what it reads: ir/close.ts) gets the drops and
 * copies its parameters and variables need from its own reads: a body is closed, so nothing
 * outside it reads what it binds. Constructs inside it are settled the same way; each body is
 * read once, at its own level.
 */
export function settledBodies<E extends Expr & { bodies: readonly Lambda[] }>(e: E, names: NameSupply, settled: WeakSet<Block | Lambda>): E {
  let changed = false;
  const bodies = e.bodies.map((l) => {
    const s = settledBody(l, names, settled);
    if (s !== l) changed = true;
    return s;
  });
  return changed ? { ...e, bodies } : e;
}

/**
 * One closed body settled from its own reads (see settledBodies); the same lambda when it needs
 * nothing. Known afterwards by its lambda: a rule that gives its body other parameters makes a
 * new lambda, which is settled again.
 */
export function settledBody<L extends Lambda>(l: L, names: NameSupply, settled: WeakSet<Block | Lambda>): L {
  if (settled.has(l) || settled.has(l.body)) return l;
  const own = new Map<string, number>();
  const usesOf = (n: string): number => own.get(n) ?? 0;
  const read = (n: string): void => {
    own.set(n, usesOf(n) + 1);
  };
  const readsOf = (e: Expr): Expr => {
    if (e.tag === 'drop') {
      const inner = readsOf(e.expr);
      return inner === e.expr ? e : { tag: 'drop', expr: inner };
    }
    if (e.tag === 'block') {
      // A nested block: read with this body's counts; its own variables settled now (all read).
      const inner = settleBlock([], [], readsIn(e.block), usesOf, names);
      return inner === e.block ? e : { tag: 'block', block: inner };
    }
    forEachOperand(e, read);
    return e.tag === 'construct' ? settledBodies(e, names, settled) : e;
  };
  const readsIn = (b: Block): Block => {
    let stmts: Stmt[] | undefined;
    b.stmts.forEach((s, i) => {
      if (s.tag === 'unpack') return read(s.tuple);
      const rhs = readsOf(s.rhs);
      if (rhs === s.rhs) return;
      stmts ??= [...b.stmts];
      stmts[i] = { ...s, rhs };
    });
    const result = readsOf(b.result);
    return stmts === undefined && result === b.result ? b : { stmts: stmts ?? b.stmts, result };
  };
  const body = settleBlock(l.nlParams, l.linParams, readsIn(l.body), usesOf, names);
  const out = body === l.body ? l : { ...l, body };
  settled.add(out);
  return out;
}

/**
 * A block with its parameters and the variables it binds settled, given every use of them (in
 * the block and the blocks nested in it; a construct's bodies are closed and settled apart):
 * `drop(x)` right after the binding of an unused x, a chain of `dup`s right after a linear x used
 * k > 1 times and its uses renamed to the copies in order. `aliases` renames what the block reads
 * (in it and its nested blocks): a copy whose dup is gone reads its source (uses counted there).
 * The block itself when nothing needs it.
 */
const NO_ALIASES: ReadonlyMap<string, string> = new Map();

export function settleBlock(
  nlParams: readonly Binder[],
  linParams: readonly Binder[],
  blk: Block,
  usesOf: (name: string) => number,
  names: Pick<NameSupply, 'fresh'>,
  aliases: ReadonlyMap<string, string> = NO_ALIASES,
): Block {
  const needs = (b: Binder, linear: boolean): boolean => {
    const u = usesOf(b.name);
    return u === 0 || (linear && u > 1);
  };
  let needed = aliases.size > 0 || nlParams.some((p) => needs(p, false)) || linParams.some((p) => needs(p, true));
  for (let i = 0; i < blk.stmts.length && !needed; i++) {
    const s = blk.stmts[i];
    needed = s.tag === 'let' ? s.nl.some((x) => needs(x, false)) || s.lin.some((x) => needs(x, true)) : s.names.some((x) => needs(x, s.linear));
  }
  if (!needed) return blk;
  const fixes = new Map<string, Fix>();
  const out: Stmt[] = [];
  const fixUps = (bs: readonly Binder[], linear: boolean): void => {
    for (const b of bs) {
      if (!needs(b, linear)) continue;
      const copies = usageFixUps(b.name, b.type, linear, usesOf(b.name), names, out);
      if (copies.length > 0) fixes.set(b.name, { copies, next: 0 });
    }
  };
  const rename = (n: string): string => {
    const a = aliases.get(n);
    if (a !== undefined) return rename(a);
    const f = fixes.get(n);
    return f === undefined ? n : f.copies[f.next++];
  };
  // A nested block reads the enclosing scope; a construct's bodies are closed.
  const renameExpr = (e: Expr): Expr =>
    renameOperands(
      mapChildren(e, (l) => (e.tag === 'block' ? { ...l, body: renameBlock(l.body) } : l), renameExpr),
      rename,
    );
  const renameBlock = (b: Block): Block => ({
    stmts: b.stmts.map((s) => (s.tag === 'let' ? { ...s, rhs: renameExpr(s.rhs) } : renameStmtOperands(s, rename))),
    result: renameExpr(b.result),
  });
  fixUps(nlParams, false);
  fixUps(linParams, true);
  for (const s of blk.stmts) {
    if (s.tag === 'let') {
      out.push(fixes.size + aliases.size === 0 ? s : { ...s, rhs: renameExpr(s.rhs) });
      fixUps(s.nl, false);
      fixUps(s.lin, true);
    } else {
      out.push(fixes.size + aliases.size === 0 ? s : renameStmtOperands(s, rename));
      fixUps(s.names, s.linear);
    }
  }
  return { stmts: out, result: fixes.size + aliases.size === 0 ? blk.result : renameExpr(blk.result) };
}

/**
 * A settled body without some of its parameters, which it must not read: a rule that finds a
 * parameter useless after building the body (a loop's inactive carried tangent) removes it and
 * the drop that settled it.
 */
export function withoutParams(l: Lambda, removed: ReadonlySet<string>): Lambda {
  if (removed.size === 0) return l;
  const dropsRemoved = (s: Stmt): boolean => s.tag === 'let' && s.rhs.tag === 'drop' && s.rhs.expr.tag === 'var' && removed.has(s.rhs.expr.name);
  return {
    nlParams: l.nlParams.filter((p) => !removed.has(p.name)),
    linParams: l.linParams.filter((p) => !removed.has(p.name)),
    body: { stmts: l.body.stmts.filter((s) => !dropsRemoved(s)), result: l.body.result },
  };
}
