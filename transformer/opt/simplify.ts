// The simplifier: copy propagation, symbolic-zero propagation, literal folding, common
// subexpressions of non-linear primitives and dead code. It keeps Linear A's usage discipline
// itself: the forward pass takes out the drops of variables, and the dead-code pass, which counts
// every use as it goes, puts back the drops and dups each block needs when it reaches the block's
// first statement (ir/usageBuilder.ts `settleBlock`, the fix-ups restoreLinearity would write), so
// its output is usage-correct without a whole-def repair. It uses only generic facts: every
// primitive is pure, and a linear primitive maps all-zero linear inputs to zero (that is what
// linear means).
//
// A construct's bodies are simplified in place, each as a closed scope: nothing computed
// outside a body is reused inside it (no common subexpression or shared literal crosses the
// boundary) and no code moves into or out of a body.
import { constructRule } from '../constructs/registry';
import { hasEffect, holdsCheck } from '../constructs/registry';
import { checksAlone } from './checksAlone';
import { KeptCalls, NO_KEPT_CALLS, keptCalls } from './keptCalls';
import { Binder, Block, Expr, FnDef, InternalError, Program, Stmt, Type, blockE, letS, zero as zeroE } from '../ir/syntax';
import type { ConstructExpr, FuseOps, InvariantSlots } from '../constructs/types';
import { binder, lprim } from '../ir/syntax';
import { NameSupply, namesIn } from '../ir/build';

/** A statement binding a construct that can absorb an addition (Simplifier.fuse). */
interface Site {
  readonly out: Stmt[];
  readonly index: number;
  stmt: Extract<Stmt, { tag: 'let' }>;
  e: ConstructExpr;
}
import { PRIMS } from '../prims/registry';
import { settleBlock } from '../ir/usageBuilder';
import type { Scalar } from '../prims/types';
import { DeepWalk } from '../ir/deepWalk';
import { calleesOfExpr, forEachOperand, hasBodies, mapChildren, renameOperands, visitDef, visitExpr } from '../ir/traverse';
import { hoistBlocks, rebindsAName } from './hoist';
import { fuseFills } from './fuseFills';
import { arityOf } from '../language/arity';

const isVarDrop = (e: Expr) => e.tag === 'drop' && (e.expr.tag === 'var' || (e.expr.tag === 'ret' && true));

/** Literals are shared like any other pure expression; -0 and 0 stay distinct. */
function literalKey(v: Scalar): string {
  return `lit:${typeof v}:${Object.is(v, -0) ? '-0' : String(v)}`;
}

/** A block that lost all its statements is its result (the IR never nests an empty block). */
const unwrap = (b: Block): Expr => (b.stmts.length === 0 ? b.result : blockE(b));

/**
 * One simplification of one def. Facts are keyed by name (names are unique in the def, see
 * `rebindsAName`), so they stay valid after the block that learned them; only the table of
 * common subexpressions is scoped, since a value computed in a nested block is gone after it.
 * Nested blocks recurse: the simplifier runs on generated code, which is flat.
 */
class Simplifier {
  private readonly subst = new Map<string, string>();
  private readonly zeros = new Map<string, Type>();
  private readonly literals = new Map<string, Scalar>();
  /** Variables bound to a tuple constructor: unpacking them is renaming. */
  private readonly tuples = new Map<string, readonly string[]>();
  /** Uses counted by the dead-code pass, of the statements kept so far. */
  private readonly counts = new Map<string, number>();
  /**
   * Linear results of constructs that can absorb an addition (ConstructRule.fuseAdd: a one-hot
   * added to an array is an accumulation), with the statement that binds them.
   */
  private readonly fusible = new Map<string, { readonly site: Site; readonly k: number }>();
  /** Statements a fusion moved, removed when their block is done. */
  private readonly fused = new Set<Stmt>();
  /** Where each name was bound: its block's statements and its position there. */
  private readonly boundAt = new Map<string, { readonly out: Stmt[]; readonly index: number }>();
  private names: NameSupply | undefined;
  /**
   * The linear variables of array type (every binder of the def, by name: names are unique),
   * gathered when a dead statement first asks (most defs have none to ask about).
   */
  private linearArrays: Set<string> | undefined;

  /** Bodies nested thousands deep are walked in stretches (one walk for each of the two passes). */
  walk = new DeepWalk();

  constructor(
    private readonly def: FnDef,
    private readonly calls: KeptCalls = NO_KEPT_CALLS,
  ) {}

  /** Calls inside constructs and blocks, by expression (asked of dead statements only). */
  private readonly callsIn = new WeakMap<Expr, readonly string[]>();

  /** Whether e calls (in its bodies too) a function of `fns`. */
  private calling(e: Expr, fns: ReadonlySet<string>): boolean {
    if (fns.size === 0) return false;
    while (e.tag === 'drop') e = e.expr;
    if (e.tag === 'call') return fns.has(e.fn);
    if (!hasBodies(e)) return false;
    let callees = this.callsIn.get(e);
    if (callees === undefined) this.callsIn.set(e, (callees = [...calleesOfExpr(e)]));
    return callees.some((f) => fns.has(f));
  }

  /** It has an effect, or calls a function that may have one: it stays where it is. */
  private effectful(e: Expr): boolean {
    return hasEffect(e) || this.calling(e, this.calls.effect);
  }

  /** It checks something at run time, or calls a function that may: kept unread, but it may move. */
  private checking(e: Expr): boolean {
    return holdsCheck(e) || this.calling(e, this.calls.check);
  }

  private linearArray(name: string): boolean {
    if (!this.linearArrays) {
      const found = new Set<string>();
      visitDef(this.def, {
        bind: (b, linear) => {
          if (linear && b.type?.tag === 'array') found.add(b.name);
        },
      });
      this.linearArrays = found;
    }
    return this.linearArrays.has(name);
  }

  /**
   * A dead body-less statement that reads a linear array and yields no array (`lindex(i ; ȧ)`)
   * stays, its result dropped: removing it would leave the whole array to drop, which costs one
   * unit per element where the read and the drop of its result cost two (the work never grows).
   */
  private narrowsAnArray(node: Extract<Stmt, { tag: 'let' }>): boolean {
    const e = node.rhs;
    if (e.tag === 'block' || (e.tag === 'construct' && e.bodies.length > 0) || node.lin.length === 0 || node.lin.some((b) => b.type?.tag !== 'real')) return false;
    let reads = false;
    forEachOperand(node.rhs, (n, linear) => {
      if (linear && this.linearArray(n)) reads = true;
    });
    return reads;
  }

  /** Appends a kept statement, noting where its names are bound and what it can absorb. */
  private push(out: Stmt[], st: Stmt): void {
    const index = out.length;
    out.push(st);
    for (const b of st.tag === 'let' ? [...st.nl, ...st.lin] : st.names) this.boundAt.set(b.name, { out, index });
    if (st.tag !== 'let') return;
    if (st.rhs.tag === 'construct' && constructRule(st.rhs, 'simplify').fuseAdd) {
      const site: Site = { out, index, stmt: st, e: st.rhs };
      st.lin.forEach((b, k) => this.fusible.set(b.name, { site, k }));
    }
  }

  /**
   * `ladd(; x, r)` with r bound in the same block by a construct that absorbs the addition. A
   * construct with one result moves here, fused (r is linear, so this is its only use, and its
   * operands are all bound before r was): `{ expr }`. One with several is fused where it stands,
   * when x is bound before it, and the sum is r: `{ rename }`. `inPlace`: every construct is fused
   * where it stands (an addition a fusion in place pushes into an operand of its construct, which
   * is bound before it: nothing can move after it).
   */
  private fuse(rhs: Expr, out: Stmt[], type: Type | undefined, inPlace = false): { expr: Expr } | { rename: string } | undefined {
    // Only an addition of arrays costs more than one unit; a sum of reals keeps its order (and
    // its rounding) as T wrote it.
    if (rhs.tag !== 'lprim' || rhs.op !== 'ladd' || rhs.lin.length !== 2 || type?.tag !== 'array') return undefined;
    for (const k of [1, 0]) {
      const entry = this.fusible.get(rhs.lin[k]);
      if (!entry || entry.site.out !== out) continue;
      const { site } = entry;
      const other = rhs.lin[1 - k];
      const single = !inPlace && site.stmt.nl.length === 0 && site.stmt.lin.length === 1;
      const bound = this.boundAt.get(other);
      if (!single && bound && bound.out === out && bound.index >= site.index) continue;
      const ops: FuseOps = {
        add: (x, y, t) => (single ? this.add(x, y, t, out) : this.addInPlace(x, y, t, out)),
        isZero: (n) => this.zeros.has(n),
        fusible: (n) => this.fusible.get(n)?.site.out === out,
        absorbs: (e) => e.tag === 'construct' && constructRule(e, 'simplify').fuseAdd !== undefined,
        fresh: (hint) => this.fresh(hint),
        addends: (e, result = 0) => {
          if (e.tag === 'lprim' && e.op === 'ladd') return result === 0 ? e.lin : [];
          if (e.tag !== 'construct') return [];
          const rule = constructRule(e, 'simplify');
          const at = result === 0 && rule.accumulates !== undefined ? rule.accumulates : rule.accumulatesResult?.(ops, e, result);
          return at !== undefined ? [e.lin[at]] : [];
        },
      };
      const fusedE = constructRule(site.e, 'simplify').fuseAdd?.(ops, site.e, other, entry.k);
      if (!fusedE) continue;
      // A fusion in place may have put the addition inside a body (a remat's): simplify it there.
      const merged = !single && hasBodies(fusedE) ? this.expr(fusedE, new Map()) : fusedE;
      if (single) {
        this.fusible.delete(rhs.lin[k]);
        this.fused.add(site.stmt);
        return { expr: merged };
      }
      const st = { ...site.stmt, rhs: merged };
      out[site.index] = st;
      site.stmt = st;
      // Fused where it stands, r is still the construct's result, now the sum: a later addition
      // to it may fuse again (a loop that starts from another loop's accumulation takes it on).
      if (merged.tag === 'construct') site.e = merged;
      else this.fusible.delete(rhs.lin[k]);
      return { rename: rhs.lin[k] };
    }
    return undefined;
  }

  /**
   * `ladd(; x, y)` fused into the construct that binds y where that stands, for a fusion in place
   * that pushes the addition into an operand y of its construct (a loop accumulating onto y);
   * y's name, now the sum, or undefined where it cannot be fused there (nothing is bound then).
   */
  private addInPlace(x: string, y: string, t: Type, out: Stmt[]): string | undefined {
    const f = this.fuse(lprim('ladd', [], [x, y]), out, t, true);
    return f && 'rename' in f ? f.rename : undefined;
  }

  private supply(): NameSupply {
    return (this.names ??= new NameSupply(namesIn(this.def)));
  }

  private fresh(hint: string): string {
    return this.supply().fresh(hint);
  }

  /** A name bound to a positive literal (a trip count that always runs). */
  private positive(n: string): boolean {
    const v = this.literals.get(n);
    return typeof v === 'number' && v > 0;
  }

  /** Binds `ladd(; x, y)` (fused where it can be) at the end of the block; its name. */
  private add(x: string, y: string, t: Type, out: Stmt[]): string {
    const sum = lprim('ladd', [], [x, y]);
    const f = this.fuse(sum, out, t);
    if (f && 'rename' in f) return f.rename;
    const name = this.fresh('acc');
    this.push(out, letS([], [binder(name, t)], f ? f.expr : sum));
    return name;
  }

  /**
   * `ladd(; a, b)` of two tuples built in this def (or zeros) is the tuple of its components'
   * sums: a zero component is the other one, and an array's sum may fuse into the construct that
   * made it (`add`). The cotangent of a record parameter read in several places is such a sum of
   * tuples, each all zeros but the fields one read saw; summed whole, the erased code added every
   * field's arrays, zeros (empty arrays) included, in a helper function (GradBench gmm).
   */
  private splitTupleAdd(rhs: Expr, node: Extract<Stmt, { tag: 'let' }>, out: Stmt[]): boolean {
    const t = node.lin[0]?.type;
    if (rhs.tag !== 'lprim' || rhs.op !== 'ladd' || rhs.lin.length !== 2 || node.lin.length !== 1 || node.nl.length > 0 || t?.tag !== 'tuple') return false;
    const parts = rhs.lin.map((n) => (this.zeros.has(n) ? null : this.tuples.get(n)));
    if (parts.some((p) => p === undefined) || parts.every((p) => p === null)) return false;
    const elems = t.elems.map((et, k) => {
      const [a, b] = parts.map((p) => (p === null || p === undefined || this.zeros.has(p[k]) ? undefined : p[k]));
      if (a !== undefined && b !== undefined) return this.add(a, b, et, out);
      if (a !== undefined || b !== undefined) return (a ?? b)!;
      const z = this.fresh('zero');
      this.zeros.set(z, et);
      this.push(out, letS([], [binder(z, et)], zeroE(et)));
      return z;
    });
    this.tuples.set(node.lin[0].name, elems);
    this.push(out, letS([], node.lin, { tag: 'tuple', linear: true, elems }));
    return true;
  }

  private rename(n: string): string {
    let m = n;
    while (this.subst.has(m)) m = this.subst.get(m)!;
    return m;
  }

  /**
   * A body-less expression with its operands renamed: the expression itself when none is (most
   * statements of generated code), so the statement is kept as it is instead of copied. A
   * construct is always copied: a fusion finds the statement it moved by identity.
   */
  private renamed(e: Expr): Expr {
    if (e.tag !== 'construct') {
      let any = false;
      forEachOperand(e, (n) => {
        any ||= this.subst.has(n);
      });
      if (!any) return e;
    }
    return renameOperands(e, (n) => this.rename(n));
  }

  /**
   * A right-hand side or result: operands renamed, nested bodies forwarded with their own CSE
   * scope (a nested block's extends the enclosing one; a construct's body starts empty).
   */
  private expr(e0: Expr, cse: Map<string, string>): Expr {
    if (e0.tag !== 'drop' && !hasBodies(e0)) return this.renamed(e0);
    const e = e0.tag === 'construct' ? this.sharedInvariants(e0) : e0;
    const scope = () => (e.tag === 'construct' ? new Map<string, string>() : new Map(cse));
    const mapped = mapChildren(
      e,
      (l) => (e.tag === 'construct' ? this.walk.body(l.body, () => ({ ...l, body: this.forward(l.body, scope()) })) : { ...l, body: this.forward(l.body, scope()) }),
      (inner) => this.expr(inner, new Map(cse)),
    );
    return mapped.tag === 'block' ? unwrap(mapped.block) : renameOperands(mapped, (n) => this.rename(n));
  }

  /**
   * A construct given the same invariant operand twice binds it once: inside the body the second
   * parameter is a name for the first (`subst`), so the body's common subexpressions see one
   * value. A fused loop (constructs/loop/fuseFill.ts) takes both halves' invariants, and read t[i]
   * once for each half (the demo's Fit Hessian).
   */
  private sharedInvariants(e: ConstructExpr): ConstructExpr {
    if (e.bodies.length !== 1) return e;
    const body = e.bodies[0];
    const slots = invariantSlots(e);
    if (slots?.body !== 0 || (slots.trip !== undefined && slots.trip >= slots.operand && slots.trip < slots.operand + slots.count)) return e;
    const first = new Map<string, number>();
    const gone = new Set<number>();
    for (let m = 0; m < slots.count; m++) {
      const operand = this.rename(e.nl[slots.operand + m]);
      const seen = first.get(operand);
      if (seen === undefined) first.set(operand, m);
      else {
        gone.add(m);
        this.subst.set(body.nlParams[slots.param + m].name, body.nlParams[slots.param + seen].name);
      }
    }
    if (gone.size === 0) return e;
    const stays = (from: number) => (_: unknown, k: number) => !gone.has(k - from);
    return { ...e, nl: e.nl.filter(stays(slots.operand)), bodies: [{ ...body, nlParams: body.nlParams.filter(stays(slots.param)) }] };
  }

  /** Forward rewriting: aliases, zeros, folding, CSE. Drops of bare variables are removed. */
  forward(body: Block, cse: Map<string, string>): Block {
    const out: Stmt[] = [];
    for (const node of body.stmts) {
      if (node.tag === 'unpack') {
        const tuple = this.rename(node.tuple);
        const known = this.tuples.get(tuple);
        if (known && known.length === node.names.length) {
          node.names.forEach((b, i) => {
            if (b.name !== known[i]) this.subst.set(b.name, known[i]);
          });
          continue;
        }
        this.push(out, { ...node, tuple });
        continue;
      }
      if (node.nl.length + node.lin.length === 0 && isVarDrop(node.rhs)) continue;
      const renamed = this.expr(node.rhs, cse);
      const fusion = this.fuse(renamed, out, node.lin[0]?.type);
      if (fusion && 'rename' in fusion) {
        this.subst.set(node.lin[0].name, fusion.rename);
        continue;
      }
      const rhs = fusion ? fusion.expr : renamed;
      const all = [...node.nl, ...node.lin];
      if (rhs.tag === 'var' && all.length === 1) {
        this.subst.set(all[0].name, rhs.name);
        continue;
      }
      if (rhs.tag === 'ret') {
        [...rhs.nl, ...rhs.lin].forEach((n, i) => this.subst.set(all[i].name, n));
        continue;
      }
      if (rhs.tag === 'tuple' && all.length === 1) this.tuples.set(all[0].name, rhs.elems);
      if (rhs.tag === 'zero') this.zeros.set(all[0].name, rhs.type);
      if (rhs.tag === 'lit') {
        const key = literalKey(rhs.value);
        const seen = cse.get(key);
        if (seen !== undefined) {
          this.subst.set(all[0].name, seen);
          continue;
        }
        cse.set(key, all[0].name);
        this.literals.set(all[0].name, rhs.value);
      }
      const split = this.splitTupleAdd(rhs, node, out);
      if (split) continue;
      if (rhs.tag === 'lprim' && rhs.lin.every((n) => this.zeros.has(n)) && node.lin[0]?.type) {
        const t = node.lin[0].type;
        this.zeros.set(node.lin[0].name, t);
        this.push(out, letS([], node.lin, zeroE(t)));
        continue;
      }
      if (rhs.tag === 'dup' && this.zeros.has(rhs.name)) {
        const t = this.zeros.get(rhs.name)!;
        node.lin.forEach((b) => this.zeros.set(b.name, t));
        this.push(out, letS([], [node.lin[0]], zeroE(t)));
        this.push(out, letS([], [node.lin[1]], zeroE(t)));
        continue;
      }
      if (rhs.tag === 'prim') {
        if (rhs.args.every((a) => this.literals.has(a))) {
          const v = PRIMS[rhs.op].impl(...rhs.args.map((a) => this.literals.get(a)!));
          this.literals.set(all[0].name, v);
          this.push(out, letS(node.nl, [], { tag: 'lit', value: v }));
          continue;
        }
        const folded = PRIMS[rhs.op].fold?.(rhs.args.map((a) => this.literals.get(a)));
        if (folded && 'arg' in folded) {
          this.subst.set(all[0].name, rhs.args[folded.arg]);
          continue;
        }
        if (folded) {
          this.literals.set(all[0].name, folded.literal);
          this.push(out, letS(node.nl, [], { tag: 'lit', value: folded.literal }));
          continue;
        }
        const key = `${rhs.op}(${rhs.args.join(',')})`;
        const seen = cse.get(key);
        if (seen !== undefined) {
          this.subst.set(all[0].name, seen);
          continue;
        }
        cse.set(key, all[0].name);
      }
      // A cheap body-less read (ConstructRule.cheap: an element or a length, which reverse mode
      // may recompute) is a function of its operands: the same read again is the first one, so an
      // element read twice before it is overwritten is stored once.
      // A check of the same operands again (ConstructRule.keptUnread with passesOn: `atmost`,
      // `within`; two loops over i < k reading beta[i]) cannot fail where the first passed: it is
      // the first.
      if (rhs.tag === 'construct' && rhs.bodies.length === 0 && rhs.lin.length === 0 && node.lin.length === 0 && node.nl.length === 1 && isRepeatable(constructRule(rhs, 'simplify'))) {
        const key = `construct:${rhs.op}(${rhs.nl.join(',')})`;
        const seen = cse.get(key);
        if (seen !== undefined) {
          this.subst.set(all[0].name, seen);
          continue;
        }
        cse.set(key, all[0].name);
      }
      this.push(out, rhs === node.rhs ? node : { ...node, rhs });
    }
    const stmts = this.fused.size > 0 ? out.filter((st) => !this.fused.has(st)) : out;
    return { stmts, result: this.expr(body.result, cse) };
  }

  forgetUses(): void {
    this.counts.clear();
  }

  private use(n: string): void {
    this.counts.set(n, (this.counts.get(n) ?? 0) + 1);
  }

  /** Counts every variable an expression reads, in its bodies too (most are leaves: no visitor). */
  private uses(e: Expr): void {
    const u = (n: string) => this.use(n);
    if (hasBodies(e)) {
      visitExpr(e, { read: u });
      return;
    }
    while (e.tag === 'drop') e = e.expr;
    forEachOperand(e, u);
  }

  /**
   * Removes bindings of pure expressions whose results are never used, in one backward pass: a
   * block is walked from its result to its first statement, counting only the uses of the
   * statements kept so far, so a binding used only by dead code is dead too (no repeated rounds).
   * By the first statement every use of what the block binds is counted, so the block is settled
   * there (`settleBlock`): a drop for a kept variable nothing reads any more (the forward pass took
   * the drops out; dead code took the last reader), a dup for a linear one read twice.
   */
  dce(body: Block, nlParams: readonly Binder[] = [], linParams: readonly Binder[] = []): Block {
    const result = this.dceExpr(body.result);
    const kept: Stmt[] = [];
    const unused = (n: string) => (this.counts.get(n) ?? 0) === 0;
    /** Copies whose dup is gone, with the variable they read instead. */
    const collapsed = new Map<string, string>();
    // Statements to look at before the next one of the block: what a construct kept only for its
    // checks leaves in its place (checksAlone), last first.
    const pending: Stmt[] = [];
    for (let i = body.stmts.length - 1; i >= 0 || pending.length > 0; ) {
      const node = pending.length > 0 ? pending.pop()! : body.stmts[i--];
      if (node.tag === 'let') {
        const binders = [...node.nl, ...node.lin];
        const dead = binders.every((b) => unused(b.name)) && node.rhs.tag !== 'drop' && !this.effectful(node.rhs);
        if (dead && binders.length > 0 && !this.narrowsAnArray(node) && !this.checking(node.rhs)) continue;
        // A check is kept though nothing reads it; a construct holding one and nothing anyone
        // reads is pruned to its checks, and where those check the same in every run of its
        // body, they run once in its place.
        const alone = dead && node.lin.length === 0 && node.rhs.tag === 'construct' && this.checking(node.rhs) ? this.pruneResults(node, unused) : undefined;
        const instead = alone?.nl.length === 0 && alone.rhs.tag === 'construct' ? checksAlone(alone.rhs, this.supply(), (n) => this.positive(n)) : undefined;
        if (instead) {
          for (const s of instead) pending.push(s);
          continue;
        }
        // A dup one of whose copies nobody reads is nothing: the other copy is its source.
        if (node.rhs.tag === 'dup') {
          const live = node.lin.filter((b) => !unused(b.name));
          if (live.length === 1) {
            collapsed.set(live[0].name, node.rhs.name);
            this.counts.set(node.rhs.name, (this.counts.get(node.rhs.name) ?? 0) + this.counts.get(live[0].name)!);
            continue;
          }
        }
        const pruned = alone ?? this.pruneResults(node, unused);
        const rhs = this.dceExpr(pruned.rhs);
        kept.push(rhs === pruned.rhs ? pruned : { ...pruned, rhs });
      } else {
        if (!node.linear && node.names.every((b) => unused(b.name))) continue;
        this.use(node.tuple);
        kept.push(node);
      }
    }
    kept.reverse();
    return settleBlock(nlParams, linParams, { stmts: kept, result }, (n) => this.counts.get(n) ?? 0, { fresh: (hint) => this.fresh(hint) }, collapsed);
  }

  /** A construct's statement without the non-linear results nobody reads, where its rule can do without them. */
  private pruneResults(node: Extract<Stmt, { tag: 'let' }>, unused: (n: string) => boolean): Extract<Stmt, { tag: 'let' }> {
    const e = node.rhs;
    if (e.tag !== 'construct') return node;
    const keep = node.nl.map((b) => !unused(b.name));
    const rule = constructRule(e, 'simplify');
    // Asked even when every result is read: a loop may still drop operands its body ignores.
    const partly = rule.prunePartly?.(e, keep, (x) => this.effectful(x) || this.checking(x));
    if (partly) return { ...node, nl: node.nl.filter((_, k) => partly.kept[k]), rhs: partly.expr };
    if (!node.nl.some((b) => unused(b.name))) return node;
    const pruned = rule.pruneResults(e, keep);
    return pruned ? { ...node, nl: node.nl.filter((_, k) => keep[k]), rhs: pruned } : node;
  }

  /** A kept right-hand side or result: nested blocks (also under drops) and construct bodies lose their dead code too. */
  private dceExpr(e: Expr): Expr {
    if (e.tag === 'block') return unwrap(this.dce(e.block));
    if (e.tag === 'drop' && hasBodies(e.expr)) {
      const inner = this.dceExpr(e.expr);
      return inner === e.expr ? e : { ...e, expr: inner };
    }
    if (e.tag === 'construct') {
      forEachOperand(e, (n) => this.use(n));
      return mapChildren(e, (l) => this.walk.body(l.body, () => ({ ...l, body: this.dce(l.body, l.nlParams, l.linParams) })));
    }
    this.uses(e);
    return e;
  }
}

/**
 * A construct's invariant slots (ConstructRule.invariants), where its bodies' result counts are
 * known without the program: undefined where one ends in a call of another function.
 */
function invariantSlots(e: ConstructExpr): InvariantSlots | undefined {
  try {
    return constructRule(e, 'simplify').invariants?.(e, (l) => arityOf(l.body.result, () => undefined));
  } catch (err) {
    if (err instanceof InternalError) return undefined;
    throw err;
  }
}

/** `calls`: the functions a call of which stays though nobody reads it (keptCalls; none by default). */
export function simplifyDef(d0: FnDef, calls: KeptCalls = NO_KEPT_CALLS): FnDef {
  // Substitutions are keyed by name: a def that binds a name twice is renamed apart first.
  const d = rebindsAName(d0) ? hoistBlocks(d0) : d0;
  const s = new Simplifier(d, calls);
  const forwarded = s.walk.run(() => s.forward(d.body, new Map()));
  s.walk = new DeepWalk(() => s.forgetUses());
  const body = s.walk.run(() => s.dce(forwarded, d.nlParams, d.linParams));
  // Once dead code is gone (a cotangent outside wrt), a loop may fuse with the loop filling its
  // stack: simplified again (which settles what the fusion left unread).
  const fused = fuseFills({ ...d, body });
  return fused ? simplifyDef(fused, calls) : { ...d, body };
}

/** Simplifies the named defs (default: all), keeping names and signatures. */
export function simplifyProgram(p: Program, fns?: readonly string[]): Program {
  const which = fns ? new Set(fns) : null;
  const calls = keptCalls(p);
  return { ...p, defs: p.defs.map((d) => (which === null || which.has(d.name) ? simplifyDef(d, calls) : d)) };
}

/** A body-less read that is a function of its operands (cheap), or a check that throws or passes an operand on. */
function isRepeatable(rule: { readonly cheap?: boolean; readonly keptUnread?: boolean; readonly passesOn?: number }): boolean {
  return rule.cheap === true || (rule.keptUnread === true && rule.passesOn !== undefined);
}
